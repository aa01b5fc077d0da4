// dgbench: benchmarks of dgsolve's kernels.
//   dgbench transforms | stage | integrate [--help] [options] [--csv f] [--json f]
// Sub-commands live in src/bench/ and register themselves (dg/bench/bench.hpp).
#include "dg/bench/bench.hpp"
#include "dg/core/error.hpp"
#include "dg/core/mpi_guard.hpp"
#include "dg/core/version.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace {
void usage() {
  std::printf("usage: dgbench <command> [--help] [options]\n\ncommands:\n");
  for (const auto& kv : dg::bench::commands())
    std::printf("  %-12s %s\n", kv.first.c_str(), kv.second.first.c_str());
  std::printf("\nEvery command takes --csv FILE and --json FILE; `dgbench <command> --help` "
              "lists its options.\n");
}
} // namespace

int main(int argc, char** argv) {
  return dg::run_main(argc, argv, "dgbench", [&](int rank) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
      if (rank == 0) usage();
      return 0;
    }
    if (args[0] == "--version") {
      if (rank == 0) std::printf("%s\n", dg::version_string("dgbench").c_str());
      return 0;
    }
    const auto& cmds = dg::bench::commands();
    const auto it = cmds.find(args[0]);
    if (it == cmds.end()) {
      std::string valid;
      for (const auto& kv : cmds)
        valid += (valid.empty() ? "" : ", ") + kv.first;
      DG_INPUT_ERROR("dgbench: unknown command '" << args[0] << "' (valid: " << valid << ")");
    }
    dg::bench::Options opts(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
    return it->second.second(opts);
  });
}
