// The face terms at one face point, shared by the run-time-sized and the fixed-order kernels:
// the state across the face (neighbour's trace, weak Dirichlet data or outflow) and the weighted
// integrands of the face integrals (upwind + SIPG flux, and the SIPG symmetry term).
#pragma once

#include "dg/dg/element_block.hpp"
#include "dg/physics/advection_diffusion.hpp"

namespace dg {

/// The neighbour's trace at its point pn across a face of type face_local (trace array) or
/// face_ghost (ghost array); other types leave u and g untouched.
KOKKOS_INLINE_FUNCTION void neighbour_trace(int type, const View4& trace, const View3& ghost,
                                            int nb, int nf, int pn, bool diffusion, double& u,
                                            double& g) {
  if (type == face_local) {
    u = trace(nb, nf, pn, 0);
    g = diffusion ? trace(nb, nf, pn, 1) : 0.0;
  } else if (type == face_ghost) {
    u = ghost(nb, pn, 0);
    g = diffusion ? ghost(nb, pn, 1) : 0.0;
  }
}

/// Face-point integrands. geo: [0..2] unit normal, [3] dS, [4..6] J^{-1} n (reference
/// components); wab the product of the two tangential weights; (d, ta, tb) the face's normal and
/// tangential directions. uin, gin: this side's u and grad u . n; uout, gout: the neighbour's
/// (face_local, face_ghost), replaced here by the Dirichlet datum bc_u (with gout = -gin) or by
/// this side's values (outflow). out[0] = -(F* . n) w dS; with diffusion out[1..3] =
/// (nu/2) [u] w dS (J^{-1} n)_{d, ta, tb}, lifted with the derivative tables.
KOKKOS_INLINE_FUNCTION void face_integrands(const physics::AdvectionDiffusion& pde, int type,
                                            const double vel[3], const double geo[7],
                                            double wab, double tau_f, int d, int ta, int tb,
                                            double uin, double gin, double uout, double gout,
                                            double bc_u, double out[4]) {
  if (type == face_dirichlet) {
    uout = bc_u;
    gout = -gin;
  } else if (type == face_outflow) {
    uout = uin;
    gout = gin;
  }
  const double nu = pde.diffusion.nu;
  const double an = vel[0] * geo[0] + vel[1] * geo[1] + vel[2] * geo[2];
  double flux = physics::upwind_flux(an, uin, uout);
  const double wds = wab * geo[3];
  if (nu > 0.0) {
    flux += physics::sipg_flux(nu, tau_f, uin, uout, gin, gout);
    const double c = 0.5 * nu * (uin - uout) * wds;
    out[1] = c * geo[4 + d];
    out[2] = c * geo[4 + ta];
    out[3] = c * geo[4 + tb];
  }
  out[0] = -flux * wds;
}

} // namespace dg
