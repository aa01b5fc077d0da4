// Exact solutions of advection-diffusion used as initial conditions, Dirichlet data and for
// error norms: a Fourier mode and a Gaussian pulse (sum of periodic images), for constant or
// rotating velocity. Pointwise and device-callable.
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/physics/advection_diffusion.hpp"

namespace dg::physics {

struct ExactSolution {
  int kind = 1; // 0 fourier, 1 gaussian, 2 constant, 3 zero
  double amplitude = 1.0;
  double k[3] = {2 * math::pi, 2 * math::pi, 2 * math::pi}; // wave vector (physical)
  double center[3] = {0.5, 0.5, 0.5};
  double width = 0.1;
  double value = 1.0;
  double lo[3] = {0, 0, 0}, len[3] = {1, 1, 1}; // domain box
  bool periodic[3] = {true, true, true};
  AdvectionDiffusion pde;

  /// Whether the formula solves the PDE exactly (constant always; Fourier needs a constant
  /// velocity).
  bool is_exact() const { return kind != 0 || pde.advection.kind == 0; }

  KOKKOS_INLINE_FUNCTION double operator()(const double x[3], double t) const {
    const double nu = pde.diffusion.nu;
    if (kind == 2) return value;
    if (kind == 3) return 0.0;
    if (kind == 0) {
      const double* a = pde.advection.a;
      double phase = 0.0, k2 = 0.0;
      for (int d = 0; d < 3; ++d) {
        phase += k[d] * (x[d] - a[d] * t);
        k2 += k[d] * k[d];
      }
      return amplitude * math::sin(phase) * math::exp(-nu * k2 * t);
    }
    // Gaussian: centre carried by the flow, variance grown by diffusion.
    double c[3];
    const Advection& adv = pde.advection;
    if (adv.kind != Advection::rotation) { // a tabulated field has a = 0 here
      for (int d = 0; d < 3; ++d)
        c[d] = center[d] + adv.a[d] * t;
    } else {
      const double th = adv.omega * t, cs = math::cos(th), sn = math::sin(th);
      const double dx = center[0] - adv.center[0], dy = center[1] - adv.center[1];
      c[0] = adv.center[0] + cs * dx - sn * dy;
      c[1] = adv.center[1] + sn * dx + cs * dy;
      c[2] = center[2];
    }
    const double s2 = width * width + 2.0 * nu * t;
    const double ratio = width * width / s2;
    const double scale = amplitude * ratio * math::sqrt(ratio);
    double r[3];
    for (int d = 0; d < 3; ++d) {
      r[d] = x[d] - c[d];
      if (periodic[d]) { // nearest image, then the two neighbours below
        r[d] -= len[d] * math::floor(r[d] / len[d] + 0.5);
      }
    }
    // The Gaussian factors by direction, so the sum over the 27 images is the product of three
    // sums over each direction's images: 9 exponentials instead of 27.
    const double h = -0.5 / s2;
    double prod = 1.0;
    for (int d = 0; d < 3; ++d) {
      const int m = periodic[d] ? 1 : 0;
      double sum = 0.0;
      for (int i = -m; i <= m; ++i) {
        const double dx = r[d] + i * len[d];
        sum += math::exp(h * dx * dx);
      }
      prod *= sum;
    }
    return scale * prod;
  }
};

} // namespace dg::physics
