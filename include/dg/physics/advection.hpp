// Linear advection u_t + div(a u) = 0 in conservative form (a need not be divergence-free):
// pointwise velocity, flux and the upwind numerical flux. No Views, no loops.
#pragma once

#include <Kokkos_Core.hpp>

namespace dg::physics {

/// Velocity field: constant, solid-body rotation about the z-axis through `center`
/// (a = omega * (-(y - cy), x - cx, 0)), or a field tabulated at set-up at the points the kernels
/// read (ElementBlock::avol, aface; velocity() is then not used).
struct Advection {
  enum Kind : int { constant = 0, rotation = 1, field = 2 };
  int kind = constant;
  double a[3] = {1.0, 0.0, 0.0};
  double omega = 0.0;
  double center[3] = {0.5, 0.5, 0.5};

  KOKKOS_INLINE_FUNCTION void velocity(const double x[3], double v[3]) const {
    if (kind == 0) {
      v[0] = a[0];
      v[1] = a[1];
      v[2] = a[2];
    } else if (kind == rotation) {
      v[0] = -omega * (x[1] - center[1]);
      v[1] = omega * (x[0] - center[0]);
      v[2] = 0.0;
    } else {
      v[0] = v[1] = v[2] = 0.0;
    }
  }
};

/// Upwind flux (a.n) u*: takes the trace from the side the flow comes from.
KOKKOS_INLINE_FUNCTION double upwind_flux(double an, double u_in, double u_out) {
  return an >= 0.0 ? an * u_in : an * u_out;
}

} // namespace dg::physics
