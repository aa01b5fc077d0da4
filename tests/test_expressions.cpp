// User expressions and boundary conditions by name: the muParser layer (functions, parameters,
// time dependence), manufactured solutions written as expressions (advection, diffusion and both,
// a non-divergence-free velocity, a source, t-dependent Dirichlet and inflow data, Neumann data,
// a diffusivity field) converging at order >= p + 0.7 on affine and warped meshes, the rotation
// shorthand against the same field as expressions, conservation with a compressible velocity,
// and the input errors found at set-up (unknown tag names, values that are not finite).
#include "catch.hpp"
#include "solver_util.hpp"

#include "dg/core/error.hpp"
#include "dg/physics/expression.hpp"
#include "dg/problem.hpp"

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

using dgtest::run_case;

namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string solver_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    const dg::io::Config cfg = dg::io::parse_config(yaml, "test.yaml", overrides);
    dg::Solver s(cfg, MPI_COMM_WORLD);
  } catch (const dg::InputError& e) {
    const std::string what = e.what();
    UNSCOPED_INFO(what);
    CHECK(what.find('\n') == std::string::npos);
    return what;
  }
  FAIL("no InputError for:\n" << yaml);
  return {};
}

// The manufactured solution u = exp(-t/2) sin(k1 x + k2 y + 1/2) cos(k3 z - 1/3) on the unit
// box, for u_t + div(a u) = div(nu grad u) + s with a = ka (1 + 0.3 x, 0.5, cos(z)/4)
// (div a = ka (0.3 - sin(z)/4): not divergence-free) and nu = nu0 (1 + kx x). With
// lap u = -(k1^2 + k2^2 + k3^2) u the source is
//   s = u (-1/2 + |k|^2 nu + div a) + a . grad u - nu0 kx du/dx,
// written out below (checked against sympy). Dirichlet data on every face but ymax (the exact
// solution, t-dependent), Neumann data nu du/dy on ymax.
const char* const mms_yaml = R"Y(
parameters: {ka: 1, nu0: 0.05, kx: 0, k1: 1, k2: 0.5, k3: 0.5}
mesh: {box: "-nx 2"}
discretization: {order: 2}
physics:
  velocity: ["ka*(1+0.3*x)", "ka*0.5", "ka*cos(z)/4"]
  diffusivity: "nu0*(1 + kx*x)"
  source: >-
    exp(-t/2)*( sin(k1*x+k2*y+0.5)*cos(k3*z-1/3)*(-0.5 + (k1^2+k2^2+k3^2)*nu0*(1+kx*x)
    + ka*(0.3 - sin(z)/4)) + ka*(cos(k1*x+k2*y+0.5)*cos(k3*z-1/3)*(k1*(1+0.3*x)+0.5*k2)
    - cos(z)/4*k3*sin(k1*x+k2*y+0.5)*sin(k3*z-1/3)) - nu0*kx*k1*cos(k1*x+k2*y+0.5)*cos(k3*z-1/3) )
initial: {exact: "exp(-t/2)*sin(k1*x+k2*y+0.5)*cos(k3*z-1/3)"}
boundary:
  default: dirichlet
  ymax: {type: neumann, value: "nu0*(1+kx*x)*k2*exp(-t/2)*cos(k1*x+k2*y+0.5)*cos(k3*z-1/3)"}
time: {final_time: 0.02}
output: {snapshots: false, quiet: true, directory: test_out}
)Y";

/// L2 errors at n = ns for order p; checks the last observed order >= p + 0.7.
void mms_order(const std::string& name, int p, const std::vector<int>& ns, const std::string& mesh,
               const std::vector<std::string>& extra) {
  std::vector<double> e;
  for (int n : ns) {
    std::vector<std::string> ov = {"mesh.box=-nx " + std::to_string(n) + mesh,
                                   "discretization.order=" + std::to_string(p)};
    ov.insert(ov.end(), extra.begin(), extra.end());
    e.push_back(run_case(mms_yaml, ov).l2_error);
  }
  const double rate = std::log(e[0] / e[1]) / std::log(double(ns[1]) / ns[0]);
  std::cout << name << " p = " << p << ": n " << ns[0] << " -> " << ns[1] << ", L2 errors " << e[0]
            << " -> " << e[1] << ", observed order " << rate << " (>= " << p + 0.7 << ")\n";
  INFO(name << ": p = " << p << ", errors " << e[0] << " -> " << e[1] << ", order " << rate);
  CHECK(rate >= p + 0.7);
}

const char* const warped = " -warp 0.02 -shuffle 3";

} // namespace

