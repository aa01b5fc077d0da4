// Version and build information printed by --version of every executable.
#pragma once
#include <string>

namespace dg {
/// e.g. "dgsolve 0.1.0 (Kokkos 30401 Serial, MPI 4.0, HDF5 1.10.8 parallel, p <= 15)"
std::string version_string(const std::string& program);
} // namespace dg
