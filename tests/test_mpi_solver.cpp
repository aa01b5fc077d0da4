// The answer does not depend on the number of ranks: the final modal coefficients of a run on
// all ranks of MPI_COMM_WORLD agree with a one-rank run to round-off.
#include "catch.hpp"
#include "solver_util.hpp"

#include <cmath>
#include <cstdlib>

namespace {
double rank_independence(const std::vector<std::string>& overrides) {
  const char* yaml = R"(
mesh: {box: "-nx 4 -periodic xyz -warp 0.05 -shuffle 4"}
discretization: {order: 3}
physics: {velocity: [1.0, 0.5, 0.25], diffusivity: 0.01}
initial: {type: gaussian, width: 0.15}
time: {steps: 6, cfl: 0.5}
output: {snapshots: false, quiet: true, directory: test_out}
)";
  auto final_modes = [&](MPI_Comm comm) {
    const dg::io::Config cfg = dg::io::parse_config(yaml, "test.yaml", overrides);
    dg::Solver s(cfg, comm);
    s.initialize();
    const double dt = s.time_step();
    for (int n = 0; n < 6; ++n) s.step(dt);
    return s.gather_modes();
  };
  const auto many = final_modes(MPI_COMM_WORLD);
  const auto one = final_modes(MPI_COMM_SELF);
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < one.size(); ++i) {
    num += (many[i] - one[i]) * (many[i] - one[i]);
    den += one[i] * one[i];
  }
  return std::sqrt(num / den);
}
} // namespace

TEST_CASE("same answer on any rank count: periodic warped shuffled", "[mpi][solver]") {
  const double rel = rank_independence({});
  INFO("relative L2 difference to one rank: " << rel);
  CHECK(rel < 1e-13);
}

TEST_CASE("same answer on any rank count: Dirichlet boundaries, advection only", "[mpi][solver]") {
  const double rel = rank_independence(
      {"mesh.box=-nx 4 -warp 0.05 -shuffle 4", "physics.diffusivity=0.0"});
  INFO("relative L2 difference to one rank: " << rel);
  CHECK(rel < 1e-13);
}

TEST_CASE("same answer on any rank count: host-staged and device buffers", "[mpi][solver]") {
  // Device buffers handed to MPI need a GPU-aware MPI when device memory is not host-accessible;
  // there the case runs only when DG_TEST_GPU_AWARE_MPI=1 says the MPI is CUDA-aware.
  if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, dg::MemSpace>::accessible &&
      !std::getenv("DG_TEST_GPU_AWARE_MPI")) {
    WARN("skipped: device memory is not host-accessible and DG_TEST_GPU_AWARE_MPI is not set");
    return;
  }
  const double rel = rank_independence({"parallel.gpu_aware_mpi=true"});
  INFO("relative L2 difference to one rank: " << rel);
  CHECK(rel < 1e-13);
}
