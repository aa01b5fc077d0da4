// The quadrature path in pencil form (QuadraturePencilPath<P, Q>): the stage on every block the
// modal path does not take (non-affine and curved elements, velocity fields, Dirichlet, inflow
// and (with diffusion) Neumann faces), with the quadrature path's discretisation and answer (to
// round-off). A team takes ne elements (1 or 2 on GPUs, 1 on CPUs) through a fixed sequence of
// passes, each one thread per 1-D pencil of every element with the pencil's values in registers,
// one barrier between passes (7 affine, 12 with the weight-adjusted inverse mass) instead of one
// per contraction. Advection (Stage<false>):
//   0  loads: the state, the element's geometry, the own modal face coefficients (the traces
//      of u) and the neighbours' (re-oriented: a reflection flips the sign of the odd Legendre
//      modes);
//   1  z-backward of u;
//   2  y-backward; face coefficients to face points along b (own and neighbour's);
//   3  x-backward, the contravariant flux w (|J| J^-1 a) u at each volume point and the
//      x-inner products against D, B, B; face values, the upwind flux at each face point and
//      the first face inner product;
//   4  y-inner products; the second face inner product;
//   5  z-inner products, the lifted face terms E_s, and M^-1: 1/|J| on affine elements (then
//      the update), else 6-10 the weight-adjusted inverse (backward, w / |J|, inner);
//   E  the modal face coefficients of the updated state into trace_out (traces_only: of u).
// At q = p + 1 on non-affine elements (B square) passes 3 to 7 are the collocated ones
// instead (collocated_passes; for advection in a kernel of their own, Stage<false, true>, with
// diffusion a branch of Stage<true>: collocated_own_kernel): the nodal derivatives and face
// lifts at the points, 1/|J|, then the inner products; seven passes instead of ten. With the
// state at the points (ElementBlock::nodal) the transforms before and after them leave:
// Stage<false, true, MAP, true> (nodal_passes) and with diffusion Stage<true, true, MAP, true>
// (nodal_diffusion_passes; on GPUs MAP = 3 for the trilinear geometry, which the modal form's
// diffusion kernels take on CPUs alone).
// Advection-diffusion (Stage<true>, SIPG as in face_flux): the same passes carry the reference
// gradient as well (1: B and D along z; 2: B, D along y; 3: the value and three derivatives at
// each point, the flux w (C u - G grad_r u) with G = nu |J| J^-1 J^-T), the faces u and
// (J^-1 n) . grad_r u at each face point (E and dE along the normal, B and D along the
// tangents), the neighbour's nodal trace, and the inner products against the value and
// derivative tables (lifted with E_s and dE_s); E takes three passes (modal face coefficients
// with E and dE, along b, along a) and writes u and grad u . n at the Q^2 face points, the
// quadrature path's trace format.
// Traces without diffusion are modal (P^2 coefficients per face, as on the modal path).
// Geometry per element:
//   record     affine with constant velocity: C = adj(J) a and 1/|J|, (a . n) dS per face;
//   trilinear  the 8 vertices as the 8 coefficients of the trilinear map; at each point the
//              Jacobian's columns, adj(J) rows as their cross products, |J| (about 60 flops);
//              with diffusion the columns along each pencil and face row from their values at
//              two points (MapLine: affine along every coordinate line), |J| along each pencil
//              that takes 1/|J| the quadratic through three values (as trilinear_pencil);
//   stored     component k < 4 of qvol at each volume point (qvol_at: component-major on
//              GPUs, point-major on CPUs; qtables_thread_order): C and 1/|J|; component 0
//              of qface at each face point (qface_at) = (a . n) dS
//              (trilinear elements on CPUs, curved elements, velocity fields); with
//              diffusion k < 10 adds G (6: G00, G01, G02, G11, G12, G22) and
//              the 6 components of qface a . n, dS, J^-1 n, nu; with diffusion, a constant
//              velocity and diffusivity the trilinear geometry takes these from the map at each
//              point instead (diffusion_face; KernelVariant::qpencil_recompute), on GPUs
//              with the nodal state by default the volume's alone, the face points' read from
//              qface (MAP = 5, FTAB; KernelVariant::qpencil_face_tables); the nodal
//              kernels can stage each element's tables in team scratch first (MAP = 4,
//              stage_tables; KernelVariant::qpencil_stage_tables; without diffusion C
//              alone, Layout's SA);
//   trilinear_pencil  the map's coefficients as trilinear, no tables (a constant velocity on
//              non-affine elements: a kernel of its own, Stage's MAP). The Jacobian's column
//              along a reference direction does not depend on that coordinate and the other two
//              are linear in it, so along each x-pencil C_0 is quadratic in r and C_1, C_2 linear
//              (from the map's columns: 8 triple products per pencil, then 4 multiply-adds per
//              point); |J| along each pencil that takes 1/|J| is the quadratic through its values
//              at the pencil coordinates -1, 0, 1; (a . n) dS along each face row the linear
//              polynomial through its values at the row's ends. With the rotation (rotation,
//              KernelVariant::qpencil_trilinear_rotation) a is linear along each pencil too:
//              C_0 cubic, C_1 and C_2 quadratic, (a . n) dS quadratic along a face row (the
//              product of n dS and a, both linear along it, from their values at its ends).
// Bytes per DOF (qpencil_bytes_per_dof): 28.8 + 144 / P + (geometry + 96) / P^3, geometry 272
// record (vgeo and n, dS of each face), 192 trilinear and trilinear_pencil, 32 Q^3 + 48 Q^2
// stored; on CPUs stored
// 28.8 + 96 / P + (32 Q^3 + 48 Q^2 + 100) / P^3 (face_side_selection: the own and the neighbours'
// traces read only on the faces whose upwind flux takes them, 3 of 6 each with a constant
// velocity); with diffusion 28.8 + (80 Q^3 + 480 Q^2 + 144) / P^3, on the trilinear map
// 28.8 + (192 Q^2 + 336) / P^3 and with the face tables 28.8 + (480 Q^2 + 336) / P^3.
#pragma once

#include "dg/dg/basis.hpp"
#include "dg/dg/face_flux.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/mesh/hex.hpp"
#include "fixed/contract.hpp"
#include "fixed/device.hpp"
#include "fixed/modal_records.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

namespace dg::fixed {

template <int P, int Q>
struct QuadraturePencilPath : Tensor<P, Q> {
  using T = Tensor<P, Q>;
  using T::load_tables;
  using T::P2;
  using T::P3;
  using T::Q2;
  using T::Q3;
  using T::TAB;
  using typename T::Tables;

  /// Element scratch of Stage<DIFF>: G (24: geometry); SD (advection on CPUs, side_list: each
  /// face's sides, their count and list, 20 of 32 doubles); F: advection FC/FN (own and
  /// neighbour's face coefficients, 12 P^2; then the first face inner products, 6 P Q; in the
  /// collocated passes' own kernel without diffusion F and S are one region, Layout's FOLD),
  /// diffusion FC (own face coefficients against E and dE, 12 P^2; then the face inner products
  /// against E and dE, 12 P^2); S: advection face values along b, own and neighbour's (12 P Q;
  /// then the face inner products, 6 P^2), diffusion E B, E D, dE B along b (18 P Q; then in
  /// place the three first face inner products, Stage's OR); A (z-backward: 1, diffusion 2 of
  /// P^2 Q; then the y-inner products 2 P^2 Q; in the collocated passes' own kernel without
  /// diffusion (COLL) max(P^2 Q, P Q^2): the z-backward, then the z-inner products); BQ (U, then
  /// the x-backward input P Q^2, then in place the x-inner products against D); H (diffusion: the
  /// derivatives' x-backward inputs 2 P Q^2; the other two x-inner products 2 P Q^2, then R).
  /// One element with the tables (STAB) at q = p + 2 on GPUs: p = 5 20.7 KiB (CPUs, with B, D
  /// and SD: 21.6 KiB), with diffusion 23.0 KiB; p = 7 40.5 KiB, with diffusion 44.3 KiB (at
  /// q = p + 1 38.4 KiB), all level 0. Pencils of P values that neighbouring threads read or
  /// write side by side (BQ, H, the face values) are PP apart, P + 1 where P is even, so that
  /// they fall on different shared-memory banks.
  static constexpr int PP = P % 2 == 0 ? P + 1 : P;
  static constexpr int max(int a, int b) { return a > b ? a : b; }
  /// U shares BQ: read in pass 1 only (then BQ is written), it takes the updated state in the
  /// last pass (BQ is free then) for the emitted traces; the old state comes from u.
  /// The collocated passes' own kernel without diffusion (FOLD) keeps F and S in one region:
  /// the face coefficients (a, b) of group h = side * 6 + f at h FS + a + FPP b, FPP = PP, so
  /// that faces_along_b turns each column into its values along b in place (one thread a
  /// column, read before it is written) and the face pass writes each row's fluxes over the own
  /// values it has read (Q = P: the face values take the coefficients' places). Else F and S
  /// apart, the coefficients at h P^2 + a + P b. NOD (the nodal state, Stage's NOD): F holds
  /// the face values at the points (al, be) where FOLD puts the coefficients (a, b), A only the
  /// six neighbour words (no transforms), BQ the state's values in x-pencils. NOD with
  /// diffusion: no F; S the face values, their b-derivatives and normal derivatives at the
  /// points (18 PP Q, then in place the face fluxes); A the faces' a-derivative terms and the
  /// own a-derivatives (12 Q^2, where the point loops are rolled); BQ the state; H its
  /// y- and z-derivatives, then in place F_1 and F_2.
  /// STG (the nodal kernels with their tables staged, Stage's MAP = 4): after them OQ, the
  /// element's qvol (4, with diffusion 10 components of QV = Q QQ doubles each) and qface
  /// (6 Q^2, with diffusion 36 Q^2) in the order the passes' threads read them (stage_tables).
  /// QQ is Q^2 made odd, so that the y- and z-pencils' threads, Q QQ apart, read on different
  /// banks. Without diffusion (HF) the x-pass writes F_1 and F_2 over the components 1 and 2
  /// it has read, and H takes no space. SA: every table staged (with diffusion); without
  /// diffusion only C = w adj(J) a (components 0..2), and the last pass and the face rows read
  /// 1/|J| and (a . n) dS where they use them (each entry read once, by one thread, side by side
  /// across a warp): Q QQ + 6 Q^2 doubles less per element (p = 5: 3.4 KiB of 16.2; p = 7: 7.1
  /// of 32.7), so that more teams fit on an SM.
  template <bool DIFF, bool COLL = false, bool NOD = false, bool STG = false>
  struct Layout {
    static_assert(!NOD || COLL, "the nodal state: the collocated passes");
    static_assert(!STG || NOD, "staged tables: the nodal kernels");
    static constexpr bool HF = STG && !DIFF;
    static constexpr bool SA = STG && DIFF;
    static constexpr int QQ = Q2 % 2 == 0 ? Q2 + 1 : Q2, QV = Q * QQ;
    static constexpr bool FOLD = COLL && !DIFF;
    static constexpr int FPP = FOLD ? PP : P, FS = FPP * P;
    static constexpr int
        OG = 0,
        OSD = OG + 24, OF = OSD + (DIFF || !face_side_selection ? 0 : 32),
        OS = OF + (FOLD || (NOD && DIFF) ? 0 : (DIFF ? 12 * P2 : max(12 * P2, 6 * PP * Q))),
        OA = OS + (FOLD ? 12 * FS : (DIFF ? max(18 * PP * Q, 12 * P2) : max(12 * PP * Q, 6 * P2))),
        OB = OA +
             (NOD ? (DIFF ? (P >= 5 ? 12 * Q2 : 0) : 8) : (FOLD ? max(P2 * Q, P*Q2) : 2 * P2 * Q)),
        OU = OB, OH = OB + max(PP * Q2, P3), OQ = OH + (HF ? 0 : max(2 * PP * Q2, P3)),
        ED = OQ + (STG ? (DIFF ? 10 * QV + 36 * Q2 : 3 * QV) : 0);
  };

  /// The 1-D tables in team scratch (load_scratch_tables): on GPUs (constant_tables) E, dE,
  /// the weights and the points only, the entries a thread's own pencil indexes; B and D come
  /// from the constant bank.
  static constexpr int STAB = constant_tables ? 4 * P + 2 * Q : TAB;
  KOKKOS_INLINE_FUNCTION static Tables load_scratch_tables(const TeamMember& team, double* s,
                                                           const BasisTables& t, const View1& pts) {
    return T::template load_tables<!constant_tables>(team, s, t, pts);
  }

  template <bool DIFF, bool COLL = false, bool NOD = false, bool STG = false>
  KOKKOS_INLINE_FUNCTION static constexpr int scratch_doubles(int ne) {
    return STAB + ne * Layout<DIFF, COLL, NOD, STG>::ED;
  }
  template <bool DIFF, bool COLL = false, bool NOD = false, bool STG = false>
  static constexpr size_t scratch_bytes(int ne) {
    return sizeof(double) * scratch_doubles<DIFF, COLL, NOD, STG>(ne) + 256;
  }
  /// Team scratch at level 0 (shared memory) whenever one element fits (level0_max_bytes: p <= 7
  /// at both q, with diffusion as well). Known at compile time, so that the kernel addresses it as
  /// shared memory (shared_space: LDS/STS) and not through generic pointers.
  template <bool DIFF, bool COLL = false, bool NOD = false, bool STG = false>
  static constexpr bool level0 = scratch_bytes<DIFF, COLL, NOD, STG>(1) <= level0_max_bytes;

  /// The modal face coefficients of faces 2d, 2d + 1 of pencil (a, b) along direction d of U.
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION static void face_pair(const double* U, int a, int b, const double* E,
                                                    double& t0, double& t1) {
    constexpr int stride = D == 0 ? 1 : (D == 1 ? P : P2);
    const double* v = U + (D == 0 ? P * (a + P * b) : (D == 1 ? a + P2 * b : a + P * b));
    double s0 = 0.0, s1 = 0.0;
    DG_UNROLL
    for (int m = 0; m < P; ++m) {
      const double x = v[m * stride];
      s0 += E[m] * x;
      s1 += E[P + m] * x;
    }
    t0 = s0;
    t1 = s1;
  }

  // Contractions at the Gauss points, which are symmetric about 0 (x[Q - 1 - a] = -x[a]
  // exactly, gauss_legendre): the Legendre mode i has the parity of i, so a table row-major
  // (point a, mode i) has M(Q - 1 - a, i) = (-1)^(i + ODD) M(a, i) exactly, ODD = 0 for B and 1
  // for D (checked where the block's tables are made, to_device; const_tables comes from the
  // same make_tables). Each contraction takes the even and the odd modes'
  // sums once for the point pair (a, Q - 1 - a) (modes -> points), or the sums and differences
  // of a pair's values (points -> modes): half the multiply-adds and table reads of the plain
  // sums, the same answer to round-off.

  /// f(a, sum_m M(a, m) v[m]) for each point a < NO (modes -> points; M: NO x NI, parity ODD).
  template <int ODD, int NI, int NO, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void sym_points(const double* M, const double* v, const F& f) {
    DG_UNROLL
    for (int a = 0; a < NO / 2; ++a) {
      double e = 0.0, o = 0.0;
      DG_UNROLL
      for (int m = 0; m < NI; ++m) {
        if (m % 2 == 0)
          e += M[a * NI + m] * v[m];
        else
          o += M[a * NI + m] * v[m];
      }
      f(a, e + o);
      f(NO - 1 - a, ODD ? o - e : e - o);
    }
    if constexpr (NO % 2 == 1) { // the middle point x = 0: the modes of parity ODD only
      double e = 0.0;
      DG_UNROLL
      for (int m = ODD; m < NI; m += 2)
        e += M[(NO / 2) * NI + m] * v[m];
      f(NO / 2, e);
    }
  }

  /// The sums sp[a] = v[a] + v[N - 1 - a] and differences sm[a] = v[a] - v[N - 1 - a] of the N
  /// values at symmetric points, a < N / 2.
  template <int N>
  KOKKOS_FORCEINLINE_FUNCTION static void mirror_sums(const double* v, double* sp, double* sm) {
    DG_UNROLL
    for (int a = 0; a < N / 2; ++a) {
      sp[a] = v[a] + v[N - 1 - a];
      sm[a] = v[a] - v[N - 1 - a];
    }
  }

  /// f(i, sum_a M(a, i) v[a]) for each mode i < NM (points -> modes; M: NQ x NM, parity ODD).
  template <int ODD, int NQ, int NM, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void sym_modes(const double* M, const double* v, const F& f) {
    constexpr int H = NQ / 2;
    double sp[H], sm[H];
    mirror_sums<NQ>(v, sp, sm);
    DG_UNROLL
    for (int i = 0; i < NM; ++i) {
      constexpr bool odd_q = NQ % 2 == 1;
      const bool even = (i + ODD) % 2 == 0; // M(NQ - 1 - a, i) = M(a, i)
      double r = odd_q && even ? M[H * NM + i] * v[H] : 0.0;
      DG_UNROLL
      for (int a = 0; a < H; ++a)
        r += M[a * NM + i] * (even ? sp[a] : sm[a]);
      f(i, r);
    }
  }

  /// One pencil modes -> points: out[o so] = sum_m M(o, m) in[m si], o < Q (M = B, or D with
  /// ODD = 1: Q x P).
  template <int ODD = 0>
  KOKKOS_FORCEINLINE_FUNCTION static void to_points(const double* M, const double* in, int si,
                                                    double* out, int so) {
    double v[P];
    DG_UNROLL
    for (int m = 0; m < P; ++m)
      v[m] = in[m * si];
    sym_points<ODD, P, Q>(M, v, [&](int o, double x) { out[o * so] = x; });
  }
  /// One pencil points -> modes: out[i so] = sum_a M(a, i) in[a si], i < P (M = B).
  KOKKOS_FORCEINLINE_FUNCTION static void to_modes(const double* M, const double* in, int si,
                                                   double* out, int so) {
    double v[Q];
    DG_UNROLL
    for (int a = 0; a < Q; ++a)
      v[a] = in[a * si];
    sym_modes<0, Q, P>(M, v, [&](int i, double x) { out[i * so] = x; });
  }