TEST_CASE("expressions: functions, parameters, time dependence", "[unit][expr]") {
  using dg::expr::Expression;
  const dg::expr::Parameters prm{{"U", 2.0}, {"k", 3.0}};
  const Expression e("U*sin(pi*x) + pow(y, k) + if(z > 0.5, 1, 2) + max(x, y, z) + abs(-t)", prm,
                     true, "f.yaml", "k");
  CHECK(e.depends_on_t());
  CHECK_FALSE(e.is_constant());
  const double x = 0.25, y = 0.5, z = 0.75, t = -0.3;
  CHECK(e(x, y, z, t) == Approx(2.0 * std::sin(M_PI * x) + std::pow(y, 3.0) + 1.0 + z + 0.3));
  const Expression c("tanh(1) + exp(0) + sqrt(4) + min(3, 1) + (2 < 3 ? 5 : 6) + atan2(1, 1)", prm,
                     false, "f.yaml", "k");
  CHECK(c.is_constant());
  CHECK_FALSE(c.depends_on_t());
  CHECK(c.value() == Approx(std::tanh(1.0) + 1 + 2 + 1 + 5 + M_PI / 4));
  CHECK(dg::expr::parameter_value("2*pi*U", prm, "f.yaml", "parameters.w") == Approx(4 * M_PI));
}

TEST_CASE("MMS: advection-diffusion, source, t-dependent Dirichlet, Neumann, affine",
          "[convergence][expr]") {
  for (int p = 1; p <= 5; ++p)
    mms_order("advection-diffusion affine", p, {2, 4}, "", {});
}

TEST_CASE("MMS: advection-diffusion, source, t-dependent Dirichlet, Neumann, warped",
          "[convergence][expr]") {
  for (int p = 1; p <= 5; ++p)
    mms_order("advection-diffusion warped", p, {2, 4}, warped, {});
}

TEST_CASE("MMS: advection-diffusion, source, t-dependent Dirichlet, Neumann, curved",
          "[convergence][expr][curved]") {
  // dgmesh -curve K: the box mapped onto a cylindrical shell about the z axis, isoparametric
  // elements of order K. The shell's y faces are curved, so the Neumann datum (nu du/dy on a
  // box's ymax) moves to the flat zmax face, where the outward normal is +z.
  const std::vector<std::string> curved = {
      "boundary.ymax=dirichlet", "boundary.zmax.type=neumann",
      "boundary.zmax.value=-nu0*(1+kx*x)*k3*exp(-t/2)*sin(k1*x+k2*y+0.5)*sin(k3*z-1/3)"};
  for (int p = 1; p <= 5; ++p)
    mms_order("advection-diffusion curved Q2", p, {2, 4}, " -curve 2", curved);
  // Q3 at p = 3: the 2 -> 4 pair is not yet asymptotic (3.58); 3 -> 6 gives 3.74.
  for (int p = 1; p <= 3; ++p)
    mms_order("advection-diffusion curved Q3", p,
              p < 3 ? std::vector<int>{2, 4} : std::vector<int>{3, 6}, " -curve 3", curved);
}

TEST_CASE("MMS: advection with inflow data on every face, source", "[convergence][expr]") {
  // Inflow everywhere: the data enters where a.n < 0, the rest of each face is left free.
  const std::vector<std::string> adv = {"parameters.nu0=0", "boundary.default=inflow",
                                        "boundary.ymax=inflow"};
  for (int p = 1; p <= 5; ++p)
    mms_order("advection inflow affine", p, {2, 4}, "", adv);
  for (int p = 1; p <= 3; ++p)
    mms_order("advection inflow warped", p, {2, 4}, warped, adv);
}

TEST_CASE("MMS: diffusion, Dirichlet and Neumann, a diffusivity field", "[convergence][expr]") {
  for (int p = 1; p <= 4; ++p)
    mms_order("diffusion affine", p, {2, 4}, "", {"parameters.ka=0"});
  for (int p = 1; p <= 3; ++p)
    mms_order("diffusion field warped", p, {2, 4}, warped,
              {"parameters.ka=0", "parameters.kx=0.5"});
}

