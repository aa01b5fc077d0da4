// The compile-time order dispatch against the run-time-sized kernels: transforms for every
// variant, the right-hand side on curved meshes with every boundary kind, and LSRK steps whose
// stages hand their traces on to the next stage.
#include "catch.hpp"
#include "dg/dg/fixed_order.hpp"
#include "dg/dg/transforms.hpp"
#include "dg/io/config.hpp"
#include "dg/mesh/generate.hpp"
#include "dg/mesh/mesh.hpp"
#include "dg/solver.hpp"
#include "dg/time/rk.hpp"
#include "view_test_util.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace dg;
using dgtest::random_view;
using dgtest::rel_diff;

namespace {
std::vector<double> host(const View2& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.size());
}
} // namespace

TEST_CASE("fixed-order transforms equal the run-time-sized ones for p = 1..max_order, all variants",
          "[unit][fixed]") {
  const int E = 7;
  for (int p = 1; p <= fixed::max_order; ++p) {
    const int P = p + 1, Q = p + 2;
    const BasisTables t = to_device(make_tables(p, Q));
    const View2 modes = random_view(E, P * P * P, 11 + p), vals = random_view(E, Q * Q * Q, 7 + p);
    View2 ref_v("ref_v", E, Q * Q * Q), ref_m("ref_m", E, P * P * P);
    backward_transform(t, modes, ref_v);
    inner_product(t, vals, ref_m);
    for (bool blocked : {true, false})
      for (int ne : {1, 3}) {
        KernelVariant v;
        v.register_blocked = blocked;
        v.team_elems = ne;
        View2 out_v("out_v", E, Q * Q * Q), out_m("out_m", E, P * P * P);
        fixed::backward(p, t, modes, out_v, v);
        fixed::inner(p, t, vals, out_m, v);
        INFO("p = " << p << ", register-blocked " << blocked << ", elements per team " << ne);
        CHECK(rel_diff(host(out_v), host(ref_v)) < 1e-13);
        CHECK(rel_diff(host(out_m), host(ref_m)) < 1e-13);
      }
  }
}

namespace {
const char* stage_yaml = R"(
mesh: {box: "-nx 3 -ny 3 -nz 2 -warp 0.08 -shuffle 5 -periodic y"}
discretization: {order: 2}
physics: {velocity: [0.7, -0.4, 0.3], diffusivity: 0.03}
initial: {type: gaussian, center: [0.4, 0.5, 0.6], width: 0.2}
boundary: {xmax: outflow}
time: {final_time: 0.01, cfl: 0.4}
output: {snapshots: false, quiet: true, directory: test_out}
)";

/// Right-hand side (store epilogue) of the projected initial state with a kernel variant.
std::vector<double> rhs_with(Solver& s, const KernelVariant& v) {
  s.op().set_variant(v);
  View2 out("rhs", s.block().nelem, s.block().nmodes);
  Epilogue ep;
  ep.mode = Epilogue::store;
  ep.out = out;
  s.rhs(0.01, ep);
  return host(out);
}

/// The right-hand side (store epilogue) of the elements of list `elems` (device ids, filled
/// from `ids`) with a kernel variant: traces, then the operator on that list alone.
std::vector<double> rhs_of_list(Solver& s, const KernelVariant& v, const IView1& elems,
                                const std::vector<int>& ids) {
  s.op().set_variant(v);
  auto h = Kokkos::create_mirror_view(elems);
  for (size_t i = 0; i < ids.size(); ++i)
    h(i) = ids[i];
  Kokkos::deep_copy(elems, h);
  View2 out("rhs", s.block().nelem, s.block().nmodes);
  Epilogue ep;
  ep.mode = Epilogue::store;
  ep.out = out;
  s.op().compute_traces();
  s.op().apply(0.01, elems, ep);
  return host(out);
}

/// block.u after three LSRK steps of 2e-3 from the initial state, for each kernel variant.
std::vector<std::vector<double>> steps_with(const io::Config& cfg,
                                            std::initializer_list<const KernelVariant*> variants) {
  std::vector<std::vector<double>> modes;
  for (const KernelVariant* v : variants) {
    Solver t(cfg, MPI_COMM_WORLD);
    t.initialize();
    t.op().set_variant(*v);
    for (int k = 0; k < 3; ++k)
      t.step(2e-3);
    modes.push_back(host(t.block().u));
  }
  return modes;
}

/// The same with the elements listed in reverse order (not a contiguous range: the kernels
/// load the element ids).
std::vector<double> rhs_reversed(Solver& s, const KernelVariant& v) {
  const int n = s.block().nelem;
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i)
    ids[i] = n - 1 - i;
  return rhs_of_list(s, v, IView1("reversed", n), ids);
}

/// The rows k.. of the right-hand side with the block's interior list replaced by the
/// contiguous range k, k + 1, ... (the kernels compute the element ids from its first).
std::vector<double> rhs_tail(Solver& s, const KernelVariant& v, int k) {
  ElementBlock& b = s.block();
  const int n = b.nelem, nm = b.nmodes;
  const IView1 inner = b.inner_elems;
  const int inner_first = b.inner_first;
  std::vector<int> ids(n - k);
  for (int i = 0; i < n - k; ++i)
    ids[i] = k + i;
  b.inner_elems = IView1("tail", n - k);
  b.inner_first = k;
  const std::vector<double> all = rhs_of_list(s, v, b.inner_elems, ids);
  b.inner_elems = inner;
  b.inner_first = inner_first;
  return std::vector<double>(all.begin() + static_cast<long>(k) * nm, all.end());
}
} // namespace

TEST_CASE("fixed-order right-hand side equals the run-time-sized one on curved meshes",
          "[unit][fixed]") {
  for (const char* velocity : {"constant", "rotation"})
    for (const char* nu : {"0.0", "0.03"})
      for (int p : {1, 3, 4}) {
        const io::Config cfg = io::parse_config(
            stage_yaml, "test.yaml",
            {"discretization.order=" + std::to_string(p), "physics.diffusivity=" + std::string(nu),
             "physics.velocity_field=" + std::string(velocity)});
        Solver s(cfg, MPI_COMM_WORLD);
        s.initialize();
        KernelVariant generic;
        generic.fixed_order = false;
        const auto ref = rhs_with(s, generic);
        for (bool blocked : {true, false})
          for (bool recompute : {false, true}) {
            KernelVariant v;
            v.register_blocked = blocked;
            v.recompute_metric = recompute;
            INFO(velocity << " velocity, nu = " << nu << ", p = " << p << ", blocked " << blocked
                          << ", recomputed metric " << recompute);
            CHECK(rel_diff(rhs_with(s, v), ref) < 1e-12);
          }
      }
}