  /// Three pencils of Q points to modes against B and D: o0[j so] = sum_b B(b, j) x[b si] +
  /// D(b, j) y[b si], o1[j so] = sum_b B(b, j) z[b si], j < P.
  KOKKOS_FORCEINLINE_FUNCTION static void to_modes_bd(const double* B, const double* D,
                                                      const double* x, const double* y,
                                                      const double* z, int si, double* o0,
                                                      double* o1, int so) {
    double vx[Q], vy[Q], vz[Q], r0[P];
    DG_UNROLL
    for (int b = 0; b < Q; ++b) {
      vx[b] = x[b * si];
      vy[b] = y[b * si];
      vz[b] = z[b * si];
    }
    sym_modes<0, Q, P>(B, vx, [&](int j, double s) { r0[j] = s; });
    sym_modes<1, Q, P>(D, vy, [&](int j, double s) { o0[j * so] = r0[j] + s; });
    sym_modes<0, Q, P>(B, vz, [&](int j, double s) { o1[j * so] = s; });
  }

  /// The weighted nodal derivative at Q = P points (collocated passes) is centro-antisymmetric,
  /// DW(Q - 1 - a, Q - 1 - b) = -DW(a, b): with xp(b) = x(b) + x(Q - 1 - b), xm likewise with -
  /// (b < Q / 2), DWp(a, b) = (DW(a, b) + DW(a, Q - 1 - b)) / 2, DWm likewise with - (a <
  /// (Q + 1) / 2) and DWc(a) = DW(a, (Q - 1) / 2) for odd Q, f(a, sum_b DW(a, b) x[b]) for
  /// each a < Q from Q^2 / 2 multiply-adds.
  /// HAT: the same with the nodal derivative DH = DW^T (DH(a, b) = l_b'(x_a), the derivative at
  /// point a of the Lagrange polynomial of point b: the derivative of the interpolant of the
  /// values x at the points), centro-antisymmetric as well.
  template <bool HAT = false, class T, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void dw_points(const T& t, const double* x, const F& f) {
    constexpr int H = Q / 2;
    const double* Mp = HAT ? t.DHp : t.DWp;
    const double* Mm = HAT ? t.DHm : t.DWm;
    const double* Mc = HAT ? t.DHc : t.DWc;
    double xp[H], xm[H];
    mirror_sums<Q>(x, xp, xm);
    DG_UNROLL
    for (int a = 0; a < H; ++a) {
      double pa = Q % 2 == 1 ? Mc[a] * x[H] : 0.0, ma = 0.0;
      DG_UNROLL
      for (int b = 0; b < H; ++b) {
        pa += Mp[a * H + b] * xp[b];
        ma += Mm[a * H + b] * xm[b];
      }
      f(a, pa + ma);
      f(Q - 1 - a, ma - pa);
    }
    if constexpr (Q % 2 == 1) { // the middle row: Mm(H, b) = M(H, b), M(H, H) = 0
      double ma = 0.0;
      DG_UNROLL
      for (int b = 0; b < H; ++b)
        ma += Mm[H * H + b] * xm[b];
      f(H, ma);
    }
  }

  /// adj(J) = |J| J^-1 row-major (its rows the cross products of the columns, the layout of
  /// vgeo and adjugate_gram) and |J| at r from the map's coefficients G.
  KOKKOS_FORCEINLINE_FUNCTION static double adjugate_rows(const double* G, double r, double s,
                                                          double t, double A[9]) {
    double Jr[3], Js[3], Jt[3];
    trilinear_columns(G, r, s, t, Jr, Js, Jt);
    return adjugate_rows(Jr, Js, Jt, A);
  }
  /// ... from the Jacobian's columns.
  KOKKOS_FORCEINLINE_FUNCTION static double adjugate_rows(const double Jr[3], const double Js[3],
                                                          const double Jt[3], double A[9]) {
    const double* c[3][2] = {{Js, Jt}, {Jt, Jr}, {Jr, Js}};
    for (int d = 0; d < 3; ++d) {
      const double *a = c[d][0], *b = c[d][1];
      A[3 * d] = a[1] * b[2] - a[2] * b[1];
      A[3 * d + 1] = a[2] * b[0] - a[0] * b[2];
      A[3 * d + 2] = a[0] * b[1] - a[1] * b[0];
    }
    return A[0] * Jr[0] + A[1] * Jr[1] + A[2] * Jr[2];
  }
  /// Row d of adj(J) (the cross product of the other two columns) dotted with v.
  KOKKOS_FORCEINLINE_FUNCTION static double triple(const double a[3], const double b[3],
                                                   const double v[3]) {
    return v[0] * (a[1] * b[2] - a[2] * b[1]) + v[1] * (a[2] * b[0] - a[0] * b[2]) +
           v[2] * (a[0] * b[1] - a[1] * b[0]);
  }

  /// The point loops of the diffusion passes (x-pass volume points, face points along a): not
  /// unrolled on GPUs from p = 4 (fewer live registers: the p = 5 kernel without launch bounds
  /// takes 162 registers instead of 254; per stage on the H100 1.11x at p = 4, 1.07x at p = 5,
  /// 1.5x at p = 6, 1.2x at p = 7), unrolled at p <= 3 (p = 3: 0.71x not unrolled). The table
  /// rows they read are the same for every thread.
  static constexpr bool roll_points = P >= 5;
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_points(const F& f) {
    if constexpr (roll_points) {
      DG_NO_UNROLL
      for (int a = 0; a < Q; ++a)
        f(a);
    } else {
      DG_UNROLL
      for (int a = 0; a < Q; ++a)
        f(a);
    }
  }

  /// B, D and E by value: the Stage carries them on GPUs (constant_tables). With Q = P also
  /// the collocated tables (every backend): DW(a, a') = w_a sum_i B(a, i) D(a', i), the
  /// weighted nodal form of the modal weak derivative (B D^T), as DWp, DWm, DWc (dw_points),
  /// EW(s, a) = w_a sum_i B(a, i) E(s, i), the face lift E_s^T at the points, and dEW likewise
  /// with dE (diffusion: the lift of the face terms against the test functions' normal
  /// derivative). On the nodal state EW and dEW also give the value and the normal derivative
  /// at each face from the values along the normal (the modes U = B^T W u), and DH = DW^T
  /// (DHp, DHm, DHc) the derivative at the points from the values.
  static constexpr int DWH = Q / 2, DWR = (Q + 1) / 2;
  struct ConstTables {
    double B[Q * P], D[Q * P], E[2 * P], dE[2 * P], DWp[DWR * DWH], DWm[DWR * DWH], DWc[DWR],
        DHp[DWR * DWH], DHm[DWR * DWH], DHc[DWR], EW[2 * Q], dEW[2 * Q];
  };
  static const ConstTables& const_tables() {
    static const ConstTables c = [] {
      const HostTables h = make_tables(P - 1, Q);
      ConstTables t{};
      std::copy(h.B.begin(), h.B.end(), t.B);
      std::copy(h.D.begin(), h.D.end(), t.D);
      std::copy(h.E.begin(), h.E.end(), t.E);
      std::copy(h.dE.begin(), h.dE.end(), t.dE);
      std::vector<double> dw(Q * Q);
      for (int a = 0; a < Q; ++a) {
        for (int b = 0; b < Q; ++b) {
          double d = 0.0;
          for (int i = 0; i < P; ++i)
            d += h.B[a * P + i] * h.D[b * P + i];
          dw[a * Q + b] = h.w[a] * d;
        }
        for (int side = 0; side < 2; ++side) {
          double e = 0.0, de = 0.0;
          for (int i = 0; i < P; ++i) {
            e += h.B[a * P + i] * h.E[side * P + i];
            de += h.B[a * P + i] * h.dE[side * P + i];
          }
          t.EW[side * Q + a] = h.w[a] * e;
          t.dEW[side * Q + a] = h.w[a] * de;
        }
      }
      for (int a = 0; a < DWR; ++a) {
        for (int b = 0; b < DWH; ++b) {
          t.DWp[a * DWH + b] = 0.5 * (dw[a * Q + b] + dw[a * Q + Q - 1 - b]);
          t.DWm[a * DWH + b] = 0.5 * (dw[a * Q + b] - dw[a * Q + Q - 1 - b]);
          t.DHp[a * DWH + b] = 0.5 * (dw[b * Q + a] + dw[(Q - 1 - b) * Q + a]);
          t.DHm[a * DWH + b] = 0.5 * (dw[b * Q + a] - dw[(Q - 1 - b) * Q + a]);
        }
        t.DWc[a] = dw[a * Q + (Q - 1) / 2];
        t.DHc[a] = dw[(Q - 1) / 2 * Q + a];
      }
      return t;
    }();
    return c;
  }
  /// The stage kernel; DIFF: advection-diffusion (stored geometry, nodal traces); COLL: the
  /// collocated passes (Q = P, non-affine elements), a kernel of their own rather than a branch
  /// chosen at run time, so that the other form's passes take none of its registers (ptxas,
  /// p = 5 without launch bounds: the diffusion stage 102 registers instead of 136, advection
  /// 164 instead of 206; with bounds fewer spills).
  template <bool DIFF, bool COLL = false, int MAP = 0, bool NOD = false>
  struct Stage {
    static_assert(!COLL || Q == P, "the collocated passes need Q = P");
    static_assert(!MAP || !DIFF || ((MAP == 3 || MAP == 4 || MAP == 5) && NOD),
                  "the map along each pencil is for advection");
    static_assert(MAP != 5 || DIFF, "the face tables beside the map are for diffusion");
    static_assert(MAP != 4 || NOD, "staged tables: the nodal kernels");
    /// MAP = 4: the stored geometry's tables of each element staged in team scratch at the
    /// start (stage_tables; the nodal kernels), NVC components of qvol and NFC of qface; NVS
    /// and NFS of them staged (all where Layout's SA holds, else C alone).
    static constexpr bool STG = MAP == 4;
    static constexpr int NVC = DIFF ? 10 : 4, NFC = DIFF ? 6 : 1;
    /// The trilinear map with diffusion at each point (diffusion_map; on GPUs the nodal
    /// kernel's MAP = 3 alone).
    static constexpr bool DMAP = diffusion_map || MAP == 3 || MAP == 5;
    /// MAP = 5: the map along lines in the volume (as MAP = 3) and each face point's a . n dS,
    /// dS, J^-1 n and nu from its qface row (the per-point face tables), which the face passes
    /// read instead of forming them from the map twice a stage (fixed::nodal_face_tables).
    static constexpr bool FTAB = MAP == 5;
    using L = Layout<DIFF, COLL, NOD, STG>;
    /// Team scratch in shared memory (level0).
    static constexpr bool L0 = level0<DIFF, COLL, NOD, STG>;
    /// The tables in the threads' order (qtables_thread_order).
    static constexpr bool TO = qtables_thread_order(P, Q, DIFF);
    static constexpr int OG = L::OG, OSD = L::OSD, OF = L::OF, OS = L::OS, OA = L::OA, OB = L::OB,
                         OU = L::OU, OH = L::OH, OQ = L::OQ, ED = L::ED, FS = L::FS, FPP = L::FPP,
                         QQ = L::QQ, QV = L::QV;
    /// F_1 and F_2 over the staged components 1 and 2 (Layout's HF); every table staged (SA).
    static constexpr bool HF = L::HF, SA = L::SA;
    static constexpr int NVS = DIFF ? NVC : 3, NFS = DIFF ? NFC : 0;
    /// Where pass 3 leaves the face fluxes (OR) and pass 4 the face inner products (OT): with
    /// diffusion the fluxes in place of the face values along b (each face row's task reads its
    /// row before it writes it) and the inner products in F, free after pass 2 (Layout).
    static constexpr int OR = DIFF ? OS : OF, OT = DIFF ? OF : OS;
    /// Where face coefficient ab = a + P b of face f sits in F, the own side's (the
    /// neighbour's 6 FS further): f FS + a + FPP b (Layout; FPP = P unless FOLD).
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int coefficient_slot(int f, int ab) {
      return f * FS + ab % P + FPP * (ab / P);
    }
    View2 u, reg; // the epilogue (ep) carries the store-mode output
    View3 verts, vgeo, ghost;
    View4 fgeo, trace, trace_out;
    IView2 ftype, nbr, nbr_face, orient;
    IView1 elems;
    View1 points;
    BasisTables tables;
    View2 bdata, source, tau;
    View3 qvol;
    View4 qface;
    IView1 qsides; // advection, stored geometry: per element the sides each face's flux takes
    double vel[3] = {0.0, 0.0, 0.0};
    // trilinear_pencil with the rotation: a(x) is linear in x, so along each pencil, since the
    // map is.
    bool rotation = false;
    physics::Advection adv;
    double eta = 0.0; // the SIPG penalty factor (face f: eta tau(e, f) nu)
    double nu = 0.0;  // the diffusivity (trilinear geometry with diffusion: a constant)
    Epilogue ep;
    PencilGeometry geometry = PencilGeometry::record;
    bool affine = false, traces_only = false;
    /// GPUs: the loads as asynchronous copies (KernelVariant::qpencil_async_loads).
    bool async_loads = true;
    /// Q = P without COLL: the collocated passes chosen at run time, in the kernel that holds
    /// the modal right-hand side as well (KernelVariant::qpencil_collocated_kernel = 0).
    bool collocated = false;
    /// The geometry, the rotation and affine as the kernel takes them: with MAP (non-affine
    /// elements, the map along each pencil; 1: a constant velocity, 2: the rotation, nodal
    /// state only; 3: diffusion on the nodal state, the map at each point; 4: the nodal state
    /// with the stored geometry staged in team scratch) known at compile time, so that the other
    /// geometries' code leaves the kernel.
    KOKKOS_FORCEINLINE_FUNCTION PencilGeometry geo() const {
      if constexpr (MAP == 3 || MAP == 5) return PencilGeometry::trilinear;
      if constexpr (MAP == 4) return PencilGeometry::stored;
      if constexpr (MAP > 0) return PencilGeometry::trilinear_pencil;
      return geometry;
    }
    KOKKOS_FORCEINLINE_FUNCTION bool rot() const {
      return MAP == 2 || ((MAP == 0 || STG) && rotation);
    }
    KOKKOS_FORCEINLINE_FUNCTION bool aff() const { return (MAP == 0 || STG) && affine; }
    /// MAP = 4: where the staged tables hold component m at volume point (a, b, c) (1/|J|, m = 3,
    /// in point order for the z-pencils that read it, the others in the x-pass threads' order)
    /// and component k at point (al, be) of face f (the face passes' threads (f, be) side by
    /// side), relative to the element's scratch.
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int staged_volume(int m, int a, int b, int c) {
      return OQ + m * QV + (m == 3 ? a + Q * (b + Q * c) : b + Q * c + QQ * a);
    }
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int staged_face(int f, int k, int al, int be) {
      return OQ + NVC * QV + (k * Q + al) * 6 * Q + f * Q + be;
    }
    /// Where the nodal advection kernel keeps F_d (d = 1, 2) at point (a, b, c): over the
    /// staged component d (HF), else in H; the strides along a, b, c are differences of slots.
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int flux_slot(int d, int a, int b, int c) {
      return HF ? staged_volume(d, a, b, c) : OH + (d - 1) * PP * Q2 + a + PP * (b + Q * c);
    }
    int ne = 1, first = -1, level = 0;
    ConstTables ct{};

    KOKKOS_FORCEINLINE_FUNCTION int elem(int i) const { return first >= 0 ? first + i : elems(i); }
    KOKKOS_FORCEINLINE_FUNCTION int batch(int bi) const {
      const int left = static_cast<int>(elems.extent(0)) - bi * ne;
      return left < ne ? left : ne;
    }

