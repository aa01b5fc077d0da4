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

/// The map as a polynomial in the reference coordinates (r, s, t),
///   x = G_0 + G_1 r + G_2 s + G_3 t + G_4 rs + G_5 rt + G_6 st + G_7 rst,
/// with component i of G_g at G[3 g + i] (the layout the stage kernels stage per element).
/// From one component's values x_v at the 8 vertices: G_g = (1/8) sum_v x_v m_g(v), m_g the
/// monomial g at the vertex's signs.
KOKKOS_INLINE_FUNCTION void trilinear_coefficients(const double x[8], double c[8]) {
  for (int g = 0; g < 8; ++g)
    c[g] = 0.0;
  for (int v = 0; v < 8; ++v) {
    const int sr = hex::vertex_sign(v, 0), ss = hex::vertex_sign(v, 1), st = hex::vertex_sign(v, 2);
    const int mono[8] = {1, sr, ss, st, sr * ss, sr * st, ss * st, sr * ss * st};
    for (int g = 0; g < 8; ++g)
      c[g] += mono[g] * x[v];
  }
  for (int g = 0; g < 8; ++g)
    c[g] *= 0.125;
}

/// ... component i of all 8 coefficients, into G[3 g + i], from a vertex accessor.
template <class Vertices>
KOKKOS_INLINE_FUNCTION void trilinear_coefficients(const Vertices& X, int i, double* G) {
  double x[8], c[8];
  for (int v = 0; v < 8; ++v)
    x[v] = X(v, i);
  trilinear_coefficients(x, c);
  for (int g = 0; g < 8; ++g)
    G[3 * g + i] = c[g];
}

/// The Jacobian's columns dx/dr, dx/ds, dx/dt at (r, s, t) from the coefficients G.
KOKKOS_FORCEINLINE_FUNCTION void trilinear_columns(const double* G, double r, double s, double t,
                                                   double Jr[3], double Js[3], double Jt[3]) {
  for (int i = 0; i < 3; ++i) {
    const double* g = G + i; // coefficient k of component i at g[3 k]
    Jr[i] = g[3] + g[12] * s + g[15] * t + g[21] * s * t;
    Js[i] = g[6] + g[12] * r + g[18] * t + g[21] * r * t;
    Jt[i] = g[9] + g[15] * r + g[18] * s + g[21] * r * s;
  }
}

/// Along the x-line (s, t): J_r (constant in r), J_s = As + r Bs and J_t = At + r Bt.
KOKKOS_FORCEINLINE_FUNCTION void trilinear_line_columns(const double* G, double s, double t,
                                                        double Jr[3], double As[3], double Bs[3],
                                                        double At[3], double Bt[3]) {
  for (int i = 0; i < 3; ++i) {
    const double* g = G + i;
    Jr[i] = g[3] + g[12] * s + g[15] * t + g[21] * s * t;
    As[i] = g[6] + g[18] * t;
    Bs[i] = g[12] + g[21] * t;
    At[i] = g[9] + g[18] * s;
    Bt[i] = g[15] + g[21] * s;
  }
}

/// The position x(r, s, t) from the coefficients G.
KOKKOS_FORCEINLINE_FUNCTION void trilinear_position(const double* G, double r, double s, double t,
                                                    double x[3]) {
  for (int i = 0; i < 3; ++i) {
    const double* g = G + i;
    x[i] = g[0] + g[3] * r + g[6] * s + g[9] * t + g[12] * r * s + g[15] * r * t + g[18] * s * t +
           g[21] * r * s * t;
  }
}

/// x and |J| at r from the coefficients G: about 70 flops instead of trilinear_point's and
/// trilinear_metric's 300 and 24 vertex loads.
KOKKOS_INLINE_FUNCTION void trilinear_point_det(const double* G, const double r[3], double x[3],
                                                double& det) {
  double Jr[3], Js[3], Jt[3];
  trilinear_position(G, r[0], r[1], r[2], x);
  trilinear_columns(G, r[0], r[1], r[2], Jr, Js, Jt);
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
