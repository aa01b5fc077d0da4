// Explicit Runge-Kutta time integrators over an element block: Carpenter-Kennedy low-storage
// RK(5,4) (default; its update is fused into the right-hand-side kernel), SSP-RK3 (Shu-Osher)
// and classical RK4.
#pragma once

#include "dg/dg/operator.hpp"

#include <functional>
#include <string>

namespace dg {

/// Evaluates the right-hand side of the current block.u at time t and applies `ep`.
using StageFunction = std::function<void(double t, const Epilogue& ep)>;

class TimeIntegrator {
public:
  /// `scheme`: lsrk54 | ssprk3 | rk4.
  TimeIntegrator(const std::string& scheme, ElementBlock& block);
  /// Advances block.u from t to t + dt.
  void step(const StageFunction& rhs, double t, double dt);
  int stages() const;
  const std::string& scheme() const { return scheme_; }

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