    /// w C_d u at the Q volume points (a, b, c), a = 0..Q-1, and 1/|J| there (inv, stored and
    /// trilinear geometry).
    KOKKOS_FORCEINLINE_FUNCTION void contravariant(int e, const double* G, const Tables& tb, int b,
                                                   int c, double C0[Q], double C1[Q],
                                                   double C2[Q]) const {
      const double wbc = tb.w[b] * tb.w[c];
      if (geo() == PencilGeometry::record) {
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          const double w = tb.w[a] * wbc;
          C0[a] = w * G[0];
          C1[a] = w * G[1];
          C2[a] = w * G[2];
        }
      } else if (geo() == PencilGeometry::trilinear_pencil && rot()) {
        // As below, with a(r) = al + r be along the pencil (x(r) = X0 + r J_r): C_0 cubic in r,
        // C_1 and C_2 quadratic.
        const double s = tb.x[b], t = tb.x[c];
        double Jr[3], As[3], Bs[3], At[3], Bt[3], X0[3], al[3];
        trilinear_line_columns(G, s, t, Jr, As, Bs, At, Bt);
        trilinear_position(G, 0.0, s, t, X0);
        velocity_at(X0, al);
        // The rotation's linear part applied to dx/dr = J_r.
        const double be[3] = {-adv.omega * Jr[1], adv.omega * Jr[0], 0.0};
        const double c00 = triple(As, At, al),
                     c01 = triple(As, Bt, al) + triple(Bs, At, al) + triple(As, At, be),
                     c02 = triple(Bs, Bt, al) + triple(As, Bt, be) + triple(Bs, At, be),
                     c03 = triple(Bs, Bt, be), c10 = triple(At, Jr, al),
                     c11 = triple(Bt, Jr, al) + triple(At, Jr, be), c12 = triple(Bt, Jr, be),
                     c20 = triple(Jr, As, al), c21 = triple(Jr, Bs, al) + triple(Jr, As, be),
                     c22 = triple(Jr, Bs, be);
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          const double r = tb.x[a], w = tb.w[a] * wbc;
          C0[a] = w * (c00 + r * (c01 + r * (c02 + r * c03)));
          C1[a] = w * (c10 + r * (c11 + r * c12));
          C2[a] = w * (c20 + r * (c21 + r * c22));
        }
      } else if (geo() == PencilGeometry::trilinear_pencil) {
        // Along the pencil r (s, t fixed): J_r constant, J_s = As + r Bs, J_t = At + r Bt, so
        // C_0 = a . (J_s x J_t) is quadratic in r, C_1 = a . (J_t x J_r) and C_2 = a . (J_r x
        // J_s) linear.
        double Jr[3], As[3], Bs[3], At[3], Bt[3];
        trilinear_line_columns(G, tb.x[b], tb.x[c], Jr, As, Bs, At, Bt);
        const double c00 = triple(As, At, vel), c01 = triple(As, Bt, vel) + triple(Bs, At, vel),
                     c02 = triple(Bs, Bt, vel), c10 = triple(At, Jr, vel),
                     c11 = triple(Bt, Jr, vel), c20 = triple(Jr, As, vel),
                     c21 = triple(Jr, Bs, vel);
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          const double r = tb.x[a], w = tb.w[a] * wbc;
          C0[a] = w * (c00 + r * (c01 + r * c02));
          C1[a] = w * (c10 + r * c11);
          C2[a] = w * (c20 + r * c21);
        }
      } else if (geo() == PencilGeometry::trilinear) {
        const double s = tb.x[b], t = tb.x[c];
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          double Jr[3], Js[3], Jt[3];
          trilinear_columns(G, tb.x[a], s, t, Jr, Js, Jt);
          const double w = tb.w[a] * wbc;
          C0[a] = w * triple(Js, Jt, vel);
          C1[a] = w * triple(Jt, Jr, vel);
          C2[a] = w * triple(Jr, Js, vel);
        }
      } else if constexpr (STG) {
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          const double w = tb.w[a] * wbc;
          C0[a] = w * G[staged_volume(0, a, b, c) - OG];
          C1[a] = w * G[staged_volume(1, a, b, c) - OG];
          C2[a] = w * G[staged_volume(2, a, b, c) - OG];
        }
      } else {
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          const double w = tb.w[a] * wbc;
          C0[a] = w * qvol_at(qvol, e, 0, a, b, c, Q, TO);
          C1[a] = w * qvol_at(qvol, e, 1, a, b, c, Q, TO);
          C2[a] = w * qvol_at(qvol, e, 2, a, b, c, Q, TO);
        }
      }
    }

    /// 1/|J| at the volume point (a, b, c) (non-affine geometry).
    KOKKOS_FORCEINLINE_FUNCTION double inverse_jacobian(int e, const double* G, const Tables& tb,
                                                        int a, int b, int c) const {
      if (geo() == PencilGeometry::trilinear) {
        double Jr[3], Js[3], Jt[3];
        trilinear_columns(G, tb.x[a], tb.x[b], tb.x[c], Jr, Js, Jt);
        return 1.0 / triple(Js, Jt, Jr);
      }
      if constexpr (SA) return G[staged_volume(3, a, b, c) - OG];
      return qvol_at(qvol, e, 3, a, b, c, Q, TO);
    }
    /// 1/|J| at the Q volume points of the pencil along reference direction D whose other two
    /// point indices, in order, are i and j.
    template <int D>
    KOKKOS_FORCEINLINE_FUNCTION void inverse_jacobians(int e, const double* G, const Tables& tb,
                                                       int i, int j, double inv[Q]) const {
      if (geo() == PencilGeometry::trilinear_pencil || geo() == PencilGeometry::trilinear) {
        // |J| is quadratic in the pencil's coordinate x: its values at x = -1, 0, 1.
        double d[3];
        DG_UNROLL
        for (int k = 0; k < 3; ++k) {
          const double x = k - 1.0, xi = tb.x[i], xj = tb.x[j];
          double Jr[3], Js[3], Jt[3];
          trilinear_columns(G, D == 0 ? x : xi, D == 1 ? x : (D == 0 ? xi : xj), D == 2 ? x : xj,
                            Jr, Js, Jt);
          d[k] = triple(Js, Jt, Jr);
        }
        const double d1 = 0.5 * (d[2] - d[0]), d2 = 0.5 * (d[2] + d[0]) - d[1];
        DG_UNROLL
        for (int a = 0; a < Q; ++a)
          inv[a] = 1.0 / (d[1] + tb.x[a] * (d1 + tb.x[a] * d2));
        return;
      }
      DG_UNROLL
      for (int a = 0; a < Q; ++a)
        inv[a] = D == 0 ? inverse_jacobian(e, G, tb, a, i, j)
                        : (D == 1 ? inverse_jacobian(e, G, tb, i, a, j)
                                  : inverse_jacobian(e, G, tb, i, j, a));
    }

    /// Advection: the sides whose values face f's upwind flux takes: bit 0 this element's (a
    /// boundary face, or some (a . n) > 0 at its points), bit 1 the neighbour's (an interior
    /// face with some (a . n) < 0). Where the signs are not tabulated (qsides empty: record and
    /// trilinear geometry) interior faces take both. The face passes skip the other side's
    /// loads and contractions: with a constant velocity half of them.
    KOKKOS_FORCEINLINE_FUNCTION int face_sides(int e, int f) const {
      const int type = ftype(e, f);
      if (type != face_local && type != face_ghost) return 1;
      return qsides.extent(0) > 0 ? (qsides(e) >> (2 * f)) & 3 : 3;
    }

    /// The neighbour's trace across interior face f of element e (in trace or ghost; its first
    /// coefficient or point) and the stride between its entries.
    KOKKOS_FORCEINLINE_FUNCTION const double* neighbour_face_data(int e, int f, int& stride) const {
      if (ftype(e, f) == face_local) {
        stride = static_cast<int>(trace.extent(3));
        return &trace(nbr(e, f), nbr_face(e, f), 0, 0);
      }
      stride = static_cast<int>(ghost.extent(2));
      return &ghost(nbr(e, f), 0, 0);
    }

    /// Advection: into SD (team scratch) each face's sides (face_sides) at SD[f], and the pencil
    /// groups h = side * 6 + f the face passes take (faces_along_b), their count at SD[6] and
    /// the list from SD[8].
    KOKKOS_FORCEINLINE_FUNCTION void side_list(int e, double* SD) const {
      int n = 0;
      for (int f = 0; f < 6; ++f) {
        const int sides = face_sides(e, f);
        SD[f] = sides;
        if (sides & 1) SD[8 + n++] = f;
      }
      for (int f = 0; f < 6; ++f)
        if (static_cast<int>(SD[f]) & 2) SD[8 + n++] = 6 + f;
      SD[6] = n;
    }

    /// Diffusion on the trilinear map: a . n, dS, J^-1 n and nu at a point of face f (n the
    /// outward unit normal, n dS = +-row f / 2 of adj(J)) from the Jacobian's columns there, with
    /// one division and one square root (1 / dS = |J| / (dS |J|)).
    KOKKOS_FORCEINLINE_FUNCTION void mapped_face(int f, const double Jr[3], const double Js[3],
                                                 const double Jt[3], double g[6]) const {
      double A[9];
      const double det = adjugate_rows(Jr, Js, Jt, A);
      const double sg = f % 2 ? 1.0 : -1.0;
      double Ad[3]; // row f / 2 of A, by selects (component)
      DG_UNROLL
      for (int k = 0; k < 3; ++k)
        Ad[k] = component3(A[k], A[3 + k], A[6 + k], f / 2);
      const double dS = math::sqrt(Ad[0] * Ad[0] + Ad[1] * Ad[1] + Ad[2] * Ad[2]);
      const double q = sg / (dS * det);
      g[0] = (vel[0] * Ad[0] + vel[1] * Ad[1] + vel[2] * Ad[2]) * (det * q);
      g[1] = dS;
      for (int k = 0; k < 3; ++k)
        g[2 + k] = (A[3 * k] * Ad[0] + A[3 * k + 1] * Ad[1] + A[3 * k + 2] * Ad[2]) * q;
      g[5] = nu;
    }
    /// Diffusion on the trilinear map: the Jacobian's columns along a line of reference points
    /// r0 + x (r1 - r0) (a pencil, a face row), c at x = 0 and m their change per unit x, so that
    /// at x they are c + x m; exact, since the trilinear map's columns are affine along every
    /// coordinate line. The diffusion passes take it once per line instead of the columns from
    /// the map's 24 coefficients at each point.
    struct MapLine {
      double c[9], m[9];
      KOKKOS_FORCEINLINE_FUNCTION void at(double x, double J[9]) const {
        DG_UNROLL
        for (int i = 0; i < 9; ++i)
          J[i] = c[i] + x * m[i];
      }
    };
    KOKKOS_FORCEINLINE_FUNCTION static void map_line(const double* G, const double r0[3],
                                                     const double r1[3], MapLine& L) {
      trilinear_columns(G, r0[0], r0[1], r0[2], L.c, L.c + 3, L.c + 6);
      trilinear_columns(G, r1[0], r1[1], r1[2], L.m, L.m + 3, L.m + 6);
      DG_UNROLL
      for (int i = 0; i < 9; ++i)
        L.m[i] -= L.c[i];
    }
    /// ... along row be of face f (the face coordinate a varying).
    KOKKOS_FORCEINLINE_FUNCTION static void face_line(const double* G, const Tables& tb, int f,
                                                      int be, MapLine& L) {
      double r0[3], r1[3];
      hex::face_point(f, 0.0, tb.x[be], r0);
      hex::face_point(f, 1.0, tb.x[be], r1);
      map_line(G, r0, r1, L);
    }
    /// ... along the x-pencil (b, c): trilinear_line_columns' J_r (constant in r), As + r Bs, At +
    /// r Bt.
    KOKKOS_FORCEINLINE_FUNCTION static void pencil_line(const double* G, const Tables& tb, int b,
                                                        int c, MapLine& L) {
      trilinear_line_columns(G, tb.x[b], tb.x[c], L.c, L.c + 3, L.m + 3, L.c + 6, L.m + 6);
      DG_UNROLL
      for (int i = 0; i < 3; ++i)
        L.m[i] = 0.0;
    }
    /// diffusion_face at point al of the row L was taken along (face_line): from L where the
    /// passes take the map along lines (map_lines), else as diffusion_face.
    KOKKOS_FORCEINLINE_FUNCTION const double* row_face(int e, const double* G, const MapLine& L,
                                                       const Tables& tb, int f, int al, int be,
                                                       double g[6]) const {
      if (face_map()) {
        double J[9];
        L.at(tb.x[al], J);
        mapped_face(f, J, J + 3, J + 6, g);
        return g;
      }
      return diffusion_face(e, G, tb, f, al, be, g);
    }
    /// Whether the diffusion passes take the geometry along each line (MapLine).
    KOKKOS_FORCEINLINE_FUNCTION bool map_lines() const {
      return DMAP && geo() == PencilGeometry::trilinear;
    }
    /// ... the face passes too (not with the face tables, FTAB).
    KOKKOS_FORCEINLINE_FUNCTION bool face_map() const { return !FTAB && map_lines(); }

    /// Diffusion: a . n, dS, J^-1 n and nu at point (al, be) of face f (n the outward unit
    /// normal): their qface row, or (trilinear geometry) g filled from the map as the tables take
    /// them from the mesh's Jacobian (n dS = +-row f / 2 of adj(J)). Returns where they are.
    KOKKOS_FORCEINLINE_FUNCTION const double* diffusion_face(int e, const double* G,
                                                             const Tables& tb, int f, int al,
                                                             int be, double g[6]) const {
      if (face_map()) {
        double r[3], Jr[3], Js[3], Jt[3];
        hex::face_point(f, tb.x[al], tb.x[be], r);
        trilinear_columns(G, r[0], r[1], r[2], Jr, Js, Jt);
        mapped_face(f, Jr, Js, Jt, g);
        return g;
      }
      if constexpr (SA) {
        DG_UNROLL
        for (int k = 0; k < 6; ++k)
          g[k] = G[staged_face(f, k, al, be) - OG];
        return g;
      }
      if constexpr (TO) {
        DG_UNROLL
        for (int k = 0; k < 6; ++k)
          g[k] = qface_at(qface, e, f, k, al, be, Q, TO);
        return g;
      }
      return &qface(e, f, al + Q * be, 0);
    }

    /// (a . n) dS at point (al, be) of face f (outward normal).
    KOKKOS_FORCEINLINE_FUNCTION double normal_velocity(int e, const double* G, const Tables& tb,
                                                       int f, int al, int be) const {
      if (geo() == PencilGeometry::record) return G[4 + f];
      if constexpr (SA) return G[staged_face(f, 0, al, be) - OG];
      if (geo() == PencilGeometry::stored) return qface_at(qface, e, f, 0, al, be, Q, TO);
      return mapped_normal_velocity(G, f, tb.x[al], tb.x[be]);
    }
    /// (a . n) dS at the face coordinates (x, y) of face f from the trilinear map.
    KOKKOS_FORCEINLINE_FUNCTION double mapped_normal_velocity(const double* G, int f, double x,
                                                              double y) const {
      double n[3], v[3];
      mapped_normal(G, f, x, y, n, v);
      const double c = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
      return f % 2 ? c : -c;
    }
    /// Row f / 2 of adj(J) (n dS = +-it, outward) and the velocity at the face coordinates (x, y)
    /// of face f from the trilinear map.
    KOKKOS_FORCEINLINE_FUNCTION void mapped_normal(const double* G, int f, double x, double y,
                                                   double n[3], double v[3]) const {
      double r[3], Jr[3], Js[3], Jt[3];
      hex::face_point(f, x, y, r);
      trilinear_columns(G, r[0], r[1], r[2], Jr, Js, Jt);
      v[0] = vel[0];
      v[1] = vel[1];
      v[2] = vel[2];
      if (rot()) { // the velocity at the point's position x(r)
        double xp[3];
        trilinear_position(G, r[0], r[1], r[2], xp);
        velocity_at(xp, v);
      }
      const int d = f / 2;
      double a[3], b[3]; // the other two columns, in order
      DG_UNROLL
      for (int i = 0; i < 3; ++i) {
        a[i] = d == 0 ? Js[i] : (d == 1 ? Jt[i] : Jr[i]);
        b[i] = d == 0 ? Jt[i] : (d == 1 ? Jr[i] : Js[i]);
      }
      n[0] = a[1] * b[2] - a[2] * b[1];
      n[1] = a[2] * b[0] - a[0] * b[2];
      n[2] = a[0] * b[1] - a[1] * b[0];
    }
    /// (a . n) dS along row y of face f as an0 + x (an1 + x an2) in the row's coordinate x: n dS
    /// is linear along the row (the Jacobian's column along it does not depend on it, the other
    /// tangent column is linear in it), and so is a with the rotation (an2 = 0 without): from
    /// the two at the row's ends.
    KOKKOS_FORCEINLINE_FUNCTION void row_normal_velocity(const double* G, int f, double y,
                                                         double& an0, double& an1,
                                                         double& an2) const {
      double nl[3], vl[3], nh[3], vh[3];
      mapped_normal(G, f, -1.0, y, nl, vl);
      mapped_normal(G, f, 1.0, y, nh, vh);
      const double h = f % 2 ? 0.5 : -0.5; // the outward sign and the ends' half
      if (!rot()) {
        const double lo = vl[0] * nl[0] + vl[1] * nl[1] + vl[2] * nl[2];
        const double hi = vh[0] * nh[0] + vh[1] * nh[1] + vh[2] * nh[2];
        an0 = h * (hi + lo);
        an1 = h * (hi - lo);
        an2 = 0.0;
        return;
      }
      // n dS = +-(nm + x nd), a = am + x ad (nm, nd, am, ad: twice theirs, scaled once below).
      double c0 = 0.0, c1 = 0.0, c2 = 0.0;
      DG_UNROLL
      for (int i = 0; i < 3; ++i) {
        const double nm = nh[i] + nl[i], nd = nh[i] - nl[i];
        const double am = vh[i] + vl[i], ad = vh[i] - vl[i];
        c0 += am * nm;
        c1 += am * nd + ad * nm;
        c2 += ad * nd;
      }
      const double q = 0.5 * h; // 1/4 with the sign
      an0 = q * c0;
      an1 = q * c1;
      an2 = q * c2;
    }
    /// The velocity at x: the rotation's (about the z axis) where the kernel knows it (MAP = 2;
    /// its z component zero, so that the products with it leave the kernel), else adv's.
    KOKKOS_FORCEINLINE_FUNCTION void velocity_at(const double x[3], double v[3]) const {
      if constexpr (MAP == 2) {
        v[0] = -adv.omega * (x[1] - adv.center[1]);
        v[1] = adv.omega * (x[0] - adv.center[0]);
        v[2] = 0.0;
      } else {
        adv.velocity(x, v);
      }
    }

    /// Advection: - w_al w_be (a . n)^upwind u dS at the Q points (al, be) of row be of face f
    /// from the face values along b (S + OS, own and neighbour's).
    KOKKOS_FORCEINLINE_FUNCTION void upwind_fluxes(const Tables& tb, const double* S, int e, int f,
                                                   int be, double phi[Q]) const {
      const double* si = S + OS + f * PP * Q + PP * be;
      const double* so = si + 6 * PP * Q;
      // Where the face takes one side (the sign of (a . n) fixed on it), that side's values
      // serve as both: one contraction.
      const int sides = face_side_selection ? static_cast<int>(S[OSD + f]) : 3; // face_sides
      const double* s1 = sides == 2 ? so : si;
      double vi[P], vo[P];
      DG_UNROLL
      for (int a = 0; a < P; ++a) {
        vi[a] = sides ? s1[a] : 0.0;
        vo[a] = sides == 3 ? so[a] : 0.0;
      }
      double ui[Q], uo[Q];
      sym_points<0, P, Q>(tb.B, vi, [&](int al, double x) { ui[al] = x; });
      if (sides == 3) {
        sym_points<0, P, Q>(tb.B, vo, [&](int al, double x) { uo[al] = x; });
      } else {
        DG_UNROLL
        for (int al = 0; al < Q; ++al)
          uo[al] = ui[al];
      }
      point_fluxes(tb, S, e, f, be, ui, uo, phi);
    }

    /// Advection: - w_al w_be (a . n)^upwind u dS at the Q points (al, be) of row be of face f
    /// from this side's values ui and the other side's uo there (a boundary face: its datum or
    /// ui, by its type).
    KOKKOS_FORCEINLINE_FUNCTION void point_fluxes(const Tables& tb, const double* S, int e, int f,
                                                  int be, const double ui[Q], const double uo[Q],
                                                  double phi[Q]) const {
      const int type = ftype(e, f);
      const int slot = nbr(e, f);
      // trilinear_pencil: (a . n) dS is linear along the row (the Jacobian's column along the
      // row's direction does not depend on it, the other tangent column is linear in it), with
      // the rotation quadratic (a linear along the row as well).
      double an0 = 0.0, an1 = 0.0, an2 = 0.0;
      if (geo() == PencilGeometry::trilinear_pencil)
        row_normal_velocity(S + OG, f, tb.x[be], an0, an1, an2);
      DG_UNROLL
      for (int al = 0; al < Q; ++al) {
        const double uin = ui[al];
        double uout = uo[al];
        const double an = geo() == PencilGeometry::trilinear_pencil
                              ? an0 + tb.x[al] * (an1 + tb.x[al] * an2)
                              : normal_velocity(e, S + OG, tb, f, al, be);
        if (type != face_local && type != face_ghost) {
          const bool weak = type == face_dirichlet || (type == face_inflow && an < 0.0);
          uout = weak ? bdata(slot, al + Q * be) : uin;
        }
        phi[al] = -physics::upwind_flux(an, uin, uout) * tb.w[al] * tb.w[be];
      }
    }

    /// CPUs: asks the cache for the neighbours' modal face coefficients of batch bi, which lie
    /// anywhere in trace and ghost (on one core the misses took a fifth of the stage).
    KOKKOS_FORCEINLINE_FUNCTION void prefetch_neighbours(int bi) const {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
      if (bi * ne >= static_cast<int>(elems.extent(0))) return;
      const int e0 = bi * ne, nl = batch(bi);
      for (int k = 0; k < nl; ++k) {
        const int e = elem(e0 + k);
        // The element's own state, register and traces (contiguous, P^3, P^3 and 6 P^2).
        const double* own[3] = {&u(e, 0), reg.extent(0) > 0 ? &reg(e, 0) : nullptr,
                                trace.extent(0) > 0 ? &trace(e, 0, 0, 0) : nullptr};
        const int len[3] = {P3, P3, static_cast<int>(6 * P2 * trace.extent(3))};
        for (int s = 0; s < 3; ++s)
          if (own[s])
            for (int i = 0; i < len[s]; i += 8)
              __builtin_prefetch(own[s] + i);
        for (int f = 0; f < 6; ++f) {
          if (!(face_sides(e, f) & 2)) continue; // not read
          int sv;
          const double* v = neighbour_face_data(e, f, sv);
          const int n = (DIFF ? Q2 : P2) * sv;
          for (int i = 0; i < n; i += 8)
            __builtin_prefetch(v + i);
          __builtin_prefetch(v + n - 1);
        }
      }
#else
      (void)bi;
#endif
    }

    /// Loads of batch bi: states, geometry, and (stage) the neighbours' face coefficients, all
    /// complete for this thread on return (a team barrier then makes them the team's).
    KOKKOS_INLINE_FUNCTION void load(const TeamMember& team, double* base, int bi) const {
      if constexpr (NOD) {
        issue_nodal_loads(team, base, bi);
        copy_wait();
        return;
      }
      issue_loads(team, base, bi);
      copy_wait();
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
      if (!DIFF && !traces_only && async_loads) flip_neighbours(team, base, bi);
#endif
    }

    /// The traces with diffusion take J^-1 n at the face points: from the map's coefficients
    /// with the trilinear geometry, from the staged tables with STG.
    KOKKOS_FORCEINLINE_FUNCTION bool traces_need_geometry() const {
      return DIFF && ((DMAP && geo() == PencilGeometry::trilinear) || STG);
    }

    /// STG: the stored geometry of the batch's nl elements from e0 into their scratch at OQ
    /// (staged_volume, staged_face), one thread per entry in the tables' own order, so that a
    /// warp reads them side by side; on GPUs with async_loads as asynchronous copies, in flight
    /// with the state's.
    KOKKOS_INLINE_FUNCTION void stage_tables(const TeamMember& team, double* base, int e0,
                                             int nl) const {
      constexpr int NV = NVS * Q3, NT = NV + 6 * NFS * Q2;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * NT), [&](int idx) {
        const int k = idx / NT, r = idx % NT, e = elem(e0 + k);
        int dst;
        const double* src;
        if (r < NV) { // component m, point j of qvol's order (qvol_at)
          const int m = r / Q3, j = r % Q3;
          const bool to = TO && m != 3;
          const int a = to ? j / Q2 : j % Q, b = to ? j % Q : (j / Q) % Q,
                    c = to ? (j / Q) % Q : j / Q2;
          dst = staged_volume(m, a, b, c);
          src = &qvol_at(qvol, e, m, a, b, c, Q, TO);
        } else { // entry j of qface's order (qface_at)
          const int j = r - NV;
          const int f = TO ? (j % (6 * Q)) / Q : j / (NFC * Q2), kk = TO ? j / (6 * Q2) : j % NFC,
                    al = TO ? (j / (6 * Q)) % Q : ((j / NFC) % Q2) % Q,
                    be = TO ? j % Q : ((j / NFC) % Q2) / Q;
          dst = staged_face(f, kk, al, be);
          src = &qface_at(qface, e, f, kk, al, be, Q, TO);
        }
        double* T = base + k * ED + dst;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
        if (async_loads) return copy_async<L0>(T, src);
#endif
        *T = *src;
      });
    }

    /// The geometry of the batch's nl elements from e0 into G: the trilinear map's coefficients,
    /// or the affine record (C = adj(J) a, 1/|J|; with the record geometry (a . n) dS per face).
    KOKKOS_INLINE_FUNCTION void load_geometry(const TeamMember& team, double* base, int e0,
                                              int nl) const {
      if (geo() == PencilGeometry::trilinear || geo() == PencilGeometry::trilinear_pencil) {
        // The map's coefficients (trilinear_coefficients): one thread per component, its
        // eight vertex values read once.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 3), [&](int idx) {
          const int k = idx / 3, i = idx % 3;
          trilinear_coefficients(ViewVertices{verts, elem(e0 + k)}, i, base + k * ED + OG);
        });
      } else if (geo() == PencilGeometry::record || aff()) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl), [&](int k) {
          const int e = elem(e0 + k);
          double* G = base + k * ED + OG;
          for (int d = 0; d < 3; ++d)
            G[d] = vgeo(e, 0, 3 * d) * vel[0] + vgeo(e, 0, 3 * d + 1) * vel[1] +
                   vgeo(e, 0, 3 * d + 2) * vel[2];
          G[3] = 1.0 / vgeo(e, 0, 9);
          if (geo() == PencilGeometry::record)
            for (int f = 0; f < 6; ++f)
              G[4 + f] = (vel[0] * fgeo(e, f, 0, 0) + vel[1] * fgeo(e, f, 0, 1) +
                          vel[2] * fgeo(e, f, 0, 2)) *
                         fgeo(e, f, 0, 3);
        });
      }
    }

    /// NOD: the loads of batch bi. The state's values into BQ, x-pencils PP apart (point
    /// (a, b, c) at OB + a + PP (b + Q c)); the geometry; with a stage, each face's own values
    /// (trace, emitted by the previous stage) and the neighbour's at the same points (its nodal
    /// trace at hex::map_index; no signs: a reflection reverses the points' order) into F at
    /// coefficient_slot(f, al + P be) and 6 FS further. A boundary face's outer values come from
    /// its data in the face pass. On GPUs with async_loads as asynchronous copies, the
    /// neighbours' located through one word per face (issue_face_coefficients).
    KOKKOS_INLINE_FUNCTION void issue_nodal_loads(const TeamMember& team, double* base,
                                                  int bi) const {
      const int e0 = bi * ne, nl = batch(bi);
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
      if (team.team_rank() == 0 && !traces_only) prefetch_neighbours(bi + 1);
      for (int k = 0; k < nl; ++k) {
        const double* ue = &u(elem(e0 + k), 0);
        double* N = base + k * ED + OB;
        for (int bc = 0; bc < Q2; ++bc)
          for (int a = 0; a < Q; ++a)
            N[PP * bc + a] = ue[Q * bc + a];
      }
      if (traces_only && !traces_need_geometry()) return;
      load_geometry(team, base, e0, nl);
      if constexpr (STG) stage_tables(team, base, e0, nl);
      if constexpr (DIFF) return; // nodal neighbour traces, read where they are used
      // CPUs: one face at a time (its type, neighbour and orientation read once), as
      // issue_loads.
      for (int k = 0; k < nl; ++k) {
        const int e = elem(e0 + k);
        double* F = base + k * ED + OF;
        for (int f = 0; f < 6; ++f) {
          DG_UNROLL
          for (int pt = 0; pt < P2; ++pt)
            F[coefficient_slot(f, pt)] = trace(e, f, pt, 0);
          double* nbv = F + 6 * FS + f * FS;
          const int type = ftype(e, f);
          if (type != face_local && type != face_ghost) {
            for (int pt = 0; pt < P2; ++pt)
              nbv[pt % P + FPP * (pt / P)] = 0.0;
            continue;
          }
          // The orientation's bits as the GPUs' copies take them (neighbour_point).
          const long long w = neighbour_word(type, 0, 0, orient(e, f), 0);
          int sv;
          const double* v = neighbour_face_data(e, f, sv);
          for (int be = 0; be < P; ++be)
            for (int al = 0; al < P; ++al)
              nbv[al + FPP * be] = v[sv * neighbour_point(w, al, be, P)];
        }
      }
#else
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P3), [&](int idx) {
        const int k = idx / P3, m = idx % P3;
        double* dst = base + k * ED + OB + PP * (m / Q) + m % Q;
        const double* src = &u(elem(e0 + k), m);
        if (async_loads) return copy_async<L0>(dst, src);
        *dst = *src;
      });
      if (traces_only && !traces_need_geometry()) return;
      load_geometry(team, base, e0, nl);
      if constexpr (STG) stage_tables(team, base, e0, nl);
      if constexpr (DIFF) return;
      if (async_loads) return issue_face_coefficients(team, base, bi);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
        const int k = idx / (6 * P2), f = (idx / P2) % 6, pt = idx % P2, e = elem(e0 + k);
        double* F = base + k * ED + OF + coefficient_slot(f, pt);
        F[0] = trace(e, f, pt, 0);
        const int type = ftype(e, f);
        double v = 0.0;
        if (type == face_local || type == face_ghost) { // as on CPUs (neighbour_point)
          const long long w = neighbour_word(type, 0, 0, orient(e, f), 0);
          int sv;
          const double* src = neighbour_face_data(e, f, sv);
          v = src[sv * neighbour_point(w, pt % P, pt / P, P)];
        }
        F[6 * FS] = v;
      });
