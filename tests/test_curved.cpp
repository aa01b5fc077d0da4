// Curved (isoparametric Q_k) elements: the map interpolates its nodes and its Jacobian matches
// finite differences; dgmesh -curve K puts every node on the cylinders; the solver preserves a
// free stream to round-off for p = 1..6 on curved boxes and Gmsh annuli, conserves the integral
// on a closed curved domain, and converges at order p + 1 (advection and diffusion) against the
// exact Fourier mode.
#include "catch.hpp"
#include "convergence_util.hpp"
#include "solver_util.hpp"

#include "dg/mesh/generate.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"
#include "dg/mesh/qk_map.hpp"

#include <cmath>
#include <functional>
#include <random>

using namespace dg;

namespace {

std::string mesh_file(const std::string& name) {
  return std::string(DG_SOURCE_DIR) + "/tests/meshes/" + name;
}

/// One element of order k: the lattice of [-1,1]^3 scaled, sheared and randomly displaced.
mesh::HexMesh random_element(int k, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  mesh::HexMesh m;
  m.order = k;
  const int n1 = k + 1;
  for (int n = 0; n < n1 * n1 * n1; ++n) {
    const double r[3] = {-1.0 + 2.0 * (n % n1) / k, -1.0 + 2.0 * ((n / n1) % n1) / k,
                         -1.0 + 2.0 * (n / (n1 * n1)) / k};
    m.coords.insert(m.coords.end(), {1.5 * r[0] + 0.3 * r[1] + u(gen), r[1] + u(gen),
                                     0.7 * r[2] + 0.2 * r[0] * r[1] + u(gen)});
    m.nodes.push_back(n);
  }
  for (int v = 0; v < 8; ++v)
    m.hex.push_back(qk::corner_node(k, v));
  if (k == 1) m.nodes.clear();
  return m;
}

} // namespace

TEST_CASE("Q_k map: the Jacobian on a tensor grid by sum factorisation equals the pointwise "
          "one",
          "[mesh][curved]") {
  const std::vector<double> x = {-1.0, -0.83, -0.2, 0.0, 0.41, 0.77, 1.0};
  // J of the grid xr x xs x xt against the pointwise Jacobian at each of its points.
  auto expect_pointwise = [](const mesh::HexMesh& m, const std::vector<double>& xr,
                             const std::vector<double>& xs, const std::vector<double>& xt,
                             const std::vector<double>& J) {
    const int nr = static_cast<int>(xr.size()), ns = static_cast<int>(xs.size()),
              nt = static_cast<int>(xt.size());
    REQUIRE(J.size() == 9u * nr * ns * nt);
    for (int c = 0; c < nt; ++c)
      for (int b = 0; b < ns; ++b)
        for (int a = 0; a < nr; ++a) {
          const auto J0 = mesh::jacobian(m, 0, xr[a], xs[b], xt[c]);
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              CHECK(std::fabs(J[9 * (a + nr * (b + ns * c)) + 3 * i + j] - J0[i][j]) < 1e-13);
        }
  };
  for (int k = 1; k <= 3; ++k) {
    const mesh::HexMesh m = random_element(k, 31u + k);
    std::vector<double> J;
    mesh::jacobian_grid(m, 0, x, J);
    expect_pointwise(m, x, x, x, J);
    // Each direction its own points: a face grid (one point in the normal direction) and a
    // grid of three different sizes.
    const std::vector<double> one = {1.0}, three = {-0.6, 0.1, 0.9};
    const std::vector<double>* grids[2][3] = {{&x, &one, &x}, {&three, &x, &one}};
    for (const auto& g : grids) {
      mesh::jacobian_grid(m, 0, *g[0], *g[1], *g[2], J);
      expect_pointwise(m, *g[0], *g[1], *g[2], J);
    }
  }
}

