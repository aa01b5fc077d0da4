// Exact mass matrices and element-matrix volume terms for the solver (see solver_matrices.hpp).
#include "dg/integration/solver_matrices.hpp"

#include "dg/core/error.hpp"
#include "dg/integration/element_matrices.hpp"

namespace dg::integration {

SolverMatrices::SolverMatrices(const io::Config& cfg, ElementBlock& block,
                               const physics::AdvectionDiffusion& pde, DGOperator& op)
    : block_(&block) {
  const auto& disc = cfg.discretization;
  const Geometry geo = geometry_of(block);
  const QuadTables tables = make_quad_tables(block.order, block.Q);
  // Stored metric (the block's, as the matrix-free kernel uses), sum-factorised assembly (13 to
  // 48x faster than the naive kernel on a CPU core from p = 3, 6 to 383x on the H100).
  Variant v;
  v.sumfact = true;
  if (disc.mass == "exact") {
    View3 M;
    integrate(Form::mass, Coefficients{}, geo, tables, v, M);
    batched_inverse(M, minv_);
    op.set_mass_inverse(minv_);
  }
  if (disc.op == "element_matrix") {
    if (pde.advection.kind != 0 || block.nuvol.extent(0) > 0)
      DG_INPUT_ERROR(cfg.source << ": discretization.operator = element_matrix: needs a constant "
                                   "physics.velocity and physics.diffusivity (the element "
                                   "matrices are precomputed for one velocity and diffusivity); "
                                   "use matrix_free");
    Coefficients c;
    for (int d = 0; d < 3; ++d)
      c.velocity[d] = pde.advection.a[d];
    c.nu = pde.diffusion.nu;
    integrate(Form::advection_diffusion, c, geo, tables, v, K_);
    vol_ = View2("dg::integration::volume_term", block.nelem, block.nmodes);
    op.set_volume_term(vol_);
  }
}

void SolverMatrices::before_rhs() const {
  if (K_.extent(0) > 0) batched_gemv(K_, block_->u, vol_);
}

std::unique_ptr<SolverMatrices> make_solver_matrices(const io::Config& cfg, ElementBlock& block,
                                                     const physics::AdvectionDiffusion& pde,
                                                     DGOperator& op) {
  if (cfg.discretization.mass != "exact" && cfg.discretization.op != "element_matrix")
    return nullptr;
  return std::make_unique<SolverMatrices>(cfg, block, pde, op);
}

} // namespace dg::integration