#endif
    }

    /// The loads of load(); on GPUs with async_loads the state and the face coefficients as
    /// asynchronous copies (copy_async), all of a team's in flight at once, and the neighbours'
    /// coefficients as stored (flip_neighbours applies the orientation's signs).
    KOKKOS_INLINE_FUNCTION void issue_loads(const TeamMember& team, double* base, int bi) const {
      const int e0 = bi * ne, nl = batch(bi);
      if (team.team_rank() == 0 && !traces_only) prefetch_neighbours(bi + 1);
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
      for (int k = 0; k < nl; ++k) {
        const double* ue = &u(elem(e0 + k), 0);
        double* U = base + k * ED + OU;
        for (int m = 0; m < P3; ++m)
          U[m] = ue[m];
      }
#else
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P3), [&](int idx) {
        const int k = idx / P3, m = idx % P3;
        if (async_loads)
          copy_async<L0>(base + k * ED + OU + m, &u(elem(e0 + k), m));
        else
          base[k * ED + OU + m] = u(elem(e0 + k), m);
      });
#endif
      if (traces_only && !traces_need_geometry()) return;
      load_geometry(team, base, e0, nl);
      // Advection: the own modal face coefficients as well (trace holds them, the traces of u,
      // which saves their computation from U in pass 1) and the neighbours'.
      if constexpr (DIFF) return; // nodal neighbour traces, read where they are used (pass 3)
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
      // CPUs: one face at a time, its type, neighbour and orientation read once (one thread per
      // coefficient, as on GPUs, spent a quarter of the stage on index arithmetic).
      for (int k = 0; k < nl; ++k) {
        const int e = elem(e0 + k);
        double* F = base + k * ED + OF;
        side_list(e, base + k * ED + OSD);
        for (int f = 0; f < 6; ++f) {
          double* nbv = F + 6 * FS + f * FS;
          const int sides = static_cast<int>(base[k * ED + OSD + f]);
          if (sides & 1) {
            DG_UNROLL
            for (int ab = 0; ab < P2; ++ab)
              F[coefficient_slot(f, ab)] = trace(e, f, ab, 0);
          }
          if (!(sides & 2)) continue;
          const int o = orient(e, f), swap = o & 1, fa = (o >> 1) & 1, fb = (o >> 2) & 1;
          // The neighbour's coefficient (an, bn) = (a, b) or (b, a), its sign (-1)^(a ca + b cb).
          const int ca = swap ? fb : fa, cb = swap ? fa : fb, sa = swap ? P : 1, sb = swap ? 1 : P;
          int sv;
          const double* v = neighbour_face_data(e, f, sv);
          for (int b = 0; b < P; ++b) {
            DG_UNROLL
            for (int a = 0; a < P; ++a) {
              const double x = v[sv * (sa * a + sb * b)];
              nbv[a + FPP * b] = ((a & ca) ^ (b & cb)) ? -x : x;
            }
          }
        }
      }
#else
      if (async_loads) return issue_face_coefficients(team, base, bi);
      // GPUs: one thread per coefficient, both sides of every face (face_side_selection).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
        const int k = idx / (6 * P2), f = (idx / P2) % 6, ab = idx % P2, e = elem(e0 + k);
        double* F = base + k * ED + OF + coefficient_slot(f, ab);
        F[0] = trace(e, f, ab, 0);
        const int type = ftype(e, f);
        double v = 0.0;
        if (type == face_local || type == face_ghost) {
          const int o = orient(e, f), swap = o & 1, fa = (o >> 1) & 1, fb = (o >> 2) & 1;
          const int a = ab % P, b = ab / P;
          const int an = swap ? b : a, bn = swap ? a : b;
          const int flip = ((a & (swap ? fb : fa)) ^ (b & (swap ? fa : fb))) & 1;
          const int nb = nbr(e, f);
          v = type == face_local ? trace(nb, nbr_face(e, f), an + P * bn, 0)
                                 : ghost(nb, an + P * bn, 0);
          if (flip) v = -v;
        }
        F[6 * FS] = v;
      });
#endif
    }

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    /// Advection on GPUs, async_loads: the own and the neighbours' modal face coefficients of
    /// batch bi (NOD: the face values at the points) as asynchronous copies into FC/FN, one
    /// thread per coefficient. First each face's
    /// neighbour word (neighbour_word: its type, neighbour, face and orientation read together,
    /// one load latency) into A, free until pass 1, then a barrier: the copies of every
    /// coefficient go in flight at once instead of each waiting on the type, then the
    /// neighbour, then its coefficient (three dependent loads a coefficient). The copies run
    /// in the thread order flip_neighbours repeats.
    KOKKOS_INLINE_FUNCTION void issue_face_coefficients(const TeamMember& team, double* base,
                                                        int bi) const {
      const int e0 = bi * ne, nl = batch(bi);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6), [&](int idx) {
        const int k = idx / 6, f = idx % 6, e = elem(e0 + k);
        const int type = ftype(e, f), nb = nbr(e, f), nf = nbr_face(e, f), o = orient(e, f);
        long long w = 0;
        if (type == face_local || type == face_ghost) { // trace and ghost hold max(P^2, Q^2)
          const long long per_face =
              type == face_ghost ? static_cast<long long>(ghost.extent(1)) * ghost.extent(2)
                                 : static_cast<long long>(trace.extent(2)) * trace.extent(3);
          w = neighbour_word(type, nb, nf, o, per_face);
        }
        words(base, k)[f] = w;
      });
      team.team_barrier();
      const int n = nl * 6 * P2;
      for (int idx = team.team_rank(); idx < n; idx += team.team_size()) {
        const int k = idx / (6 * P2), f = (idx / P2) % 6, ab = idx % P2, e = elem(e0 + k);
        double* F = base + k * ED + OF + coefficient_slot(f, ab);
        copy_async<L0>(F, &trace(e, f, ab, 0));
        const long long w = words(base, k)[f];
        if (!((w >> word_present) & 1)) {
          F[6 * FS] = 0.0;
          continue;
        }
        const long long nc = (w >> word_ghost) & 1 ? ghost.extent(2) : trace.extent(3);
        // NOD: the neighbour's point (no signs: a reflection reverses the points' order).
        const int at = NOD ? neighbour_point(w, ab % P, ab / P, P)
                           : neighbour_coefficient(w, ab % P, ab / P, P);
        const double* src = word_source(w, trace.data(), ghost.data(), nullptr) + nc * at;
        copy_async<L0>(F + 6 * FS, src);
      }
    }

    /// ... once this thread's copies are complete: the signs of the neighbours' coefficients
    /// its copies brought (the same thread order).
    KOKKOS_INLINE_FUNCTION void flip_neighbours(const TeamMember& team, double* base,
                                                int bi) const {
      const int n = batch(bi) * 6 * P2;
      for (int idx = team.team_rank(); idx < n; idx += team.team_size()) {
        const int k = idx / (6 * P2), f = (idx / P2) % 6, ab = idx % P2;
        const long long w = words(base, k)[f];
        if (((w >> word_present) & 1) && neighbour_flip(w, ab % P, ab / P))
          base[k * ED + OF + 6 * FS + coefficient_slot(f, ab)] *= -1.0;
      }
    }

    /// The six neighbour words of element k of the batch (issue_face_coefficients), in A.
    KOKKOS_FORCEINLINE_FUNCTION static long long* words(double* base, int k) {
      return reinterpret_cast<long long*>(base + k * ED + OA);
    }
