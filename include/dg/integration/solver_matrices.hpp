// The solver's use of the element-integration module: exact curved mass matrices
// (discretization.mass: exact) and the element-matrix volume term
// (discretization.operator: element_matrix), plugged into DGOperator's hooks.
#pragma once

#include "dg/dg/operator.hpp"
#include "dg/io/config.hpp"

#include <memory>

namespace dg::integration {

class SolverMatrices {
public:
  /// Builds what the configuration asks for and sets it on `op`:
  ///  * mass = exact: M_e by quadrature (the block's q; exact for trilinear hexes at q >= p+2),
  ///    inverted by batched LU (Kokkos-Kernels), set_mass_inverse;
  ///  * operator = element_matrix: K_e = int grad phi_i . (a phi_j - nu grad phi_j) with the
  ///    block's stored metric and quadrature, applied by batched TeamGemv into a volume View2
  ///    given to set_volume_term. Constant velocity only (InputError otherwise).
  SolverMatrices(const io::Config& cfg, ElementBlock& block, const physics::AdvectionDiffusion& pde,
                 DGOperator& op);
  /// Before each right-hand side: volume(e) = K_e u_e (nothing in matrix-free mode).
  void before_rhs() const;

  const View3& mass_inverse() const { return minv_; }
  const View3& volume_matrices() const { return K_; }

private:
  ElementBlock* block_;
  View3 minv_, K_;
  View2 vol_;
};

/// nullptr when the configuration keeps both defaults (weight_adjusted, matrix_free).
std::unique_ptr<SolverMatrices> make_solver_matrices(const io::Config& cfg, ElementBlock& block,
                                                     const physics::AdvectionDiffusion& pde,
                                                     DGOperator& op);

} // namespace dg::integration
