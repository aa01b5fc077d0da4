// Explicit Runge-Kutta time integrators over an element block: Carpenter-Kennedy low-storage
// RK(5,4) (default; its update is fused into the right-hand-side kernel), SSP-RK3 (Shu-Osher)
// and classical RK4.
#pragma once

#include "dg/dg/operator.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dg {

/// Carpenter & Kennedy (1994), RK(5,4) 2N-storage, solution 3: stage s sets
/// reg = lsrk_a[s] reg + dt R(u, t + lsrk_c[s] dt), then u += lsrk_b[s] reg.
inline constexpr double lsrk_a[5] = {
    0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0,
    -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0};
inline constexpr double lsrk_b[5] = {
    1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0,
    1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0,
    2277821191437.0 / 14882151754819.0};
inline constexpr double lsrk_c[5] = {
    0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363183929.0,
    2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0};

/// Evaluates the right-hand side of the current block.u at time t and applies `ep`.
using StageFunction = std::function<void(double t, const Epilogue& ep)>;

class TimeIntegrator {
public:
  /// `scheme`: lsrk54 | ssprk3 | rk4.
  TimeIntegrator(const std::string& scheme, ElementBlock& block);
  /// Advances block.u from t to t + dt.
  void step(const StageFunction& rhs, double t, double dt);
  int stages() const;
  /// The times at which step(rhs, t, dt) evaluates the right-hand side, stage by stage.
  std::vector<double> stage_times(double t, double dt) const;
  const std::string& scheme() const { return scheme_; }
  /// Whether each stage emits the traces of the state it writes (the low-storage scheme's
  /// fused stages; DGOperator::prepare).
  bool emits_traces() const { return scheme_ == "lsrk54"; }

private:
  std::string scheme_;
  ElementBlock* block_;
  View2 u0_, acc_, res_; // extra registers of the non-low-storage schemes
};

/// Largest stable dt for the CFL number `cfl`, from the advective and diffusive limits of
/// every element: dt = cfl / max_K ( |a|_K (p+1)^2 / h_K + nu (p+1)^4 / h_K^2 ),
/// h_K = |K| / max face area (a cube of side h has h_K = h). Local minimum; reduce over ranks.
double local_stable_dt(const ElementBlock& block, const physics::AdvectionDiffusion& pde,
                       double cfl);

} // namespace dg
