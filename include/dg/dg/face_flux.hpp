// The face terms at one face point, shared by the run-time-sized and the fixed-order kernels:
// the state across the face (neighbour's trace, or the boundary condition's exterior state) and
// the weighted integrands of the face integrals (upwind + SIPG flux, and the SIPG symmetry term).
#pragma once

#include "dg/dg/element_block.hpp"
#include "dg/dg/element_map.hpp"
#include "dg/mesh/hex.hpp"
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

/// Component k (0, 1 or 2) of v, chosen by selects: the kernels' face directions (d and the
/// tangential ta, tb) are known at run time only, and on GPUs an array indexed at run time
/// lives in local memory (the nodal diffusion kernel's face points: 36 B per DOF a stage of
/// local loads at p = 3 on the H100, docs/performance.md#face-directions).
KOKKOS_FORCEINLINE_FUNCTION double component3(double v0, double v1, double v2, int k) {
  return k == 0 ? v0 : (k == 1 ? v1 : v2);
}
KOKKOS_FORCEINLINE_FUNCTION double component(const double v[3], int k) {
  return component3(v[0], v[1], v[2], k);
}
/// v . x for a vector x given in the face's own directions: x_n along the normal direction d,
/// x_a and x_b along the tangential ta and tb (the reference gradient at a face point).
KOKKOS_FORCEINLINE_FUNCTION double contract_face(const double v[3], int d, int ta, int tb,
                                                 double x_n, double x_a, double x_b) {
  return component(v, d) * x_n + component(v, ta) * x_a + component(v, tb) * x_b;
}

/// Face-point integrands. type: the face's FaceType; an = a . n (outward unit normal n), nu the
/// diffusivity at the point; geo: [0..2] unit normal, [3] dS, [4..6] J^{-1} n (reference
/// components); wab the product of the two tangential weights; (d, ta, tb) the face's normal and
/// tangential directions. uin, gin: this side's u and grad u . n; uout, gout: the neighbour's
/// (face_local, face_ghost). On boundary faces the exterior state comes from the condition and
/// its datum bval: dirichlet u+ = g = bval, grad u+ = grad u- (so the SIPG flux is
/// -nu grad u- . n + tau (u- - g)); inflow the same where an < 0 and outflow where an >= 0;
/// outflow u+ = u-, no diffusive flux; neumann u+ = u- for the advective part and the diffusive
/// flux -nu grad u . n = -h with h = bval. out[0] = -(F* . n) w dS; with diffusion out[1..3] =
/// (nu/2) [u] w dS (J^{-1} n)_{d, ta, tb}, lifted with the derivative tables.
KOKKOS_INLINE_FUNCTION void face_flux(int type, double an, double nu, const double geo[7],
                                      double wab, double tau_f, int d, int ta, int tb, double uin,
                                      double gin, double uout, double gout, double bval,
                                      double out[4]) {
  double prescribed = 0.0; // neumann: the diffusive part of F* . n
  bool weak_dirichlet = type == face_dirichlet || (type == face_inflow && an < 0.0);
  if (weak_dirichlet) {
    uout = bval;
    gout = -gin;
  } else if (is_boundary_face(type)) {
    uout = uin;
    gout = gin;
    if (type == face_neumann) prescribed = -bval;
  }
  double flux = physics::upwind_flux(an, uin, uout) + prescribed;
  const double wds = wab * geo[3];
  if (nu > 0.0) {
    flux += physics::sipg_flux(nu, tau_f, uin, uout, gin, gout);
    const double c = 0.5 * nu * (uin - uout) * wds;
    out[1] = c * component(geo + 4, d);
    out[2] = c * component(geo + 4, ta);
    out[3] = c * component(geo + 4, tb);
  }
  out[0] = -flux * wds;
}

