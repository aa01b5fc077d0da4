// dgsolve: explicit modal DG for advection-diffusion on hexahedra, MPI + Kokkos.
//   mpirun -n 4 dgsolve inputs/advect.yaml [--set key=value] [--restart file.h5] [--quiet]
#include "dg/core/error.hpp"
#include "dg/core/mpi_guard.hpp"
#include "dg/core/version.hpp"
#include "dg/io/cli.hpp"
#include "dg/io/config.hpp"
#include "dg/solver.hpp"

#include "dg/core/kokkos.hpp"
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm error_comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &error_comm);
  int status = 0;
  {
    dg::KokkosScope kokkos(argc, argv);
    try {
      const int launched = dg::launcher_size();
      if (launched > 0 && launched != size)
        DG_INPUT_ERROR("dgsolve: the launcher started " << launched << " ranks but MPI sees "
                                                        << size << " (an mpirun of another MPI "
                                                        << "library?); use this build's mpiexec");
      const dg::io::CommandLine cl = dg::io::parse_command_line(argc, argv);
      if (cl.help || cl.version || cl.help_input) {
        if (rank == 0) {
          if (cl.version) std::printf("%s\n", dg::version_string("dgsolve").c_str());
          if (cl.help) std::printf("%s", dg::io::dgsolve_help().c_str());
          if (cl.help_input) std::printf("%s", dg::io::config_reference_markdown().c_str());
        }
      } else {
        dg::io::Config cfg = dg::io::load_config(cl.input, cl.overrides);
        if (cl.quiet) cfg.output.quiet = true;
        dg::Solver solver(cfg, MPI_COMM_WORLD);
        if (cl.restart.empty())
          solver.initialize();
        else
          solver.restart(cl.restart);
        const dg::GlobalDiagnostics d = solver.run();
        if (!d.finite) status = 3;
      }
    } catch (const dg::InputError& e) {
      dg::fail_collectively(error_comm, e.what());
      status = 2;
    } catch (const std::exception& e) {
      dg::fail_collectively(error_comm, std::string("dgsolve: error: ") + e.what());
      status = 1;
    }
  }
  MPI_Comm_free(&error_comm);
  MPI_Finalize();
  return status;
}