TEST_CASE("fixed-order right-hand side equals the run-time-sized one with expression fields and "
          "boundary data",
          "[unit][fixed][expr]") {
  // A velocity and a diffusivity field, a t-dependent source, and inflow, Neumann and Dirichlet
  // data from expressions, on an affine and a curved mesh.
  for (const char* mesh :
       {"-nx 3 -ny 3 -nz 2 -periodic y", "-nx 3 -ny 3 -nz 2 -warp 0.08 -shuffle 5"})
    for (const char* nu : {"0", "0.02*(1+x*y)"})
      for (int p : {1, 3}) {
        const io::Config cfg = io::parse_config(
            stage_yaml, "test.yaml",
            {std::string("mesh.box=") + mesh, "discretization.order=" + std::to_string(p),
             "physics.diffusivity=" + std::string(nu),
             "physics.velocity=[\"0.7+0.2*y\", \"-0.4*x\", \"0.3*cos(z)\"]",
             "physics.source=exp(-t)*x", "boundary.default=outflow", "boundary.xmin.type=inflow",
             "boundary.xmin.value=sin(pi*y)*(1+t)", "boundary.zmin.type=neumann",
             "boundary.zmin.value=0.1*x", "boundary.zmax.type=dirichlet",
             "boundary.zmax.value=y*t"});
        Solver s(cfg, MPI_COMM_WORLD);
        s.initialize();
        KernelVariant generic;
        generic.fixed_order = false;
        const auto ref = rhs_with(s, generic);
        for (bool blocked : {true, false})
          for (bool recompute : {false, true}) {
            KernelVariant v;
            v.register_blocked = blocked;
            v.recompute_metric = recompute;
            INFO(mesh << ", nu = " << nu << ", p = " << p << ", blocked " << blocked
                      << ", recomputed metric " << recompute);
            const auto out = rhs_with(s, v);
            CHECK(s.op().uses_fixed_kernels());
            CHECK(rel_diff(out, ref) < 1e-12);
          }
      }
}

TEST_CASE("LSRK stages that emit the next stage's traces give the reference answer",
          "[unit][fixed]") {
  for (const char* nu : {"0.0", "0.03"}) {
    std::vector<std::vector<double>> modes;
    for (bool fixed_order : {false, true}) {
      const io::Config cfg =
          io::parse_config(stage_yaml, "test.yaml",
                           {"discretization.order=3", "physics.diffusivity=" + std::string(nu)});
      Solver s(cfg, MPI_COMM_WORLD);
      s.initialize();
      KernelVariant v;
      v.fixed_order = fixed_order;
      s.op().set_variant(v);
      for (int k = 0; k < 4; ++k)
        s.step(1e-3);
      modes.push_back(host(s.block().u));
    }
    INFO("nu = " << nu);
    CHECK(rel_diff(modes[1], modes[0]) < 1e-12);
  }
}

namespace {
/// A stage case: --set lines on stage_yaml and a kernel variant, named.
struct StepCase {
  std::vector<std::string> sets;
  KernelVariant v;
  const char* what;
};
/// stage_yaml's box undeformed and periodic (the modal path).
const std::string affine_box = "mesh.box=-nx 3 -ny 3 -nz 2 -shuffle 5 -periodic xyz";

/// block.u after one fused LSRK(5,4) step (Solver::step) from the initial state with the
/// register filled with NaN, against the five stages taken one by one (store epilogue,
/// reg = a reg + dt R, u += b reg on the host, the register starting at 0); also the register
/// the step leaves against the reference's after stage 4 (the last stage does not store it).
/// With a nodal state (the step's stages at the points) the register holds nodal values and is
/// not compared.
void check_step_against_stages(const io::Config& cfg, const KernelVariant& v) {
  Solver s(cfg, MPI_COMM_WORLD);
  s.initialize();
  s.op().set_variant(v);
  ElementBlock& b = s.block();
  const double dt = 1e-3;
  const std::vector<double> u0 = host(b.u);
  std::vector<double> u = u0, k(u0.size(), 0.0), k4;
  auto put = [&](const View2& dst, const std::vector<double>& src) {
    auto h = Kokkos::create_mirror_view(dst);
    std::copy(src.begin(), src.end(), h.data());
    Kokkos::deep_copy(dst, h);
  };
  View2 res("res", b.nelem, b.nmodes);
  for (int st = 0; st < 5; ++st) {
    put(b.u, u);
    s.op().invalidate_traces();
    Epilogue ep;
    ep.mode = Epilogue::store;
    ep.out = res;
    s.rhs(s.time() + lsrk_c[st] * dt, ep);
    const std::vector<double> r = host(res);
    for (size_t i = 0; i < u.size(); ++i) {
      k[i] = lsrk_a[st] * k[i] + dt * r[i];
      u[i] += lsrk_b[st] * k[i];
    }
    if (st == 3) k4 = k;
  }
  put(b.u, u0);
  s.op().invalidate_traces();
  Kokkos::deep_copy(b.reg, std::numeric_limits<double>::quiet_NaN());
  s.step(dt);
  const std::vector<double> fused = host(b.u), reg = host(b.reg);
  const auto finite = [](const std::vector<double>& x) {
    return std::all_of(x.begin(), x.end(), [](double y) { return std::isfinite(y); });
  };
  CHECK(finite(fused));
  CHECK(rel_diff(fused, u) < 1e-12);
  CHECK(finite(reg));
  if (!s.op().nodal_capable()) CHECK(rel_diff(reg, k4) < 1e-12);
}
} // namespace

TEST_CASE("an LSRK step equals its stages one by one; its first stage reads no register, its last "
          "stores none",
          "[unit][fixed]") {
  const std::string& affine = affine_box;
  const std::string linear = "physics.velocity=[\"0.7+0.5*y\", \"-0.4+0.3*z\", \"0.3+0.2*x\"]";
  KernelVariant runtime, entry, modal_state;
  runtime.fixed_order = false;
  entry.modal_pencil = false;
  modal_state.qpencil_nodal = false;
  const std::vector<StepCase> cases = {
      {{affine, "physics.diffusivity=0"}, {}, "affine, modal pencil"},
      {{affine, "physics.diffusivity=0"}, entry, "affine, modal entry-wise"},
      {{affine}, {}, "affine, advection-diffusion"},
      {{affine, "physics.diffusivity=0", linear}, {}, "affine, linear velocity"},
      {{"physics.diffusivity=0"}, {}, "warped, quadrature pencil"},
      {{"physics.diffusivity=0", "discretization.quadrature_points=4"}, {}, "warped, q = p + 1"},
      {{"physics.diffusivity=0", "discretization.quadrature_points=4"},
       modal_state,
       "warped, q = p + 1, the modal state"},
      {{}, {}, "warped, advection-diffusion"},
      {{}, runtime, "warped, run-time-sized kernels"}};
  for (const StepCase& c : cases) {
    std::vector<std::string> sets = c.sets;
    sets.push_back("discretization.order=3");
    INFO(c.what);
    check_step_against_stages(io::parse_config(stage_yaml, "test.yaml", sets), c.v);
  }
}

