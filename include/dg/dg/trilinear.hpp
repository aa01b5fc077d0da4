// The trilinear map of a hex from its 8 vertices (VTK order), evaluated inside kernels:
// position and Jacobian determinant at a reference point.
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/mesh/hex.hpp"

namespace dg {

/// x = sum_v N_v(r) X_v for element e of `verts` (elem, vertex, xyz); det J when `det` is set.
KOKKOS_INLINE_FUNCTION void trilinear_map(const View3& verts, int e, const double r[3],
                                          double x[3], double* det = nullptr) {
  double J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  x[0] = x[1] = x[2] = 0.0;
  for (int v = 0; v < 8; ++v) {
    const double sv[3] = {double(hex::vertex_sign(v, 0)), double(hex::vertex_sign(v, 1)),
                          double(hex::vertex_sign(v, 2))};
    const double f[3] = {1.0 + sv[0] * r[0], 1.0 + sv[1] * r[1], 1.0 + sv[2] * r[2]};
    const double N = 0.125 * f[0] * f[1] * f[2];
    for (int i = 0; i < 3; ++i) x[i] += N * verts(e, v, i);
    if (det) {
      const double dN[3] = {0.125 * sv[0] * f[1] * f[2], 0.125 * f[0] * sv[1] * f[2],
                            0.125 * f[0] * f[1] * sv[2]};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) J[i][j] += verts(e, v, i) * dN[j];
    }
  }
  if (det)
    *det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
           J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

} // namespace dg
