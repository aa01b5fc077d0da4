// Run-time defaults of the sanitizers, compiled into every executable of a DG_SANITIZE build
// (cmake/DgSanitize.cmake), so that ctest, the shell tests and a run by hand behave the same.
// ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS in the environment still override them.
//
// Leaks: LeakSanitizer is on, with no suppressions. MPICH 4.0 (Debian 12) frees what MPI_Init
// allocates by the end of MPI_Finalize, and so do HDF5, METIS, yaml-cpp and Kokkos 3.4: every
// report is a real leak. With an MPI library whose allocations outlive MPI_Finalize, give
// LSAN_OPTIONS=suppressions=FILE, FILE holding lines such as "leak:libopen-pal.so".

extern "C" {

const char* __asan_default_options() {
  return "detect_leaks=1:check_initialization_order=1";
}

const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}

} // extern "C"
