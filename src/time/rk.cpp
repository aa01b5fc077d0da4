// Runge-Kutta schemes and the CFL rule.
#include "dg/time/rk.hpp"

#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"

namespace dg {

namespace {
/// u = alpha * u0 + beta * (u + dt * res)
void combine(const View2& u, const View2& u0, const View2& res, double alpha, double beta,
             double dt) {
  const int n = static_cast<int>(u.extent(1));
  Kokkos::parallel_for(
      "dg::rk::combine", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long>(u.extent(0)) * n),
      KOKKOS_LAMBDA(const long i) {
        const int e = static_cast<int>(i / n), m = static_cast<int>(i % n);
        u(e, m) = alpha * u0(e, m) + beta * (u(e, m) + dt * res(e, m));
      });
}
} // namespace

TimeIntegrator::TimeIntegrator(const std::string& scheme, ElementBlock& block)
    : scheme_(scheme), block_(&block) {
  DG_VERIFY(scheme == "lsrk54" || scheme == "ssprk3" || scheme == "rk4",
            "unknown integrator " << scheme);
  if (scheme != "lsrk54") {
    u0_ = View2("dg::rk::u0", block.nelem, block.nmodes);
    res_ = View2("dg::rk::res", block.nelem, block.nmodes);
    if (scheme == "rk4") acc_ = View2("dg::rk::acc", block.nelem, block.nmodes);
  }
}

int TimeIntegrator::stages() const {
  return scheme_ == "lsrk54" ? 5 : (scheme_ == "rk4" ? 4 : 3);
}

std::vector<double> TimeIntegrator::stage_times(double t, double dt) const {
  if (scheme_ == "lsrk54") {
    std::vector<double> ts(5);
    for (int s = 0; s < 5; ++s)
      ts[s] = t + lsrk_c[s] * dt;
    return ts;
  }
  if (scheme_ == "ssprk3") return {t, t + dt, t + 0.5 * dt};
  return {t, t + 0.5 * dt, t + 0.5 * dt, t + dt};
}

void TimeIntegrator::step(const StageFunction& rhs, double t, double dt) {
  ElementBlock& b = *block_;
  const std::vector<double> ts = stage_times(t, dt);
  if (scheme_ == "lsrk54") {
    Epilogue ep;
    ep.mode = Epilogue::lsrk;
    ep.dt = dt;
    for (int s = 0; s < 5; ++s) {
      ep.a = lsrk_a[s];
      ep.b = lsrk_b[s];
      ep.keep_reg = s < 4; // the next step's first stage (a = 0) does not read the register
      // Every stage emits the traces of the state it writes, and takes the ones the previous
      // stage (of this step or the last) emitted where the operator still holds them: no trace
      // kernel between steps. Whoever changes u outside the stages invalidates them
      // (DGOperator::invalidate_traces; Solver::initialize and restart do).
      ep.traces_ready = true;
      ep.emit_traces = true;
      rhs(ts[s], ep);
    }
    return;
  }
  Epilogue ep;
  ep.mode = Epilogue::store;
  ep.out = res_;
  Kokkos::deep_copy(u0_, b.u);
  if (scheme_ == "ssprk3") {
    rhs(ts[0], ep);
    combine(b.u, u0_, res_, 0.0, 1.0, dt);
    rhs(ts[1], ep);
    combine(b.u, u0_, res_, 0.75, 0.25, dt);
    rhs(ts[2], ep);
    combine(b.u, u0_, res_, 1.0 / 3.0, 2.0 / 3.0, dt);
    return;
  }
  // Classical RK4: acc collects sum b_s k_s; the stage input is u0 + c dt k_prev.
  const double c[4] = {0.0, 0.5, 0.5, 1.0}, w[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  Kokkos::deep_copy(acc_, 0.0);
  const View2 u = b.u, u0 = u0_, acc = acc_, res = res_;
  const int n = b.nmodes;
  for (int s = 0; s < 4; ++s) {
    rhs(ts[s], ep);
    const double ws = w[s] * dt, cn = s < 3 ? c[s + 1] * dt : 0.0;
    const bool last = s == 3;
    Kokkos::parallel_for(
        "dg::rk::rk4_stage", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long>(u.extent(0)) * n),
        KOKKOS_LAMBDA(const long i) {
          const int e = static_cast<int>(i / n), m = static_cast<int>(i % n);
          acc(e, m) += ws * res(e, m);
          u(e, m) = last ? u0(e, m) + acc(e, m) : u0(e, m) + cn * res(e, m);
        });
  }
}

double local_stable_dt(const ElementBlock& block, const physics::AdvectionDiffusion& pde,
                       double cfl) {
  const double p1 = block.order + 1.0;
  const double nu = pde.diffusion.nu;
  const physics::Advection adv = pde.advection;
  const View1 h = block.hmin;
  const View3 verts = block.verts;
  const View1 amax_field = block.amax, numax_field = block.numax; // fields: max per element
  const bool afield = adv.kind == physics::Advection::field, nufield = numax_field.extent(0) > 0;
  double rate = 0.0;
  Kokkos::parallel_reduce(
      "dg::rk::cfl", Kokkos::RangePolicy<ExecSpace>(0, block.nelem),
      KOKKOS_LAMBDA(const int e, double& m) {
        double amax = 0.0;
        if (afield) {
          amax = amax_field(e);
        } else {
          for (int v = 0; v < 8; ++v) { // velocity at the vertices (exact for affine fields)
            const double x[3] = {verts(e, v, 0), verts(e, v, 1), verts(e, v, 2)};
            double a[3];
            adv.velocity(x, a);
            amax = math::fmax(amax, math::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
          }
        }
        const double nue = nufield ? numax_field(e) : nu;
        const double r = amax * p1 * p1 / h(e) + nue * p1 * p1 * p1 * p1 / (h(e) * h(e));
        if (r > m) m = r;
      },
      Kokkos::Max<double>(rate));
  return rate > 0.0 ? cfl / rate : 1e300;
}

} // namespace dg
