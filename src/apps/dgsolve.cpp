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
#include <cstdlib>
#include <limits>
#include <string>

namespace {
// Test hooks (tests/cli/failures.sh): a failure that only one rank sees.
int test_rank(const char* var) {
  const char* v = std::getenv(var);
  return v && *v ? std::atoi(v) : -1;
}

/// DG_TEST_FAIL_RANK=r: rank r alone meets an input error during set-up.
void test_fail_on_one_rank(int rank) {
  if (test_rank("DG_TEST_FAIL_RANK") == rank)
    DG_INPUT_ERROR("dgsolve: DG_TEST_FAIL_RANK = " << rank
                                                   << ": test failure injected on this rank only");
}

/// DG_TEST_NAN_RANK=r: one modal coefficient of rank r's first element becomes NaN.
void test_poison_one_rank(dg::Solver& solver, int rank) {
  if (test_rank("DG_TEST_NAN_RANK") != rank) return;
  auto u = Kokkos::subview(solver.block().u, 0, 0);
  Kokkos::deep_copy(u, std::numeric_limits<double>::quiet_NaN());
}
} // namespace

int main(int argc, char** argv) {
  return dg::run_main(argc, argv, "dgsolve", [&](int rank) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int launched = dg::launcher_size();
    if (launched > 0 && launched != size)
      DG_INPUT_ERROR("dgsolve: the launcher started " << launched << " ranks but MPI sees " << size
                                                      << " (an mpirun of another MPI "
                                                      << "library?); use this build's mpiexec");
    const dg::io::CommandLine cl = dg::io::parse_command_line(argc, argv);
    if (cl.help || cl.version || cl.help_input) {
      if (rank == 0) {
        if (cl.version) std::printf("%s\n", dg::version_string("dgsolve").c_str());
        if (cl.help) std::printf("%s", dg::io::dgsolve_help().c_str());
        if (cl.help_input) std::printf("%s", dg::io::config_reference_markdown().c_str());
      }
      return 0;
    }
    dg::io::Config cfg = dg::io::load_config(cl.input, cl.overrides);
    if (cl.quiet) cfg.output.quiet = true;
    dg::Solver solver(cfg, MPI_COMM_WORLD);
    test_fail_on_one_rank(rank);
    if (cl.restart.empty())
      solver.initialize();
    else
      solver.restart(cl.restart);
    test_poison_one_rank(solver, rank);
    const dg::GlobalDiagnostics d = solver.run();
    return d.finite ? 0 : 3;
  });
}
