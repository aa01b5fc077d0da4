// Batched element transforms between modal coefficients and quadrature-point values, one team
// per element with scratch memory for the intermediate tensors.
#pragma once

#include "dg/dg/basis.hpp"

namespace dg {

/// vals(e, abc) = sum_ijk modes(e, ijk) Mx(a,i) My(b,j) Mz(c,k), Mx/My/Mz = B, or D in the
/// direction `deriv` (0, 1, 2; -1 for none). modes (E, P^3), vals (E, Q^3).
void backward_transform(const BasisTables& t, const View2& modes, const View2& vals,
                        int deriv = -1);

/// modes(e, ijk) = sum_abc vals(e, abc) Mx(a,i) My(b,j) Mz(c,k) (vals already weighted), with D
/// in direction `deriv` (-1 for none).
void inner_product(const BasisTables& t, const View2& vals, const View2& modes, int deriv = -1);

/// Scratch doubles per team for a transform with P modes and Q points per direction.
inline int transform_scratch(int P, int Q) {
  const int m = P > Q ? P : Q;
  return 2 * m * m * m;
}

} // namespace dg