namespace {
/// Three LSRK steps of dt from the projected initial state with the variant v on the modal state
/// and on the nodal state (v's qpencil_nodal off, then on): the same modes to round-off, and
/// steps that moved the state.
void check_nodal_against_modal(const io::Config& cfg, const KernelVariant& v, double dt) {
  std::vector<double> u[2], u0;
  for (int nodal = 0; nodal < 2; ++nodal) {
    Solver s(cfg, MPI_COMM_WORLD);
    s.initialize();
    KernelVariant w = v;
    w.qpencil_nodal = nodal == 1;
    s.op().set_variant(w);
    CHECK(s.op().nodal_capable() == (nodal == 1));
    u0 = host(s.block().u);
    for (int n = 0; n < 3; ++n)
      s.step(dt);
    CHECK(!s.block().nodal); // step() leaves the modal state
    u[nodal] = host(s.block().u);
  }
  CHECK(rel_diff(u[1], u[0]) < 1e-12);
  CHECK(rel_diff(u[1], u0) > 1e-6); // the steps moved the state
}
} // namespace

TEST_CASE("the nodal state at q = p + 1 steps as the modal state to round-off", "[unit][fixed]") {
  // Advection on non-affine elements at q = p + 1: the state at the P^3 Gauss points
  // (ElementBlock::nodal, the collocated passes without their transforms, nodal traces) against
  // the modal state through the same collocated passes, three LSRK steps: warped and perturbed
  // meshes with every orientation code, periodic, Dirichlet, inflow and outflow faces, a
  // constant velocity, the rotation and a velocity field, trilinear and Q2 elements, the
  // per-point tables (read where the passes use them, and staged in team scratch first) and the
  // map along each pencil.
  KernelVariant tables, along, modal, staged;
  tables.qpencil_trilinear_pencil = tables.qpencil_trilinear_rotation = false;
  staged = tables;
  staged.qpencil_stage_tables = 1;
  along.qpencil_trilinear_pencil = along.qpencil_trilinear_rotation = true;
  const std::vector<std::string> rotation = {
      "physics.velocity_field=rotation", "physics.angular_velocity=1.3",
      "physics.rotation_center=[0.4, 0.55, 0.5]", "boundary.default=dirichlet"};
  struct Case {
    std::vector<std::string> sets;
    const char* what;
  };
  const std::vector<Case> cases = {
      {{}, "warped, Dirichlet, outflow and periodic faces"},
      {{"mesh.box=-nx 3 -warp 0.05 -perturb 0.1 -shuffle 7 -periodic xyz"}, "perturbed, periodic"},
      {rotation, "the rotation, Dirichlet faces"},
      {{"mesh.box=-nx 3 -ny 2 -nz 3 -warp 0.05 -shuffle 3 -periodic yz",
        "boundary.xmin.type=inflow", "boundary.xmin.value=sin(2*pi*y)*cos(2*pi*z)",
        "physics.velocity=[\"1+0.3*sin(2*pi*y)\", \"0.4\", \"0.2+0.2*x\"]"},
       "a velocity field, an inflow face"},
      {{"mesh.box=-nx 3 -periodic xz -curve 2"}, "Q2 elements"},
      {{"mesh.box=-nx 2 -ny 3 -nz 2 -curve 2"}, "Q2 elements, Dirichlet and outflow faces"}};
  for (int p : {1, 2, 3, 4, 7})
    for (const Case& c : cases)
      for (const KernelVariant* v : {&tables, &along, &staged}) {
        std::vector<std::string> sets = c.sets;
        sets.insert(sets.end(),
                    {"physics.diffusivity=0", "discretization.order=" + std::to_string(p),
                     "discretization.quadrature_points=" + std::to_string(p + 1)});
        const io::Config cfg = io::parse_config(stage_yaml, "test.yaml", sets);
        INFO(c.what << ", p = " << p
                    << (v == &along ? ", the map along each pencil"
                                    : (v == &staged ? ", the tables staged" : "")));
        check_nodal_against_modal(cfg, *v, 2e-3);
      }
}

TEST_CASE("the nodal state at q = p + 1 with diffusion steps as the modal state to round-off",
          "[unit][fixed]") {
  // Advection-diffusion (SIPG) on non-affine elements at q = p + 1: the nodal kernel (the
  // gradient by the nodal derivative, the face values and derivatives from the values along
  // each face's normal) against the modal state through the collocated passes, three LSRK
  // steps: warped and perturbed meshes, periodic, Dirichlet, outflow and Neumann faces, the
  // rotation, a diffusivity field, Q2 elements; the per-point tables read where the passes use
  // them and staged in team scratch first (where they fit: p <= 5), and (CPUs) the trilinear
  // map at each point, with the face points' geometry from the map or from the per-point face
  // tables (Stage's MAP = 5, where the map applies).
  KernelVariant tables, recompute, staged, faces;
  recompute.qpencil_recompute = true;
  faces.qpencil_recompute = true;
  faces.qpencil_face_tables = 1;
  staged.qpencil_diffusion_map = 0;
  staged.qpencil_stage_tables = 1;
  struct Case {
    std::vector<std::string> sets;
    const char* what;
  };
  const std::vector<Case> cases = {
      {{}, "warped, Dirichlet, outflow and periodic faces"},
      {{"mesh.box=-nx 3 -warp 0.05 -perturb 0.1 -shuffle 7 -periodic xyz"}, "perturbed, periodic"},
      {{"boundary.ymin.type=neumann", "boundary.ymin.value=0.3*x", "boundary.ymax.type=neumann",
        "mesh.box=-nx 3 -ny 2 -nz 3 -warp 0.05 -shuffle 3"},
       "Neumann faces"},
      {{"physics.velocity_field=rotation", "physics.angular_velocity=1.3",
        "physics.rotation_center=[0.4, 0.55, 0.5]", "boundary.default=dirichlet",
        "physics.diffusivity=0.02*(1+x*y)"},
       "the rotation, a diffusivity field, Dirichlet faces"},
      {{"mesh.box=-nx 3 -periodic xz -curve 2"}, "Q2 elements"}};
  for (int p : {1, 2, 3, 4, 7})
    for (const Case& c : cases)
      for (const KernelVariant* v : {&tables, &recompute, &staged, &faces}) {
        std::vector<std::string> sets = c.sets;
        sets.insert(sets.end(), {"discretization.order=" + std::to_string(p),
                                 "discretization.quadrature_points=" + std::to_string(p + 1)});
        const io::Config cfg = io::parse_config(stage_yaml, "test.yaml", sets);
        INFO(c.what << ", p = " << p
                    << (v == &recompute ? ", the map at each point"
                        : v == &faces   ? ", the map with the face tables"
                                        : (v == &staged ? ", the tables staged" : "")));
        check_nodal_against_modal(cfg, *v, 5e-4); // within the diffusive limit at p = 7
      }
}