TEST_CASE("the rotation shorthand and the same field as expressions agree to round-off",
          "[unit][expr]") {
  const char* yaml = R"Y(
mesh: {box: "-nx 3 -warp 0.05 -shuffle 2"}
discretization: {order: 3}
physics: {velocity_field: rotation, angular_velocity: 2, rotation_center: [0.4, 0.5, 0.5],
          diffusivity: 0.002}
initial: {type: gaussian, center: [0.6, 0.5, 0.5], width: 0.15}
boundary: {default: outflow, xmin: {type: dirichlet, value: "0.1*t*sin(pi*y)"}}
time: {steps: 8}
output: {snapshots: false, quiet: true, directory: test_out}
)Y";
  auto modes = [&](const std::vector<std::string>& ov) {
    const dg::io::Config cfg = dg::io::parse_config(yaml, "test.yaml", ov);
    dg::Solver s(cfg, MPI_COMM_SELF);
    s.initialize();
    const double dt = 1e-3;
    for (int n = 0; n < 8; ++n)
      s.step(dt);
    return s.gather_modes();
  };
  const auto shorthand = modes({});
  const auto expressions = modes({"physics.velocity_field=expression",
                                  "physics.velocity=[\"-2*(y-0.5)\", \"2*(x-0.4)\", \"0\"]"});
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < shorthand.size(); ++i) {
    num += (shorthand[i] - expressions[i]) * (shorthand[i] - expressions[i]);
    den += shorthand[i] * shorthand[i];
  }
  const double rel = std::sqrt(num / den);
  INFO("relative L2 difference " << rel);
  CHECK(rel < 1e-13);
}

TEST_CASE("a compressible velocity conserves the integral (conservative form)", "[unit][expr]") {
  // u_t + div(a u) = 0 on a periodic box with div a != 0: int u is conserved while u changes.
  const char* yaml = R"Y(
mesh: {box: "-nx 3 -periodic xyz -warp 0.05 -shuffle 4"}
discretization: {order: 3}
physics: {velocity: ["1 + 0.5*sin(2*pi*x)", "0.3*cos(2*pi*x)", "0.2"], diffusivity: 0.001}
initial: {expression: "1 + 0.5*sin(2*pi*(x+y))"}
time: {steps: 20}
output: {snapshots: false, quiet: true, directory: test_out}
)Y";
  const dg::io::Config cfg = dg::io::parse_config(yaml, "test.yaml");
  dg::Solver s(cfg, MPI_COMM_WORLD);
  s.initialize();
  const auto d0 = s.diagnostics();
  const double dt = s.time_step();
  for (int n = 0; n < 20; ++n)
    s.step(dt);
  const auto d1 = s.diagnostics();
  INFO("integral " << d0.integral << " -> " << d1.integral << ", energy " << d0.energy << " -> "
                   << d1.energy);
  CHECK(std::fabs(d1.integral - d0.integral) < 1e-13 * std::fabs(d0.integral));
  CHECK(std::fabs(d1.energy - d0.energy) > 1e-6 * d0.energy); // the state does change
}

TEST_CASE("input errors found at set-up: tag names, values that are not finite",
          "[unit][expr][config]") {
  const std::string base = "mesh: {box: -nx 2 -periodic z}\noutput: {directory: test_out}\n";
  const std::string free = base + "boundary: {default: outflow}\n";
  // A boundary name the mesh does not have: the mesh's tags, nearest first.
  auto e = solver_error(base + "boundary:\n  xmn: outflow\n");
  CHECK(has(e, "test.yaml:4:8: boundary.xmn: the mesh has no boundary tag xmn; its tags, "
               "nearest first: xmin, xmax, ymin,"));
  // NaN or infinity at a point: the key and the point.
  e = solver_error(free + "initial: {expression: \"1/(x-0.25)\"}\n");
  CHECK(has(e, "initial.expression = \"1/(x-0.25)\": is "));
  CHECK(has(e, "at (x, y, z) = ("));
  CHECK(has(e, "must be finite everywhere"));
  e = solver_error(free + "physics: {velocity: [\"sqrt(x-0.5)\", 0, 0]}\n");
  CHECK((has(e, "physics.velocity[0] = \"sqrt(x-0.5)\": is -nan at (x, y, z) = (") ||
         has(e, "physics.velocity[0] = \"sqrt(x-0.5)\": is nan at (x, y, z) = (")));
  e = solver_error(free + "physics: {diffusivity: \"x-0.5\"}\n");
  CHECK(has(e, "physics.diffusivity = \"x-0.5\": is -"));
  CHECK(has(e, "must be >= 0"));
  e = solver_error(base + "boundary:\n  default: outflow\n  xmin: {type: dirichlet, value: "
                          "\"log(y*t)\"}\n");
  CHECK(has(e, "boundary.xmin.value = \"log(y*t)\": is -inf at (x, y, z, t) = (0, "));
  // A Dirichlet face without data when no exact solution is known.
  e = solver_error(base + "initial: {expression: \"x\"}\n");
  CHECK(has(e, "boundary.default: a dirichlet boundary needs a value"));
}
