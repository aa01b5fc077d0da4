// Version and build information.
#include "dg/core/version.hpp"

#include <Kokkos_Core.hpp>
#include <hdf5.h>
#include <mpi.h>

#include <sstream>

namespace dg {
std::string version_string(const std::string& program) {
  std::ostringstream os;
  int mpi_major = 0, mpi_minor = 0;
  MPI_Get_version(&mpi_major, &mpi_minor);
  os << program << " " << DG_VERSION << " (Kokkos " << KOKKOS_VERSION << " "
     << Kokkos::DefaultExecutionSpace::name() << ", MPI standard " << mpi_major << "." << mpi_minor
     << ", HDF5 " << H5_VERS_MAJOR << "." << H5_VERS_MINOR << "." << H5_VERS_RELEASE
#ifdef DG_HDF5_PARALLEL
     << " parallel"
#else
     << " serial"
#endif
     << ", orders 1.." << DG_MAX_ORDER << ")";
  return os.str();
}
} // namespace dg
