// Launcher checks and collective failure.
#include "dg/core/mpi_guard.hpp"

#include "dg/core/error.hpp"
#include "dg/core/kokkos.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace dg {

int launcher_size() {
  for (const char* var : {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS_WORLD_SIZE",
                          "SLURM_NTASKS", "PMIX_SIZE"}) {
    if (const char* v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n > 0 && std::string(var) != "SLURM_NTASKS") return n;
    }
  }
  return -1;
}

void fail_collectively(MPI_Comm error_comm, const std::string& message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(error_comm, &rank);
  MPI_Comm_size(error_comm, &size);
  if (size == 1) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return;
  }
  MPI_Request req;
  MPI_Ibarrier(error_comm, &req);
  const auto t0 = std::chrono::steady_clock::now();
  int done = 0;
  while (!done && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3)) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (done) { // every rank failed the same way
    if (rank == 0) std::fprintf(stderr, "%s\n", message.c_str());
    return;
  }
  std::fprintf(stderr, "%s (rank %d)\n", message.c_str(), rank);
  std::fflush(stderr);
  // The launcher forwards this rank's stderr through a pipe and handles the abort through
  // another socket; when both are pending at once (a loaded machine), MPICH's hydra can tear the
  // job down before it forwards the message. A pause lets it forward the line first.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int run_main(int& argc, char**& argv, const std::string& program,
             const std::function<int(int rank)>& body) {
#if defined(KOKKOS_ENABLE_CUDA)
  // CUDA loads every kernel when the context is created (before MPI_Init, which may create
  // one) instead of at its first launch: lazy loading put about 9 ms into the first time step
  // on the H100, 7% of a 200-step run at p = 7 (docs/performance.md). A CUDA_MODULE_LOADING
  // the user sets wins.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
#endif
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm error_comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &error_comm);
  int status = 0;
  {
    KokkosScope kokkos(argc, argv);
    try {
      status = body(rank);
    } catch (const InputError& e) {
      fail_collectively(error_comm, e.what());
      status = 2;
    } catch (const std::exception& e) {
      fail_collectively(error_comm, program + ": error: " + e.what());
      status = 1;
    }
  }
  MPI_Comm_free(&error_comm);
  MPI_Finalize();
  return status;
}

} // namespace dg
