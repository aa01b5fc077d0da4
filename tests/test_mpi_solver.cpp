// The answer does not depend on the number of ranks: the final modal coefficients of a run on
// all ranks of MPI_COMM_WORLD agree with a one-rank run to round-off, a restart continues a run
// exactly (same ranks) or to round-off (other rank counts), and each rank holds only its share
// of the mesh.
#include "catch.hpp"
#include "solver_util.hpp"

#include "dg/dg/fixed_order.hpp"
#include "dg/io/output.hpp"
#include "dg/mesh/generate.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

namespace {
double relative_l2(const std::vector<double>& a, const std::vector<double>& ref) {
  REQUIRE(a.size() == ref.size());
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

/// With `variant`: the stages take it, and the geometry of its quadrature pencil path is checked.
/// nodal: the stages take the nodal state (DGOperator::nodal_capable).
double rank_independence(const std::vector<std::string>& overrides,
                         const dg::KernelVariant* variant = nullptr,
                         dg::fixed::PencilGeometry geometry = dg::fixed::PencilGeometry::stored,
                         bool nodal = false) {
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
    // The interior and rank-boundary elements are two contiguous ranges (LocalMesh's order),
    // which the stage kernels address without an index list.
    const dg::ElementBlock& b = s.block();
    CHECK(b.inner_first == 0);
    CHECK(
        (b.halo_elems.extent(0) == 0 || b.halo_first == static_cast<int>(b.inner_elems.extent(0))));
    if (variant) {
      s.op().set_variant(*variant);
      CHECK(s.op().quadrature_pencil_path());
      CHECK(s.op().quadrature_pencil_geometry() == geometry);
    }
    CHECK(s.op().nodal_capable() == nodal);
    const double dt = s.time_step();
    for (int n = 0; n < 6; ++n)
      s.step(dt);
    return s.gather_modes();
  };
  const auto many = final_modes(MPI_COMM_WORLD);
  const auto one = final_modes(MPI_COMM_SELF);
  return relative_l2(many, one);
}
} // namespace

TEST_CASE("same answer on any rank count: periodic warped shuffled", "[mpi][solver]") {
  const double rel = rank_independence({});
  INFO("relative L2 difference to one rank: " << rel);
  CHECK(rel < 1e-13);
}

TEST_CASE("same answer on any rank count: periodic warped shuffled, advection only",
          "[mpi][solver]") {
  const double rel = rank_independence({"physics.diffusivity=0.0"});
  INFO("relative L2 difference to one rank: " << rel);
  CHECK(rel < 1e-13);
}

TEST_CASE("same answer on any rank count: the trilinear map along each pencil", "[mpi][solver]") {
  // The quadrature pencil path with the geometry from the map (the GPU default on trilinear
  // blocks with a constant velocity; the rotation optionally) on every backend: perturbed
  // vertices, periodic and Dirichlet faces.
  dg::KernelVariant along;
  along.qpencil_trilinear_pencil = true;
  along.qpencil_trilinear_rotation = true;
  const std::vector<std::vector<std::string>> cases = {
      {"mesh.box=-nx 4 -periodic xyz -warp 0.05 -perturb 0.15 -shuffle 4",
       "physics.diffusivity=0.0"},
      {"mesh.box=-nx 4 -warp 0.05 -perturb 0.15 -shuffle 4", "physics.diffusivity=0.0",
       "physics.velocity_field=rotation", "physics.rotation_center=[0.45, 0.5, 0.5]",
       "boundary.default=dirichlet"}};
  for (const auto& c : cases) {
    const double rel = rank_independence(c, &along, dg::fixed::PencilGeometry::trilinear_pencil);
    INFO(c[0] << (c.size() > 2 ? ", rotation" : "")
              << ": relative L2 difference to one rank: " << rel);
    CHECK(rel < 1e-13);
  }
}

