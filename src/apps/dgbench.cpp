// dgbench: benchmarks of dgsolve's kernels.
//   dgbench transforms | stage | integrate [--help] [options] [--csv f] [--json f]
// Sub-commands live in src/bench/ and register themselves (dg/bench/bench.hpp).
#include "dg/bench/bench.hpp"
#include "dg/core/error.hpp"
#include "dg/core/mpi_guard.hpp"
#include "dg/core/version.hpp"

#include "dg/core/kokkos.hpp"
#include <mpi.h>

#include <cstdio>
#include <exception>
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
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm error_comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &error_comm);
  int status = 0;
  {
    dg::KokkosScope kokkos(argc, argv);
    try {
      std::vector<std::string> args(argv + 1, argv + argc);
      if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        if (rank == 0) usage();
      } else if (args[0] == "--version") {
        if (rank == 0) std::printf("%s\n", dg::version_string("dgbench").c_str());
      } else {
        const auto& cmds = dg::bench::commands();
        const auto it = cmds.find(args[0]);
        if (it == cmds.end()) {
          std::string valid;
          for (const auto& kv : cmds) valid += (valid.empty() ? "" : ", ") + kv.first;
          DG_INPUT_ERROR("dgbench: unknown command '" << args[0] << "' (valid: " << valid << ")");
        }
        dg::bench::Options opts(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
        status = it->second.second(opts);
      }
    } catch (const dg::InputError& e) {
      dg::fail_collectively(error_comm, e.what());
      status = 2;
    } catch (const std::exception& e) {
      dg::fail_collectively(error_comm, std::string("dgbench: error: ") + e.what());
      status = 1;
    }
  }
  MPI_Comm_free(&error_comm);
  MPI_Finalize();
  return status;
}