TEST_CASE("Q_k map: interpolates the nodes; Jacobian matches finite differences",
          "[mesh][curved]") {
  for (int k = 1; k <= 3; ++k) {
    const mesh::HexMesh m = random_element(k, 11u + k);
    const int n1 = k + 1;
    for (int n = 0; n < n1 * n1 * n1; ++n) {
      const double r[3] = {-1.0 + 2.0 * (n % n1) / k, -1.0 + 2.0 * ((n / n1) % n1) / k,
                           -1.0 + 2.0 * (n / (n1 * n1)) / k};
      const auto x = mesh::map_point(m, 0, r[0], r[1], r[2]);
      for (int d = 0; d < 3; ++d)
        CHECK(std::fabs(x[d] - m.coords[3 * m.node(0, n) + d]) < 1e-14);
    }
    const double p[3] = {0.31, -0.47, 0.83}, h = 1e-5;
    const auto J = mesh::jacobian(m, 0, p[0], p[1], p[2]);
    for (int j = 0; j < 3; ++j) {
      double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
      a[j] += h;
      b[j] -= h;
      const auto xa = mesh::map_point(m, 0, a[0], a[1], a[2]);
      const auto xb = mesh::map_point(m, 0, b[0], b[1], b[2]);
      for (int i = 0; i < 3; ++i)
        CHECK(std::fabs(J[i][j] - (xa[i] - xb[i]) / (2 * h)) < 1e-8);
    }
    CHECK(mesh::first_inverted_element(m) == -1);
  }
}

TEST_CASE("dgmesh -curve K: nodes on the cylinders, volume converges, faces conform",
          "[mesh][curved]") {
  const double exact = 0.5 * 1.0 * (2.0 * 2.0 - 1.0) * 0.5; // angle 1, r 1..2, Lz 0.5
  for (int k = 1; k <= 3; ++k) {
    double err[2];
    for (int level = 0; level < 2; ++level) {
      const int n = 2 << level;
      const mesh::HexMesh m = mesh::generate_box(
          mesh::parse_box_flags("-nx " + std::to_string(n) + " -ny " + std::to_string(n) +
                                " -nz 1 -Lz 0.5 -curve " + std::to_string(k) + " -shuffle 5"));
      CHECK(m.order == k);
      REQUIRE_NOTHROW(mesh::build_connectivity(m));
      for (std::size_t v = 0; v < m.coords.size(); v += 3) {
        const double r = std::hypot(m.coords[v], m.coords[v + 1]);
        CHECK(r > 1.0 - 1e-14);
        CHECK(r < 2.0 + 1e-14);
      }
      // Gauss quadrature of det J (5^3 points integrate the Q_k Jacobian exactly for k <= 2).
      const double x[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831,
                           0.9061798459386640};
      const double w[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                           0.4786286704993665, 0.2369268850561891};
      double vol = 0.0;
      for (std::int64_t e = 0; e < m.num_elements(); ++e)
        for (int c = 0; c < 5; ++c)
          for (int b = 0; b < 5; ++b)
            for (int a = 0; a < 5; ++a)
              vol += w[a] * w[b] * w[c] * mesh::jacobian_determinant(m, e, x[a], x[b], x[c]);
      err[level] = std::fabs(vol - exact);
    }
    INFO("k = " << k << ": volume errors " << err[0] << ", " << err[1]);
    CHECK(std::log2(err[0] / err[1]) > k + 0.7);
  }
  // A closed ring: the seam is an interior face, no x pairs remain.
  const mesh::HexMesh ring =
      mesh::generate_box(mesh::parse_box_flags("-nx 6 -ny 2 -nz 2 -periodic xz -curve 2"));
  CHECK(ring.periodic.size() / 4 == 6 * 2);
  const auto conn = mesh::build_connectivity(ring);
  int boundary = 0;
  for (const auto& l : conn.links)
    boundary += l.kind == mesh::FaceKind::boundary;
  CHECK(boundary == 2 * 6 * 2); // the inner and outer cylinders only
}

namespace {
/// The case of the solver tests below on a mesh given as "box: ..." or "file: ...".
std::string curved_yaml(const std::string& mesh) {
  return "mesh: {" + mesh + "}\n" + R"(discretization: {order: 2}
physics: {velocity: [0.3, -0.7, 0.4]}
initial: {type: constant, value: 1.25}
time: {steps: 4, cfl: 0.5}
output: {snapshots: false, quiet: true, directory: test_out}
)";
}
} // namespace

