// Verification of the DG solver: p-convergence, free-stream (constant state) preservation on
// curved shuffled meshes, conservation, energy stability and invariance under the local vertex
// numbering. The h-convergence studies are in test_convergence.cpp.
#include "catch.hpp"
#include "convergence_util.hpp"
#include "solver_util.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <sstream>

using dgtest::run_case;

namespace {
const char* const base_yaml = dgtest::convergence_base_yaml();
using dgtest::periodic_box;
} // namespace

TEST_CASE("p-convergence is exponential on a fixed mesh", "[convergence][p]") {
  std::vector<double> e;
  for (int p = 1; p <= 7; ++p) {
    const auto d =
        run_case(base_yaml, {periodic_box(2), "discretization.order=" + std::to_string(p),
                             "time.final_time=0.02", "physics.diffusivity=0.01"});
    e.push_back(d.l2_error);
  }
  // log(error) falls at least linearly in p: each order gains a factor > 2.5 and the total
  // gain over p = 1..7 exceeds 10^4.
  for (size_t i = 0; i + 1 < e.size(); ++i) {
    INFO("p = " << i + 1 << ": " << e[i] << " -> " << e[i + 1]);
    CHECK(e[i] / e[i + 1] > 2.5);
  }
  CHECK(e.front() / e.back() > 1e4);
}

TEST_CASE("a constant state is preserved on warped shuffled meshes", "[unit][solver]") {
  for (const char* bcs : {"periodic", "dirichlet"}) {
    const std::string mesh = std::string(bcs) == "periodic"
                                 ? "mesh.box=-nx 3 -periodic xyz -warp 0.08 -perturb 0.1 -shuffle 5"
                                 : "mesh.box=-nx 3 -warp 0.08 -perturb 0.1 -shuffle 5";
    const auto d = run_case(base_yaml, {mesh, "initial.type=constant", "initial.value=1.5",
                                        "physics.diffusivity=0.01", "discretization.order=3",
                                        "time.steps=10"});
    INFO(bcs << ": max error " << d.max_error);
    CHECK(d.max_error < 1e-13);
  }
}

TEST_CASE("periodic runs conserve the integral and dissipate energy", "[unit][solver]") {
  const dg::io::Config cfg = dg::io::parse_config(
      base_yaml, "test.yaml",
      {"mesh.box=-nx 3 -periodic xyz -warp 0.06 -shuffle 2", "initial.type=gaussian",
       "initial.width=0.15", "physics.diffusivity=0.005", "discretization.order=3"});
  dg::Solver s(cfg, MPI_COMM_WORLD);
  s.initialize();
  const auto d0 = s.diagnostics();
  double energy = d0.energy;
  const double dt = s.time_step();
  for (int n = 0; n < 20; ++n) {
    s.step(dt);
    const auto d = s.diagnostics();
    INFO("step " << n << ": integral " << d.integral << " vs " << d0.integral);
    CHECK(std::fabs(d.integral - d0.integral) < 1e-12 * std::fabs(d0.integral));
    CHECK(d.energy <= energy * (1 + 1e-12));
    energy = d.energy;
  }
  CHECK(energy < d0.energy);
}

TEST_CASE("a shuffled mesh gives the unshuffled answer to round-off", "[unit][solver]") {
  auto points = [](const std::string& mesh) {
    const dg::io::Config cfg = dg::io::parse_config(
        base_yaml, "test.yaml",
        {mesh, "initial.type=gaussian", "physics.diffusivity=0.01", "discretization.order=3"});
    dg::Solver s(cfg, MPI_COMM_WORLD);
    s.initialize();
    const double dt = s.time_step();
    for (int n = 0; n < 5; ++n)
      s.step(dt);
    dg::View2 v;
    dg::View3 x;
    dg::sample(s.block(), 3, v, x); // corner, edge, face and centre points: rotation invariant
    auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    std::vector<std::array<double, 4>> pts;
    for (size_t e = 0; e < hv.extent(0); ++e)
      for (size_t k = 0; k < hv.extent(1); ++k) {
        auto r = [](double a) { return std::round(a * 1e9) / 1e9; };
        pts.push_back({r(hx(e, k, 0)), r(hx(e, k, 1)), r(hx(e, k, 2)), hv(e, k)});
      }
    std::sort(pts.begin(), pts.end());
    return pts;
  };
  const auto a = points("mesh.box=-nx 3 -periodic xyz -warp 0.05");
  const auto b = points("mesh.box=-nx 3 -periodic xyz -warp 0.05 -shuffle 9");
  REQUIRE(a.size() == b.size());
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::fabs(a[i][3] - b[i][3]));
    scale = std::max(scale, std::fabs(a[i][3]));
  }
  INFO("max difference " << diff << " of " << scale);
  CHECK(diff < 1e-13 * scale);
}