TEST_CASE("same answer on any rank count: advection-diffusion at q = p + 1", "[mpi][solver]") {
  // The quadrature pencil path's diffusion kernel with as many points as modes (nodal traces of
  // Q^2 = P^2 points on the ghost faces): periodic and Dirichlet faces, every orientation code;
  // with the per-point tables and with the geometry from the trilinear map at each point (CPU
  // builds: dg::fixed::diffusion_map); the modal state (the nodal one: below).
  dg::KernelVariant tables, mapped;
  mapped.qpencil_recompute = true;
  tables.qpencil_nodal = mapped.qpencil_nodal = false;
  for (const char* box : {"mesh.box=-nx 4 -periodic xyz -warp 0.05 -perturb 0.15 -shuffle 4",
                          "mesh.box=-nx 4 -warp 0.05 -perturb 0.15 -shuffle 4"})
    for (const dg::KernelVariant& v : {tables, mapped}) {
      const double rel = rank_independence({box, "discretization.quadrature_points=4"}, &v,
                                           v.qpencil_recompute && dg::fixed::diffusion_map
                                               ? dg::fixed::PencilGeometry::trilinear
                                               : dg::fixed::PencilGeometry::stored);
      INFO(box << (v.qpencil_recompute ? ", the map" : ", tables")
               << ": relative L2 difference to one rank: " << rel);
      CHECK(rel < 1e-13);
    }
}

TEST_CASE("same answer on any rank count: the nodal state at q = p + 1", "[mpi][solver]") {
  // Advection and advection-diffusion on non-affine elements at q = p + 1 step the state at
  // the points (ElementBlock::nodal): nodal traces on the ghost faces, every orientation code;
  // with the per-point tables and (advection) the map along each pencil, periodic and
  // Dirichlet faces, a constant velocity and the rotation.
  dg::KernelVariant tables, along;
  tables.qpencil_trilinear_pencil = tables.qpencil_trilinear_rotation = false;
  along.qpencil_trilinear_pencil = along.qpencil_trilinear_rotation = true;
  const std::vector<std::string> rotation = {
      "mesh.box=-nx 4 -warp 0.05 -perturb 0.15 -shuffle 4", "physics.velocity_field=rotation",
      "physics.rotation_center=[0.45, 0.5, 0.5]", "boundary.default=dirichlet"};
  const std::vector<std::vector<std::string>> cases = {
      {"mesh.box=-nx 4 -periodic xyz -warp 0.05 -perturb 0.15 -shuffle 4"}, rotation};
  for (const auto& c : cases)
    for (const dg::KernelVariant& v : {tables, along}) {
      std::vector<std::string> sets = c;
      sets.insert(sets.end(), {"physics.diffusivity=0.0", "discretization.quadrature_points=4"});
      const double rel =
          rank_independence(sets, &v,
                            v.qpencil_trilinear_pencil ? dg::fixed::PencilGeometry::trilinear_pencil
                                                       : dg::fixed::PencilGeometry::stored,
                            true);
      INFO(c[0] << (c.size() > 1 ? ", rotation" : "")
                << (v.qpencil_trilinear_pencil ? ", the map" : ", tables")
                << ": relative L2 difference to one rank: " << rel);
      CHECK(rel < 1e-13);
    }
  // Advection-diffusion: the nodal traces u and grad u . n at the Q^2 points of the ghost
  // faces, computed from the values at the points.
  dg::KernelVariant mapped;
  mapped.qpencil_recompute = true;
  for (const auto& c : cases)
    for (const dg::KernelVariant& v : {tables, mapped}) {
      std::vector<std::string> sets = c;
      sets.insert(sets.end(), {"physics.diffusivity=0.01", "discretization.quadrature_points=4"});
      const bool map = v.qpencil_recompute && dg::fixed::diffusion_map && c.size() == 1;
      const double rel = rank_independence(
          sets, &v, map ? dg::fixed::PencilGeometry::trilinear : dg::fixed::PencilGeometry::stored,
          true);
      INFO(c[0] << (c.size() > 1 ? ", rotation" : "")
                << (v.qpencil_recompute ? ", the map" : ", tables")
                << ", advection-diffusion: relative L2 difference to one rank: " << rel);
      CHECK(rel < 1e-13);
    }
}

TEST_CASE("same answer on any rank count: affine periodic shuffled (modal path)", "[mpi][solver]") {
  // Affine elements with a constant velocity take the quadrature-free modal path, whose ghost
  // faces carry modal traces (all orientation codes occur on the shuffled mesh).
  for (const char* nu : {"0.0", "0.01"}) {
    const double rel = rank_independence(
        {"mesh.box=-nx 4 -periodic xyz -shuffle 4", std::string("physics.diffusivity=") + nu});
    INFO("nu = " << nu << ", relative L2 difference to one rank: " << rel);
    CHECK(rel < 1e-13);
  }
}

