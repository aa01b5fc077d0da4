// The isoparametric Q_k map of a hexahedron from its (k+1)^3 nodes (k = 1, 2, 3): the node
// layout, the 1-D Lagrange basis on equispaced points and the position and Jacobian at a
// reference point. Host and device (the nodes come through an accessor X(node, xyz)).
#pragma once

#include <Kokkos_Core.hpp>

namespace dg::qk {

/// Largest geometric order supported.
constexpr int max_order = 3;

// Node n of an element of order k sits at the reference point
//   (r, s, t) = (-1 + 2 i / k, -1 + 2 j / k, -1 + 2 l / k),  n = i + (k+1) (j + (k+1) l)
// (lexicographic, r fastest). For k = 1 these are the 8 corners; corner v of the VTK order is
// node corner_node(1, v).

/// Lexicographic node of VTK corner v (0..7) for order k.
KOKKOS_INLINE_FUNCTION constexpr int corner_node(int k, int v) {
  // VTK corner v: r index k ((v&1)^((v>>1)&1)), s index k ((v>>1)&1), t index k (v>>2).
  return k * (((v & 1) ^ ((v >> 1) & 1)) + (k + 1) * (((v >> 1) & 1) + (k + 1) * (v >> 2)));
}

/// Values l[i] and derivatives dl[i] of the k+1 Lagrange polynomials on the equispaced points
/// -1 + 2 i / k of [-1, 1], at r.
KOKKOS_INLINE_FUNCTION void lagrange(int k, double r, double l[max_order + 1],
                                     double dl[max_order + 1]) {
  double xi[max_order + 1];
  for (int i = 0; i <= k; ++i)
    xi[i] = -1.0 + 2.0 * i / k;
  for (int i = 0; i <= k; ++i) {
    double val = 1.0, der = 0.0;
    for (int j = 0; j <= k; ++j) {
      if (j == i) continue;
      const double inv = 1.0 / (xi[i] - xi[j]), f = (r - xi[j]) * inv;
      der = der * f + val * inv; // product rule, accumulated factor by factor
      val *= f;
    }
    l[i] = val;
    dl[i] = der;
  }
}

/// x = sum_n N_n(r) X_n and, when J is given, J[i][j] = dx_i / dr_j of the Q_k map.
template <class Nodes>
KOKKOS_INLINE_FUNCTION void map(const Nodes& X, int k, const double r[3], double x[3],
                                double (*J)[3] = nullptr) {
  double l[3][max_order + 1], dl[3][max_order + 1];
  for (int d = 0; d < 3; ++d)
    lagrange(k, r[d], l[d], dl[d]);
  x[0] = x[1] = x[2] = 0.0;
  if (J)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        J[i][j] = 0.0;
  const int n1 = k + 1;
  for (int c = 0; c < n1; ++c)
    for (int b = 0; b < n1; ++b)
      for (int a = 0; a < n1; ++a) {
        const int n = a + n1 * (b + n1 * c);
        const double N = l[0][a] * l[1][b] * l[2][c];
        const double dN[3] = {dl[0][a] * l[1][b] * l[2][c], l[0][a] * dl[1][b] * l[2][c],
                              l[0][a] * l[1][b] * dl[2][c]};
        for (int i = 0; i < 3; ++i) {
          const double Xi = X(n, i);
          x[i] += N * Xi;
          if (J)
            for (int j = 0; j < 3; ++j)
              J[i][j] += Xi * dN[j];
        }
      }
}

} // namespace dg::qk