TEST_CASE("curved elements preserve a free stream to round-off, p = 1..6", "[solver][curved]") {
  // Constant state and velocity; every boundary face (inflow and outflow) carries the same
  // constant. The Q_k metric terms at q >= (p + 2k) / 2 Gauss points integrate the volume and
  // face terms of a constant state exactly, so the discrete divergence theorem makes the right-
  // hand side vanish to round-off.
  const std::vector<std::string> meshes = {
      "box: \"-nx 3 -ny 2 -nz 2 -periodic xz -curve 3 -shuffle 3\"",
      "box: \"-nx 2 -ny 2 -nz 1 -Lx 1.2 -curve 2 -shuffle 8\"",
      "file: " + mesh_file("annulus_q2_bin.msh"), "file: " + mesh_file("annulus22_q3_bin.msh")};
  for (const std::string& m : meshes)
    for (int p = 1; p <= 6; ++p) {
      INFO(m << ", p = " << p);
      const auto d = dgtest::run_case(curved_yaml(m), {"discretization.order=" + std::to_string(p),
                                                       "physics.diffusivity=0.01"});
      INFO("max error " << d.max_error / 1e-12 << "e-12");
      CHECK(d.max_error < 1e-12);
    }
}

TEST_CASE("curved elements conserve the integral on a closed domain", "[solver][curved]") {
  // A closed ring, periodic in z; the flow runs along z, so no face of the cylinders carries
  // flux. With the exact mass matrix the scheme conserves sum_q w |J| u over its q^3 points;
  // q = p + 5 integrates phi |J| (degree p + 3k - 1, k = 3) exactly, so that sum is the
  // integral the diagnostics report. (The relative change is below 1e-12 on the dgmesh ring;
  // on the Gmsh annulus, whose periodic faces match only to Gmsh's round-off of about 1e-12,
  // it is a few 1e-12: the check is on the change itself, the integral being about 0.12.)
  for (const std::string& m : {std::string("box: \"-nx 6 -ny 2 -nz 3 -periodic xz -curve 3\""),
                               "file: " + mesh_file("annulus_q3.msh")}) {
    for (int p : {1, 2, 4}) {
      INFO(m << ", p = " << p);
      const std::vector<std::string> ov = {"discretization.order=" + std::to_string(p),
                                           "discretization.mass=exact",
                                           "discretization.quadrature_points=" +
                                               std::to_string(p + 5),
                                           "physics.velocity=[0,0,1]",
                                           "initial.type=gaussian",
                                           "initial.center=[0,1.5,0.2]",
                                           "initial.width=0.2",
                                           "time.steps=0",
                                           "time.final_time=0.05",
                                           "boundary.default=outflow"};
      const dg::io::Config cfg = dg::io::parse_config(curved_yaml(m), "test.yaml", ov);
      dg::Solver s(cfg, MPI_COMM_WORLD);
      s.initialize();
      const double before = s.diagnostics().integral;
      const auto d = s.run();
      INFO("integral " << before << " changes by " << d.integral - before << " (relative "
                       << (d.integral - before) / before << ")");
      CHECK(std::fabs(d.integral - before) < 1e-12);
    }
  }
}