TEST_CASE("the nodal state holds the values at the Gauss points, and its modes come back",
          "[unit][fixed]") {
  for (int p : {1, 3, 4}) {
    const io::Config cfg =
        io::parse_config(stage_yaml, "test.yaml",
                         {"physics.diffusivity=0", "discretization.order=" + std::to_string(p),
                          "discretization.quadrature_points=" + std::to_string(p + 1)});
    Solver s(cfg, MPI_COMM_WORLD);
    s.initialize();
    ElementBlock& b = s.block();
    const std::vector<double> modes = host(b.u);
    View2 vals("vals", b.nelem, b.nvol);
    backward_transform(b.tables, b.u, vals); // the run-time-sized transform at the Q^3 points
    s.stage_state();
    REQUIRE(b.nodal);
    INFO("p = " << p);
    CHECK(rel_diff(host(b.u), host(vals)) < 1e-13);
    s.modal_state();
    CHECK(!b.nodal);
    CHECK(rel_diff(host(b.u), modes) < 1e-13);
  }
}

TEST_CASE("steps after DGOperator::prepare equal steps that build their set-up on first use",
          "[unit][fixed]") {
  // prepare() builds what the stages keep (records and words, per-point tables, the element
  // lists of a partly linear velocity and the tables of its other elements, the emitted traces'
  // buffer); the stages build each on first use otherwise. Both must give the same steps: the
  // modal, linear-velocity (all linear, and with the mixed-face elements on the quadrature
  // pencil path), quadrature pencil (q = p + 2 and p + 1) and run-time-sized paths.
  const std::string& affine = affine_box;
  const std::vector<std::string> rotation = {"mesh.box=-nx 3 -ny 3 -nz 2 -shuffle 5",
                                             "physics.velocity_field=rotation",
                                             "physics.angular_velocity=1.3",
                                             "physics.rotation_center=[0.4, 0.55, 0.5]",
                                             "boundary.default=dirichlet",
                                             "physics.diffusivity=0"};
  KernelVariant runtime, unmixed;
  runtime.fixed_order = false;
  unmixed.modal_linear_mixed = false;
  const std::vector<StepCase> cases = {
      {{affine, "physics.diffusivity=0"}, {}, "affine, modal pencil"},
      {{affine}, {}, "affine, advection-diffusion"},
      {rotation, {}, "rotation, mixed faces"},
      {rotation, unmixed, "rotation, mixed-face elements on the quadrature pencil path"},
      {{"physics.diffusivity=0"}, {}, "warped, quadrature pencil"},
      {{"physics.diffusivity=0", "discretization.quadrature_points=4"}, {}, "warped, q = p + 1"},
      {{}, runtime, "warped, run-time-sized kernels"}};
  for (const StepCase& c : cases) {
    std::vector<std::string> sets = c.sets;
    sets.push_back("discretization.order=3");
    INFO(c.what);
    const io::Config cfg = io::parse_config(stage_yaml, "test.yaml", sets);
    std::vector<double> u[2], u0;
    for (int prepared = 0; prepared < 2; ++prepared) {
      Solver s(cfg, MPI_COMM_WORLD);
      s.initialize();
      s.op().set_variant(c.v);
      u0 = host(s.block().u);
      if (prepared) {
        s.op().prepare(true);
        CHECK(host(s.block().u) == u0);
      }
      for (int n = 0; n < 3; ++n)
        s.step(1e-3);
      u[prepared] = host(s.block().u);
    }
    CHECK(rel_diff(u[1], u[0]) == 0.0);
    CHECK(rel_diff(u[1], u0) > 1e-6); // the steps moved the state
  }
}

TEST_CASE("quadrature-free affine path equals the quadrature path", "[unit][fixed]") {
  // A sheared box (parallelepipeds: every metric coupling G_dd' is non-zero) with shuffled
  // vertex numbering (every orientation code occurs), periodic in x and z, outflow elsewhere.
  mesh::HexMesh m =
      mesh::generate_box(mesh::parse_box_flags("-nx 3 -ny 4 -nz 3 -shuffle 9 -periodic xz"));
  std::filesystem::create_directories("test_out");
  // The same box unsheared: diagonal metric, the kernel skips the cross terms.
  mesh::write_mesh(m, "test_out/unsheared.h5");
  for (std::int64_t v = 0; v < m.num_vertices(); ++v) {
    double* x = &m.coords[3 * v];
    x[0] += 0.3 * x[1] + 0.1 * x[2];
    x[1] += 0.2 * x[2];
  }
  mesh::write_mesh(m, "test_out/sheared.h5");
  const char* yaml = R"(
mesh: {file: test_out/sheared.h5}
discretization: {order: 2}
physics: {velocity: [0.7, -0.4, 0.3], diffusivity: 0.0}
initial: {type: gaussian, center: [0.6, 0.5, 0.6], width: 0.2}
boundary: {default: outflow}
time: {final_time: 0.01, cfl: 0.4}
output: {snapshots: false, quiet: true, directory: test_out}
)";
  for (const char* mesh : {"sheared", "unsheared"})
    for (const char* nu : {"0.0", "0.03"})
      for (int p : {1, 2, 4, 6, 7}) { // p = 7: P = 8, the padded x-rows of ModalPencil
        if (std::string(mesh) == "unsheared" && (std::string(nu) == "0.0" || p == 1 || p == 7))
          continue;
        const io::Config cfg = io::parse_config(
            yaml, "test.yaml",
            {"discretization.order=" + std::to_string(p), "physics.diffusivity=" + std::string(nu),
             "mesh.file=test_out/" + std::string(mesh) + ".h5"});
        Solver s(cfg, MPI_COMM_WORLD);
        s.initialize();
        REQUIRE(s.block().affine);
        KernelVariant quadrature, modal;
        quadrature.modal_affine = false;
        modal.modal_diffusion = true;
        modal.modal_diffusion_max_order = fixed::max_order; // p = 6 too, on every backend
        s.op().set_variant(modal);
        REQUIRE(s.op().modal_path());
        const auto ref = rhs_with(s, quadrature);
        INFO(mesh << ", nu = " << nu << ", p = " << p);
        CHECK(rel_diff(rhs_with(s, modal), ref) < 1e-12);
        // With diffusion the unsheared box takes the kernel for axis-aligned elements (the
        // runs here and below), the sheared one the general kernel; the general kernel on the
        // unsheared box gives the same.
        const bool axis_aligned = std::string(mesh) == "unsheared" && std::string(nu) != "0.0";
        CHECK(s.op().modal_cartesian() == axis_aligned);
        if (axis_aligned) {
          KernelVariant general = modal;
          general.modal_cartesian = false;
          s.op().set_variant(general);
          CHECK_FALSE(s.op().modal_cartesian());
          CHECK(rel_diff(rhs_with(s, general), ref) < 1e-12);
          s.op().set_variant(modal);
        }
        // Several elements per team (36 elements: 5 does not divide them).
        KernelVariant modal5 = modal;
        modal5.modal_elems = 5;
        CHECK(rel_diff(rhs_with(s, modal5), ref) < 1e-12);
        CHECK(rel_diff(rhs_reversed(s, modal5), ref) < 1e-12);
        const int nm = s.block().nmodes;
        CHECK(rel_diff(rhs_tail(s, modal5, 7),
                       std::vector<double>(ref.begin() + 7 * nm, ref.end())) < 1e-12);
        // Several batches per team (8 batches of 5 over 3 teams: the next batch's loads in
        // flight while one is computed, the last team with two).
        KernelVariant batched = modal5;
        batched.modal_batches = 3;
        CHECK(rel_diff(rhs_with(s, batched), ref) < 1e-12);
        // Launch bounds (GPUs, p <= 8; the same kernel elsewhere): none and every register cap.
        for (int minb : {0, 3, 4, 5, 6, 8}) {
          KernelVariant bounded = modal;
          bounded.pencil_min_blocks = minb;
          INFO("launch bounds " << minb);
          CHECK(rel_diff(rhs_with(s, bounded), ref) < 1e-12);
        }
        // LSRK steps: modal traces handed on from stage to stage.
        std::vector<std::vector<double>> modes;
        // 0: quadrature; 1, 5 elements per team; -2: 2 elements per team in batches of 4.
        for (int use_modal : {0, 1, 5, -2}) {
          Solver t(cfg, MPI_COMM_WORLD);
          t.initialize();
          KernelVariant v;
          v.modal_affine = use_modal != 0;
          v.modal_diffusion = use_modal != 0;
          v.modal_diffusion_max_order = fixed::max_order;
          v.modal_elems = use_modal < 0 ? -use_modal : use_modal;
          v.modal_batches = use_modal < 0 ? 4 : 0;
          t.op().set_variant(v);
          for (int k = 0; k < 3; ++k)
            t.step(2e-4);
          modes.push_back(host(t.block().u));
        }
        CHECK(rel_diff(modes[1], modes[0]) < 1e-12);
        CHECK(rel_diff(modes[2], modes[0]) < 1e-12);
        CHECK(rel_diff(modes[3], modes[0]) < 1e-12);
      }
}

