// Command line of dgsolve: `dgsolve [options] input.yaml`.
#pragma once

#include <string>
#include <vector>

namespace dg::io {

struct CommandLine {
  std::string input;                  // the YAML file (required unless --help / --version)
  std::vector<std::string> overrides; // --set key=value, in order (later ones win)
  std::string restart;                // --restart FILE: checkpoint to resume from
  bool quiet = false;                 // --quiet / -q
  bool help = false;                  // --help / -h
  bool version = false;               // --version
  bool help_input = false;            // --help-input: print the YAML key reference
};

/// Parses argv. Throws InputError with a one-line message (`dgsolve: unknown option --foo; see
/// dgsolve --help`) for an unknown option, a missing option argument or a missing input file.
CommandLine parse_command_line(int argc, char** argv);

/// The text printed by `dgsolve --help`.
std::string dgsolve_help();

} // namespace dg::io
