// Start-up and failure handling shared by the MPI mains: refusing a launcher whose rank count
// disagrees with MPI_Comm_size, and ending every rank promptly with one message on an error.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

namespace dg {

/// Rank count announced by the launcher (PMI_SIZE, OMPI_COMM_WORLD_SIZE, ...), or -1.
int launcher_size();

/// Called on the rank that caught an error. When every rank reports the same error within a
/// short grace period (an input error all ranks detect), rank 0 prints it once and the call
/// returns so that main can exit(2) cleanly; otherwise this rank prints it and calls
/// MPI_Abort(comm, 2), so that no rank is left waiting in a collective.
void fail_collectively(MPI_Comm error_comm, const std::string& message);

/// The frame of an MPI + Kokkos main: MPI_Init, Kokkos (seeing only --kokkos-* arguments),
/// `body(rank)` returning the exit status (argc and argv as MPI_Init leaves them), an InputError
/// turned into one message and status 2 and any other exception into `program: error: ...` and
/// status 1 (both through fail_collectively), then finalisation.
int run_main(int& argc, char**& argv, const std::string& program,
             const std::function<int(int rank)>& body);

} // namespace dg
