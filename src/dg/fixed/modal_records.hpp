// What the modal stage kernels (modal_pencil_stage.hpp, modal_entry_stage.hpp) read besides the
// states: the per-element geometry records (volume and face metric with the velocity and eta nu
// folded in) and the pencil kernel's neighbour words (trace offset, orientation, which faces it
// reads and emits), built once per operator; and the fields both kernels share. Records per
// element: ModalRecordLayout<DIFF>::GR doubles (10 advection, 55 with diffusion;
// linear_record_doubles = 13 with a velocity affine in space, built by modal_linear_records) and
// 6 words of 8 bytes, i.e. (8 GR + 48) / P^3 bytes per DOF of the pencil stage's traffic.
#pragma once

#include "dg/dg/face_flux.hpp"
#include "dg/dg/fixed_order.hpp"

#include <cmath>

namespace dg::fixed {

/// Entry (d, dp) of adj adj^T for the adjugate A (row-major, 3 x 3).
KOKKOS_INLINE_FUNCTION double adjugate_gram(const double* A, int d, int dp) {
  return A[3 * d] * A[3 * dp] + A[3 * d + 1] * A[3 * dp + 1] + A[3 * d + 2] * A[3 * dp + 2];
}

/// The volume part of a modal kernel's per-element record from the affine metric vgeo(e, 0, :)
/// (adj J row-major, then |J|): [0..2] c_d = adj(J)[d] . a, [3] 1/|J|, with diffusion [4..12]
/// G = adj adj^T / |J|.
KOKKOS_INLINE_FUNCTION void volume_record(const View3& vgeo, int e, const double vel[3],
                                          bool diffusion, double* rec) {
  double A[10];
  for (int g = 0; g < 10; ++g)
    A[g] = vgeo(e, 0, g);
  for (int d = 0; d < 3; ++d)
    rec[d] = A[3 * d] * vel[0] + A[3 * d + 1] * vel[1] + A[3 * d + 2] * vel[2];
  rec[3] = 1.0 / A[9];
  if (diffusion)
    for (int d = 0; d < 3; ++d)
      for (int dp = 0; dp < 3; ++dp)
        rec[4 + 3 * d + dp] = adjugate_gram(A, d, dp) / A[9];
}

/// Face f's part of a modal kernel's record: [0] a . n, [1] dS, with diffusion [2..4]
/// (J^{-1} n)_d and [5] eta nu tau; the face type (as a double) at fr[type_slot].
KOKKOS_INLINE_FUNCTION void face_record(const View4& fgeo, const IView2& ftype, const View2& tau,
                                        int e, int f, const double vel[3], bool diffusion,
                                        double eta_nu, int type_slot, double* fr) {
  fr[0] = vel[0] * fgeo(e, f, 0, 0) + vel[1] * fgeo(e, f, 0, 1) + vel[2] * fgeo(e, f, 0, 2);
  fr[1] = fgeo(e, f, 0, 3);
  if (diffusion) {
    for (int d = 0; d < 3; ++d)
      fr[2 + d] = fgeo(e, f, 0, 4 + d);
    fr[5] = eta_nu * tau(e, f);
  }
  fr[type_slot] = static_cast<double>(ftype(e, f));
}

/// Layout of the pencil kernel's per-element record (built once per operator by
/// build_modal_records): [0..FR) the volume record, then per face f at FR + FS f the face
/// record (FS doubles).
template <bool DIFF>
struct ModalRecordLayout {
  /// Pure advection keeps one double per face, (a . n) dS (dS > 0: the upwind side is the
  /// sign's), and tells outflow faces by their neighbour words (no neighbour: the modal path
  /// has no Dirichlet faces); with diffusion a face record as face_record writes it, the
  /// type at FT.
  static constexpr int FR = DIFF ? 13 : 4, FS = DIFF ? 7 : 1, FT = DIFF ? 6 : -1;
  static constexpr int GR = FR + 6 * FS;
};

/// Neighbour word of a face for the pencil kernel: the offset of the neighbour's trace (in
/// doubles, from the start of the trace or ghost array) in bits 0..54; bit 56: a neighbour
/// exists; 57: it is a ghost slot; 58: a and b swapped; 59, 60: sign flips with the parity of
/// a, b (after the swap); 61: the kernel reads the neighbour's trace; 62: it emits its own
/// trace of this face. Pure upwind advection with constant velocity needs the neighbour's value
/// only on inflow faces (a . n < 0) and so emits only where the neighbour's face is one, i.e.
/// where a . n > -tol (tol = 1e-12 |a|: the two sides' a . n agree to round-off, and a face
/// with a . n near 0 is emitted but read by neither side); with diffusion every face is read
/// and emitted. Bit 55: a boundary face with data (inflow or Dirichlet, advection only): the
/// offset is into the boundary data's modal coefficients (modal_boundary_data), read on inflow
/// faces like a neighbour's trace (the upwind flux then takes the datum), in this face's own
/// orientation.
constexpr int word_present = 56, word_ghost = 57, word_swap = 58, word_sign_a = 59,
              word_sign_b = 60, word_read = 61, word_emit = 62, word_data = 55;
constexpr long long word_offset_mask = (1LL << 55) - 1;

/// The neighbour word of an interior (face_local) or rank-boundary (face_ghost) face without its
/// read and emit bits: the offset of the neighbour's trace (per_face doubles per face), its
/// orientation's swap and sign flips.
KOKKOS_INLINE_FUNCTION long long neighbour_word(int type, int nb, int nf, int o,
                                                long long per_face) {
  const bool g = type == face_ghost;
  const long long off = g ? nb * per_face : (6LL * nb + nf) * per_face;
  const long long swap = o & 1, fa = (o >> 1) & 1, fb = (o >> 2) & 1;
  return off | (1LL << word_present) | (static_cast<long long>(g) << word_ghost) |
         (swap << word_swap) | ((swap ? fb : fa) << word_sign_a) |
         ((swap ? fa : fb) << word_sign_b);
}

/// Where this side's face coefficient (a, b) stands in the neighbour's trace that word w points
/// to (P coefficients along a side), and whether the orientation flips its sign.
KOKKOS_INLINE_FUNCTION int neighbour_coefficient(long long w, int a, int b, int P) {
  return ((w >> word_swap) & 1) ? b + P * a : a + P * b;
}
KOKKOS_INLINE_FUNCTION bool neighbour_flip(long long w, int a, int b) {
  return (((w >> word_sign_a) & a) ^ ((w >> word_sign_b) & b)) & 1;
}
/// Where this side's face point (al, be) stands in the neighbour's nodal trace that word w
/// points to (n points along a side): the orientation's reflections along this side's
/// directions, then its swap (hex::map_index in the word's terms).
KOKKOS_INLINE_FUNCTION int neighbour_point(long long w, int al, int be, int n) {
  const int a = ((w >> word_sign_a) & 1) ? n - 1 - al : al;
  const int b = ((w >> word_sign_b) & 1) ? n - 1 - be : be;
  return ((w >> word_swap) & 1) ? b + n * a : a + n * b;
}

/// The neighbour's trace (coefficient 0) that word w points to: in the boundary data `data`
/// (words with word_data), ghost or trace.
KOKKOS_INLINE_FUNCTION const double* word_source(long long w, const double* trace,
                                                 const double* ghost, const double* data) {
  const double* src = ((w >> word_data) & 1) ? data : (((w >> word_ghost) & 1) ? ghost : trace);
  return src + (w & word_offset_mask);
}

/// ... of a boundary face with data in slot `slot` (bface modal coefficients per slot).
KOKKOS_INLINE_FUNCTION long long data_word(int slot, long long bface) {
  return static_cast<long long>(slot) * bface | (1LL << word_present) | (1LL << word_data);
}

/// The pencil kernel with a velocity affine in space on affine elements (ModalPencil<false,
/// true>, DGOperator::modal_path): there the contravariant velocity is linear in the reference
/// coordinates, c(xi) = adj(J) a(x(xi)) = c0 + C xi, and its record holds [0..2] c0, [3] 1/|J|,
/// [4..12] C (C(d, e) at 4 + 3 d + e).
constexpr int linear_record_doubles = 13;

/// (a . n) dS on face f of an element with linear record r, al + be xi_a + ga xi_b in the face's
/// tangential coordinates (those of the modal face coefficients (a, b): y, z on x faces; x, z on
/// y faces; x, y on z faces). (a . n) dS = s c_d on the face xi_d = s of an affine element.
KOKKOS_INLINE_FUNCTION void linear_face_flux(const double* r, int f, double& al, double& be,
                                             double& ga) {
  const int d = f / 2, ta = d == 0 ? 1 : 0, tb = d == 2 ? 1 : 2;
  const double s = f % 2 ? 1.0 : -1.0;
  const double* C = r + 4 + 3 * d;
  al = s * r[d] + C[d];
  be = s * C[ta];
  ga = s * C[tb];
}

/// Round-off of the linear record r: 1e-12 of the largest |c| it gives on the element.
KOKKOS_INLINE_FUNCTION double linear_tolerance(const double* r) {
  double c = 0.0;
  for (int g = 0; g < 3; ++g)
    c += math::fabs(r[g]);
  for (int g = 4; g < linear_record_doubles; ++g)
    c += math::fabs(r[g]);
  return 1e-12 * c;
}

/// The side whose trace the upwind flux of face f takes on the whole face: 1 this element's ((a
/// . n) >= -tol everywhere on it), -1 the neighbour's ((a . n) <= tol everywhere, < -tol
/// somewhere), 0 neither (the sign changes on the face).
KOKKOS_INLINE_FUNCTION int linear_face_side(const double* r, int f) {
  double al, be, ga;
  linear_face_flux(r, f, al, be, ga);
  const double tol = linear_tolerance(r), spread = math::fabs(be) + math::fabs(ga);
  if (al - spread >= -tol) return 1;
  if (al + spread <= tol) return -1;
  return 0;
}

/// Per-element records and neighbour words of the pencil kernel for every element of a block
/// (geometry and connectivity do not change; the records depend on the velocity and eta nu).
template <bool DIFF>
void build_modal_records(const ElementBlock& b, const double vel[3], double eta_nu, View2& records,
                         LView2& words) {
  using L = ModalRecordLayout<DIFF>;
  const int n = b.nelem;
  records = View2("dg::modal::records", n, L::GR);
  words = LView2("dg::modal::words", n, 6);
  const View2 rec = records;
  const LView2 wd = words;
  const View3 vgeo = b.vgeo;
  const View4 fgeo = b.fgeo;
  const IView2 ftype = b.ftype, nbr = b.nbr, nbr_face = b.nbr_face, orient = b.orient;
  const View2 tau = b.tau;
  const long long per_face = static_cast<long long>(b.nface) * b.trace.extent(3);
  const long long bface = static_cast<long long>(b.P) * b.P; // modal boundary data per face
  const double v0 = vel[0], v1 = vel[1], v2 = vel[2];
  const double tol = 1e-12 * std::sqrt(v0 * v0 + v1 * v1 + v2 * v2);
  Kokkos::parallel_for(
      "dg::modal::records", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const int e) {
        const double v[3] = {v0, v1, v2};
        double r[L::GR];
        volume_record(vgeo, e, v, DIFF, r);
        for (int f = 0; f < 6; ++f) {
          using Full = ModalRecordLayout<true>; // the whole face record, as face_record writes it
          double fr[Full::FS];
          face_record(fgeo, ftype, tau, e, f, v, DIFF, eta_nu, Full::FT, fr);
          if (DIFF)
            for (int g = 0; g < L::FS; ++g)
              r[L::FR + L::FS * f + g] = fr[g];
          else
            r[L::FR + f] = fr[0] * fr[1]; // (a . n) dS
          const int type = ftype(e, f);
          const double an = fr[0]; // a . n
          long long w = (DIFF || an > -tol) ? 1LL << word_emit : 0;
          if (type == face_local || type == face_ghost)
            w |= neighbour_word(type, nbr(e, f), nbr_face(e, f), orient(e, f), per_face) |
                 (static_cast<long long>(DIFF || an < 0.0) << word_read);
          else if (!DIFF && (type == face_dirichlet || type == face_inflow))
            w |= data_word(nbr(e, f), bface) | (static_cast<long long>(an < 0.0) << word_read);
          wd(e, f) = w;
        }
        if (DIFF) {
          // Metric couplings that are round-off (axis-aligned elements: the vertex sums of the
          // trilinear map cancel only to round-off) become exact zeros, so that the kernel
          // skips the cross terms they would multiply.
          double gmax = 0.0;
          for (int d = 0; d < 3; ++d)
            gmax = math::fmax(gmax, math::fabs(r[4 + 4 * d]));
          for (int g = 0; g < 9; ++g)
            if (g % 4 != 0 && math::fabs(r[4 + g]) <= 1e-13 * gmax) r[4 + g] = 0.0;
          for (int f = 0; f < 6; ++f) {
            double* n = r + L::FR + L::FS * f + 2; // J^{-1} n
            const double nmax =
                math::fmax(math::fabs(n[0]), math::fmax(math::fabs(n[1]), math::fabs(n[2])));
            for (int d = 0; d < 3; ++d)
              if (math::fabs(n[d]) <= 1e-13 * nmax) n[d] = 0.0;
          }
        }
        for (int g = 0; g < L::GR; ++g)
          rec(e, g) = r[g];
      });
}