TEST_CASE("traces emitted by the last stage are not reused after the state is reset",
          "[unit][fixed]") {
  // Every LSRK stage emits the traces of its new state and the next step's first stage takes
  // them; initialize() (and restart()) change u outside the stages and must drop them.
  const char* yaml = R"(
mesh: {box: "-nx 3 -ny 3 -nz 3 -periodic xyz"}
discretization: {order: 3}
physics: {velocity: [0.7, -0.4, 0.3], diffusivity: 0.02}
initial: {type: gaussian, center: [0.6, 0.5, 0.6], width: 0.2}
time: {final_time: 0.01, cfl: 0.4}
output: {snapshots: false, quiet: true, directory: test_out}
)";
  for (const char* nu : {"0.0", "0.02"}) {
    const io::Config cfg =
        io::parse_config(yaml, "test.yaml", {"physics.diffusivity=" + std::string(nu)});
    Solver fresh(cfg, MPI_COMM_WORLD), reset(cfg, MPI_COMM_WORLD);
    fresh.initialize();
    reset.initialize();
    REQUIRE(reset.op().uses_fixed_kernels());
    for (int k = 0; k < 3; ++k)
      reset.step(1e-3);
    REQUIRE(reset.op().traces_current()); // the last stage emitted
    reset.initialize();
    for (int k = 0; k < 2; ++k) {
      fresh.step(1e-3);
      reset.step(1e-3);
    }
    INFO("nu = " << nu);
    CHECK(rel_diff(host(reset.block().u), host(fresh.block().u)) == 0.0);
  }
}

namespace {
/// The right-hand sides of two pencil variants against the reference `ref`: every element, the
/// elements in reverse order (the second variant), the contiguous tail from element 5.
void check_right_hand_sides(Solver& s, const KernelVariant& pencil, const KernelVariant& pencil3,
                            const std::vector<double>& ref) {
  CHECK(rel_diff(rhs_with(s, pencil), ref) < 1e-12);
  CHECK(rel_diff(rhs_with(s, pencil3), ref) < 1e-12);
  CHECK(rel_diff(rhs_reversed(s, pencil3), ref) < 1e-12);
  const int nm = s.block().nmodes;
  CHECK(rel_diff(rhs_tail(s, pencil3, 5), std::vector<double>(ref.begin() + 5 * nm, ref.end())) <
        1e-12);
}
} // namespace