TEST_CASE("snapshots sample curved elements through their Q_k map", "[solver][curved]") {
  // The output lattice of every element is the image of the reference lattice under the
  // element's own map (not the trilinear map of its corners), so the sampled boundary of the
  // ring is curved.
  const dg::io::Config cfg = dg::io::parse_config(
      curved_yaml("box: \"-nx 4 -ny 2 -nz 1 -periodic xz -curve 3 -shuffle 2\""), "test.yaml", {});
  dg::Solver s(cfg, MPI_COMM_SELF);
  s.initialize();
  const int n = 4;
  View2 vals;
  View3 xyz;
  dg::sample(s.block(), n, vals, xyz);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xyz);
  const mesh::HexMesh& m = s.partition().local.hexes;
  mesh::HexMesh lin = m; // the same corners, trilinear
  lin.order = 1;
  lin.nodes.clear();
  double worst = 0.0, off_chord = 0.0;
  for (int e = 0; e < s.block().nelem; ++e)
    for (int pt = 0; pt < n * n * n; ++pt) {
      const double r[3] = {-1.0 + 2.0 * (pt % n) / (n - 1), -1.0 + 2.0 * ((pt / n) % n) / (n - 1),
                           -1.0 + 2.0 * (pt / (n * n)) / (n - 1)};
      const auto x = mesh::map_point(m, e, r[0], r[1], r[2]);
      for (int d = 0; d < 3; ++d)
        worst = std::max(worst, std::fabs(hx(e, pt, d) - x[d]));
      // Distance from the trilinear image of the same point: nonzero on a curved element.
      const auto y = mesh::map_point(lin, e, r[0], r[1], r[2]);
      off_chord = std::max(off_chord, std::hypot(x[0] - y[0], x[1] - y[1]));
    }
  CHECK(worst < 1e-13);
  CHECK(off_chord > 0.05); // the sampled points follow the arcs, not the chords
}

namespace {
/// The curved sector of angle 0.5 between r = 1 and 1.5, one layer in z (periodic): n x n
/// elements of order 3; the Fourier mode does not vary in z.
dgtest::Study curved_study(const char* name, double nu, const char* velocity, double T) {
  return dgtest::Study{name, "", nu, velocity, T};
}

/// The Fourier study on meshes n = 4 and 8 given by `mesh(n)` ("box: ..." or "file: ...").
void curved_sweep(const char* slug, const dgtest::Study& s, int p0, int p1,
                  const std::function<std::string(int)>& mesh) {
  dgtest::ConvergenceCsv csv(slug);
  std::string base = dgtest::convergence_base_yaml();
  const std::string box_line = "mesh: {box: \"-nx 4 -periodic xyz\"}";
  for (int p = p0; p <= p1; ++p) {
    std::vector<double> e;
    for (int n : {4, 8}) {
      std::string yaml = base;
      yaml.replace(yaml.find(box_line), box_line.size(), "mesh: {" + mesh(n) + "}");
      const auto d = dgtest::run_case(
          yaml, {"discretization.order=" + std::to_string(p), "physics.velocity=" + s.velocity,
                 "physics.diffusivity=" + std::to_string(s.nu), "initial.wavenumber=[1,1,0]",
                 "time.final_time=" + std::to_string(s.final_time), "boundary.default=dirichlet"});
      e.push_back(d.l2_error);
      const double order = e.size() > 1 ? std::log2(e[e.size() - 2] / e.back()) : 0.0;
      csv.row(s.name, p, n, d.l2_error, order, e.size() > 1);
    }
    const double order = std::log2(e[0] / e[1]);
    INFO(s.name << ", p = " << p << ": L2 errors " << e[0] << ", " << e[1] << ", order " << order);
    CHECK(order > p + 0.7);
  }
}

/// dgmesh's Q3 sector: angle 0.5, r in [1, 1.5], one periodic layer in z.
std::string dgmesh_sector(int n) {
  return "box: \"-nx " + std::to_string(n) + " -ny " + std::to_string(n) +
         " -nz 1 -Lz 0.25 -periodic z -Lx 0.5 -Ly 0.5 -curve 3\"";
}

/// The same sector made by Gmsh (tests/meshes/sector.geo) at geometric order k.
std::function<std::string(int)> gmsh_sector(int k) {
  return [k](int n) {
    return "file: " + mesh_file("sector_q" + std::to_string(k) + "_n" + std::to_string(n) + ".msh");
  };
}
} // namespace

TEST_CASE("h-convergence: advection on Q3 curved sectors, p = 1..6",
          "[convergence][curved][advection]") {
  curved_sweep("advection_curved", curved_study("advection curved Q3", 0.0, "[1,0.5,0]", 0.05), 1,
               6, dgmesh_sector);
}