/// The contravariant velocity C_d = adj(J)[d] . a at volume point pt of element e (A: adj(J)
/// row-major): the tabulated field avol (Advection::field), else the velocity at the point,
/// whose position position(xp) gives only where the velocity depends on it (the rotation
/// shorthand).
template <class Position>
KOKKOS_INLINE_FUNCTION void
contravariant_velocity(const physics::AdvectionDiffusion& pde, const View3& avol, int e, int pt,
                       const double A[9], const Position& position, double C[3]) {
  if (pde.advection.kind == physics::Advection::field) {
    for (int d = 0; d < 3; ++d)
      C[d] = avol(e, pt, d);
    return;
  }
  double vel[3];
  if (pde.advection.kind == physics::Advection::constant) {
    pde.advection.velocity(nullptr, vel);
  } else {
    double xp[3] = {0.0, 0.0, 0.0};
    position(xp);
    pde.advection.velocity(xp, vel);
  }
  for (int d = 0; d < 3; ++d)
    C[d] = A[3 * d] * vel[0] + A[3 * d + 1] * vel[1] + A[3 * d + 2] * vel[2];
}

/// The normal velocity a . n at face point pt of face f of element e (n: the outward unit
/// normal): the tabulated field aface (Advection::field), else the velocity at the point, whose
/// position position(xp) gives only where the velocity depends on it (the rotation shorthand).
template <class Position>
KOKKOS_INLINE_FUNCTION double normal_velocity(const physics::AdvectionDiffusion& pde,
                                              const View3& aface, int e, int f, int pt,
                                              const double n[3], const Position& position) {
  if (pde.advection.kind == physics::Advection::field) return aface(e, f, pt);
  double xp[3] = {0.0, 0.0, 0.0}, vel[3];
  if (pde.advection.kind != physics::Advection::constant) position(xp);
  pde.advection.velocity(xp, vel);
  return vel[0] * n[0] + vel[1] * n[1] + vel[2] * n[2];
}

/// What a . n at a block's face points takes from the block: the outward unit normals (fgeo),
/// the element maps (verts, nodes, gorder) and the 1-D points x of its Q-point rule.
struct FacePoints {
  View4 fgeo;
  View3 verts, nodes;
  View1 x;
  int Q = 0, gorder = 1;
  bool affine = true;

  FacePoints() = default;
  FacePoints(const ElementBlock& b, const View1& points)
      : fgeo(b.fgeo), verts(b.verts), nodes(b.nodes), x(points), Q(b.Q), gorder(b.gorder),
        affine(b.affine) {}

  /// normal_velocity at point pt = i + Q j of face f of element e, the point (x(i), x(j)) of
  /// the reference face mapped through the element's map where the velocity depends on it.
  KOKKOS_INLINE_FUNCTION double normal_velocity(const physics::AdvectionDiffusion& pde,
                                                const View3& aface, int e, int f, int pt) const {
    const int gp = affine ? 0 : pt;
    const double n[3] = {fgeo(e, f, gp, 0), fgeo(e, f, gp, 1), fgeo(e, f, gp, 2)};
    return dg::normal_velocity(pde, aface, e, f, pt, n, [&](double xp[3]) {
      double r[3];
      hex::face_point(f, x(pt % Q), x(pt / Q), r);
      element_map(verts, nodes, gorder, e, r, xp);
    });
  }
};

/// face_flux with the velocity vel (physical components) and the constant diffusivity of `pde`;
/// bc_u is the datum of a boundary face.
KOKKOS_INLINE_FUNCTION void face_integrands(const physics::AdvectionDiffusion& pde, int type,
                                            const double vel[3], const double geo[7], double wab,
                                            double tau_f, int d, int ta, int tb, double uin,
                                            double gin, double uout, double gout, double bc_u,
                                            double out[4]) {
  const double an = vel[0] * geo[0] + vel[1] * geo[1] + vel[2] * geo[2];
  face_flux(type, an, pde.diffusion.nu, geo, wab, tau_f, d, ta, tb, uin, gin, uout, gout, bc_u,
            out);
}

} // namespace dg