#endif

    /// Own modal face coefficients of pencil (i, j) of U in all six directions' pairs, against E
    /// (FC, face f at f P^2) and with diffusion against dE (at 6 P^2 + f P^2).
    KOKKOS_FORCEINLINE_FUNCTION static void face_coefficients(const double* U, int i, int j,
                                                              const Tables& tb, double* FC) {
      const int ij = i + P * j;
      face_pair<0>(U, i, j, tb.E, FC[ij], FC[P2 + ij]);
      face_pair<1>(U, i, j, tb.E, FC[2 * P2 + ij], FC[3 * P2 + ij]);
      face_pair<2>(U, i, j, tb.E, FC[4 * P2 + ij], FC[5 * P2 + ij]);
      if constexpr (DIFF) {
        double* FD = FC + 6 * P2;
        face_pair<0>(U, i, j, tb.dE, FD[ij], FD[P2 + ij]);
        face_pair<1>(U, i, j, tb.dE, FD[2 * P2 + ij], FD[3 * P2 + ij]);
        face_pair<2>(U, i, j, tb.dE, FD[4 * P2 + ij], FD[5 * P2 + ij]);
      }
    }

    /// Face coefficients (F) to face points along b (S), pencil (h, a) of P values each:
    /// advection h = side * 6 + f against B (own, then the neighbour's); diffusion h < 6 E_f
    /// against B, h < 12 E_f against D (the b-derivative), else dE_f against B. No barrier.
    KOKKOS_INLINE_FUNCTION void faces_along_b(const TeamMember& team, const Tables& tb,
                                              double* base, int nl) const {
      constexpr int NH = DIFF ? 18 : 12;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * NH * P), [&](int idx) {
        const int k = idx / (NH * P), a = idx % P;
        double* S = base + k * ED;
        int h = (idx / P) % NH;
        if constexpr (!DIFF && face_side_selection) { // only the sides taken (side_list)
          if (h >= static_cast<int>(S[OSD + 6])) return;
          h = static_cast<int>(S[OSD + 8 + h]);
        }
        const int src = DIFF && h >= 6 ? h - 6 : h;
        if (DIFF && h >= 6 && h < 12)
          to_points<1>(tb.D, S + OF + src * FS + a, FPP, S + OS + h * PP * Q + a, PP);
        else // FOLD: in place (to_points reads the column before it writes)
          to_points(tb.B, S + OF + src * FS + a, FPP, S + OS + h * PP * Q + a, PP);
      });
    }

    /// Diffusion, at point a of three pencils v, w1, w2 (P modes each): B v, D v (the derivative
    /// along the pencil), B w1, B w2.
    KOKKOS_FORCEINLINE_FUNCTION static void point_values(const Tables& tb, int a, const double v[P],
                                                         const double w1[P], const double w2[P],
                                                         double& s, double& sd, double& s1,
                                                         double& s2) {
      s = sd = s1 = s2 = 0.0;
      DG_UNROLL
      for (int i = 0; i < P; ++i) {
        s += tb.B[a * P + i] * v[i];
        sd += tb.D[a * P + i] * v[i];
        s1 += tb.B[a * P + i] * w1[i];
        s2 += tb.B[a * P + i] * w2[i];
      }
    }
    /// Diffusion, volume point (a, b, c) of the x-pencil v, w1, w2 (point_values): the flux
    /// w (C u - G grad_r u) along each reference direction (w = w_a wbc), with C, G from qvol
    /// (stored geometry) or the trilinear map (C = adj(J) a, G = nu adj(J) adj(J)^T / |J|).
    /// The map's columns along the pencil (pencil_line, map_lines) are in L.
    KOKKOS_FORCEINLINE_FUNCTION void volume_fluxes(int e, const double* G, const MapLine& L,
                                                   const Tables& tb, int a, int b, int c,
                                                   double wbc, const double v[P],
                                                   const double w1[P], const double w2[P],
                                                   double& f0, double& f1, double& f2) const {
      double s, sr, ss, st;
      point_values(tb, a, v, w1, w2, s, sr, ss, st);
      point_volume_fluxes(e, G, L, tb, a, b, c, wbc, s, sr, ss, st, f0, f1, f2);
    }
    /// ... from u (s) and grad_r u (sr, ss, st) at the point (G: the element's geometry in
    /// scratch, where STG the staged tables follow).
    KOKKOS_FORCEINLINE_FUNCTION void point_volume_fluxes(int e, const double* G, const MapLine& L,
                                                         const Tables& tb, int a, int b, int c,
                                                         double wbc, double s, double sr, double ss,
                                                         double st, double& f0, double& f1,
                                                         double& f2) const {
      double g[10];
      if (map_lines()) {
        double A[9], J[9];
        L.at(tb.x[a], J);
        const double sd = nu / adjugate_rows(J, J + 3, J + 6, A);
        for (int d = 0; d < 3; ++d)
          g[d] = A[3 * d] * vel[0] + A[3 * d + 1] * vel[1] + A[3 * d + 2] * vel[2];
        int m = 4;
        for (int d = 0; d < 3; ++d)
          for (int d2 = d; d2 < 3; ++d2)
            g[m++] = sd * adjugate_gram(A, d, d2);
      } else if constexpr (STG) {
        DG_UNROLL
        for (int m = 0; m < 10; ++m)
          g[m] = G[staged_volume(m, a, b, c) - OG];
      } else {
        DG_UNROLL
        for (int m = 0; m < 10; ++m)
          g[m] = qvol_at(qvol, e, m, a, b, c, Q, TO);
      }
      const double w = tb.w[a] * wbc;
      f0 = w * (g[0] * s - (g[4] * sr + g[5] * ss + g[6] * st));
      f1 = w * (g[1] * s - (g[5] * sr + g[7] * ss + g[8] * st));
      f2 = w * (g[2] * s - (g[6] * sr + g[8] * ss + g[9] * st));
    }
    /// Diffusion: row be of face f's E B, E D and dE B along b (S) into registers.
    KOKKOS_FORCEINLINE_FUNCTION static void face_row(const double* S, int f, int be, double v0[P],
                                                     double v1[P], double v2[P]) {
      const double* s0 = S + OS + f * PP * Q + PP * be;
      DG_UNROLL
      for (int a = 0; a < P; ++a) {
        v0[a] = s0[a];
        v1[a] = s0[6 * PP * Q + a];
        v2[a] = s0[12 * PP * Q + a];
      }
    }
    /// ... and from them this side's u and (J^-1 n) . grad_r u at face point (al, be) (g: its
    /// qface row).
    KOKKOS_FORCEINLINE_FUNCTION static void face_point(const double v0[P], const double v1[P],
                                                       const double v2[P], const double* g, int f,
                                                       int al, const Tables& tb, double& u,
                                                       double& gn) {
      double v, ga, gb, dn;
      point_values(tb, al, v0, v1, v2, v, ga, gb, dn);
      const int d = f / 2, ta = d == 0 ? 1 : 0, tbd = d == 2 ? 1 : 2;
      u = v;
      gn = contract_face(g + 2, d, ta, tbd, dn, ga, gb);
    }

    /// Diffusion, pass 3 on the faces: u and grad u . n on both sides, face_flux at each face
    /// point, the inner products along a into F: FR0 (B against the flux, D against the
    /// a-derivative term), FR3 (B against the b-derivative term), FR1 (B against the normal
    /// derivative term), each (a, be) of face f at f P Q (+ 6 P Q, + 12 P Q). Accumulated point
    /// by point (fewer live registers than the Q fluxes first). No barrier.
    /// C (the collocated passes, Q = P): the same at the points, w times the backward transform
    /// of those inner products: FR0 the flux plus DW along a of the a-derivative term, FR3 the
    /// b-derivative term (DW along b follows in pass 4), FR1 the normal derivative term.
    template <bool C>
    KOKKOS_INLINE_FUNCTION void face_fluxes(const TeamMember& team, const Tables& tb, double* base,
                                            int e0, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * Q), [&](int idx) {
        const int k = idx / (6 * Q), f = (idx / Q) % 6, be = idx % Q, e = elem(e0 + k);
        double* S = base + k * ED;
        double v0[P], v1[P], v2[P], r0[P], r3[P], r1[P];
        // NOD: the row's values, b-derivatives and normal derivatives at the points
        // (nodal_face_columns), read point by point before the fluxes take their places; the
        // a-derivatives from the values (DH), in registers where the point loop is unrolled,
        // else in A.
        const double* row = S + OS + f * PP * Q + PP * be;
        [[maybe_unused]] double ga[roll_points ? 1 : Q];
        [[maybe_unused]] double* gas = S + OA + 6 * Q2 + (f * Q + be) * Q;
        if constexpr (NOD) {
          double x[Q];
          DG_UNROLL
          for (int al = 0; al < Q; ++al)
            x[al] = row[al];
          dw_points<true>(ct, x, [&](int al, double s) {
            if constexpr (roll_points)
              gas[al] = s;
            else
              ga[al] = s;
          });
        } else {
          face_row(S, f, be, v0, v1, v2);
        }
        DG_UNROLL
        for (int a = 0; a < P; ++a)
          r0[a] = r3[a] = r1[a] = 0.0;
        const int type = ftype(e, f), nb = nbr(e, f), nf = nbr_face(e, f), o = orient(e, f);
        const double tau_f = eta * tau(e, f);
        const int d = f / 2, ta = d == 0 ? 1 : 0, tbd = d == 2 ? 1 : 2;
        const bool boundary = is_boundary_face(type);
        // C: the a-derivative terms of the row until DW takes them, in registers where the
        // point loop is unrolled, else in A (free in pass 3; 6 Q^2 <= 2 Q^3 doubles). The
        // addresses are formed where they are used (fewer live registers in the loop).
        double c2[Q];
        MapLine L;
        if (face_map()) face_line(S + OG, tb, f, be, L);
        for_points([&](int al) {
          const int pt = al + Q * be;
          double gm[6];
          const double* g = row_face(e, S + OG, L, tb, f, al, be, gm);
          double uin, gin;
          if constexpr (NOD) {
            double gal;
            if constexpr (roll_points)
              gal = gas[al];
            else
              gal = ga[al];
            uin = row[al];
            gin =
                contract_face(g + 2, d, ta, tbd, row[12 * PP * Q + al], gal, row[6 * PP * Q + al]);
          } else {
            face_point(v0, v1, v2, g, f, al, tb, uin, gin);
          }
          const double geo[7] = {0.0, 0.0, 0.0, g[1], g[2], g[3], g[4]};
          double uout = 0.0, gout = 0.0;
          int ip, jp;
          hex::map_index(o, Q, al, be, ip, jp);
          neighbour_trace(type, trace, ghost, nb, nf, ip + Q * jp, true, uout, gout);
          double out[4] = {0.0, 0.0, 0.0, 0.0};
          face_flux(type, g[0], g[5], geo, tb.w[al] * tb.w[be], tau_f * g[5], d, ta, tbd, uin, gin,
                    uout, gout, boundary ? bdata(nb, pt) : 0.0, out);
          if constexpr (C) {
            double* FR = S + OR + f * PP * Q + PP * be;
            FR[al] = out[0];
            FR[6 * PP * Q + al] = out[3];
            FR[12 * PP * Q + al] = out[1];
            if constexpr (roll_points)
              S[OA + (f * Q + be) * Q + al] = out[2];
            else
              c2[al] = out[2];
          } else {
            DG_UNROLL
            for (int a = 0; a < P; ++a) {
              r0[a] += tb.B[al * P + a] * out[0] + tb.D[al * P + a] * out[2];
              r3[a] += tb.B[al * P + a] * out[3];
              r1[a] += tb.B[al * P + a] * out[1];
            }
          }
        });
        double* FR = S + OR + f * PP * Q + PP * be;
        if constexpr (C) {
          double x[Q];
          DG_UNROLL
          for (int al = 0; al < Q; ++al)
            x[al] = roll_points ? S[OA + (f * Q + be) * Q + al] : c2[al];
          dw_points(ct, x, [&](int al, double s) { FR[al] += s; });
        } else {
          DG_UNROLL
          for (int a = 0; a < P; ++a) {
            FR[a] = r0[a];
            FR[6 * PP * Q + a] = r3[a];
            FR[12 * PP * Q + a] = r1[a];
          }
        }
      });
    }

    /// Pass 3 on the faces: the fluxes at each face point of every face row, into F (FR(a, be)
    /// of face f at f P Q); advection the upwind flux, against B along a (C, the collocated
    /// passes: at the points); diffusion face_fluxes. No barrier.
    template <bool C>
    KOKKOS_INLINE_FUNCTION void face_pass(const TeamMember& team, const Tables& tb, double* base,
                                          int e0, int nl) const {
      if constexpr (DIFF) {
        face_fluxes<C>(team, tb, base, e0, nl);
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * Q), [&](int idx) {
          const int k = idx / (6 * Q), f = (idx / Q) % 6, be = idx % Q, e = elem(e0 + k);
          double* S = base + k * ED;
          double phi[Q];
          upwind_fluxes(tb, S, e, f, be, phi);
          double* FR = S + OR + f * PP * Q + PP * be;
          if constexpr (C) {
            DG_UNROLL
            for (int al = 0; al < Q; ++al)
              FR[al] = phi[al];
          } else {
            sym_modes<0, Q, P>(tb.B, phi, [&](int a, double x) { FR[a] = x; });
          }
        });
      }
    }

    /// The traces of the team's states (U) into trace_out: advection the modal face
    /// coefficients (one pass); diffusion u and grad u . n at the Q^2 face points of each face
    /// (three passes: coefficients against E and dE, along b, along a).
    KOKKOS_INLINE_FUNCTION void emit(const TeamMember& team, const Tables& tb, double* base, int e0,
                                     int nl) const {
      if constexpr (NOD && DIFF) return emit_nodal_diffusion(team, tb, base, e0, nl);
      if constexpr (NOD) return emit_nodal(team, base, e0, nl);
      if constexpr (DIFF) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
          const int k = idx / P2, ij = idx % P2;
          double* S = base + k * ED;
          face_coefficients(S + OU, ij % P, ij / P, tb, S + OF);
        });
        team.team_barrier();
        faces_along_b(team, tb, base, nl);
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * Q), [&](int idx) {
          const int k = idx / (6 * Q), f = (idx / Q) % 6, be = idx % Q, e = elem(e0 + k);
          double v0[P], v1[P], v2[P];
          face_row(base + k * ED, f, be, v0, v1, v2);
          MapLine L;
          if (face_map()) face_line(base + k * ED + OG, tb, f, be, L);
          DG_UNROLL
          for (int al = 0; al < Q; ++al) {
            double uv, gn, gm[6];
            const double* g = row_face(e, base + k * ED + OG, L, tb, f, al, be, gm);
            face_point(v0, v1, v2, g, f, al, tb, uv, gn);
            trace_out(e, f, al + Q * be, 0) = uv;
            trace_out(e, f, al + Q * be, 1) = gn;
          }
        });
        return;
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, ab = idx % P2, a = ab % P, b = ab / P, e = elem(e0 + k);
        const double* U = base + k * ED + OU;
        double t0, t1;
        face_pair<0>(U, a, b, tb.E, t0, t1);
        trace_out(e, 0, ab, 0) = t0;
        trace_out(e, 1, ab, 0) = t1;
        face_pair<1>(U, a, b, tb.E, t0, t1);
        trace_out(e, 2, ab, 0) = t0;
        trace_out(e, 3, ab, 0) = t1;
        face_pair<2>(U, a, b, tb.E, t0, t1);
        trace_out(e, 4, ab, 0) = t0;
        trace_out(e, 5, ab, 0) = t1;
      });
    }

    /// The last pass: z-contraction of A (first half, or with D against the second half when
    /// VOLUME) into r(l); VOLUME adds the lifted face terms. Then the source, the inverse mass
    /// (affine: 1/|J|), the epilogue. tb as in operator(), ts the tables in team scratch.
    template <bool VOLUME, bool FINAL>
    KOKKOS_INLINE_FUNCTION void last_pass(const TeamMember& team, const Tables& tb,
                                          const Tables& ts, double* base, int e0, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, ij = idx % P2, i = ij % P, j = ij / P;
        double* S = base + k * ED;
        const double* Ka = S + OA + ij;
        const double* Kb = Ka + P2 * Q;
        double r[P];
        double ka[Q];
        DG_UNROLL
        for (int c = 0; c < Q; ++c)
          ka[c] = Ka[P2 * c];
        sym_modes<0, Q, P>(tb.B, ka, [&](int l, double x) { r[l] = x; });
        if (VOLUME) {
          DG_UNROLL
          for (int c = 0; c < Q; ++c)
            ka[c] = Kb[P2 * c];
          sym_modes<1, Q, P>(tb.D, ka, [&](int l, double x) { r[l] += x; });
        }
        if (VOLUME) {
          const double* FT = S + OT; // face inner products, (a, b) per face
          const double* E0 = tb.E;
          const double* E1 = tb.E + P;
          // Indexed by the thread's pencil: from team scratch.
          const double x0 = ts.E[i], x1 = ts.E[P + i], y0 = ts.E[j], y1 = ts.E[P + j];
          DG_UNROLL
          for (int l = 0; l < P; ++l)
            r[l] += x0 * FT[j + P * l] + x1 * FT[P2 + j + P * l] + y0 * FT[2 * P2 + i + P * l] +
                    y1 * FT[3 * P2 + i + P * l] + E0[l] * FT[4 * P2 + ij] + E1[l] * FT[5 * P2 + ij];
          if constexpr (DIFF) { // the same lifted with dE_s (the face inner products against dE)
            const double* FD = FT + 6 * P2;
            const double* dE0 = tb.dE;
            const double* dE1 = tb.dE + P;
            const double dx0 = ts.dE[i], dx1 = ts.dE[P + i], dy0 = ts.dE[j], dy1 = ts.dE[P + j];
            DG_UNROLL
            for (int l = 0; l < P; ++l)
              r[l] += dx0 * FD[j + P * l] + dx1 * FD[P2 + j + P * l] +
                      dy0 * FD[2 * P2 + i + P * l] + dy1 * FD[3 * P2 + i + P * l] +
                      dE0[l] * FD[4 * P2 + ij] + dE1[l] * FD[5 * P2 + ij];
          }
        }
        if (!FINAL) { // R for the weight-adjusted inverse mass
          DG_UNROLL
          for (int l = 0; l < P; ++l)
            S[OH + ij + P2 * l] = r[l];
          return;
        }
        update(S, elem(e0 + k), ij, P2, r, aff() ? S[OG + 3] : 1.0);
      });
    }

    /// The modes m0 + stride i (i < P) of element e: scale r plus the source through the
    /// epilogue; the new state also into U (S + OU) for the emitted traces.
    KOKKOS_FORCEINLINE_FUNCTION void update(double* S, int e, int m0, int stride, const double r[P],
                                            double scale) const {
      const bool src = source.extent(0) > 0;
      DG_UNROLL
      for (int i = 0; i < P; ++i) {
        const int m = m0 + stride * i;
        const double ri = r[i] * scale + (src ? source(e, m) : 0.0);
        S[OU + m] = ep.apply(u, reg, e, m, ri, u(e, m));
      }
    }

    KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
      double* scratch = static_cast<double*>(team.team_scratch(level).get_shmem(
          sizeof(double) * scratch_doubles<DIFF, COLL, NOD, STG>(ne)));
      if constexpr (L0) scratch = shared_space(scratch);
      // ts: the tables in team scratch; tb: B, D, E from the constant bank where that applies.
      const Tables ts = load_scratch_tables(team, scratch, tables, points);
      const Tables tb = constant_tables ? Tables{ct.B, ct.D, ct.E, ct.dE, ts.w, ts.x} : ts;
      double* base = scratch + STAB;
      const int bi = team.league_rank(), e0 = bi * ne, nl = batch(bi);
      load(team, base, bi);
      team.team_barrier();
      if (traces_only) {
        emit(team, tb, base, e0, nl);
        return;
      }
      if constexpr (NOD && DIFF) return nodal_diffusion_passes(team, tb, base, e0, nl);
      if constexpr (NOD) return nodal_passes(team, tb, base, e0, nl);

      // 1. z-backward T1(i, j, c) into A (diffusion: also against D, the second half, and the
      //    own face coefficients into FC).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, ij = idx % P2;
        double* S = base + k * ED;
        const double* U = S + OU;
        to_points(tb.B, U + ij, P2, S + OA + ij, P2);
        if constexpr (DIFF) {
          to_points<1>(tb.D, U + ij, P2, S + OA + P2 * Q + ij, P2);
          face_coefficients(U, ij % P, ij / P, tb, S + OF);
        }
      });
      team.team_barrier();

      // 2. y-backward T2(i, b, c) into BQ (diffusion: D T1 and B T1_D into H); face coefficients
      //    to points along b.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P * Q), [&](int idx) {
        const int k = idx / (P * Q), ic = idx % (P * Q), i = ic % P, c = ic / P;
        double* S = base + k * ED;
        const double* T1 = S + OA + i + P2 * c;
        to_points(tb.B, T1, P, S + OB + i + PP * Q * c, PP);
        if constexpr (DIFF) { // the s- and t-derivatives' inputs into H
          to_points<1>(tb.D, T1, P, S + OH + i + PP * Q * c, PP);
          to_points(tb.B, T1 + P2 * Q, P, S + OH + PP * Q2 + i + PP * Q * c, PP);
        }
      });
      faces_along_b(team, tb, base, nl);
      team.team_barrier();
      if constexpr (COLL) {
        collocated_passes(team, tb, base, e0, nl);
      } else {
        if constexpr (Q == P) {
          if (collocated) return collocated_passes(team, tb, base, e0, nl);
        }
        modal_passes(team, tb, ts, base, e0, nl);
      }
    }

    /// Passes 3 to 5 (and on non-affine elements 6 to 10, the weight-adjusted inverse mass),
    /// then the epilogue: the modal right-hand side, then M^-1.
    KOKKOS_INLINE_FUNCTION void modal_passes(const TeamMember& team, const Tables& tb,
                                             const Tables& ts, double* base, int e0, int nl) const {
      // 3. Volume: x-backward, w C u, x-inner products H_0 (D), H_1, H_2 (B); faces: values,
      //    the upwind flux, the inner product along a into FR (over FC/FN).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, bc = idx % Q2, b = bc % Q, c = bc / Q, e = elem(e0 + k);
        double* S = base + k * ED;
        const double* T2 = S + OB + PP * bc;
        double v[P];
        DG_UNROLL
        for (int i = 0; i < P; ++i)
          v[i] = T2[i];
        double* H0 = S + OB + PP * bc; // in place of this thread's own pencil of BQ
        double* H = S + OH + PP * bc;
        if constexpr (DIFF) {
          // w (C u - G grad_r u) with C, G from qvol (stored geometry), point by point into the
          // x-inner products (for_points).
          double vs[P], vt[P], h0[P], h1[P], h2[P];
          DG_UNROLL
          for (int i = 0; i < P; ++i) {
            vs[i] = H[i];
            vt[i] = H[PP * Q2 + i];
            h0[i] = h1[i] = h2[i] = 0.0;
          }
          const double wbc = tb.w[b] * tb.w[c];
          MapLine L;
          if (map_lines()) pencil_line(S + OG, tb, b, c, L);
          for_points([&](int a) {
            double f0, f1, f2;
            volume_fluxes(e, S + OG, L, tb, a, b, c, wbc, v, vs, vt, f0, f1, f2);
            DG_UNROLL
            for (int i = 0; i < P; ++i) {
              h0[i] += tb.D[a * P + i] * f0;
              h1[i] += tb.B[a * P + i] * f1;
              h2[i] += tb.B[a * P + i] * f2;
            }
          });
          DG_UNROLL
          for (int i = 0; i < P; ++i) {
            H0[i] = h0[i];
            H[i] = h1[i];
            H[PP * Q2 + i] = h2[i];
          }
        } else {
          double C0[Q], C1[Q], C2[Q];
          contravariant(e, S + OG, tb, b, c, C0, C1, C2);
          sym_points<0, P, Q>(tb.B, v, [&](int a, double s) {
            C0[a] *= s;
            C1[a] *= s;
            C2[a] *= s;
          });
          sym_modes<1, Q, P>(tb.D, C0, [&](int i, double h) { H0[i] = h; });
          sym_modes<0, Q, P>(tb.B, C1, [&](int i, double h) { H[i] = h; });
          sym_modes<0, Q, P>(tb.B, C2, [&](int i, double h) { H[PP * Q2 + i] = h; });
        }
      });
      face_pass<false>(team, tb, base, e0, nl);
      team.team_barrier();

      // 4. y-inner products Ka = B H_0 + D H_1, Kb = B H_2 (into A); face inner products
      //    along b: FT(a, b) (into S).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P * Q), [&](int idx) {
        const int k = idx / (P * Q), ic = idx % (P * Q), i = ic % P, c = ic / P;
        double* S = base + k * ED;
        const double* H0 = S + OB + i + PP * Q * c; // H_0(i, b, c) = H0[PP b]
        const double* H = S + OH + i + PP * Q * c;  // H_d(i, b, c) = H[(d - 1) PP Q^2 + PP b]
        double* K = S + OA + i + P2 * c;
        to_modes_bd(tb.B, tb.D, H0, H, H + PP * Q2, PP, K, K + P2 * Q, P);
      });
      if constexpr (DIFF) {
        // FT_E(a, j) = sum_be B(be, j) FR0 + D(be, j) FR3, FT_dE(a, j) = sum_be B(be, j) FR1.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P), [&](int idx) {
          const int k = idx / (6 * P), f = (idx / P) % 6, a = idx % P;
          double* S = base + k * ED;
          const double* r0 = S + OR + f * PP * Q + a;
          double* T = S + OT + f * P2 + a;
          to_modes_bd(tb.B, tb.D, r0, r0 + 6 * PP * Q, r0 + 12 * PP * Q, PP, T, T + 6 * P2, P);
        });
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P), [&](int idx) {
          const int k = idx / (6 * P), f = (idx / P) % 6, a = idx % P;
          double* S = base + k * ED;
          to_modes(tb.B, S + OR + f * PP * Q + a, PP, S + OT + f * P2 + a, P);
        });
      }
      team.team_barrier();

      // 5. z-inner products and the lifted face terms; affine: 1/|J| and the update.
      if (aff()) {
        last_pass<true, true>(team, tb, ts, base, e0, nl);
      } else {
        last_pass<true, false>(team, tb, ts, base, e0, nl);
        team.team_barrier();
        inverse_mass(team, tb, ts, base, e0, nl);
      }
      if (ep.mode == Epilogue::lsrk && ep.emit_traces) {
        team.team_barrier();
        emit(team, tb, base, e0, nl);
      }
    }

    /// Q = P on non-affine elements (KernelVariant::qpencil_collocated): with as many points as
    /// modes B is square and B B^T = W^-1, so the weight-adjusted inverse mass's backward
    /// transform of the modal right-hand side cancels the inner products before it. At the
    /// points, w times that backward transform is the weighted nodal derivative DW of each flux
    /// F_d along its direction plus each face's fluxes lifted along the normal (EW; with
    /// diffusion also the normal-derivative terms with dEW, and DW along the face of its
    /// tangential-derivative terms); times 1/|J|, one inner product per direction gives M^-1 R.
    /// After passes 1, 2:
    ///   3  x-backward, F_d at each point (w C_d u; with diffusion w (C_d u - (G grad_r u)_d)),
    ///      DW F_0 along x (into BQ, in place), F_1, F_2 (into H); the face fluxes at the face
    ///      points (into F; diffusion: face_fluxes, DW along a);
    ///   4  + DW F_1 along y (diffusion: DW along b of the faces' b-derivative terms);
    ///   5  + DW F_2 along z, the six faces' lifts, times 1/|J|, z-inner products (into A);
    ///   6  y-inner products (into H);
    ///   7  x-inner products, the source and the epilogue.
    /// Seven passes instead of ten, 0.62 times the flops at p = 5 (advection); the same answer
    /// to round-off.
    KOKKOS_INLINE_FUNCTION void collocated_passes(const TeamMember& team, const Tables& tb,
                                                  double* base, int e0, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, bc = idx % Q2, b = bc % Q, c = bc / Q, e = elem(e0 + k);
        double* S = base + k * ED;
        double* N = S + OB + PP * bc; // this thread's own pencil of BQ
        double* H = S + OH + PP * bc;
        double v[P];
        DG_UNROLL
        for (int i = 0; i < P; ++i)
          v[i] = N[i];
        if constexpr (DIFF) {
          // F_0 into N (its values are in v), F_1, F_2 into H (in place of the derivatives'
          // inputs, read first); then DW F_0 along the pencil.
          double vs[P], vt[P];
          DG_UNROLL
          for (int i = 0; i < P; ++i) {
            vs[i] = H[i];
            vt[i] = H[PP * Q2 + i];
          }
          const double wbc = tb.w[b] * tb.w[c];
          MapLine L;
          if (map_lines()) pencil_line(S + OG, tb, b, c, L);
          for_points([&](int a) {
            double f0, f1, f2;
            volume_fluxes(e, S + OG, L, tb, a, b, c, wbc, v, vs, vt, f0, f1, f2);
            N[a] = f0;
            H[a] = f1;
            H[PP * Q2 + a] = f2;
          });
          double x[Q];
          DG_UNROLL
          for (int a = 0; a < Q; ++a)
            x[a] = N[a];
          dw_points(ct, x, [&](int a, double s) { N[a] = s; });
        } else {
          double C0[Q], C1[Q], C2[Q];
          contravariant(e, S + OG, tb, b, c, C0, C1, C2);
          sym_points<0, P, Q>(tb.B, v, [&](int a, double s) {
            C0[a] *= s;
            H[a] = C1[a] * s;
            H[PP * Q2 + a] = C2[a] * s;
          });
          dw_points(ct, C0, [&](int a, double s) { N[a] = s; });
        }
      });
      face_pass<true>(team, tb, base, e0, nl);
      team.team_barrier();
      // 4. N(a, b, c) += sum_b' DW(b, b') F_1(a, b', c), one y-pencil per thread.
      dw_y_pass(team, base, nl);
      if constexpr (DIFF) dw_face_b_pass(team, base, nl);
      team.team_barrier();
      // 5. The z-derivative and the face lifts, 1/|J|, z-inner products K(a, b, l).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, ab = idx % Q2, a = ab % Q, b = ab / Q;
        double* S = base + k * ED;
        double g[Q];
        lifted_z_pencil(S, elem(e0 + k), tb, a, b, g);
        to_modes(tb.B, g, 1, S + OA + a + Q * b, Q2);
      });
      team.team_barrier();
      // 6. y-inner products K2(a, j, l).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q * P), [&](int idx) {
        const int k = idx / (Q * P), al = idx % (Q * P), a = al % Q, l = al / Q;
        double* S = base + k * ED;
        to_modes(tb.B, S + OA + a + Q2 * l, Q, S + OH + a + PP * P * l, PP);
      });
      team.team_barrier();
      // 7. x-inner products, the source, the epilogue.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, jl = idx % P2, e = elem(e0 + k);
        double* S = base + k * ED;
        double r[P];
        to_modes(tb.B, S + OH + PP * jl, 1, r, 1);
        update(S, e, P * jl, 1, r, 1.0);
      });
      if (ep.mode == Epilogue::lsrk && ep.emit_traces) {
        team.team_barrier();
        emit(team, tb, base, e0, nl);
      }
    }

    /// Diffusion, pass 4 of the collocated passes on the faces: FR0(al, be) += sum_be'
    /// DW(be, be') FR3(al, be'), the b-derivative terms along b, one column each. No barrier.
    KOKKOS_INLINE_FUNCTION void dw_face_b_pass(const TeamMember& team, double* base, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * Q), [&](int idx) {
        const int k = idx / (6 * Q), f = (idx / Q) % 6, al = idx % Q;
        double* FR = base + k * ED + OR + f * PP * Q + al;
        double x[Q];
        DG_UNROLL
        for (int be = 0; be < Q; ++be)
          x[be] = FR[6 * PP * Q + PP * be];
        dw_points(ct, x, [&](int be, double s) { FR[PP * be] += s; });
      });
    }

    /// The last sum of the collocated passes along z-pencil (a, b) of element e (S its scratch):
    /// DW F_2 along z plus N (the x- and y-terms) plus the six faces' fluxes lifted with EW
    /// (with diffusion the normal-derivative terms as well, with dEW), times 1/|J|: w times the
    /// backward transform of M^-1 R at the pencil's points, into g.
    KOKKOS_FORCEINLINE_FUNCTION void lifted_z_pencil(const double* S, int e, const Tables& tb,
                                                     int a, int b, double g[Q]) const {
      const double* EW = ct.EW;
      // F_2(a, b, c) = F2[sc c]
      const double* F2 = S + flux_slot(2, a, b, 0);
      constexpr int sc = flux_slot(2, 0, 0, 1) - flux_slot(2, 0, 0, 0);
      const double* N = S + OB + a + PP * b;
      const double* FR = S + OR; // face f's flux at (al, be): FR[f PP Q + PP be + al]
      double x[Q];
      DG_UNROLL
      for (int c = 0; c < Q; ++c)
        x[c] = F2[sc * c];
      const double ex0 = EW[a], ex1 = EW[Q + a], ey0 = EW[b], ey1 = EW[Q + b];
      const double fz0 = FR[4 * PP * Q + PP * b + a], fz1 = FR[5 * PP * Q + PP * b + a];
      double inv[Q];
      dw_points(ct, x, [&](int c, double s) { g[c] = s; });
      inverse_jacobians<2>(e, S + OG, tb, a, b, inv);
      DG_UNROLL
      for (int c = 0; c < Q; ++c) {
        double n = g[c] + N[PP * Q * c] + EW[c] * fz0 + EW[Q + c] * fz1 + ex0 * FR[PP * c + b] +
                   ex1 * FR[PP * Q + PP * c + b] + ey0 * FR[2 * PP * Q + PP * c + a] +
                   ey1 * FR[3 * PP * Q + PP * c + a];
        if constexpr (DIFF) { // the normal-derivative terms (FR1) lifted with dEW
          const double* dEW = ct.dEW;
          const double* FD = FR + 12 * PP * Q;
          n += dEW[c] * FD[4 * PP * Q + PP * b + a] + dEW[Q + c] * FD[5 * PP * Q + PP * b + a] +
               dEW[a] * FD[PP * c + b] + dEW[Q + a] * FD[PP * Q + PP * c + b] +
               dEW[b] * FD[2 * PP * Q + PP * c + a] + dEW[Q + b] * FD[3 * PP * Q + PP * c + a];
        }
        g[c] = n * inv[c];
      }
    }

    /// Pass 4 of the collocated passes: N(a, b, c) += sum_b' DW(b, b') F_1(a, b', c), one
    /// y-pencil per thread. No barrier.
    KOKKOS_INLINE_FUNCTION void dw_y_pass(const TeamMember& team, double* base, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, ac = idx % Q2, a = ac % Q, c = ac / Q;
        double* S = base + k * ED;
        // F_1(a, b, c) = F1[sb b], N(a, b, c) = N[PP b].
        const double* F1 = S + flux_slot(1, a, 0, c);
        constexpr int sb = flux_slot(1, 0, 1, 0) - flux_slot(1, 0, 0, 0);
        double* N = S + OB + a + PP * Q * c;
        double x[Q];
        DG_UNROLL
        for (int b = 0; b < Q; ++b)
          x[b] = F1[sb * b];
        dw_points(ct, x, [&](int b, double s) { N[PP * b] += s; });
      });
    }

    /// NOD, the state at the Q^3 = P^3 Gauss points (ElementBlock::nodal): the collocated
    /// passes without the backward transform of the state before them (passes 1, 2 and the
    /// x-backward of pass 3) and the inner products after them (the z-inner products of pass 5,
    /// passes 6 and 7), which map the modal state to its values at the points and back (B is
    /// square and B^T W B = I): the same scheme to round-off, and the RK update at the points.
    /// Traces are the values at the face points (nodal, as with diffusion). After the loads:
    ///   A  per x-pencil: F_d = w C_d u at the points, DW F_0 along x into BQ in place, F_1, F_2
    ///      into H; per face row the upwind fluxes at the points over the own values (F);
    ///   B  per y-pencil: + DW F_1 along y;
    ///   C  per z-pencil: + DW F_2 along z and the six faces' lifts (EW), times 1 / (w |J|): the
    ///      right-hand side at the points; the epilogue; the new state into BQ (nodal_update);
    ///   D  with emitted traces: the new state at the face points (emit_nodal).
    KOKKOS_INLINE_FUNCTION void nodal_passes(const TeamMember& team, const Tables& tb, double* base,
                                             int e0, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, bc = idx % Q2, b = bc % Q, c = bc / Q, e = elem(e0 + k);
        double* S = base + k * ED;
        double* N = S + OB + PP * bc; // this thread's x-pencil of the state
        // F_1, F_2 into H, or (HF) over the staged components this thread alone has read.
        double* H1 = S + flux_slot(1, 0, b, c);
        double* H2 = S + flux_slot(2, 0, b, c);
        constexpr int sa = flux_slot(1, 1, 0, 0) - flux_slot(1, 0, 0, 0);
        double C0[Q], C1[Q], C2[Q];
        contravariant(e, S + OG, tb, b, c, C0, C1, C2);
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          const double v = N[a];
          C0[a] *= v;
          H1[sa * a] = C1[a] * v;
          H2[sa * a] = C2[a] * v;
        }
        dw_points(ct, C0, [&](int a, double s) { N[a] = s; });
      });
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * Q), [&](int idx) {
        const int k = idx / (6 * Q), f = (idx / Q) % 6, be = idx % Q, e = elem(e0 + k);
        double* S = base + k * ED;
        double* FR = S + OR + f * PP * Q + PP * be; // the row's own values, then its fluxes
        double ui[Q], uo[Q], phi[Q];
        DG_UNROLL
        for (int al = 0; al < Q; ++al) {
          ui[al] = FR[al];
          uo[al] = FR[6 * FS + al];
        }
        point_fluxes(tb, S, e, f, be, ui, uo, phi);
        DG_UNROLL
        for (int al = 0; al < Q; ++al)
          FR[al] = phi[al];
      });
      team.team_barrier();
      dw_y_pass(team, base, nl);
      team.team_barrier();
      nodal_update(team, tb, base, e0, nl);
    }

    /// NOD, the last pass: per z-pencil the last sum (lifted_z_pencil) times 1 / w, the
    /// right-hand side at the points; the epilogue; the new state into BQ. Then with emitted
    /// traces those of the new state (emit).
    KOKKOS_INLINE_FUNCTION void nodal_update(const TeamMember& team, const Tables& tb, double* base,
                                             int e0, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, ab = idx % Q2, a = ab % Q, b = ab / Q, e = elem(e0 + k);
        double* S = base + k * ED;
        double* N = S + OB + a + PP * b;
        double g[Q];
        lifted_z_pencil(S, e, tb, a, b, g);
        const double wab = 1.0 / (tb.w[a] * tb.w[b]);
        DG_UNROLL
        for (int c = 0; c < Q; ++c) {
          const int m = a + Q * (b + Q * c);
          N[PP * Q * c] = ep.apply(u, reg, e, m, g[c] * (wab / tb.w[c]), u(e, m));
        }
      });
      if (ep.mode == Epilogue::lsrk && ep.emit_traces) {
        team.team_barrier();
        emit(team, tb, base, e0, nl);
      }
    }

    /// NOD with diffusion: the collocated passes with diffusion on the values at the points.
    /// The reference gradient at each point is DH (the nodal derivative) along each direction
    /// of the values, the face values and normal derivatives EW and dEW along the normal, the
    /// faces' b-derivatives DH along b (nodal_face_columns) and a-derivatives DH along a (in the
    /// face pass): the modal form's B, D, E and dE of the modes U = B^T W u. After the loads:
    ///   A  per y- and z-pencil: the y- and z-derivatives into H; the face columns into S;
    ///   B  per x-pencil: the x-derivative, the fluxes F_d = w (C_d u - (G grad_r u)_d), DW F_0
    ///      along x into BQ in place, F_1, F_2 into H in place; per face row face_fluxes at the
    ///      points, DW along a of the a-derivative terms;
    ///   C  + DW F_1 along y; DW along b of the faces' b-derivative terms (dw_face_b_pass);
    ///   D  nodal_update; with emitted traces u and grad u . n at the face points
    ///      (emit_nodal_diffusion).
    /// Six sets of 1-D contractions in the volume (the modal form's collocated passes: fifteen).
    KOKKOS_INLINE_FUNCTION void nodal_diffusion_passes(const TeamMember& team, const Tables& tb,
                                                       double* base, int e0, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 2 * Q2), [&](int idx) {
        const int k = idx / (2 * Q2), z = (idx / Q2) % 2, ij = idx % Q2, i = ij % Q, j = ij / Q;
        // z = 0: the y-pencil (a, c) = (i, j); z = 1: the z-pencil (a, b) = (i, j).
        const int o = z == 0 ? i + PP * Q * j : i + PP * j, st = z == 0 ? PP : PP * Q;
        const double* N = base + k * ED + OB + o;
        double* H = base + k * ED + OH + z * PP * Q2 + o;
        double x[Q];
        DG_UNROLL
        for (int c = 0; c < Q; ++c)
          x[c] = N[st * c];
        dw_points<true>(ct, x, [&](int c, double s) { H[st * c] = s; });
      });
      nodal_face_columns(team, base, nl);
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, bc = idx % Q2, b = bc % Q, c = bc / Q, e = elem(e0 + k);
        double* S = base + k * ED;
        double* N = S + OB + PP * bc; // this thread's x-pencil of the state
        double* H = S + OH + PP * bc; // its y- and z-derivatives, then F_1 and F_2
        double v[Q], dr[Q], x[Q];
        DG_UNROLL
        for (int a = 0; a < Q; ++a)
          v[a] = N[a];
        dw_points<true>(ct, v, [&](int a, double s) { dr[a] = s; });
        const double wbc = tb.w[b] * tb.w[c];
        MapLine L;
        if (map_lines()) pencil_line(S + OG, tb, b, c, L);
        DG_UNROLL
        for (int a = 0; a < Q; ++a) {
          double f1, f2;
          point_volume_fluxes(e, S + OG, L, tb, a, b, c, wbc, v[a], dr[a], H[a], H[PP * Q2 + a],
                              x[a], f1, f2);
          H[a] = f1;
          H[PP * Q2 + a] = f2;
        }
        dw_points(ct, x, [&](int a, double s) { N[a] = s; });
      });
      face_fluxes<true>(team, tb, base, e0, nl);
      team.team_barrier();
      dw_y_pass(team, base, nl);
      dw_face_b_pass(team, base, nl);
      team.team_barrier();
      nodal_update(team, tb, base, e0, nl);
    }

    /// NOD with diffusion: per face point (al, be) of face f the value (EW along the normal),
    /// the normal derivative (dEW) and the b-derivative (DH along b of the values) of the state
    /// in BQ into S where face_row reads the modal form's (S + OS + f PP Q + PP be + al, + 6 PP
    /// Q, + 12 PP Q); one thread per direction d and point al of the face rows, faces 2 d and
    /// 2 d + 1 from the same lines along the normal. No barrier.
    KOKKOS_INLINE_FUNCTION void nodal_face_columns(const TeamMember& team, double* base,
                                                   int nl) const {
      const double* EW = ct.EW;
      const double* dEW = ct.dEW;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 3 * Q), [&](int idx) {
        const int k = idx / (3 * Q), d = (idx / Q) % 3, al = idx % Q;
        double* V = base + k * ED + OS + 2 * d * PP * Q + al; // face 2 d's values, + PP Q: 2 d + 1
        const double* N = base + k * ED + OB;
        // Face point (al, be) of faces 2 d, 2 d + 1: (y, z) = (al, be) for d = 0, (x, z) for 1,
        // (x, y) for 2.
        const int st = d == 0 ? 1 : (d == 1 ? PP : PP * Q);
        double u0[Q], u1[Q];
        DG_UNROLL
        for (int be = 0; be < Q; ++be) {
          const double* line =
              N + (d == 0 ? PP * (al + Q * be) : (d == 1 ? al + PP * Q * be : al + PP * be));
          double t0 = 0.0, t1 = 0.0, n0 = 0.0, n1 = 0.0;
          DG_UNROLL
          for (int c = 0; c < Q; ++c) {
            const double x = line[st * c];
            t0 += EW[c] * x;
            t1 += EW[Q + c] * x;
            n0 += dEW[c] * x;
            n1 += dEW[Q + c] * x;
          }
          u0[be] = t0;
          u1[be] = t1;
          V[PP * be] = t0;
          V[PP * Q + PP * be] = t1;
          V[12 * PP * Q + PP * be] = n0;
          V[13 * PP * Q + PP * be] = n1;
        }
        dw_points<true>(ct, u0, [&](int be, double s) { V[6 * PP * Q + PP * be] = s; });
        dw_points<true>(ct, u1, [&](int be, double s) { V[7 * PP * Q + PP * be] = s; });
      });
    }

    /// NOD with diffusion: u and grad u . n = (J^-1 n) . grad_r u at the Q^2 points of each
    /// face of the state in BQ into trace_out, the modal form's trace format.
    KOKKOS_INLINE_FUNCTION void emit_nodal_diffusion(const TeamMember& team, const Tables& tb,
                                                     double* base, int e0, int nl) const {
      nodal_face_columns(team, base, nl);
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * Q), [&](int idx) {
        const int k = idx / (6 * Q), f = (idx / Q) % 6, be = idx % Q, e = elem(e0 + k);
        const double* S = base + k * ED;
        const double* row = S + OS + f * PP * Q + PP * be;
        const int d = f / 2, ta = d == 0 ? 1 : 0, tbd = d == 2 ? 1 : 2;
        double x[Q], ga[Q];
        DG_UNROLL
        for (int al = 0; al < Q; ++al)
          x[al] = row[al];
        dw_points<true>(ct, x, [&](int al, double s) { ga[al] = s; });
        MapLine L;
        if (face_map()) face_line(S + OG, tb, f, be, L);
        DG_UNROLL
        for (int al = 0; al < Q; ++al) {
          double gm[6];
          const double* g = row_face(e, S + OG, L, tb, f, al, be, gm);
          trace_out(e, f, al + Q * be, 0) = x[al];
          trace_out(e, f, al + Q * be, 1) =
              contract_face(g + 2, d, ta, tbd, row[12 * PP * Q + al], ga[al], row[6 * PP * Q + al]);
        }
      });
    }

    /// NOD: the values of the state in BQ at the face points into trace_out, EW (the Lagrange
    /// basis of the points at -1 and 1) against each pencil: x-pencils give faces 0 and 1 at
    /// point (b, c), y-pencils faces 2 and 3 at (a, c), z-pencils faces 4 and 5 at (a, b).
    KOKKOS_INLINE_FUNCTION void emit_nodal(const TeamMember& team, double* base, int e0,
                                           int nl) const {
      const double* EW = ct.EW;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 3 * Q2), [&](int idx) {
        const int k = idx / (3 * Q2), d = (idx / Q2) % 3, ij = idx % Q2, i = ij % Q, j = ij / Q;
        const int e = elem(e0 + k);
        const double* N =
            base + k * ED + OB + (d == 0 ? PP * ij : (d == 1 ? i + PP * Q * j : i + PP * j));
        const int st = d == 0 ? 1 : (d == 1 ? PP : PP * Q);
        double t0 = 0.0, t1 = 0.0;
        DG_UNROLL
        for (int c = 0; c < Q; ++c) {
          const double v = N[st * c];
          t0 += EW[c] * v;
          t1 += EW[Q + c] * v;
        }
        trace_out(e, 2 * d, ij, 0) = t0;
        trace_out(e, 2 * d + 1, ij, 0) = t1;
      });
    }

    /// 6-10: the weight-adjusted inverse mass of R (in H): backward along z, y, x; w / |J|;
    /// inner along x, y, z; then the epilogue.
    KOKKOS_INLINE_FUNCTION void inverse_mass(const TeamMember& team, const Tables& tb,
                                             const Tables& ts, double* base, int e0, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, ij = idx % P2;
        double* S = base + k * ED;
        to_points(tb.B, S + OH + ij, P2, S + OA + ij, P2);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P * Q), [&](int idx) {
        const int k = idx / (P * Q), ic = idx % (P * Q), i = ic % P, c = ic / P;
        double* S = base + k * ED;
        to_points(tb.B, S + OA + i + P2 * c, P, S + OB + i + PP * Q * c, PP);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * Q2), [&](int idx) {
        const int k = idx / Q2, bc = idx % Q2, b = bc % Q, c = bc / Q, e = elem(e0 + k);
        double* S = base + k * ED;
        double v[P], g[Q], inv[Q];
        DG_UNROLL
        for (int i = 0; i < P; ++i)
          v[i] = S[OB + PP * bc + i];
        inverse_jacobians<0>(e, S + OG, tb, b, c, inv);
        const double wbc = tb.w[b] * tb.w[c];
        sym_points<0, P, Q>(tb.B, v, [&](int a, double x) { g[a] = x * (tb.w[a] * wbc) * inv[a]; });
        sym_modes<0, Q, P>(tb.B, g, [&](int i, double x) { S[OH + PP * bc + i] = x; });
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P * Q), [&](int idx) {
        const int k = idx / (P * Q), ic = idx % (P * Q), i = ic % P, c = ic / P;
        double* S = base + k * ED;
        to_modes(tb.B, S + OH + i + PP * Q * c, PP, S + OA + i + P2 * c, P);
      });
      team.team_barrier();
      last_pass<false, true>(team, tb, ts, base, e0, nl);
    }
  };

  /// Elements per team: KernelVariant::qpencil_elems, by default on GPUs 2 up to p = 4 (and with
  /// the trilinear_pencil geometry at p = 5), else 1; with diffusion at q = p + 1 2 at p = 5
  /// (with the face tables at p = 3..5), else 1; the collocated passes' own advection kernel along
  /// each pencil's map 8 at p = 3 (the rotation 4), 5 at p = 4 and 3 at p = 5; as many as fit in
  /// level-0 scratch. One on CPUs.
  template <bool DIFF, bool COLL, int MAP, bool NOD = false>
  static int elems_per_team(const KernelVariant& v, PencilGeometry g) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // Measured on the H100 (dgbench stage --qpencil-elems 1,2,4): 2 up to p = 4, else 1; with
    // trilinear_pencil (--qpencil-elems 1,2 --qpencil-bounds 0,4,5) 2 at p = 5, q = p + 2 as well
    // (1.04x with min_blocks_map). Diffusion at q = p + 1 (--physics advdiff --q-offset 1
    // --qpencil-elems 1,2 --qpencil-bounds 0): 1 at p = 3, 4 (1.21x, 1.03x over 2), 2 at p = 5
    // (1.03x over 1), equal at p = 6, 7.
    // The collocated passes' own advection kernel with F and S folded (Layout) along each
    // pencil's map, on the H200 (dgbench stage --mesh warped --q-offset 1 --qpencil-elems
    // 2,3,4,5,6,8 --qpencil-bounds -1,0,4,5,6): as many as fill the team's warps, 8 at p = 3
    // (1.04x over 2; the rotation 4, 1.04x), 5 at p = 4 (1.06x over 2; the rotation 1.04x), 3 at
    // p = 5 (1.06x over 2; the rotation 1.05x). The nodal diffusion kernel with the map at each
    // point (MAP = 3, H200: --physics advdiff --q-offset 1 --variants qpencil-trilinear
    // --qpencil-elems 1,2 --qpencil-bounds 0,4,5) 2 at p = 5 and 6 (1.22x, 1.07x over 1), 1 at
    // p = 7 (2: within 0.4%); with the face directions by selects (H100: --variants
    // qpencil-face-map --qpencil-elems 0,1,2,3 --qpencil-bounds -1,0,4,5) 2 at p = 3 too (1.28x
    // over 1 with min_blocks_diffusion's 4 teams per SM). The map with the face tables (MAP = 5;
    // H100: --variants qpencil-face-tables --qpencil-elems 1,2,3): 2 at p = 3 and 4 (1.04x and
    // 1.03x over 1) and p = 5 (within 0.3%), 1 at p = 6 (1.045x over 2) and 7 (within 0.3%).
    const bool two = DIFF && Q == P
                         ? (MAP == 5 ? P <= 6 : P == 6 || (MAP == 3 && (P == 4 || P == 7)))
                         : Q2 <= 36 || (g == PencilGeometry::trilinear_pencil && P == 6);
    const int fold_pencil = P == 4 ? (MAP == 1 ? 8 : 4) : (P == 5 ? 5 : (P == 6 ? 3 : 0));
    // The nodal state (NOD), on the H200 (the same sweep with --qpencil-elems 0,1,2,3,4,5,6,8
    // --qpencil-bounds -1,0,4,5,6, docs/performance.md#nodal): with a constant velocity 2 at
    // p = 3 (1.02x over 8), else as above; the rotation 8 at p = 3 (1.03x over 4), 3 at p = 6
    // (1.02x over 1), 2 at p = 7 (1.02x over 1); on the H100 with min_blocks_nodal_rotation's 6
    // teams per SM 1 at p = 6 (1.02x over 2; 3 do not fit 6 teams per SM).
    const int nodal_pencil = MAP == 1 ? (P == 4 ? 2 : fold_pencil)
                                      : (P == 4 ? 8 : (P == 7 ? 1 : (P == 8 ? 2 : fold_pencil)));
    const int pencil = NOD ? nodal_pencil : fold_pencil;
    // The nodal advection kernel with C staged (MAP = 4; --mesh curved --q-offset 1 --variants
    // qpencil-staged-tables --qpencil-elems 0,1,2,4 --qpencil-bounds -1,0,5,6,8 on the H200): 2
    // elements per team at p = 3 (1.09x over 1) and p = 5 (1.02x over 1), else one (p = 4: 1.03x
    // over 2; p = 6: 1.07x over 2).
    const int by_order = MAP == 4 && !DIFF ? (P == 4 || P == 6 ? 2 : 1)
                         : COLL && !DIFF && g == PencilGeometry::trilinear_pencil && pencil > 0
                             ? pencil
                             : (two ? 2 : 1);
    int ne = v.qpencil_elems > 0 ? v.qpencil_elems : by_order;
    while (level0<DIFF, COLL, NOD, MAP == 4> && ne > 1 &&
           scratch_bytes<DIFF, COLL, NOD, MAP == 4>(ne) > level0_max_bytes)
      --ne;
    return ne;