TEST_CASE("quadrature pencil path equals the run-time-sized quadrature path", "[unit][fixed]") {
  // Advection on every geometry it takes: warped trilinear elements with shuffled vertex
  // numbering (every orientation code; trilinear geometry) and perturbed interior vertices (-warp
  // moves every vertex along (1, 1, 1), which leaves the quadratic terms of |J| and adj(J) a
  // along a pencil zero; -perturb moves each component independently), an affine box with a
  // velocity field and an affine box with inflow and Dirichlet faces (record and stored geometry),
  // warped with a field, dgmesh -curve 2 / 3 shells (curved: stored geometry), and the rotation
  // (velocity from each point's position) on warped, affine and Q2 blocks with Dirichlet faces.
  struct Case {
    const char* mesh;
    std::vector<std::string> sets;
    fixed::PencilGeometry geometry;
  };
  const std::vector<std::string> field = {
      "physics.velocity=[\"0.7+0.2*y\", \"-0.4*x\", \"0.3*cos(z)\"]"};
  const std::vector<std::string> data = {"boundary.default=outflow", "boundary.xmin.type=inflow",
                                         "boundary.xmin.value=sin(pi*y)*(1+t)",
                                         "boundary.zmax.type=dirichlet", "boundary.zmax.value=y*t"};
  std::vector<std::string> field_data = field;
  field_data.insert(field_data.end(), data.begin(), data.end());
  const std::vector<std::string> rotation = {
      "physics.velocity_field=rotation", "physics.angular_velocity=1.3",
      "physics.rotation_center=[0.4, 0.55, 0.5]", "boundary.default=dirichlet"};
  const std::vector<Case> cases = {
      {"-nx 3 -ny 3 -nz 2 -warp 0.08 -perturb 0.15 -shuffle 5 -periodic y",
       {},
       fixed::PencilGeometry::trilinear},
      {"-nx 3 -ny 3 -nz 2 -warp 0.08 -perturb 0.15 -shuffle 5", data,
       fixed::PencilGeometry::trilinear},
      {"-nx 3 -ny 3 -nz 2 -shuffle 5 -periodic y", field, fixed::PencilGeometry::stored},
      {"-nx 3 -ny 3 -nz 2 -shuffle 5", data, fixed::PencilGeometry::record},
      {"-nx 3 -ny 3 -nz 2 -warp 0.08 -shuffle 5", field_data, fixed::PencilGeometry::stored},
      {"-nx 4 -ny 2 -nz 2 -periodic xz -curve 2", {}, fixed::PencilGeometry::stored},
      {"-nx 3 -ny 3 -nz 2 -warp 0.08 -perturb 0.15 -shuffle 5", rotation,
       fixed::PencilGeometry::stored},
      {"-nx 3 -ny 3 -nz 2 -shuffle 5", rotation, fixed::PencilGeometry::stored},
      {"-nx 4 -ny 2 -nz 2 -curve 2", rotation, fixed::PencilGeometry::stored},
      {"-nx 4 -ny 2 -nz 2 -curve 3", data, fixed::PencilGeometry::stored}};
  // q = p + 2 (the default) and q = p + 1 (the pencil path's collocated-order kernels).
  int along_cases = 0;
  for (const Case& c : cases)
    for (int qo : {2, 1})
      for (int p : {1, 3, 4, 7}) {
        std::vector<std::string> sets = {
            std::string("mesh.box=") + c.mesh, "discretization.order=" + std::to_string(p),
            "discretization.quadrature_points=" + std::to_string(p + qo), "physics.diffusivity=0"};
        sets.insert(sets.end(), c.sets.begin(), c.sets.end());
        const io::Config cfg = io::parse_config(stage_yaml, "test.yaml", sets);
        Solver s(cfg, MPI_COMM_WORLD);
        s.initialize();
        if (s.block().Q != p + qo) continue; // -curve 3 at p = 1: q = 4, no compile-time kernels
        KernelVariant generic, pencil, pencil3;
        generic.fixed_order = false;
        pencil.modal_affine = pencil3.modal_affine = false; // affine blocks too
        pencil.qpencil_trilinear_pencil = false;            // per-point tables (CPU default)
        pencil3.qpencil_elems = 3;                          // 18 or 16 elements: a short last batch
        // The warped boxes' second run: the recomputed metric instead of per-point tables.
        pencil3.qpencil_recompute = true;
        pencil3.qpencil_min_blocks = 5; // launch bounds (GPUs)
        // q = p + 1: the modal right-hand side before the inverse mass, not the collocated passes.
        pencil3.qpencil_collocated = false;
        // Per-point tables: both sides of every interior face through the face passes.
        pencil3.qpencil_upwind_sides = false;
        const auto ref = rhs_with(s, generic);
        s.op().set_variant(pencil);
        INFO(c.mesh << (c.sets.empty() ? "" : " " + c.sets[0]) << ", p = " << p
                    << ", q = " << s.block().Q);
        REQUIRE(s.op().quadrature_pencil_path());
        const fixed::PencilGeometry g = s.op().quadrature_pencil_geometry();
        CHECK((g == fixed::PencilGeometry::stored || g == fixed::PencilGeometry::record));
        s.op().set_variant(pencil3);
        CHECK(s.op().quadrature_pencil_geometry() == c.geometry);
        check_right_hand_sides(s, pencil, pencil3, ref);
        // q = p + 1, non-affine: the collocated passes chosen at run time in the modal form's
        // kernel (the modal right-hand side first in pencil3 above).
        if (s.block().Q == p + 1 && !s.block().affine) {
          KernelVariant shared = pencil, shared3 = pencil3, own = pencil;
          shared.qpencil_collocated_kernel = shared3.qpencil_collocated_kernel = 0;
          shared3.qpencil_collocated = true;
          own.qpencil_collocated_kernel = 1;
          check_right_hand_sides(s, shared, shared3, ref);
          CHECK(rel_diff(rhs_with(s, own), ref) < 1e-12);
        }
        // Trilinear elements: adj(J) a and |J| along each pencil, (a . n) dS along each face row
        // from the map (no tables; the GPU default), with a constant velocity or the rotation.
        // With a constant velocity the map has a kernel of its own (qpencil_map_kernel); the
        // kernel of every geometry takes it as well.
        KernelVariant along = pencil;
        along.qpencil_trilinear_pencil = true;
        along.qpencil_trilinear_rotation = true;
        KernelVariant along_shared = along;
        along_shared.qpencil_map_kernel = false;
        const bool trilinear =
            c.geometry == fixed::PencilGeometry::trilinear ||
            (!s.block().affine && !s.block().curved && cfg.physics.velocity_field == "rotation");
        if (trilinear) {
          s.op().set_variant(along);
          CHECK(s.op().quadrature_pencil_geometry() == fixed::PencilGeometry::trilinear_pencil);
          CHECK(rel_diff(rhs_with(s, along), ref) < 1e-12);
          CHECK(rel_diff(rhs_reversed(s, along), ref) < 1e-12);
          CHECK(rel_diff(rhs_with(s, along_shared), ref) < 1e-12);
          ++along_cases;
        }
        // LSRK steps: the stages emit the modal traces the next stage reads.
        const auto modes =
            trilinear ? steps_with(cfg, {&generic, &pencil, &pencil3, &along, &along_shared})
                      : steps_with(cfg, {&generic, &pencil, &pencil3});
        for (size_t k = 1; k < modes.size(); ++k)
          CHECK(rel_diff(modes[k], modes[0]) < 1e-12);
      }
  // The two warped constant-velocity cases and the warped rotation, p = 1, 3, 4, 7, both q.
  CHECK(along_cases == 24);
}