TEST_CASE("h-convergence: diffusion on Q3 curved sectors, p = 1..4",
          "[convergence][curved][diffusion]") {
  curved_sweep("diffusion_curved_p1-4", curved_study("diffusion curved Q3", 0.05, "[0,0,0]", 0.02),
               1, 4, dgmesh_sector);
}

TEST_CASE("h-convergence: diffusion on Q3 curved sectors, p = 5, 6",
          "[convergence][curved][diffusion]") {
  curved_sweep("diffusion_curved_p5-6", curved_study("diffusion curved Q3", 0.05, "[0,0,0]", 0.004),
               5, 6, dgmesh_sector);
}

TEST_CASE("h-convergence: advection on Gmsh Q2 and Q3 sectors, p = 1..6",
          "[convergence][curved][gmsh][advection]") {
  for (int k : {2, 3})
    curved_sweep(
        k == 2 ? "advection_gmsh_q2" : "advection_gmsh_q3",
        curved_study(k == 2 ? "advection Gmsh Q2" : "advection Gmsh Q3", 0.0, "[1,0.5,0]", 0.05), 1,
        6, gmsh_sector(k));
}

TEST_CASE("h-convergence: diffusion on Gmsh Q2 and Q3 sectors, p = 1..3",
          "[convergence][curved][gmsh][diffusion]") {
  for (int k : {2, 3})
    curved_sweep(
        k == 2 ? "diffusion_gmsh_q2" : "diffusion_gmsh_q3",
        curved_study(k == 2 ? "diffusion Gmsh Q2" : "diffusion Gmsh Q3", 0.05, "[0,0,0]", 0.02), 1,
        3, gmsh_sector(k));
}

// About 4 minutes on one core, so hidden from the default run (and from ctest):
// `dg_tests "[diffusion-gmsh-high]"` runs it (orders 5.05, 5.90, 7.06 for Q2 and Q3).
TEST_CASE("h-convergence: diffusion on Gmsh Q2 and Q3 sectors, p = 4..6",
          "[.][convergence][curved][gmsh][diffusion][diffusion-gmsh-high]") {
  for (int k : {2, 3})
    curved_sweep(
        k == 2 ? "diffusion_gmsh_q2_high" : "diffusion_gmsh_q3_high",
        curved_study(k == 2 ? "diffusion Gmsh Q2" : "diffusion Gmsh Q3", 0.05, "[0,0,0]", 0.02), 4,
        6, gmsh_sector(k));
}

TEST_CASE("same answer on any rank count: Gmsh Q2 annulus", "[mpi][solver][curved]") {
  // Curved elements, periodic faces across ranks, named boundaries with Dirichlet data,
  // a rotating flow and diffusion: the final modes of a run on all ranks equal a one-rank run.
  const std::string yaml = curved_yaml("file: " + mesh_file("annulus_q2_bin.msh"));
  const std::vector<std::string> ov = {"discretization.order=3",
                                       "physics.velocity_field=rotation",
                                       "physics.rotation_center=[0,0,0]",
                                       "physics.diffusivity=0.01",
                                       "initial.type=gaussian",
                                       "initial.center=[0,1.5,0.25]",
                                       "initial.width=0.2"};
  auto final_modes = [&](MPI_Comm comm) {
    const dg::io::Config cfg = dg::io::parse_config(yaml, "test.yaml", ov);
    dg::Solver s(cfg, comm);
    s.initialize();
    const double dt = s.time_step();
    for (int n = 0; n < 5; ++n)
      s.step(dt);
    return s.gather_modes();
  };
  const auto many = final_modes(MPI_COMM_WORLD);
  const auto one = final_modes(MPI_COMM_SELF);
  REQUIRE(many.size() == one.size());
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < one.size(); ++i) {
    num += (many[i] - one[i]) * (many[i] - one[i]);
    den += one[i] * one[i];
  }
  INFO("relative L2 difference to one rank: " << std::sqrt(num / den));
  CHECK(std::sqrt(num / den) < 1e-13);
}