/// The fields of the modal stage kernels (Modal, ModalPencil).
struct ModalFields {
  View2 u, reg; // the epilogue (ep) carries the store-mode output
  View3 vgeo, ghost;
  View4 fgeo, trace, trace_out;
  IView2 ftype, nbr, nbr_face, orient;
  View2 tau;
  IView1 elems;
  BasisTables tables;
  double vel[3];
  double nu, eta;
  Epilogue ep;
  bool traces_only;
  int ne; // elements per team, processed concurrently
  int level;
  // Pencil kernel: per-element records and neighbour words (build_modal_records); batches of
  // ne elements per team, the next batch's loads in flight while one is computed.
  View2 mrec;
  LView2 mwords;
  int batches;
  int first;    // elems(i) = first + i where first >= 0 (a contiguous range)
  View2 bmodal; // (slot, P^2) modal coefficients of the boundary data (words with word_data)

  /// The i-th listed element.
  KOKKOS_FORCEINLINE_FUNCTION int elem(int i) const { return first >= 0 ? first + i : elems(i); }
};

/// A modal kernel (Modal or ModalPencil) from the stage arguments: both take their members
/// (ModalFields) in this order.
template <class K>
inline K modal_kernel(const StageArgs& a, bool traces_only, const View4& out, int ne) {
  const ElementBlock& b = *a.block;
  return K{ModalFields{b.u,
                       b.reg,
                       b.vgeo,
                       b.ghost,
                       b.fgeo,
                       b.trace,
                       out,
                       b.ftype,
                       b.nbr,
                       b.nbr_face,
                       b.orient,
                       b.tau,
                       a.elems,
                       b.tables,
                       {a.pde.advection.a[0], a.pde.advection.a[1], a.pde.advection.a[2]},
                       a.pde.diffusion.nu,
                       a.pde.diffusion.eta,
                       a.ep,
                       traces_only,
                       ne,
                       0,
                       a.modal_rec,
                       a.modal_words,
                       1,
                       a.elems_first,
                       a.modal_bdata}};
}

} // namespace dg::fixed
