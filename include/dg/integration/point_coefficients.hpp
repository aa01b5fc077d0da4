// The coefficient tensor C_q of the quadrature element matrices at one Gauss point (weight,
// metric terms, PDE coefficients), shared by the naive kernel (src/integration/quadrature.cpp)
// and the sum-factorised one (src/integration/sumfact.cpp), so that both integrate the same
// numbers, and the one dispatch from a run-time form to their kernel templates (with_form).
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/integration/element_matrices.hpp"
#include "dg/integration/metric.hpp"

#include <type_traits>

namespace dg::integration {

/// Entries of one (a, b) block of C_q per form: mass 1 (w |J|); laplacian, elasticity 9
/// ([d][d'] on test / trial reference derivatives, entry 3 d + d'); advection-diffusion 12
/// ([d][jd], entry 4 d + jd: test derivative d, trial value jd = 0 or derivative jd = 1..3).
constexpr int block_size(Form f) {
  return f == Form::mass ? 1 : (f == Form::advection_diffusion ? 12 : 9);
}
constexpr int ncomp(Form f) {
  return f == Form::elasticity ? 3 : 1;
}

/// Test (alpha) and trial (beta) factor of entry c of a C_q block: 0 = the value phi, 1..3 = the
/// reference derivative d/dr_{alpha-1}. K(i, j) = sum_q sum_c psi_i^alpha(c) C_q[c] psi_j^beta(c).
constexpr int test_factor(Form f, int c) {
  return f == Form::mass ? 0 : (f == Form::advection_diffusion ? 1 + c / 4 : 1 + c / 3);
}
constexpr int trial_factor(Form f, int c) {
  return f == Form::mass ? 0 : (f == Form::advection_diffusion ? c % 4 : 1 + c % 3);
}

/// Flops of one C_q block at one point (multiply, add, sin one each; src/integration/
/// quadrature.cpp derives them): mass 1; laplacian 56, plus 105 for kappa(x) without a field;
/// elasticity 118; advection-diffusion 71. The metric recomputed from the vertices adds 250.
inline double coefficient_flops(Form f, bool kappa_field) {
  switch (f) {
  case Form::mass:
    return 1;
  case Form::laplacian:
    return 56 + (kappa_field ? 0 : 105);
  case Form::elasticity:
    return 118;
  case Form::advection_diffusion:
    return 71;
  }
  return 0;
}

/// Calls fn(std::integral_constant<Form, F>{}) for the run-time form f: the one switch from a
/// form to the kernel templates of the naive and the sum-factorised assembly.
template <class Fn>
void with_form(Form f, Fn&& fn) {
  switch (f) {
  case Form::mass:
    fn(std::integral_constant<Form, Form::mass>{});
    break;
  case Form::laplacian:
    fn(std::integral_constant<Form, Form::laplacian>{});
    break;
  case Form::elasticity:
    fn(std::integral_constant<Form, Form::elasticity>{});
    break;
  case Form::advection_diffusion:
    fn(std::integral_constant<Form, Form::advection_diffusion>{});
    break;
  }
}

/// Metric and coefficient data of a batch of elements, evaluated point by point.
template <Form F>
struct PointCoefficients {
  static constexpr int nb = block_size(F);
  Coefficients coef;
  View3 verts, vgeo; // (elem, 8, 3); (elem, Q^3 or 1, 10) when `stored`
  View1 w;           // (Q^3) weights
  View2 r;           // (Q^3, 3) reference coordinates
  bool affine, stored;

  KOKKOS_INLINE_FUNCTION void metric(int e, int q, double A[9], double& det) const {
    if (stored) {
      const int gp = affine ? 0 : q;
      for (int k = 0; k < 9; ++k)
        A[k] = vgeo(e, gp, k);
      det = vgeo(e, gp, 9);
    } else {
      const double rr[3] = {r(q, 0), r(q, 1), r(q, 2)};
      metric_at(verts, e, rr, A, det);
    }
  }

  /// Block (a, b) of C_q of element e into C[0 .. nb).
  KOKKOS_INLINE_FUNCTION void operator()(int e, int q, int a, int b, double* C) const {
    double A[9], det;
    metric(e, q, A, det);
    const double wq = w(q);
    double AAt[9]; // adj(d,:) . adj(d',:)
    if constexpr (F != Form::mass)
      for (int d = 0; d < 3; ++d)
        for (int dp = 0; dp < 3; ++dp)
          AAt[3 * d + dp] =
              A[3 * d] * A[3 * dp] + A[3 * d + 1] * A[3 * dp + 1] + A[3 * d + 2] * A[3 * dp + 2];
    if constexpr (F == Form::mass) {
      C[0] = wq * det;
    } else if constexpr (F == Form::laplacian) {
      double kappa;
      if (coef.kappa_field.extent(0) > 0) {
        kappa = coef.kappa_field(e, q);
      } else {
        const double rr[3] = {r(q, 0), r(q, 1), r(q, 2)};
        double xp[3];
        trilinear_map(verts, e, rr, xp);
        kappa = kappa_function(coef, xp);
      }
      const double s = wq * kappa / det;
      for (int k = 0; k < 9; ++k)
        C[k] = s * AAt[k];
    } else if constexpr (F == Form::elasticity) {
      const double s = wq / det;
      for (int d = 0; d < 3; ++d)
        for (int dp = 0; dp < 3; ++dp)
          C[3 * d + dp] =
              s * (coef.lambda * A[3 * d + a] * A[3 * dp + b] +
                   coef.mu * ((a == b ? AAt[3 * d + dp] : 0.0) + A[3 * d + b] * A[3 * dp + a]));
    } else { // advection-diffusion: w adj(d,:) . (a phi - nu adj^T grad_r phi / |J|)
      const double s = -wq * coef.nu / det;
      for (int d = 0; d < 3; ++d) {
        C[4 * d] = wq * (A[3 * d] * coef.velocity[0] + A[3 * d + 1] * coef.velocity[1] +
                         A[3 * d + 2] * coef.velocity[2]);
        for (int dp = 0; dp < 3; ++dp)
          C[4 * d + 1 + dp] = s * AAt[3 * d + dp];
      }
    }
  }
};

template <Form F>
PointCoefficients<F> point_coefficients(const Coefficients& coef, const Geometry& geo,
                                        const QuadTables& t, bool stored_metric) {
  return PointCoefficients<F>{coef, geo.verts, geo.vgeo, t.w, t.r, geo.affine, stored_metric};
}

} // namespace dg::integration
