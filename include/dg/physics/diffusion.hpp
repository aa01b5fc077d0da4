// Isotropic diffusion u_t = div(nu grad u): flux and the symmetric interior penalty (SIPG)
// face flux. No Views, no loops.
#pragma once

#include <Kokkos_Core.hpp>

namespace dg::physics {

struct Diffusion {
  double nu = 0.0;
  /// SIPG penalty factor eta: tau = eta * nu * (p+1)^2 * max(|F| / |K-|, |F| / |K+|) (the
  /// classical (p+1)^2 / h scaling with h = |K| / |F|; see docs/design.md).
  double eta = 1.0;
};

/// Normal SIPG flux seen from the "-" side with outward unit normal n:
///   F*.n = -nu {grad u . n} + tau [u],  [u] = u- - u+,
/// given g_in = grad u- . n and g_out = grad u+ . n+ = -(grad u+ . n).
KOKKOS_INLINE_FUNCTION double sipg_flux(double nu, double tau, double u_in, double u_out,
                                        double g_in, double g_out) {
  return -nu * 0.5 * (g_in - g_out) + tau * (u_in - u_out);
}

} // namespace dg::physics
