// Command-line parsing of dgsolve. Hand-written (no CLI library) so that every message is ours.
#include "dg/io/cli.hpp"

#include "dg/core/error.hpp"
#include "dg/io/config.hpp"

namespace dg::io {
namespace {

const char* const kSeeHelp = "; see dgsolve --help";

/// Matches `--name VALUE` and `--name=VALUE`; advances `i` past what it consumed.
bool option_value(const std::string& arg, const std::string& name, int argc, char** argv, int& i,
                  std::string& value) {
  if (arg == name) {
    if (i + 1 >= argc) DG_INPUT_ERROR("dgsolve: " << name << " needs an argument" << kSeeHelp);
    value = argv[++i];
    return true;
  }
  if (arg.compare(0, name.size() + 1, name + "=") == 0) {
    value = arg.substr(name.size() + 1);
    return true;
  }
  return false;
}

} // namespace

CommandLine parse_command_line(int argc, char** argv) {
  CommandLine cl;
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (only_positional || arg.empty() || arg[0] != '-' || arg == "-") {
      if (!cl.input.empty())
        DG_INPUT_ERROR("dgsolve: more than one input file (" << cl.input << ", " << arg << ")"
                                                             << kSeeHelp);
      cl.input = arg;
    } else if (arg == "--") {
      only_positional = true;
    } else if (option_value(arg, "--set", argc, argv, i, value)) {
      const auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0)
        DG_INPUT_ERROR("dgsolve: --set " << value
                                         << ": expected KEY=VALUE, e.g. --set time.cfl=0.4");
      cl.overrides.push_back(value);
    } else if (option_value(arg, "--restart", argc, argv, i, value)) {
      if (value.empty()) DG_INPUT_ERROR("dgsolve: --restart needs a file name" << kSeeHelp);
      cl.restart = value;
    } else if (arg == "--quiet" || arg == "-q") {
      cl.quiet = true;
    } else if (arg == "--help" || arg == "-h") {
      cl.help = true;
    } else if (arg == "--version") {
      cl.version = true;
    } else if (arg == "--help-input") {
      cl.help_input = true;
    } else {
      DG_INPUT_ERROR("dgsolve: unknown option " << arg << kSeeHelp);
    }
  }
  if (cl.input.empty() && !cl.help && !cl.version && !cl.help_input)
    DG_INPUT_ERROR("dgsolve: no input file given (dgsolve [options] input.yaml)" << kSeeHelp);
  return cl;
}

std::string dgsolve_help() {
  return R"(usage: dgsolve [options] input.yaml
       mpirun -n 4 dgsolve [options] input.yaml

Modal discontinuous Galerkin solver for advection-diffusion on hexahedral meshes.
Reads one YAML file (docs/input.md lists every key), writes HDF5+XDMF snapshots,
HDF5 checkpoints and a CSV log to output.directory.

options:
  --set KEY=VALUE   override a YAML entry before validation; repeatable, later wins.
                    VALUE is a YAML scalar or flow list:
                      --set time.cfl=0.4 --set physics.velocity=[1,0,0]
  --restart FILE    resume from a checkpoint written by dgsolve (any rank count)
  -q, --quiet       no progress lines (errors are still printed)
  -h, --help        print this help and exit
  --help-input      print the reference of every YAML key and exit
  --version         print version and build information and exit

exit status: 0 success, 2 bad input (one-line reason on stderr), 1 other failure.
)";
}

} // namespace dg::io