TEST_CASE("modal path with a velocity affine in space equals the run-time-sized quadrature path",
          "[unit][fixed]") {
  // The rotation and linear expression fields on affine boxes (shuffled vertex numbering: every
  // orientation code, reference axes permuted and reflected), with Dirichlet and inflow data:
  // every element linear, or some elements whose faces see (a . n) change sign (interior and
  // Dirichlet faces: mixed faces, or with modal_linear_mixed = false the quadrature pencil path
  // for those elements). The velocity's divergence (the x-dependence of a_x) is included.
  struct Case {
    const char* mesh;
    std::vector<std::string> sets;
    bool all_linear;
  };
  const std::vector<std::string> rotation = {"physics.velocity_field=rotation",
                                             "physics.angular_velocity=1.3",
                                             "boundary.default=dirichlet"};
  std::vector<std::string> centred = rotation, offset = rotation;
  centred.push_back("physics.rotation_center=[0.5, 0.5, 0.5]");
  offset.push_back("physics.rotation_center=[0.4, 0.55, 0.5]");
  const std::vector<std::string> periodic = {
      "physics.velocity=[\"1+0.5*(y-0.5)\", \"0.5+0.3*(z-0.5)\", \"0.25+0.2*(x-0.5)\"]"};
  const std::vector<std::string> data = {
      "physics.velocity=[\"0.7+0.2*y+0.1*x\", \"-0.4*x\", \"0.3\"]",
      "boundary.default=outflow",
      "boundary.xmin.type=inflow",
      "boundary.xmin.value=sin(pi*y)*(1+t)",
      "boundary.zmax.type=dirichlet",
      "boundary.zmax.value=y*t",
      "boundary.ymax.type=dirichlet",
      "boundary.ymax.value=1+x*z"};
  const std::vector<Case> cases = {{"-nx 4 -ny 4 -nz 2 -shuffle 5", centred, true},
                                   {"-nx 3 -ny 3 -nz 2 -shuffle 5", offset, false},
                                   {"-nx 3 -ny 3 -nz 2 -shuffle 5 -periodic xyz", periodic, true},
                                   {"-nx 3 -ny 3 -nz 2 -shuffle 5", data, true}};
  for (const Case& c : cases)
    for (int p : {1, 2, 4, 7})
      for (bool mixed : {true, false}) {
        std::vector<std::string> sets = {std::string("mesh.box=") + c.mesh,
                                         "discretization.order=" + std::to_string(p),
                                         "physics.diffusivity=0"};
        sets.insert(sets.end(), c.sets.begin(), c.sets.end());
        const io::Config cfg = io::parse_config(stage_yaml, "test.yaml", sets);
        Solver s(cfg, MPI_COMM_WORLD);
        s.initialize();
        INFO(c.mesh << " " << c.sets[0] << ", p = " << p << ", mixed faces " << mixed);
        KernelVariant generic, modal, modal3, qpencil;
        for (KernelVariant* v : {&generic, &modal, &modal3, &qpencil})
          v->modal_linear_mixed = mixed;
        generic.fixed_order = false;
        modal3.modal_elems = 3; // several elements per team, a short last batch
        modal3.pencil_min_blocks = 0;
        modal.modal_linear_registers = 1;   // GPUs: F_0 in registers, ...
        modal3.modal_linear_registers = 0;  // ... and in scratch
        modal3.boundary_data_ahead = false; // time-dependent data stage by stage
        qpencil.modal_linear = false;
        s.op().set_variant(qpencil);
        CHECK(!s.op().modal_path());
        s.op().set_variant(modal);
        // One rank: with mixed faces every element is linear.
        const int n = s.block().nelem, lin = s.op().linear_elements();
        CHECK(lin > 0);
        CHECK((lin == n) == (c.all_linear || mixed));
        REQUIRE(s.op().modal_path());
        CHECK(s.op().modal_linear());
        CHECK(s.op().quadrature_pencil_path() == (lin < n));
        CHECK(s.op().boundary_data_ahead() == (c.sets[0] != periodic[0] && lin == n));
        if (c.sets == centred) // the Dirichlet faces the flow enters: half of xmin, ymin and
          // ymax (4 x 2 faces each, x = 0.5 and y = 0.5 on element faces); the z sides see
          // a . n = 0, and xmax is an outflow face (stage_yaml)
          CHECK(s.op().data_slots().size() == 12);
        const auto ref = rhs_with(s, generic);
        check_right_hand_sides(s, modal, modal3, ref);
        // LSRK steps: the linear elements emit the traces their neighbours read.
        const auto modes = steps_with(cfg, {&generic, &modal, &modal3, &qpencil});
        CHECK(rel_diff(modes[1], modes[0]) < 1e-12);
        CHECK(rel_diff(modes[2], modes[0]) < 1e-12);
        CHECK(rel_diff(modes[3], modes[0]) < 1e-12);
      }
}

TEST_CASE("quadrature pencil path with diffusion equals the run-time-sized quadrature path",
          "[unit][fixed]") {
  // Advection-diffusion (SIPG, nodal traces of u and grad u . n): warped trilinear elements with
  // every orientation code, with inflow, Neumann and Dirichlet data, a velocity and a
  // diffusivity field with a source on an affine box, Q2 and Q3 shells (curved), the rotation.
  // On the warped boxes with a constant velocity and diffusivity also the geometry from the
  // trilinear map at each point (KernelVariant::qpencil_recompute, CPU builds; perturbed
  // vertices: every coefficient of the map non-zero). At q = p + 1 the non-affine blocks take the
  // collocated passes, and also the modal right-hand side first
  // (KernelVariant::qpencil_collocated).
  const std::vector<std::string> data = {"boundary.default=outflow",
                                         "boundary.xmin.type=inflow",
                                         "boundary.xmin.value=sin(pi*y)*(1+t)",
                                         "boundary.zmin.type=neumann",
                                         "boundary.zmin.value=0.1*x",
                                         "boundary.zmax.type=dirichlet",
                                         "boundary.zmax.value=y*t"};
  const std::vector<std::string> fields = {
      "physics.velocity=[\"0.7+0.2*y\", \"-0.4*x\", \"0.3*cos(z)\"]",
      "physics.diffusivity=0.02*(1+x*y)", "physics.source=exp(-t)*x"};
  const std::vector<std::string> rotation = {
      "physics.velocity_field=rotation", "physics.angular_velocity=1.3",
      "physics.rotation_center=[0.4, 0.55, 0.5]", "boundary.default=dirichlet"};
  const std::vector<std::pair<const char*, std::vector<std::string>>> cases = {
      {"-nx 3 -ny 3 -nz 2 -warp 0.08 -shuffle 5 -periodic y", {}},
      {"-nx 3 -ny 3 -nz 2 -warp 0.08 -perturb 0.15 -shuffle 5", data},
      {"-nx 3 -ny 3 -nz 2 -shuffle 5 -periodic y", fields},
      {"-nx 4 -ny 2 -nz 2 -periodic xz -curve 2", {}},
      {"-nx 4 -ny 2 -nz 2 -curve 3", data},
      {"-nx 3 -ny 3 -nz 2 -warp 0.08 -shuffle 5", rotation}};
  int map_cases = 0;
  for (const auto& c : cases)
    for (int p : {1, 3, 4})
      for (int q : {p + 2, p + 1}) {
        std::vector<std::string> sets = {
            std::string("mesh.box=") + c.first, "discretization.order=" + std::to_string(p),
            "discretization.quadrature_points=" + std::to_string(q), "physics.diffusivity=0.03"};
        sets.insert(sets.end(), c.second.begin(), c.second.end());
        const io::Config cfg = io::parse_config(stage_yaml, "test.yaml", sets);
        Solver s(cfg, MPI_COMM_WORLD);
        s.initialize();
        if (s.block().Q != q) continue; // -curve 3 at p = 1: q = 4, no compile-time kernels
        KernelVariant generic, pencil, pencil3, quadrature;
        generic.fixed_order = false;
        pencil.modal_affine = pencil3.modal_affine = false; // affine blocks too
        pencil3.qpencil_elems = 3;                          // a short last batch
        pencil3.qpencil_min_blocks = 5;                     // launch bounds (GPUs)
        quadrature.quadrature_pencil = false;
        const auto ref = rhs_with(s, generic);
        s.op().set_variant(pencil);
        INFO(c.first << (c.second.empty() ? "" : " " + c.second[0]) << ", p = " << p
                     << ", q = " << q);
        REQUIRE(s.op().quadrature_pencil_path());
        CHECK(s.op().quadrature_pencil_geometry() == fixed::PencilGeometry::stored);
        check_right_hand_sides(s, pencil, pencil3, ref);
        if (q == p + 1) { // the modal right-hand side first instead of the collocated passes
          KernelVariant modal_rhs = pencil, modal_rhs3 = pencil3;
          modal_rhs.qpencil_collocated = modal_rhs3.qpencil_collocated = false;
          check_right_hand_sides(s, modal_rhs, modal_rhs3, ref);
          // The collocated passes in the modal form's kernel, chosen at run time, and in their
          // own.
          KernelVariant shared = pencil, shared3 = pencil3, own = pencil;
          shared.qpencil_collocated_kernel = shared3.qpencil_collocated_kernel = 0;
          own.qpencil_collocated_kernel = 1;
          check_right_hand_sides(s, shared, shared3, ref);
          CHECK(rel_diff(rhs_with(s, own), ref) < 1e-12);
          s.op().set_variant(pencil);
        }
        // The map at each point, where it applies (the first two cases; CPU builds).
        KernelVariant mapped = pencil, mapped3 = pencil3;
        mapped.qpencil_recompute = mapped3.qpencil_recompute = true;
        s.op().set_variant(mapped);
        const bool map = (&c == &cases[0] || &c == &cases[1]) && fixed::diffusion_map;
        CHECK(s.op().quadrature_pencil_geometry() ==
              (map ? fixed::PencilGeometry::trilinear : fixed::PencilGeometry::stored));
        if (map) {
          check_right_hand_sides(s, mapped, mapped3, ref);
          ++map_cases;
        }
        // LSRK steps: the stages emit the nodal traces the next stage reads.
        const auto modes =
            map ? steps_with(cfg, {&generic, &pencil, &pencil3, &quadrature, &mapped, &mapped3})
                : steps_with(cfg, {&generic, &pencil, &pencil3, &quadrature});
        for (size_t k = 1; k < modes.size(); ++k)
          CHECK(rel_diff(modes[k], modes[0]) < 1e-12);
      }
  CHECK(map_cases == (fixed::diffusion_map ? 12 : 0)); // two cases, p = 1, 3, 4, both q
}