TEST_CASE("same answer on any rank count: velocities affine in space (modal path)",
          "[mpi][solver]") {
  // The rotation about an axis off the element planes (faces where a . n changes sign: mixed
  // faces on the modal path, their elements on the quadrature pencil path where such a face is
  // on a rank boundary; Dirichlet faces) and a linear field on a periodic box: linear elements
  // emit the traces of rank-boundary faces for the neighbour rank.
  const std::vector<std::vector<std::string>> cases = {
      {"mesh.box=-nx 5 -ny 4 -nz 3 -shuffle 4", "physics.diffusivity=0.0",
       "physics.velocity_field=rotation", "physics.rotation_center=[0.45, 0.5, 0.5]",
       "boundary.default=dirichlet"},
      {"mesh.box=-nx 4 -periodic xyz -shuffle 4", "physics.diffusivity=0.0",
       "physics.velocity=[\"1+0.5*(y-0.5)\", \"0.5+0.3*(z-0.5)\", \"0.25+0.2*(x-0.5)\"]"}};
  for (const auto& c : cases) {
    const double rel = rank_independence(c);
    INFO(c[2] << ": relative L2 difference to one rank: " << rel);
    CHECK(rel < 1e-13);
  }
}

TEST_CASE("same answer on any rank count: Dirichlet boundaries, advection-diffusion",
          "[mpi][solver]") {
  const double rel = rank_independence({"mesh.box=-nx 4 -warp 0.05 -shuffle 4"});
  INFO("relative L2 difference to one rank: " << rel);
  CHECK(rel < 1e-13);
}

TEST_CASE("same answer on any rank count: Dirichlet boundaries, advection only", "[mpi][solver]") {
  const double rel =
      rank_independence({"mesh.box=-nx 4 -warp 0.05 -shuffle 4", "physics.diffusivity=0.0"});
  INFO("relative L2 difference to one rank: " << rel);
  CHECK(rel < 1e-13);
}

TEST_CASE("same answer on any rank count: expressions and boundary conditions by name",
          "[mpi][solver]") {
  // A compressible velocity field, a diffusivity field, a t-dependent source, t-dependent inflow
  // data, Neumann and Dirichlet faces on a warped shuffled box.
  const std::vector<std::string> ov = {
      "mesh.box=-nx 4 -warp 0.05 -shuffle 4",
      "parameters.U=1",
      "physics.velocity=[\"U*(1+0.3*x)\", \"0.5*sin(pi*x)\", \"0.25\"]",
      "physics.diffusivity=0.01*(1+x*y)",
      "physics.source=exp(-t)*x*y",
      "initial.type=expression",
      "initial.expression=exp(-((x-0.4)^2+(y-0.5)^2)/0.05)",
      "boundary.default=outflow",
      "boundary.xmin.type=inflow",
      "boundary.xmin.value=exp(-t)*sin(pi*y)",
      "boundary.ymin.type=neumann",
      "boundary.ymin.value=0.01*z",
      "boundary.zmax.type=dirichlet",
      "boundary.zmax.value=0.1*t"};
  const double rel = rank_independence(ov);
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

TEST_CASE("same answer on any rank count: stages fenced on the host", "[mpi][solver]") {
  // parallel.stage_fence: the host waits for each stage instead of ordering the exchange's and
  // the default instance's kernels on the device (CUDA, host-staged messages).
  for (const char* nu : {"physics.diffusivity=0.01", "physics.diffusivity=0.0"}) {
    const double rel = rank_independence({"parallel.stage_fence=true", nu});
    INFO(nu << ": relative L2 difference to one rank: " << rel);
    CHECK(rel < 1e-13);
  }
}

TEST_CASE("each rank holds only its elements and their face neighbours", "[mpi][solver]") {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string flags = "-nx 8 -warp 0.05 -shuffle 4";
  const dg::io::Config cfg = dg::io::parse_config("mesh: {box: \"" + flags +
                                                      "\"}\ndiscretization: {order: 1}\n"
                                                      "output: {snapshots: false, quiet: true}\n",
                                                  "test.yaml");
  dg::Solver s(cfg, MPI_COMM_WORLD);
  // The reference: the global mesh, built here for the check only.
  const auto m = dg::mesh::generate_box(dg::mesh::parse_box_flags(flags));
  const auto conn = dg::mesh::build_connectivity(m);
  const auto& own = s.partition().global_ids;
  const std::set<std::int64_t> owned(own.begin(), own.end());
  std::set<std::int64_t> held(owned), verts;
  for (auto g : own)
    for (int f = 0; f < 6; ++f)
      if (conn(g, f).kind == dg::mesh::FaceKind::interior) held.insert(conn(g, f).nbr_elem);
  for (auto g : held)
    for (int v = 0; v < 8; ++v)
      verts.insert(m.hex[8 * g + v]);
  INFO("rank " << rank << " of " << size << ": owns " << own.size() << ", holds "
               << s.held_elements() << " elements and " << s.held_vertices() << " vertices of "
               << m.num_elements() << " / " << m.num_vertices());
  CHECK(s.block().nelem == std::int64_t(own.size()));
  CHECK(s.held_elements() == std::int64_t(held.size()));
  CHECK(s.held_vertices() == std::int64_t(verts.size()));
  CHECK(s.global_elements() == m.num_elements());
  std::int64_t n = std::int64_t(own.size()), total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == m.num_elements());
  if (size > 1) {
    CHECK(s.held_elements() < m.num_elements());
    CHECK(s.held_vertices() < m.num_vertices());
  }
}

