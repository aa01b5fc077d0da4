// The trilinear map of a hex from its 8 vertices (VTK order), evaluated inside kernels: position,
// Jacobian, its adjugate |J| J^{-1} and determinant at a reference point. The vertices come
// through an accessor X(v, i) (a View of all elements or a team's scratch copy).
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/mesh/hex.hpp"

namespace dg {

/// Vertex accessors: element e of a View (elem, vertex, xyz), or 24 numbers X[3 v + i].
struct ViewVertices {
  View3 verts;
  int e;
  KOKKOS_INLINE_FUNCTION double operator()(int v, int i) const { return verts(e, v, i); }
};
struct ArrayVertices {
  const double* X;
  KOKKOS_INLINE_FUNCTION double operator()(int v, int i) const { return X[3 * v + i]; }
};

/// x = sum_v N_v(r) X_v.
template <class Vertices>
KOKKOS_INLINE_FUNCTION void trilinear_point(const Vertices& X, const double r[3], double x[3]) {
  x[0] = x[1] = x[2] = 0.0;
  for (int v = 0; v < 8; ++v) {
    const double N = 0.125 * (1.0 + hex::vertex_sign(v, 0) * r[0]) *
                     (1.0 + hex::vertex_sign(v, 1) * r[1]) * (1.0 + hex::vertex_sign(v, 2) * r[2]);
    for (int i = 0; i < 3; ++i)
      x[i] += N * X(v, i);
  }
}

/// J[i][j] = dx_i / dr_j.
template <class Vertices>
KOKKOS_INLINE_FUNCTION void trilinear_jacobian(const Vertices& X, const double r[3],
                                               double J[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      J[i][j] = 0.0;
  for (int v = 0; v < 8; ++v) {
    const double sv[3] = {double(hex::vertex_sign(v, 0)), double(hex::vertex_sign(v, 1)),
                          double(hex::vertex_sign(v, 2))};
    const double f[3] = {1.0 + sv[0] * r[0], 1.0 + sv[1] * r[1], 1.0 + sv[2] * r[2]};
    const double dN[3] = {0.125 * sv[0] * f[1] * f[2], 0.125 * f[0] * sv[1] * f[2],
                          0.125 * f[0] * f[1] * sv[2]};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        J[i][j] += X(v, i) * dN[j];
  }
}

/// Metric terms in ElementBlock's vgeo layout: A[d * 3 + i] = adj(J)[d][i] = |J| dr_d/dx_i, and
/// det = |J|. About 250 flops.
template <class Vertices>
KOKKOS_INLINE_FUNCTION void trilinear_metric(const Vertices& X, const double r[3], double A[9],
                                             double& det) {
  double J[3][3];
  trilinear_jacobian(X, r, J);
  A[0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  A[1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  A[2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  A[3] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  A[4] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  A[5] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  A[6] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  A[7] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  A[8] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  det = J[0][0] * A[0] + J[0][1] * A[3] + J[0][2] * A[6];
}

/// The map as a polynomial, x = c_0 + r c_1 + s c_2 + rs c_3 + t c_4 + rt c_5 + st c_6 + rst c_7
/// (bit d of k: the monomial has r_d): component i of c_k = sum_v X_v prod_{d in k} sign_d(v) / 8.
template <class Vertices>
KOKKOS_INLINE_FUNCTION double trilinear_coefficient(const Vertices& X, int k, int i) {
  double c = 0.0;
  for (int v = 0; v < 8; ++v) {
    int m = 1;
    for (int d = 0; d < 3; ++d)
      if ((k >> d) & 1) m *= hex::vertex_sign(v, d);
    c += m * X(v, i);
  }
  return 0.125 * c;
}

/// x and det J at r from the coefficients C[3 k + i] of trilinear_coefficient: about 70 flops
/// instead of trilinear_point's and trilinear_metric's 300 and 24 vertex loads.
KOKKOS_INLINE_FUNCTION void trilinear_from_coefficients(const double* C, const double r[3],
                                                        double x[3], double& det) {
  const double rs = r[0] * r[1], rt = r[0] * r[2], st = r[1] * r[2];
  double Jr[3], Js[3], Jt[3]; // the columns dx/dr, dx/ds, dx/dt
  for (int i = 0; i < 3; ++i) {
    const double c0 = C[i], c1 = C[3 + i], c2 = C[6 + i], c3 = C[9 + i], c4 = C[12 + i],
                 c5 = C[15 + i], c6 = C[18 + i], c7 = C[21 + i];
    x[i] = c0 + r[0] * c1 + r[1] * c2 + rs * c3 + r[2] * c4 + rt * c5 + st * c6 + rs * r[2] * c7;
    Jr[i] = c1 + r[1] * c3 + r[2] * c5 + st * c7;
    Js[i] = c2 + r[0] * c3 + r[2] * c6 + rt * c7;
    Jt[i] = c4 + r[0] * c5 + r[1] * c6 + rs * c7;
  }
  det = Jr[0] * (Js[1] * Jt[2] - Js[2] * Jt[1]) + Jr[1] * (Js[2] * Jt[0] - Js[0] * Jt[2]) +
        Jr[2] * (Js[0] * Jt[1] - Js[1] * Jt[0]);
}

/// x = sum_v N_v(r) X_v for element e of `verts` (elem, vertex, xyz); det J when `det` is set.
KOKKOS_INLINE_FUNCTION void trilinear_map(const View3& verts, int e, const double r[3], double x[3],
                                          double* det = nullptr) {
  const ViewVertices X{verts, e};
  trilinear_point(X, r, x);
  if (det) {
    double A[9];
    trilinear_metric(X, r, A, *det);
  }
}

} // namespace dg
