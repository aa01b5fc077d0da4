// Metric terms of the trilinear map inside kernels: the Jacobian's adjugate |J| J^{-1} and |J| at
// a reference point, in ElementBlock's vgeo layout ([d*3+i] = adj(J)[d][i], reference direction
// d, physical direction i).
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/mesh/hex.hpp"

namespace dg::integration {

/// adj(J) and det J of element e of `verts` (elem, vertex, xyz) at reference point r.
/// About 250 flops: 8 vertices x (3 + 6 + 18), adjugate 27, determinant 5.
KOKKOS_INLINE_FUNCTION void metric_at(const View3& verts, int e, const double r[3], double A[9],
                                      double& det) {
  double J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}; // J[i][j] = dx_i / dr_j
  for (int v = 0; v < 8; ++v) {
    const double sv[3] = {double(hex::vertex_sign(v, 0)), double(hex::vertex_sign(v, 1)),
                          double(hex::vertex_sign(v, 2))};
    const double f[3] = {1.0 + sv[0] * r[0], 1.0 + sv[1] * r[1], 1.0 + sv[2] * r[2]};
    const double dN[3] = {0.125 * sv[0] * f[1] * f[2], 0.125 * f[0] * sv[1] * f[2],
                          0.125 * f[0] * f[1] * sv[2]};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        J[i][j] += verts(e, v, i) * dN[j];
  }
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

} // namespace dg::integration