#else
    (void)g;
    return v.qpencil_elems > 0 ? v.qpencil_elems : 1;
#endif
  }

  /// One launch: the stage (traces_only = false, emitted traces into `out` = a.trace_out) or
  /// the traces of block.u into `out`.
  static void launch(const StageArgs& a, bool traces_only, const View4& out) {
    if (a.pde.diffusion.nu == 0.0) return launch_as<false>(a, traces_only, out);
    launch_as<true>(a, traces_only, out);
  }

  /// The kernel: the collocated passes (Q = P, non-affine; in a kernel of their own, or chosen
  /// at run time in the modal form's kernel) or the modal form.
  template <bool DIFF>
  static void launch_as(const StageArgs& a, bool traces_only, const View4& out) {
    if constexpr (Q == P) {
      if (!a.block->affine && a.variant.qpencil_collocated) {
        const int own = a.variant.qpencil_collocated_kernel;
        if (a.block->nodal || own > 0 || (own < 0 && collocated_own_kernel(DIFF)))
          return launch_geometry<DIFF, true>(a, traces_only, out);
      }
    }
    DG_VERIFY(!a.block->nodal, "quadrature pencil path: a nodal state takes the collocated "
                               "passes' nodal kernel (q = p + 1, non-affine elements)");
    launch_geometry<DIFF, false>(a, traces_only, out);
  }

  /// ... for advection with the map along each pencil and a constant velocity on non-affine
  /// elements its own kernel (Stage's MAP), else the kernel of every geometry.
  /// With a nodal state (ElementBlock::nodal) the collocated passes' own kernel in its nodal
  /// form (Stage's NOD; advection and advection-diffusion), for advection with the rotation
  /// along each pencil's map a kernel of its own too (MAP = 2).
  template <bool DIFF, bool COLL>
  static void launch_geometry(const StageArgs& a, bool traces_only, const View4& out) {
    const bool nodal = a.block->nodal;
    DG_VERIFY(!nodal || COLL, "quadrature pencil path: a nodal state takes the collocated "
                              "passes' nodal kernel");
    if constexpr (!DIFF) {
      const bool map = a.variant.qpencil_map_kernel && !a.block->affine &&
                       a.qgeometry == PencilGeometry::trilinear_pencil &&
                       a.pde.advection.kind == physics::Advection::constant;
      if constexpr (COLL) {
        // The rotation along each pencil's map in a kernel of its own as well (MAP = 2).
        const bool rotation_map = a.variant.qpencil_map_kernel && !a.block->affine &&
                                  a.qgeometry == PencilGeometry::trilinear_pencil &&
                                  a.pde.advection.kind == physics::Advection::rotation;
        if (nodal && map) return launch_stage<DIFF, COLL, 1, true>(a, traces_only, out);
        if (nodal && rotation_map) return launch_stage<DIFF, COLL, 2, true>(a, traces_only, out);
        if (nodal) return launch_nodal<DIFF, COLL>(a, traces_only, out);
      }
      if (map) return launch_stage<DIFF, COLL, 1>(a, traces_only, out);
    } else if constexpr (COLL) {
      // The map with the face tables where the operator gives them (MAP = 5); GPUs: the map
      // at each point with diffusion in a kernel of its own (MAP = 3).
      if (nodal && a.qgeometry == PencilGeometry::trilinear && a.qface.extent(0) > 0)
        return launch_stage<DIFF, COLL, 5, true>(a, traces_only, out);
      if constexpr (!diffusion_map)
        if (nodal && a.qgeometry == PencilGeometry::trilinear)
          return launch_stage<DIFF, COLL, 3, true>(a, traces_only, out);
      if (nodal) return launch_nodal<DIFF, COLL>(a, traces_only, out);
    }
    launch_stage<DIFF, COLL, 0>(a, traces_only, out);
  }

  /// The nodal kernel of the geometry the block's args name (no map along pencils): with the
  /// stored geometry its tables staged in team scratch (MAP = 4) where the variant asks for it
  /// and they fit into shared memory, else read where the passes use them (MAP = 0).
  template <bool DIFF, bool COLL>
  static void launch_nodal(const StageArgs& a, bool traces_only, const View4& out) {
    if constexpr (level0<DIFF, COLL, true, true>)
      if (a.variant.qpencil_stage_tables > 0 && a.qgeometry == PencilGeometry::stored)
        return launch_stage<DIFF, COLL, 4, true>(a, traces_only, out);
    launch_stage<DIFF, COLL, 0, true>(a, traces_only, out);
  }

  template <bool DIFF, bool COLL, int MAP, bool NOD = false>
  static void launch_stage(const StageArgs& a, bool traces_only, const View4& out) {
    const int n = static_cast<int>(a.elems.extent(0));
    if (n == 0) return;
    const ElementBlock& b = *a.block;
    const int ne = elems_per_team<DIFF, COLL, MAP, NOD>(a.variant, a.qgeometry);
    DG_VERIFY(!DIFF || a.qgeometry == PencilGeometry::stored ||
                  (Stage<DIFF, COLL, MAP, NOD>::DMAP && a.qgeometry == PencilGeometry::trilinear),
              "quadrature pencil path: diffusion takes the stored geometry (or, on CPUs and on "
              "GPUs with the nodal state, the trilinear one)");
    DG_VERIFY(!NOD || b.source.extent(0) == 0,
              "quadrature pencil path: a nodal state takes no source (its modes are modal)");
    Stage<DIFF, COLL, MAP, NOD> k;
    k.u = b.u;
    k.reg = b.reg;
    k.verts = b.verts;
    k.vgeo = b.vgeo;
    k.ghost = b.ghost;
    k.fgeo = b.fgeo;
    k.trace = b.trace;
    k.trace_out = out;
    k.ftype = b.ftype;
    k.nbr = b.nbr;
    k.nbr_face = b.nbr_face;
    k.orient = b.orient;
    k.elems = a.elems;
    k.points = a.points;
    k.tables = b.tables;
    k.bdata = b.bdata;
    k.source = b.source;
    k.tau = b.tau;
    k.qvol = a.qvol;
    k.qface = a.qface;
    k.qsides = a.qsides;
    for (int d = 0; d < 3; ++d)
      k.vel[d] = a.pde.advection.a[d];
    k.adv = a.pde.advection;
    k.rotation = a.pde.advection.kind == physics::Advection::rotation;
    DG_VERIFY(a.qgeometry != PencilGeometry::trilinear_pencil ||
                  a.pde.advection.kind == physics::Advection::constant || k.rotation,
              "quadrature pencil path: the map along each pencil takes a constant velocity or "
              "the rotation");
    k.eta = a.pde.diffusion.eta;
    k.nu = a.pde.diffusion.nu;
    k.ep = a.ep;
    k.geometry = a.qgeometry;
    k.affine = b.affine;
    k.traces_only = traces_only;
    k.async_loads = a.variant.qpencil_async_loads;
    // The collocated passes as a branch of this kernel: Q = P on non-affine elements where
    // launch_as did not choose their own kernel (COLL).
    k.collocated = !COLL && Q == P && !b.affine && a.variant.qpencil_collocated;
    k.ne = ne;
    k.first = a.elems_first;
    if constexpr (constant_tables || Q == P) k.ct = const_tables();
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // (MAP = 5 unbounded alone, as diffusion's default at q = p + 1: fewer kernels to build.)
    if constexpr (P - 1 <= bounds_max_order && MAP != 5) {
      const int m = a.variant.qpencil_min_blocks >= 0
                        ? a.variant.qpencil_min_blocks
                        : (DIFF       ? min_blocks_diffusion(MAP)
                           : MAP == 1 ? (NOD ? min_blocks_nodal_map : min_blocks_map)
                           : MAP == 2 ? min_blocks_nodal_rotation
                           : MAP == 4 ? min_blocks_staged
                                      : (a.qgeometry == PencilGeometry::trilinear_pencil
                                             ? min_blocks_pencil
                                             : min_blocks_default));
      DG_VERIFY(m == 0 || m == 4 || m == 5 || m == 6 || m == 8,
                "qpencil_min_blocks " << m << ": valid are 0, 4, 5, 6, 8");
      if (m == 4) return run<4>(k, n, ne, a, traces_only);
      if (m == 5) return run<5>(k, n, ne, a, traces_only);
      if (m == 6) return run<6>(k, n, ne, a, traces_only);
      if (m == 8) return run<8>(k, n, ne, a, traces_only);
    }
#endif
    run<0>(k, n, ne, a, traces_only);
  }

  /// Launch bounds on GPUs, p <= bounds_max_order: at most 128 threads per team and MINB teams
  /// per SM, which caps ptxas' registers at 65536 / (128 MINB) (4, 5, 6, 8: 128, 102, 85, 64);
  /// without bounds the kernel takes 178 registers at p = 5 (the constant tables held in
  /// registers), 5 teams of 64 threads per SM. Default measured on the H100 (dgbench stage
  /// --qpencil-bounds 0,4,5,6 at q = p + 2 and p + 1, docs/performance.md): 5 up to p = 4, else
  /// 4 (1.1 to 1.6x over none; p = 8 not measured).
  static constexpr int bounds_max_order = 8;
  static constexpr int min_blocks_default = P <= 5 ? 5 : 4;
  /// The map along each pencil in its own kernel (Stage's MAP; the same sweep with
  /// --qpencil-elems): 5 at p = 5 (q = p + 1 on the H200 with three elements per team: 1.05x
  /// over 4; 1.04x at q = p + 2 with two on the H100) and at p = 6, q = p + 2 (1.04x over 4),
  /// else the default: at q = p + 1 on the H200 with F and S folded (Layout) 5 at p = 3 with
  /// elems_per_team's eight elements (1.06x over 4), 4 at p = 7 (1.03x over none); at q = p + 2
  /// on the H100 (--mesh warped --qpencil-elems 0,1,2 --qpencil-bounds -1,0,5,6,8) 6 at p = 3
  /// and 4 (1.07x and 1.15x over 5; none at p = 4 within 1% of 6).
  static constexpr int min_blocks_map =
      Q == P + 1 && (P == 4 || P == 5) ? 6
                                       : (P == 6 || (P == 7 && Q == 8) ? 5 : min_blocks_default);
  /// The teams per SM of both nodal kernels along each pencil's map, the constant velocity's
  /// (min_blocks_nodal_map) and the rotation's (min_blocks_nodal_rotation), as measured on the
  /// H100: 6 up to p = 6, 5 at p = 7.
  static constexpr int min_blocks_nodal_pencil = P <= 7 ? 6 : 5;
  /// ... on the nodal state (NOD, q = p + 1; dgbench stage --mesh warped --q-offset 1
  /// --qpencil-elems 0,1,2 --qpencil-bounds -1,5,6,8 on the H100 with elems_per_team's
  /// elements): 6 at p = 3..6 (1.05x, 1.08x, 1.09x and 1.07x over 5), 5 at p = 7 (1.10x over 4;
  /// 6: 1.06x), min_blocks_nodal_pencil; else (p = 1, 2 not measured) min_blocks_map.
  static constexpr int min_blocks_nodal_map =
      Q == P && P >= 4 && P <= 8 ? min_blocks_nodal_pencil : min_blocks_map;
  /// The rest of the trilinear_pencil geometry, the rotation (dgbench stage --physics
  /// advection-rotation --q-offset 1 --qpencil-elems 1,2,3,4,5 --qpencil-bounds 0,4,5,6): at
  /// q = p + 1 on the H200 with elems_per_team's elements 5 at p = 3 and 4 (1.005x and 1.02x over
  /// 4), 4 at p = 5..7 (p = 7: 1.03x over none); at q = p + 2 (not swept for the rotation) 5 at
  /// p = 5, else the default.
  static constexpr int min_blocks_pencil =
      Q == P ? (P <= 5 ? 5 : 4) : (P == 6 ? 5 : min_blocks_default);
  /// ... the rotation on the nodal state in its own kernel (MAP = 2; dgbench stage --physics
  /// advection-rotation --q-offset 1 --qpencil-elems 0,1,2,3,4,5,8 --qpencil-bounds -1,0,4,5 on
  /// the H200: 5 at p = 5, 6 and 7, 1.11x, 1.04x and 1.07x over 4; then with 6 and 8 on the H100,
  /// --qpencil-elems 0,1,2,3,4 --qpencil-bounds -1,0,4,5,6,8): 6 at p = 3..6 (1.08x, 1.08x,
  /// 1.08x and, with one element per team, 1.05x over 5), 5 at p = 7 (6: 0.96x with one element,
  /// the most that fit): min_blocks_nodal_pencil; else min_blocks_pencil.
  static constexpr int min_blocks_nodal_rotation =
      Q == P ? min_blocks_nodal_pencil : min_blocks_pencil;
  /// ... the nodal advection kernel with C staged (MAP = 4, F_1 and F_2 over the staged
  /// components; the sweep of elems_per_team): 8 at p = 3 (1.04x over 5), 4 and 5 (1.01x over
  /// none), 6 at p = 6 (1.06x over 5), 4 at p = 7 (0, 5, 6 and 8 within 1%).
  static constexpr int min_blocks_staged = P <= 6 ? 8 : (P == 7 ? 6 : 4);
  /// With diffusion (dgbench stage --physics advdiff --mesh warped --qpencil-bounds 0,4,5): at
  /// q = p + 2 4 at p = 4 and 7 (1.10x, 1.15x over none), else none (5 is 0.63 to 0.79x of none
  /// at p = 3..6); at q = p + 1 none (4 is 0.77 to 0.97x of none, 5 0.61 to 0.87x), except the
  /// nodal kernel with the map at each point (MAP = 3; H100, --variants qpencil-face-map
  /// --qpencil-elems 0,1,2,3 --qpencil-bounds -1,0,4,5): 4 at p = 3 and 6 (1.09x and 1.14x over
  /// none with elems_per_team's two elements), none at p = 4, 5, 7 (4: 0.99, 1.00 and 0.97x).
  static constexpr int min_blocks_diffusion(int map) {
    if (Q == P + 1) return P - 1 == 4 || P - 1 == 7 ? 4 : 0;
    return Q == P && map == 3 && (P - 1 == 3 || P - 1 == 6) ? 4 : 0;
  }

  template <int MINB, bool DIFF, bool COLL, int MAP, bool NOD>
  static void run(Stage<DIFF, COLL, MAP, NOD>& k, int n, int ne, const StageArgs& a,
                  bool traces_only) {
    const KernelVariant& v = a.variant;
    using Pol = std::conditional_t<MINB == 0, TeamPolicy,
                                   Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<128, MINB>>>;
    const size_t bytes = scratch_bytes<DIFF, COLL, NOD, MAP == 4>(ne);
    int threads = v.team_size;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    if (threads <= 0) threads = std::min(MINB > 0 ? 128 : 256, (ne * Q2 + 31) / 32 * 32);
#endif
    const Pol pol = policy<Q, Stage<DIFF, COLL, MAP, NOD>, Pol>(a.space, (n + ne - 1) / ne, bytes,
                                                                k, threads, level0_max_bytes);
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    DG_VERIFY(!(level0<DIFF, COLL, NOD, MAP == 4>) || k.level == 0,
              "quadrature pencil kernel (p = " << P - 1 << "): " << bytes
                                               << " bytes of team scratch are not level 0");
#endif
    if constexpr (MINB != 0) {
      // A device that cannot hold the default bounds' MINB teams per SM (shared memory,
      // registers; measured on the H100) runs the kernel without launch bounds; bounds asked
      // for (qpencil_min_blocks) stay an error.
      if (pol.team_size() < 1 && v.qpencil_min_blocks < 0) {
        run<0>(k, n, ne, a, traces_only);
        return;
      }
    }
    DG_VERIFY(pol.team_size() >= 1,
              "quadrature pencil kernel (p = " << P - 1 << ", launch bounds " << MINB
                                               << "): no team size fits on this device");
    const char* label =
        traces_only ? (NOD ? "dg::fixed::qpencil_nodal_traces" : "dg::fixed::qpencil_traces")
                    : (NOD ? "dg::fixed::qpencil_nodal_stage" : "dg::fixed::qpencil_stage");
    launch_kernel(label, pol, k);
  }
};

} // namespace dg::fixed