TEST_CASE("modal path with inflow and Dirichlet faces equals the run-time-sized path",
          "[unit][fixed]") {
  // Advection with a constant velocity on affine boxes (sheared: every metric term non-zero;
  // shuffled: every orientation code) with t-dependent inflow data on xmin and Dirichlet data
  // on zmax and ymin: the data's modal coefficients stand in for the neighbour's trace.
  // Steps take the data at all their stage times at once (KernelVariant::boundary_data_ahead)
  // or stage by stage; the classical RK4 evaluates two stages at the same time. At p = 4 the
  // data do not depend on time: projected once, or at every stage.
  // The stages read the data of the faces the flow enters alone (a = (0.7, -0.4, 0.3): xmin,
  // ny nz faces where x is not periodic; zmax and ymin are outflow), and a step evaluates and
  // projects those alone.
  const std::pair<const char*, std::size_t> meshes[] = {
      {"-nx 3 -ny 4 -nz 3 -shuffle 9 -periodic x", 0}, {"-nx 3 -ny 3 -nz 2", 6}};
  for (const auto& [mesh, xmin_faces] : meshes)
    for (int p : {1, 2, 4, 7}) {
      const bool steady = p == 4;
      const io::Config cfg = io::parse_config(
          stage_yaml, "test.yaml",
          {std::string("mesh.box=") + mesh, "discretization.order=" + std::to_string(p),
           "physics.diffusivity=0", "boundary.default=outflow", "boundary.xmin.type=inflow",
           steady ? "boundary.xmin.value=sin(pi*y)+z" : "boundary.xmin.value=sin(pi*y)*(1+t)+z",
           "boundary.zmax.type=dirichlet",
           steady ? "boundary.zmax.value=y-x" : "boundary.zmax.value=y*t-x",
           "boundary.ymin.type=dirichlet", "boundary.ymin.value=cos(x+z)",
           std::string("time.integrator=") + (p == 2 ? "rk4" : "lsrk54")});
      Solver s(cfg, MPI_COMM_WORLD);
      s.initialize();
      KernelVariant generic, modal, modal5, qpencil, per_stage;
      generic.fixed_order = false;
      modal5.modal_elems = 5;
      modal5.modal_batches = 2;
      per_stage.boundary_data_ahead = false;
      qpencil.modal_boundary_data = false;
      s.op().set_variant(modal);
      INFO(mesh << ", p = " << p);
      REQUIRE(s.block().affine);
      REQUIRE(s.op().modal_path());
      CHECK(s.op().boundary_data_ahead());
      CHECK(s.op().data_slots().size() == xmin_faces);
      s.op().set_variant(qpencil);
      REQUIRE(!s.op().modal_path());
      const auto ref = rhs_with(s, generic);
      CHECK(rel_diff(rhs_with(s, modal), ref) < 1e-12);
      CHECK(rel_diff(rhs_with(s, modal5), ref) < 1e-12);
      CHECK(rel_diff(rhs_with(s, qpencil), ref) < 1e-12);
      CHECK(rel_diff(rhs_reversed(s, modal5), ref) < 1e-12);
      const auto modes = steps_with(cfg, {&generic, &modal, &modal5, &per_stage});
      CHECK(rel_diff(modes[1], modes[0]) < 1e-12);
      CHECK(rel_diff(modes[2], modes[0]) < 1e-12);
      CHECK(rel_diff(modes[3], modes[1]) < 1e-14); // the same kernels, the data taken per stage
      if (steady) { // after steps: projected once, and still the reference right-hand side
        Solver t(cfg, MPI_COMM_WORLD);
        t.initialize();
        t.step(2e-3);
        REQUIRE(t.op().holds_constant_boundary_data());
        View2 out("rhs", t.block().nelem, t.block().nmodes);
        Epilogue ep;
        ep.out = out;
        t.rhs(0.01, ep); // the default variant, reading the data projected at the first step
        CHECK(rel_diff(host(out), rhs_with(t, generic)) < 1e-12);
      }
    }
}
