// Error handling: an always-on verify macro for internal invariants and an InputError type for
// user mistakes (bad YAML, flags, mesh files), which the mains turn into one line and exit 2.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace dg {

/// A mistake in user input. what() is the complete one-line message
/// (`file: key = value: what is valid`); mains print it and exit with status 2.
class InputError : public std::runtime_error {
public:
  explicit InputError(const std::string& msg) : std::runtime_error(msg) {}
};

/// A broken internal invariant (a bug, or a failure of the system: I/O, MPI).
class InternalError : public std::runtime_error {
public:
  explicit InternalError(const std::string& msg) : std::runtime_error(msg) {}
};

namespace detail {
[[noreturn]] inline void verify_failed(const char* cond, const std::string& msg, const char* file,
                                       int line) {
  std::ostringstream os;
  os << "verification failed: (" << cond << ") " << msg << " [" << file << ":" << line << "]";
  throw InternalError(os.str());
}
} // namespace detail

} // namespace dg

/// Always-on check (also in Release). `msg` is streamed: DG_VERIFY(n > 0, "n = " << n).
#define DG_VERIFY(cond, msg)                                                                       \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::ostringstream dg_verify_os_;                                                            \
      dg_verify_os_ << msg;                                                                        \
      ::dg::detail::verify_failed(#cond, dg_verify_os_.str(), __FILE__, __LINE__);                 \
    }                                                                                              \
  } while (0)

/// Throw an InputError whose message is streamed: DG_INPUT_ERROR(file << ": x = " << x << ...).
#define DG_INPUT_ERROR(msg)                                                                        \
  do {                                                                                             \
    std::ostringstream dg_input_os_;                                                               \
    dg_input_os_ << msg;                                                                           \
    throw ::dg::InputError(dg_input_os_.str());                                                    \
  } while (0)
