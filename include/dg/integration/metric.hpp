// Metric terms of the trilinear map inside kernels: the Jacobian's adjugate |J| J^{-1} and |J| at
// a reference point, in ElementBlock's vgeo layout ([d*3+i] = adj(J)[d][i], reference direction
// d, physical direction i).
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/dg/trilinear.hpp"

namespace dg::integration {

/// adj(J) and det J of element e of `verts` (elem, vertex, xyz) at reference point r
/// (dg::trilinear_metric). About 250 flops: 8 vertices x (3 + 6 + 18), adjugate 27, det 5.
KOKKOS_INLINE_FUNCTION void metric_at(const View3& verts, int e, const double r[3], double A[9],
                                      double& det) {
  trilinear_metric(ViewVertices{verts, e}, r, A, det);
}

} // namespace dg::integration