namespace {
const char* restart_yaml = R"(
mesh: {box: "-nx 4 -warp 0.05 -shuffle 4"}
discretization: {order: 3}
physics: {velocity: [1.0, 0.5, 0.25], diffusivity: 0.01}
initial: {type: gaussian, width: 0.15}
time: {cfl: 0.5}
output: {snapshots: false, quiet: true, directory: test_out}
)";

std::vector<double> advance(dg::Solver& s, double dt, int steps) {
  for (int n = 0; n < steps; ++n)
    s.step(dt);
  return s.gather_modes();
}
} // namespace

TEST_CASE("restart: k steps, checkpoint, restart, k steps equals 2k steps", "[mpi][restart]") {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const dg::io::Config cfg = dg::io::parse_config(restart_yaml, "test.yaml");
  dg::io::create_directory(MPI_COMM_WORLD, "test_out");
  // ctest runs the rank counts concurrently: one file name per rank count.
  const std::string tag = "test_out/restart_np" + std::to_string(size);
  const int k = 3;

  dg::Solver ref(cfg, MPI_COMM_WORLD);
  ref.initialize();
  const double dt = ref.time_step();
  const auto want = advance(ref, dt, 2 * k);
  {
    dg::Solver a(cfg, MPI_COMM_WORLD);
    a.initialize();
    advance(a, dt, k);
    a.write_checkpoint(tag + "_all.h5");
  }
  SECTION("same rank count: bitwise") {
    dg::Solver b(cfg, MPI_COMM_WORLD);
    b.restart(tag + "_all.h5");
    CHECK(b.steps_taken() == k);
    const auto got = advance(b, dt, k);
    CHECK(b.time() == ref.time());
    CHECK(got == want);
  }
  SECTION("checkpoint on all ranks, restart on one") {
    MPI_Comm one;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &one);
    double rel = 0.0;
    if (rank == 0) {
      dg::Solver c(cfg, one);
      c.restart(tag + "_all.h5");
      rel = relative_l2(advance(c, dt, k), want);
      MPI_Comm_free(&one);
    }
    MPI_Bcast(&rel, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    INFO("relative L2 difference to the uninterrupted run on " << size << " ranks: " << rel);
    CHECK(rel < 1e-13);
  }
  SECTION("checkpoint on one rank, restart on all") {
    MPI_Comm one;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &one);
    if (rank == 0) {
      dg::Solver d(cfg, one);
      d.initialize();
      advance(d, dt, k);
      d.write_checkpoint(tag + "_one.h5");
      MPI_Comm_free(&one);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    dg::Solver e(cfg, MPI_COMM_WORLD);
    e.restart(tag + "_one.h5");
    const double rel = relative_l2(advance(e, dt, k), want);
    INFO("relative L2 difference to the uninterrupted run on " << size << " ranks: " << rel);
    CHECK(rel < 1e-13);
  }
}
