// Run-time defaults of the sanitizers, compiled into every executable of a DG_SANITIZE build
// (cmake/DgSanitize.cmake), so that ctest, the shell tests and a run by hand behave the same.
// ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS in the environment still override them.
//
// Leaks: LeakSanitizer stays on for dgsolve's own code. The suppressions below cover memory that
// the MPI library allocates in MPI_Init and never frees (MPICH keeps its process-group and
// topology data until exit); a leak reported through any frame of that library is not ours.

extern "C" {

const char* __asan_default_options() { return "detect_leaks=1:check_initialization_order=1"; }

const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

const char* __lsan_default_suppressions() { return "leak:libmpich.so\n"; }

} // extern "C"
