// Physical position (and det J) of a reference point of a block element, inside kernels: the
// trilinear map of its 8 vertices, or the Q_k map of its nodes for curved blocks.
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/mesh/qk_map.hpp"

namespace dg {

/// Node accessor of element e of a View (elem, node, xyz) for qk::map.
struct ViewNodes {
  View3 nodes;
  int e;
  KOKKOS_INLINE_FUNCTION double operator()(int n, int i) const { return nodes(e, n, i); }
};

/// x = map of element e at reference point r; det J when `det` is set. k: the block's geometric
/// order (1: trilinear from `verts`; 2, 3: Q_k from `nodes`).
KOKKOS_INLINE_FUNCTION void element_map(const View3& verts, const View3& nodes, int k, int e,
                                        const double r[3], double x[3], double* det = nullptr) {
  if (k <= 1) {
    trilinear_map(verts, e, r, x, det);
    return;
  }
  double J[3][3];
  qk::map(ViewNodes{nodes, e}, k, r, x, J);
  if (det)
    *det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
           J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

} // namespace dg
