// Element matrices built on the device, batched over elements (docs/integration.md):
//  * the tensor representation A_e = A0 : G_e of affine hexes (Kirby-Knepley-Logg; Knepley &
//    Terrel) for every form with constant coefficients, and
//  * quadrature integration on any trilinear hex with general coefficients (Banas et al.):
//    mass, variable-coefficient Laplacian, elasticity, the DG advection-diffusion volume matrix,
//    in the variants metric stored / recomputed, coefficients in scratch / registers, one or
//    several elements per team.
//
// Basis: the solver's orthonormal Legendre tensor basis, n = P^3 modes, mode m = i + P (j + P k).
// Vector forms (elasticity) order their N = 3 n unknowns component-major: dof = c * n + m.
// Every matrix is (elem, row = test function, column = trial function), LayoutRight.
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/dg/element_block.hpp"

#include <string>
#include <vector>

namespace dg::integration {

/// The bilinear forms a(phi_j, phi_i) = K(e, i, j) on element K:
///   mass                 int_K phi_i phi_j
///   laplacian            int_K kappa(x) grad phi_i . grad phi_j
///   elasticity           int_K lambda div v div u + 2 mu eps(v) : eps(u),  v = phi_i e_a,
///                        u = phi_j e_b (row a n + i, column b n + j)
///   advection_diffusion  int_K grad phi_i . (a phi_j - nu grad phi_j)  (the DG volume term:
///                        volume(e) = K_e u_e reproduces DGOperator's quadrature)
enum class Form : int { mass = 0, laplacian = 1, elasticity = 2, advection_diffusion = 3 };
const char* form_name(Form f);
Form parse_form(const std::string& s); // throws InputError naming the valid ones
inline int components(Form f) {
  return f == Form::elasticity ? 3 : 1;
}

/// Coefficients of the forms. kappa(x) = kappa0 (1 + kappa_amp sin(2 pi x) sin(2 pi y)
/// sin(2 pi z)) unless kappa_field (elem, point) gives kappa at the quadrature points.
struct Coefficients {
  double kappa0 = 1.0, kappa_amp = 0.0;
  View2 kappa_field;
  double lambda = 1.0, mu = 1.0;        // Lame parameters (elasticity)
  double velocity[3] = {0.0, 0.0, 0.0}; // constant advection velocity
  double nu = 0.0;                      // diffusivity
};

KOKKOS_INLINE_FUNCTION double kappa_function(const Coefficients& c, const double x[3]) {
  return c.kappa0 * (1.0 + c.kappa_amp * math::sin(2.0 * math::pi * x[0]) *
                               math::sin(2.0 * math::pi * x[1]) * math::sin(2.0 * math::pi * x[2]));
}

/// Kernel variants of the quadrature path (all run-time switches except `scratch` and
/// `sumfact`, which pick template instantiations). Names: "stored|recomputed /
/// scratch|registers|sumfact / eptN".
struct Variant {
  bool stored_metric = true; // metric terms read from Geometry::vgeo, or recomputed from verts
  bool scratch = true;       // coefficient tensor C[q] staged in team scratch, or per thread
  int elems_per_team = 1;    // elements handled by one team
  /// Sum-factorised assembly (src/integration/sumfact.cpp): C_q in team scratch, contracted one
  /// direction at a time, O(P^2 Q^3 + P^4 Q^2 + P^6 Q) per coefficient entry instead of
  /// O(P^6 Q^3); `scratch` is then ignored.
  bool sumfact = false;
  /// sumfact work split (0: automatic; the tests force partial groups): values of j3 per pass
  /// of the last two stages (as many as team scratch holds), and values of i3 (slabs of P^2
  /// rows) per team (host: all P; GPU: fewer when there are too few elements to fill it).
  int j3_per_pass = 0;
  int i3_per_team = 0;
  std::string name() const;
};

/// Geometry of a batch of trilinear hexes. vgeo as in ElementBlock: (elem, point, 10) with the
/// adjugate |J| J^{-1} row-major [d*3+i] and |J| at the Q^3 Gauss points, or one record per
/// element when `affine`.
struct Geometry {
  int nelem = 0, Q = 0;
  bool affine = false;
  View3 verts; // (elem, 8, 3)
  View3 vgeo;  // (elem, Q^3 or 1, 10)
};
/// Metric terms of `verts` at the Q^3 Gauss points, computed on the device.
Geometry make_geometry(const View3& verts, int q);
/// The block's own geometry (its vgeo and quadrature).
Geometry geometry_of(const ElementBlock& b);

/// Dense 3-D basis tables at the Q^3 Gauss points: psi(point, k, mode) with k = 0 the value,
/// k = 1..3 the reference derivatives d/dr, d/ds, d/dt; w(point) the product weights.
struct QuadTables {
  int order = 0, P = 0, n = 0, Q = 0, Q3 = 0;
  View3 psi; // (Q^3, 4, P^3)
  View1 w;   // (Q^3)
  View2 r;   // (Q^3, 3) reference coordinates
  /// 1-D products for the sum-factorised assembly: X(k, a, i P + j) = F_i(x_a) G_j(x_a) with
  /// (F, G) = (phi, phi), (phi, phi'), (phi', phi), (phi', phi') for k = 0..3 (test factor F,
  /// trial factor G; k = 2 [test derivative] + [trial derivative]).
  View3 X; // (4, Q, P^2)
};
QuadTables make_quad_tables(int order, int q);

/// Element matrices by quadrature into out (elem, N, N), N = components(form) P^3 (allocated
/// when empty or of the wrong shape).
void integrate(Form form, const Coefficients& coef, const Geometry& geo, const QuadTables& t,
               const Variant& v, View3& out);

/// Work and minimal memory traffic of one element, for GFLOP/s and bandwidth (the counts are
/// derived in src/integration/quadrature.cpp and src/integration/tensor.cpp).
struct Cost {
  double flops = 0.0, bytes = 0.0;
};
/// Dispatches on v.sumfact: the naive count below or sumfact_cost.
Cost quadrature_cost(Form form, const Variant& v, int order, int q, bool affine, bool kappa_field);
/// Work of the sum-factorised assembly (src/integration/sumfact.cpp), same byte count.
Cost sumfact_cost(Form form, const Variant& v, int order, int q, bool affine, bool kappa_field);
/// The sum-factorised kernel (integrate() calls it when v.sumfact).
void integrate_sumfact(Form form, const Coefficients& coef, const Geometry& geo,
                       const QuadTables& t, const Variant& v, const View3& out);

// ------------------------------------------------------------------------------------------
// Tensor representation (affine elements, constant coefficients).

/// Number K of reference tensors of a form (per component block for elasticity):
///   mass 1                 A0(0)       = int phi_i phi_j                       (M1 x M1 x M1)
///   laplacian, elasticity  A0(3 d + d') = int d_r(d) phi_i d_r(d') phi_j
///   advection_diffusion 12 the laplacian's 9, then A0(9 + d) = int d_r(d) phi_i phi_j
/// Each is a product of 1-D factors (M1, S1, C1 or its transpose), built from exact 1-D
/// integrals.
constexpr int tensor_terms(Form f) {
  return f == Form::mass ? 1 : (f == Form::advection_diffusion ? 12 : 9);
}
/// Width of a form's geometric tensor: tensor_terms x components^2 (1, 9, 81, 12).
constexpr int tensor_width(Form f) {
  return tensor_terms(f) * (f == Form::elasticity ? 9 : 1);
}

/// Reference tensor (tensor_terms(form), n, n) of order p, flattened, cached on the host. The
/// laplacian's is also elasticity's: the reference tensor of the vector basis phi_i e_a is
/// A0 (x) C with the Lame tensor C, whose constant factor is folded into the per-element
/// geometric tensor (81 entries). The one-argument overloads are the laplacian's (9 terms).
const std::vector<double>& reference_tensor(Form form, int order);
const std::vector<double>& reference_tensor(int order);
/// Device copy (tensor_terms(form), n*n).
View2 reference_tensor_device(Form form, int order);
View2 reference_tensor_device(int order);

/// Geometric tensors G_e (elem, tensor_width(form)) from the (constant) Jacobian at the element
/// centre; adj = |J| J^{-1} (rows d), a = coef.velocity:
///   mass                 (elem, 1):   |J|
///   laplacian            (elem, 9):   G(d d') = kappa0 adj(d,:) . adj(d',:) / |J|
///   elasticity           (elem, 81):  G(a b d d') = (lambda adj(d,a) adj(d',b)
///                                       + mu (delta_ab adj(d,:) . adj(d',:) + adj(d,b) adj(d',a)))
///                                       / |J|
///   advection_diffusion  (elem, 12):  G(d d') = -nu adj(d,:) . adj(d',:) / |J|, G(9 + d) =
///   adj(d,:) . a
/// Constant coefficients only: a laplacian with kappa(x) (kappa_amp != 0 or a kappa_field) is
/// refused (InternalError naming the coefficient). One team per `elems_per_team` elements (0:
/// 128 on a GPU, 32 on the host): the team stages the vertices, one thread per element computes
/// the metric into team scratch, then the team writes the contiguous block G(e0 .. e0+E-1, :)
/// with consecutive threads on consecutive doubles (coalesced).
void geometric_tensor(Form form, const Coefficients& coef, const View3& verts, View2& G,
                      int elems_per_team = 0);
/// A_e = A0 : G_e for every element: out(e, a n + i, b n + j) = sum_k A0(k, i j) G(e, (a,b), k).
void tensor_contract(Form form, int order, const View2& A0, const View2& G, View3& out);
/// The same result by the bandwidth-oriented kernel: a team owns a tile of `tile` consecutive
/// entries of the flattened N x N matrix for a batch of `elems_per_team` elements (the block
/// rows of their G_e that the tile touches in team scratch, the tile's A0 entries in registers,
/// reused across the batch; coalesced writes). 0 = defaults (device: 256-entry tiles, 32 / 16
/// elements; host: whole matrix up to 4096 entries, 8 elements).
void tensor_contract_batched(Form form, int order, const View2& A0, const View2& G, View3& out,
                             int elems_per_team = 0, int tile = 0);
/// Both steps (geometric_tensor, tensor_contract).
void tensor_integrate(Form form, const Coefficients& coef, const View3& verts, int order,
                      View3& out);
Cost tensor_cost(Form form, int order);

// ------------------------------------------------------------------------------------------
// Batched dense linear algebra (Kokkos-Kernels batched, one team per element).

/// minv(e) = M(e)^{-1} for SPD matrices: TeamLU without pivoting (stable for SPD; Kokkos-Kernels
/// 3.4 and 4.x have no batched Cholesky) then two TeamTrsm solves against the identity.
/// M is left unchanged.
void batched_inverse(const View3& M, View3& minv);
/// y(e) = K(e) x(e) by KokkosBatched::TeamGemv.
void batched_gemv(const View3& K, const View2& x, const View2& y);

} // namespace dg::integration
