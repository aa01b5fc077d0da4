// Fixed-order kernels (see dg/dg/fixed_order.hpp): the same discretisation as the run-time
// sized kernels of operator.cpp, with P and Q compile-time constants so that every contraction
// loop is unrolled, tables live in team scratch and (register-blocked variant) each thread keeps
// one 1-D pencil of the tensor in registers. Included only by the generated per-order sources.
#pragma once

#include "dg/core/error.hpp"
#include "dg/dg/face_flux.hpp"
#include "dg/dg/fixed_order.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/mesh/hex.hpp"

#include <algorithm>
#include <cmath>

namespace dg::fixed {

// ------------------------------------------------------------------------------------------
// Contractions. A 3-D tensor (N0, N1, N2), x fastest; direction AX is contracted with a table
// M, row-major (point, mode) with `modes` columns:
//   backward (INNER = false): out[o] = sum_m M[o * NIN + m] in[m]   (NIN modes -> NOUT points)
//   inner    (INNER = true):  out[o] = sum_m M[m * NOUT + o] in[m]  (NIN points -> NOUT modes)
// Register-blocked: one thread per pencil along AX (its NIN inputs in registers, NOUT outputs);
// otherwise one thread per output entry. Both end with a team barrier.
template <int N0, int N1, int N2, int AX, int NOUT, bool INNER, bool ACC>
KOKKOS_INLINE_FUNCTION void contract(const TeamMember& team, bool blocked, const double* in,
                                     double* out, const double* M) {
  constexpr int NIN = AX == 0 ? N0 : (AX == 1 ? N1 : N2);
  constexpr int D0 = AX == 0 ? NOUT : N0, D1 = AX == 1 ? NOUT : N1, D2 = AX == 2 ? NOUT : N2;
  constexpr int SIN = AX == 0 ? 1 : (AX == 1 ? N0 : N0 * N1);
  constexpr int SOUT = AX == 0 ? 1 : (AX == 1 ? D0 : D0 * D1);
  constexpr int A0 = AX == 0 ? N1 : N0; // the two other directions, lower first
  constexpr int A1 = AX == 2 ? N1 : N2;
  if (blocked) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, A0 * A1), [&](const int idx) {
      const int o0 = idx % A0, o1 = idx / A0;
      int bin, bout;
      if (AX == 0) {
        bin = N0 * (o0 + N1 * o1);
        bout = D0 * (o0 + D1 * o1);
      } else if (AX == 1) {
        bin = o0 + N0 * N1 * o1;
        bout = o0 + D0 * D1 * o1;
      } else {
        bin = o0 + N0 * o1;
        bout = o0 + D0 * o1;
      }
      double r[NIN];
      for (int m = 0; m < NIN; ++m)
        r[m] = in[bin + m * SIN];
      for (int o = 0; o < NOUT; ++o) {
        double s = 0.0;
        for (int m = 0; m < NIN; ++m)
          s += (INNER ? M[m * NOUT + o] : M[o * NIN + m]) * r[m];
        if (ACC)
          out[bout + o * SOUT] += s;
        else
          out[bout + o * SOUT] = s;
      }
    });
  } else {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, D0 * D1 * D2), [&](const int idx) {
      const int i0 = idx % D0, i1 = (idx / D0) % D1, i2 = idx / (D0 * D1);
      const int o = AX == 0 ? i0 : (AX == 1 ? i1 : i2);
      const int base = (AX == 0 ? 0 : i0) + N0 * ((AX == 1 ? 0 : i1) + N1 * (AX == 2 ? 0 : i2));
      double s = 0.0;
      for (int m = 0; m < NIN; ++m)
        s += (INNER ? M[m * NOUT + o] : M[o * NIN + m]) * in[base + m * SIN];
      if (ACC)
        out[idx] += s;
      else
        out[idx] = s;
    });
  }
  team.team_barrier();
}

/// Geometry of one point from the 8 vertices X[v * 3 + i]: adjugate A[d * 3 + i] and |J|.
KOKKOS_INLINE_FUNCTION void metric_from_vertices(const double* X, const double r[3], double A[9],
                                                 double& det) {
  trilinear_metric(ArrayVertices{X}, r, A, det);
}

/// x = sum_v N_v(r) X_v from vertices in scratch.
KOKKOS_INLINE_FUNCTION void map_from_vertices(const double* X, const double r[3], double x[3]) {
  trilinear_point(ArrayVertices{X}, r, x);
}

// ------------------------------------------------------------------------------------------
#if defined(__CUDA_ARCH__)
extern __shared__ double dg_fixed_dynamic_shared[];
#endif

/// Full unrolling of a loop with a compile-time trip count (index arithmetic and the structural
/// zeros of the tables folded at compile time).
#if defined(__CUDA_ARCH__)
#define DG_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define DG_UNROLL _Pragma("GCC unroll 16")
#else
#define DG_UNROLL
#endif
#if defined(__CUDA_ARCH__)
#define DG_NO_UNROLL _Pragma("unroll 1")
#else
#define DG_NO_UNROLL
#endif

/// A pointer into a team's level-0 scratch (CUDA dynamic shared memory) re-derived from a
/// __shared__ array, so that the compiler emits shared-memory loads and stores (LDS/STS with
/// 32-bit offsets) instead of generic ones with 64-bit address arithmetic: measured on the
/// modal kernel, the generic form made about 60% of its instructions integer address
/// arithmetic (docs/performance.md). Identity elsewhere. Only for level-0 scratch.
KOKKOS_INLINE_FUNCTION double* shared_space(double* p) {
#if defined(__CUDA_ARCH__)
  const size_t off =
      __cvta_generic_to_shared(p) - __cvta_generic_to_shared(dg_fixed_dynamic_shared);
  return dg_fixed_dynamic_shared + off / sizeof(double);
#else
  return p;
#endif
}

/// Asynchronous global-to-shared copy of one 8-byte value (cp.async, sm_80 and later) where
/// dst is in level-0 scratch (SHARED), so that a team has all its loads in flight at once
/// instead of one load per thread and loop trip: the copies bypass the registers and are not
/// ordered behind the shared-memory stores. A plain copy elsewhere. copy_wait() completes the
/// calling thread's copies; a team barrier after it makes them visible to the team.
template <bool SHARED, class T>
KOKKOS_FORCEINLINE_FUNCTION void copy_async(T* dst, const T* src) {
  static_assert(sizeof(T) == 8, "8-byte copies");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (SHARED) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
    return;
  }
#endif
  *dst = *src;
}
KOKKOS_FORCEINLINE_FUNCTION void copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
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
        rec[4 + 3 * d + dp] =
            (A[3 * d] * A[3 * dp] + A[3 * d + 1] * A[3 * dp + 1] + A[3 * d + 2] * A[3 * dp + 2]) /
            A[9];
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
/// doubles, from the start of the trace or ghost array) in bits 0..55; bit 56: a neighbour
/// exists; 57: it is a ghost slot; 58: a and b swapped; 59, 60: sign flips with the parity of
/// a, b (after the swap); 61: the kernel reads the neighbour's trace; 62: it emits its own
/// trace of this face. Pure upwind advection with constant velocity needs the neighbour's value
/// only on inflow faces (a . n < 0) and so emits only where the neighbour's face is one, i.e.
/// where a . n > -tol (tol = 1e-12 |a|: the two sides' a . n agree to round-off, and a face
/// with a . n near 0 is emitted but read by neither side); with diffusion every face is read
/// and emitted.
constexpr int word_present = 56, word_ghost = 57, word_swap = 58, word_sign_a = 59,
              word_sign_b = 60, word_read = 61, word_emit = 62;
constexpr long long word_offset_mask = (1LL << 56) - 1;

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
          if (type == face_local || type == face_ghost) {
            const bool g = type == face_ghost;
            const long long off =
                g ? nbr(e, f) * per_face : (6LL * nbr(e, f) + nbr_face(e, f)) * per_face;
            const long long o = orient(e, f), swap = o & 1, fa = (o >> 1) & 1, fb = (o >> 2) & 1;
            w |= off | (1LL << word_present) | (static_cast<long long>(g) << word_ghost) |
                 (swap << word_swap) | ((swap ? fb : fa) << word_sign_a) |
                 ((swap ? fa : fb) << word_sign_b) |
                 (static_cast<long long>(DIFF || an < 0.0) << word_read);
          }
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
  int first; // elems(i) = first + i where first >= 0 (a contiguous range)

  /// The i-th listed element.
  KOKKOS_FORCEINLINE_FUNCTION int elem(int i) const { return first >= 0 ? first + i : elems(i); }
};

template <int P, int Q>
struct Kernels {
  static constexpr int P2 = P * P, P3 = P * P * P, Q2 = Q * Q, Q3 = Q * Q * Q;
  static constexpr int TMP = P * Q * Q; // largest intermediate of a transform (Q >= P)
  // Scratch tables: B, D (Q x P), E, dE (2 x P), w, x (Q).
  static constexpr int TAB = 2 * Q * P + 4 * P + 2 * Q;

  struct Tables {
    const double *B, *D, *E, *dE, *w, *x;
  };

  KOKKOS_INLINE_FUNCTION static Tables load_tables(const TeamMember& team, double* s,
                                                   const BasisTables& t, const View1& pts) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * P), [&](int k) {
      s[k] = t.B.data()[k];
      s[Q * P + k] = t.D.data()[k];
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * P), [&](int k) {
      s[2 * Q * P + k] = t.E.data()[k];
      s[2 * Q * P + 2 * P + k] = t.dE.data()[k];
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q), [&](int k) {
      s[2 * Q * P + 4 * P + k] = t.w(k);
      s[2 * Q * P + 4 * P + Q + k] = pts.extent(0) > 0 ? pts(k) : 0.0;
    });
    team.team_barrier();
    return Tables{s,
                  s + Q * P,
                  s + 2 * Q * P,
                  s + 2 * Q * P + 2 * P,
                  s + 2 * Q * P + 4 * P,
                  s + 2 * Q * P + 4 * P + Q};
  }

  /// modes (P^3) -> points (Q^3) with tables Mx, My, Mz (t, then s, then r: Algorithm 1).
  KOKKOS_INLINE_FUNCTION static void backward3(const TeamMember& team, bool bl, const double* U,
                                               double* V, double* T1, double* T2, const double* Mx,
                                               const double* My, const double* Mz) {
    contract<P, P, P, 2, Q, false, false>(team, bl, U, T1, Mz);
    contract<P, P, Q, 1, Q, false, false>(team, bl, T1, T2, My);
    contract<P, Q, Q, 0, Q, false, false>(team, bl, T2, V, Mx);
  }
  /// points (Q^3) -> modes (P^3), r then s then t (Algorithm 2); ACC adds into R.
  template <bool ACC>
  KOKKOS_INLINE_FUNCTION static void inner3(const TeamMember& team, bool bl, const double* V,
                                            double* R, double* T1, double* T2, const double* Mx,
                                            const double* My, const double* Mz) {
    contract<Q, Q, Q, 0, P, true, false>(team, bl, V, T1, Mx);
    contract<P, Q, Q, 1, P, true, false>(team, bl, T1, T2, My);
    contract<P, P, Q, 2, P, true, ACC>(team, bl, T2, R, Mz);
  }

  /// Face f trace (Q^2, tangential a fastest) of U with normal factor Nrm (P values) and
  /// tangential tables Ta, Tb.
  template <int DIR>
  KOKKOS_INLINE_FUNCTION static void
  face_backward_dir(const TeamMember& team, bool bl, const double* U, double* out, double* T1,
                    double* T2, const double* Nrm, const double* Ta, const double* Tb) {
    if (DIR == 0) {
      contract<P, P, P, 0, 1, false, false>(team, bl, U, T1, Nrm);
      contract<1, P, P, 1, Q, false, false>(team, bl, T1, T2, Ta);
      contract<1, Q, P, 2, Q, false, false>(team, bl, T2, out, Tb);
    } else if (DIR == 1) {
      contract<P, P, P, 1, 1, false, false>(team, bl, U, T1, Nrm);
      contract<P, 1, P, 0, Q, false, false>(team, bl, T1, T2, Ta);
      contract<Q, 1, P, 2, Q, false, false>(team, bl, T2, out, Tb);
    } else {
      contract<P, P, P, 2, 1, false, false>(team, bl, U, T1, Nrm);
      contract<P, P, 1, 0, Q, false, false>(team, bl, T1, T2, Ta);
      contract<Q, P, 1, 1, Q, false, false>(team, bl, T2, out, Tb);
    }
  }
  KOKKOS_INLINE_FUNCTION static void face_backward(const TeamMember& team, bool bl, int d,
                                                   const double* U, double* out, double* T1,
                                                   double* T2, const double* Nrm, const double* Ta,
                                                   const double* Tb) {
    if (d == 0)
      face_backward_dir<0>(team, bl, U, out, T1, T2, Nrm, Ta, Tb);
    else if (d == 1)
      face_backward_dir<1>(team, bl, U, out, T1, T2, Nrm, Ta, Tb);
    else
      face_backward_dir<2>(team, bl, U, out, T1, T2, Nrm, Ta, Tb);
  }
  /// R += sum_ab Nrm[i_d] Ta(a, i_ta) Tb(b, i_tb) F[ab].
  template <int DIR>
  KOKKOS_INLINE_FUNCTION static void
  face_inner_dir(const TeamMember& team, bool bl, const double* F, double* R, double* T1,
                 double* T2, const double* Nrm, const double* Ta, const double* Tb) {
    if (DIR == 0) {
      contract<1, Q, Q, 1, P, true, false>(team, bl, F, T1, Ta);
      contract<1, P, Q, 2, P, true, false>(team, bl, T1, T2, Tb);
      contract<1, P, P, 0, P, true, true>(team, bl, T2, R, Nrm);
    } else if (DIR == 1) {
      contract<Q, 1, Q, 0, P, true, false>(team, bl, F, T1, Ta);
      contract<P, 1, Q, 2, P, true, false>(team, bl, T1, T2, Tb);
      contract<P, 1, P, 1, P, true, true>(team, bl, T2, R, Nrm);
    } else {
      contract<Q, Q, 1, 0, P, true, false>(team, bl, F, T1, Ta);
      contract<P, Q, 1, 1, P, true, false>(team, bl, T1, T2, Tb);
      contract<P, P, 1, 2, P, true, true>(team, bl, T2, R, Nrm);
    }
  }
  KOKKOS_INLINE_FUNCTION static void face_inner(const TeamMember& team, bool bl, int d,
                                                const double* F, double* R, double* T1, double* T2,
                                                const double* Nrm, const double* Ta,
                                                const double* Tb) {
    if (d == 0)
      face_inner_dir<0>(team, bl, F, R, T1, T2, Nrm, Ta, Tb);
    else if (d == 1)
      face_inner_dir<1>(team, bl, F, R, T1, T2, Nrm, Ta, Tb);
    else
      face_inner_dir<2>(team, bl, F, R, T1, T2, Nrm, Ta, Tb);
  }

  // ----------------------------------------------------------------------------------------
  /// The stage kernel: one team per element.
  struct Stage {
    View2 u, reg; // the epilogue (ep) carries the store-mode output
    View3 verts, vgeo, ghost;
    View4 fgeo, trace, trace_out;
    IView2 ftype, nbr, nbr_face, orient;
    View2 tau;
    IView1 elems;
    View1 points;
    BasisTables tables;
    physics::AdvectionDiffusion pde;
    physics::ExactSolution bc;
    double time;
    Epilogue ep;
    bool affine, blocked, recompute, traces_only, need_x;
    int level;

    static constexpr int scratch_doubles(bool diffusion) {
      // tables, vertices, U, R, V (values + gradients or fluxes), T1, T2, F (face values)
      return TAB + 24 + 2 * P3 + (diffusion ? 4 : 3) * Q3 + 2 * TMP + 4 * Q2;
    }

    KOKKOS_INLINE_FUNCTION void volume_metric(int e, const double* X, const Tables& tb, int a,
                                              int b, int c, double A[9], double& det) const {
      if (affine || !recompute) {
        const int gp = affine ? 0 : a + Q * (b + Q * c);
        for (int k = 0; k < 9; ++k)
          A[k] = vgeo(e, gp, k);
        det = vgeo(e, gp, 9);
      } else {
        const double r[3] = {tb.x[a], tb.x[b], tb.x[c]};
        metric_from_vertices(X, r, A, det);
      }
    }

    /// Face record: g[0..2] unit normal, g[3] dS, g[4..6] J^{-1} n.
    KOKKOS_INLINE_FUNCTION void face_metric(int e, int f, int i, int j, const double* X,
                                            const Tables& tb, double g[7]) const {
      if (affine || !recompute) {
        const int gp = affine ? 0 : i + Q * j;
        for (int k = 0; k < 7; ++k)
          g[k] = fgeo(e, f, gp, k);
      } else {
        const int d = f / 2, s = f % 2;
        double r[3];
        hex::face_point(f, tb.x[i], tb.x[j], r);
        double A[9], det;
        metric_from_vertices(X, r, A, det);
        const double sg = s ? 1.0 : -1.0;
        const double n[3] = {sg * A[3 * d], sg * A[3 * d + 1], sg * A[3 * d + 2]};
        const double dS = math::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; ++k)
          g[k] = n[k] / dS;
        g[3] = dS;
        for (int k = 0; k < 3; ++k)
          g[4 + k] = (A[3 * k] * n[0] + A[3 * k + 1] * n[1] + A[3 * k + 2] * n[2]) / (dS * det);
      }
    }

    /// Traces of U on all six faces into dst(e, f, pt, 0..ncomp-1).
    KOKKOS_INLINE_FUNCTION void emit(const TeamMember& team, int e, const double* U, double* T1,
                                     double* T2, double* F, const double* X, const Tables& tb,
                                     bool diffusion, const View4& dst) const {
      for (int f = 0; f < 6; ++f) {
        const int s = f % 2, d = f / 2;
        face_backward(team, blocked, d, U, F, T1, T2, tb.E + s * P, tb.B, tb.B);
        if (diffusion) {
          face_backward(team, blocked, d, U, F + Q2, T1, T2, tb.dE + s * P, tb.B, tb.B);
          face_backward(team, blocked, d, U, F + 2 * Q2, T1, T2, tb.E + s * P, tb.D, tb.B);
          face_backward(team, blocked, d, U, F + 3 * Q2, T1, T2, tb.E + s * P, tb.B, tb.D);
        }
        const int ta = d == 0 ? 1 : 0, tbd = d == 2 ? 1 : 2;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q2), [&](int pt) {
          dst(e, f, pt, 0) = F[pt];
          if (diffusion) {
            double g[7];
            face_metric(e, f, pt % Q, pt / Q, X, tb, g);
            dst(e, f, pt, 1) =
                g[4 + d] * F[Q2 + pt] + g[4 + ta] * F[2 * Q2 + pt] + g[4 + tbd] * F[3 * Q2 + pt];
          }
        });
        team.team_barrier();
      }
    }

    KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
      const int e = elems(team.league_rank());
      const double nu = pde.diffusion.nu;
      const bool diffusion = nu > 0.0;
      auto alloc = [&](int n) {
        return static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * n));
      };
      const Tables tb = load_tables(team, alloc(TAB), tables, points);
      double* X = alloc(24);
      double* U = alloc(P3);
      double* R = alloc(P3);
      double* V = alloc((diffusion ? 4 : 3) * Q3);
      double* T1 = alloc(TMP);
      double* T2 = alloc(TMP);
      double* F = alloc(4 * Q2);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) {
        U[m] = u(e, m);
        if (m < 24 && need_x) X[m] = verts(e, m / 3, m % 3);
      });
      if (need_x && P3 < 24)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 24 - P3),
                             [&](int m) { X[P3 + m] = verts(e, (P3 + m) / 3, (P3 + m) % 3); });
      team.team_barrier();
      if (traces_only) {
        emit(team, e, U, T1, T2, F, X, tb, diffusion, trace_out);
        return;
      }

      // Volume: values (and reference gradients) at the quadrature points; contractions in t
      // and s shared between the value and the r-gradient.
      double* V1 = V + Q3;
      double* V2 = V + 2 * Q3;
      contract<P, P, P, 2, Q, false, false>(team, blocked, U, T1, tb.B);
      contract<P, P, Q, 1, Q, false, false>(team, blocked, T1, T2, tb.B);
      contract<P, Q, Q, 0, Q, false, false>(team, blocked, T2, V, tb.B);
      if (diffusion) {
        double* V3 = V + 3 * Q3;
        contract<P, Q, Q, 0, Q, false, false>(team, blocked, T2, V1, tb.D);
        contract<P, P, Q, 1, Q, false, false>(team, blocked, T1, T2, tb.D);
        contract<P, Q, Q, 0, Q, false, false>(team, blocked, T2, V2, tb.B);
        contract<P, P, P, 2, Q, false, false>(team, blocked, U, T1, tb.D);
        contract<P, P, Q, 1, Q, false, false>(team, blocked, T1, T2, tb.B);
        contract<P, Q, Q, 0, Q, false, false>(team, blocked, T2, V3, tb.B);
      }
      // Contravariant flux G_d = w adj(J)[d] . F into V (d = 0), V1, V2 (in place).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
        const int a = pt % Q, b = (pt / Q) % Q, c = pt / Q2;
        double A[9], det;
        volume_metric(e, X, tb, a, b, c, A, det);
        double vel[3];
        if (pde.advection.kind == 0) {
          pde.advection.velocity(nullptr, vel);
        } else {
          const double r[3] = {tb.x[a], tb.x[b], tb.x[c]};
          double xp[3];
          map_from_vertices(X, r, xp);
          pde.advection.velocity(xp, vel);
        }
        const double uq = V[pt];
        double Fp[3] = {vel[0] * uq, vel[1] * uq, vel[2] * uq};
        if (diffusion) {
          const double g0 = V1[pt], g1 = V2[pt], g2 = V[3 * Q3 + pt];
          for (int i = 0; i < 3; ++i)
            Fp[i] -= nu * (A[i] * g0 + A[3 + i] * g1 + A[6 + i] * g2) / det;
        }
        const double wq = tb.w[a] * tb.w[b] * tb.w[c];
        for (int d = 0; d < 3; ++d)
          V[d * Q3 + pt] = wq * (A[3 * d] * Fp[0] + A[3 * d + 1] * Fp[1] + A[3 * d + 2] * Fp[2]);
      });
      team.team_barrier();
      inner3<false>(team, blocked, V, R, T1, T2, tb.D, tb.B, tb.B);
      inner3<true>(team, blocked, V1, R, T1, T2, tb.B, tb.D, tb.B);
      inner3<true>(team, blocked, V2, R, T1, T2, tb.B, tb.B, tb.D);

      // Faces: this side's traces from U, the other side's from the trace array / ghosts.
      for (int f = 0; f < 6; ++f) {
        const int s = f % 2, d = f / 2;
        const int ta = d == 0 ? 1 : 0, tbd = d == 2 ? 1 : 2;
        face_backward(team, blocked, d, U, F, T1, T2, tb.E + s * P, tb.B, tb.B);
        if (diffusion) {
          face_backward(team, blocked, d, U, F + Q2, T1, T2, tb.dE + s * P, tb.B, tb.B);
          face_backward(team, blocked, d, U, F + 2 * Q2, T1, T2, tb.E + s * P, tb.D, tb.B);
          face_backward(team, blocked, d, U, F + 3 * Q2, T1, T2, tb.E + s * P, tb.B, tb.D);
        }
        const int type = ftype(e, f), nb = nbr(e, f), nf = nbr_face(e, f), o = orient(e, f);
        const double tau_f = pde.diffusion.eta * nu * tau(e, f);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q2), [&](int pt) {
          const int i = pt % Q, j = pt / Q;
          double g[7];
          face_metric(e, f, i, j, X, tb, g);
          const double uin = F[pt];
          const double gin = diffusion ? g[4 + d] * F[Q2 + pt] + g[4 + ta] * F[2 * Q2 + pt] +
                                             g[4 + tbd] * F[3 * Q2 + pt]
                                       : 0.0;
          double xp[3] = {0, 0, 0};
          if (type == face_dirichlet || pde.advection.kind != 0) {
            double r[3];
            hex::face_point(f, tb.x[i], tb.x[j], r);
            map_from_vertices(X, r, xp);
          }
          double uout = 0.0, gout = 0.0;
          int ip, jp;
          hex::map_index(o, Q, i, j, ip, jp);
          neighbour_trace(type, trace, ghost, nb, nf, ip + Q * jp, diffusion, uout, gout);
          double vel[3], out[4] = {0.0, 0.0, 0.0, 0.0};
          pde.advection.velocity(xp, vel);
          face_integrands(pde, type, vel, g, tb.w[i] * tb.w[j], tau_f, d, ta, tbd, uin, gin, uout,
                          gout, type == face_dirichlet ? bc(xp, time) : 0.0, out);
          F[pt] = out[0];
          if (diffusion) {
            F[Q2 + pt] = out[1];
            F[2 * Q2 + pt] = out[2];
            F[3 * Q2 + pt] = out[3];
          }
        });
        team.team_barrier();
        face_inner(team, blocked, d, F, R, T1, T2, tb.E + s * P, tb.B, tb.B);
        if (diffusion) {
          face_inner(team, blocked, d, F + Q2, R, T1, T2, tb.dE + s * P, tb.B, tb.B);
          face_inner(team, blocked, d, F + 2 * Q2, R, T1, T2, tb.E + s * P, tb.D, tb.B);
          face_inner(team, blocked, d, F + 3 * Q2, R, T1, T2, tb.E + s * P, tb.B, tb.D);
        }
      }

      // Inverse mass matrix.
      if (affine) {
        const double inv = 1.0 / vgeo(e, 0, 9);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) { R[m] *= inv; });
        team.team_barrier();
      } else {
        backward3(team, blocked, R, V, T1, T2, tb.B, tb.B, tb.B);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
          const int a = pt % Q, b = (pt / Q) % Q, c = pt / Q2;
          double det;
          if (recompute) {
            double A[9];
            const double r[3] = {tb.x[a], tb.x[b], tb.x[c]};
            metric_from_vertices(X, r, A, det);
          } else {
            det = vgeo(e, pt, 9);
          }
          V[pt] *= tb.w[a] * tb.w[b] * tb.w[c] / det;
        });
        team.team_barrier();
        inner3<false>(team, blocked, V, R, T1, T2, tb.B, tb.B, tb.B);
      }

      // Epilogue; U becomes the updated state when traces are emitted.
      const bool emit_traces = ep.mode == Epilogue::lsrk && ep.emit_traces;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3),
                           [&](int m) { U[m] = ep.apply(u, reg, e, m, R[m], U[m]); });
      if (emit_traces) {
        team.team_barrier();
        emit(team, e, U, T1, T2, F, X, tb, diffusion, trace_out);
      }
    }
  };

  /// On CUDA: fails with the runtime's message if the last kernel launch did not start (a
  /// release build of Kokkos does not check; such a kernel would silently not run).
  static void check_launch(const char* label) {
#if defined(KOKKOS_ENABLE_CUDA)
    const cudaError_t err = cudaGetLastError();
    DG_VERIFY(err == cudaSuccess, label << ": kernel launch failed: " << cudaGetErrorString(err));
#else
    (void)label;
#endif
  }

  /// Team policy: `team_size` threads (0: 32 up to p = 5, else 64), fewer where the
  /// kernel's registers allow fewer (high orders), scratch at level 0 up to 48 KB. Pol: a
  /// TeamPolicy of ExecSpace, with launch bounds or without.
  template <class F, class Pol = TeamPolicy>
  static Pol policy(int n, size_t bytes, F& f, int team_size) {
    // Level 0 (shared memory) up to the 48 KB every CUDA block gets without opting in.
    const size_t max0 = std::min<size_t>(48 * 1024, Pol::scratch_size_max(0));
    f.level = bytes <= max0 ? 0 : 1;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // Defaults measured fastest on the H100 (docs/performance.md): 32 threads up to p = 5.
    int threads = team_size > 0 ? team_size : (Q <= 7 ? 32 : 64);
    Pol probe(n, 1);
    probe.set_scratch_size(f.level, Kokkos::PerTeam(bytes));
    const int tmax = probe.team_size_max(f, Kokkos::ParallelForTag());
    if (threads > tmax) threads = tmax >= 32 ? tmax / 32 * 32 : tmax;
    Pol pol(n, threads);
#else
    (void)team_size;
    Pol pol(n, 1);
#endif
    return pol.set_scratch_size(f.level, Kokkos::PerTeam(bytes));
  }

  // ----------------------------------------------------------------------------------------
  /// Affine elements, constant velocity, no Dirichlet faces: the same operator without
  /// quadrature points. With exact Gauss quadrature (Q >= P) and the orthonormal basis, and the
  /// 1-D matrices S(i, m) = sum_a w_a phi_i'(x_a) phi_m(x_a), K(i, m) = sum_a w_a phi_i' phi_m':
  ///   volume  R_ijk = sum_d c_d (S along d) U                         c_d = adj(J)[d] . a
  ///                 - nu sum_dd' G_dd' <d_d phi_ijk, d_d' u>          G = adj adj^T / |J|
  ///           (K along d for d = d'; S along d and S^T along d' otherwise);
  ///   faces   traces are modal (P^2 coefficients per face): u = E_s along the normal,
  ///           grad u . n = (J^{-1}n)_d dE_s + tangential derivatives (S^T along ta or tb);
  ///           the upwind + SIPG flux is linear, so it is formed coefficient by coefficient
  ///           (a.n, dS, J^{-1}n and tau are constant on an affine face; the neighbour's
  ///           coefficients are re-oriented by parity signs) and lifted by E_s; the symmetry term
  ///           (nu/2)[u] grad(phi) . n is lifted by dE_s and S. Traces are exchanged in this modal
  ///           form (first P^2 entries of each face's slots).
  /// A handful of team barriers per element instead of ~70; equal to the quadrature path to
  /// round-off.
  template <bool DIFF>
  struct Modal : ModalFields {

    // Per-element geometry record (GR doubles): [0..2] c_d = adj(J)[d] . a, [3] 1/|J|,
    // [4..12] G = adj adj^T / |J| (diffusion); then per face f at FR + 8 f: [0] a . n, [1] dS,
    // [2..4] (J^{-1} n)_d for d = 0, 1, 2, [5] eta nu tau, [6] face type.
    static constexpr int FR = 13, GR = FR + 6 * 8;
    /// Team scratch: S, K, E, dE shared by the team's elements; per element U (state), R (the
    /// register, later the updated state), Fm (the neighbour's traces, later the flux) and
    /// with diffusion Gn (neighbour's normal gradients), TU, TN (own face values and normal
    /// derivatives), Dl (symmetry-term jumps); the geometry record.
    KOKKOS_INLINE_FUNCTION static constexpr int shared_doubles() { return 2 * P2 + 4 * P; }
    static constexpr int ED = 2 * P3 + (DIFF ? 5 : 1) * 6 * P2 + GR; // per element

    /// Face coefficient ab of face f (side s of direction d) of the modal state V:
    /// value t = sum_m E_s(m) V and (diffusion) normal derivative n = sum_m dE_s(m) V, with
    /// (a along ta, b along tb) = (ab % P, ab / P). The P modes of the pencil along d start at
    /// `base` with stride P^d (one multiply-add per mode; the kernel is instruction-bound).
    KOKKOS_INLINE_FUNCTION static void face_coefficient(const double* V, const double* E,
                                                        const double* dE, int f, int ab,
                                                        bool with_n, double& t, double& n) {
      const int d = f / 2, s = f % 2, a = ab % P, b = ab / P;
      const int stride = d == 0 ? 1 : (d == 1 ? P : P2);
      const int base = d == 0 ? P * ab : (d == 1 ? a + P2 * b : ab);
      const double* v = V + base;
      const double* Es = E + s * P;
      const double* dEs = dE + s * P;
      t = 0.0;
      n = 0.0;
      for (int m = 0; m < P; ++m) {
        t += Es[m] * v[m * stride];
        if (with_n) n += dEs[m] * v[m * stride];
      }
    }

    /// grad u . n at face coefficient (a, b) of face f from the face values TU, TN.
    KOKKOS_INLINE_FUNCTION static double face_gradient(const double* rec, int f, int a, int b,
                                                       const double* S, const double* TU,
                                                       const double* TN) {
      const int d = f / 2, ta = d == 0 ? 1 : 0, tb = d == 2 ? 1 : 2;
      const double* T = TU + f * P2;
      double da = 0.0, db = 0.0; // tangential derivatives' coefficients
      for (int q = 0; q < P; ++q) {
        da += S[q * P + a] * T[q + P * b];
        db += S[q * P + b] * T[a + P * q];
      }
      const double* fr = rec + FR + 8 * f;
      return fr[2 + d] * TN[f * P2 + a + P * b] + fr[2 + ta] * da + fr[2 + tb] * db;
    }

    /// Scratch of element k of the team.
    struct Local {
      double *U, *R, *Fm, *Gn, *TU, *TN, *Dl, *rec;
    };
    KOKKOS_INLINE_FUNCTION Local local(double* base, int k) const {
      constexpr bool diffusion = DIFF;
      double* p = base + k * ED;
      Local l;
      l.U = p;
      l.R = p + P3;
      l.Fm = p + 2 * P3;
      p += 2 * P3 + 6 * P2;
      l.Gn = diffusion ? p : nullptr;
      l.TU = diffusion ? p + 6 * P2 : nullptr;
      l.TN = diffusion ? p + 12 * P2 : nullptr;
      l.Dl = diffusion ? p + 18 * P2 : nullptr;
      l.rec = diffusion ? p + 24 * P2 : p;
      return l;
    }

    /// Geometry record of element e: group 6 the volume entries, group f < 6 face f's.
    KOKKOS_INLINE_FUNCTION void record(int e, int group, double* rec) const {
      if (group == 6) {
        volume_record(vgeo, e, vel, DIFF, rec);
        return;
      }
      face_record(fgeo, ftype, tau, e, group, vel, DIFF, eta * nu, 6, rec + FR + 8 * group);
    }

    /// Modal traces of the states V of the team's nl elements into dst (elem, face, 0..P^2-1,
    /// 0..ncomp-1); with diffusion the face values go through TU, TN first.
    KOKKOS_FORCEINLINE_FUNCTION void emit(const TeamMember& team, double* base, int e0, int nl,
                                          bool from_r, const double* S, const double* E,
                                          const double* dE, const View4& dst) const {
      constexpr bool diffusion = DIFF;
      if (!diffusion) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
          const int k = idx / (6 * P2), fab = idx % (6 * P2);
          const Local l = local(base, k);
          double t, n;
          face_coefficient(from_r ? l.R : l.U, E, dE, fab / P2, fab % P2, false, t, n);
          dst(elems(e0 + k), fab / P2, fab % P2, 0) = t;
        });
        return;
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
        const int k = idx / (6 * P2), fab = idx % (6 * P2);
        const Local l = local(base, k);
        face_coefficient(from_r ? l.R : l.U, E, dE, fab / P2, fab % P2, true, l.TU[fab], l.TN[fab]);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
        const int k = idx / (6 * P2), fab = idx % (6 * P2), f = fab / P2, ab = fab % P2;
        const Local l = local(base, k);
        const int e = elems(e0 + k);
        dst(e, f, ab, 0) = l.TU[fab];
        dst(e, f, ab, 1) = face_gradient(l.rec, f, ab % P, ab / P, S, l.TU, l.TN);
      });
    }

    KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
      double* scratch = static_cast<double*>(
          team.team_scratch(level).get_shmem(sizeof(double) * (shared_doubles() + ne * ED)));
      // Two inlined copies: with level-0 scratch the compiler sees shared-memory pointers
      // (32-bit LDS/STS addressing, see shared_space); level 1 lives in global memory.
      if (level == 0)
        run(team, shared_space(scratch));
      else
        run(team, scratch);
    }

    KOKKOS_FORCEINLINE_FUNCTION void run(const TeamMember& team, double* S) const {
      constexpr bool diffusion = DIFF;
      const bool lsrk = ep.mode == Epilogue::lsrk;
      const int nelem = static_cast<int>(elems.extent(0));
      const int e0 = team.league_rank() * ne;
      const int nl = nelem - e0 < ne ? nelem - e0 : ne;
      double* K = S + P2;
      double* E = K + P2;
      double* dE = E + 2 * P;
      double* base = dE + 2 * P;

      // 1. Every global read of the stage at once: tables, states, registers, geometry
      //    records and the neighbours' traces (re-oriented), so one memory latency per team.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shared_doubles()), [&](int m) {
        if (m < P2)
          S[m] = tables.S(m / P, m % P);
        else if (m < 2 * P2)
          K[m - P2] = tables.K((m - P2) / P, (m - P2) % P);
        else if (m < 2 * P2 + 2 * P)
          E[m - 2 * P2] = tables.E((m - 2 * P2) / P, (m - 2 * P2) % P);
        else
          dE[m - 2 * P2 - 2 * P] = tables.dE((m - 2 * P2 - 2 * P) / P, (m - 2 * P2 - 2 * P) % P);
      });
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P3), [&](int idx) {
        const int k = idx / P3, m = idx % P3, e = elems(e0 + k);
        const Local l = local(base, k);
        l.U[m] = u(e, m);
        if (lsrk && !traces_only) l.R[m] = reg(e, m);
      });
      if (!traces_only || diffusion) // the gradients' J^{-1} n
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 7), [&](int idx) {
          const int k = idx / 7;
          record(elems(e0 + k), idx % 7, local(base, k).rec);
        });
      if (!traces_only) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
          const int k = idx / (6 * P2), fab = idx % (6 * P2), f = fab / P2, ab = fab % P2;
          const int e = elems(e0 + k), type = ftype(e, f);
          double uout = 0.0, gout = 0.0; // outflow: replaced by this side's values later
          if (type == face_local || type == face_ghost) {
            const int o = orient(e, f), a = ab % P, b = ab / P;
            const int ip = (o & 1) ? b : a, jp = (o & 1) ? a : b;
            const double sg =
                (((o & 2) && (ip & 1)) ? -1.0 : 1.0) * (((o & 4) && (jp & 1)) ? -1.0 : 1.0);
            neighbour_trace(type, trace, ghost, nbr(e, f), nbr_face(e, f), ip + P * jp, diffusion,
                            uout, gout);
            uout *= sg;
            gout *= sg;
          }
          const Local l = local(base, k);
          l.Fm[fab] = uout;
          if (diffusion) l.Gn[fab] = gout;
        });
      }
      team.team_barrier();
      if (traces_only) {
        emit(team, base, e0, nl, false, S, E, dE, trace_out);
        return;
      }

      // 2. Face values (diffusion: for the gradients).
      if (diffusion) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
          const int k = idx / (6 * P2), fab = idx % (6 * P2);
          const Local l = local(base, k);
          face_coefficient(l.U, E, dE, fab / P2, fab % P2, true, l.TU[fab], l.TN[fab]);
        });
        team.team_barrier();
      }

      // 3. Upwind + SIPG fluxes, coefficient by coefficient, on the six faces.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
        const int k = idx / (6 * P2), fab = idx % (6 * P2), f = fab / P2, ab = fab % P2;
        const Local l = local(base, k);
        const double* fr = l.rec + FR + 8 * f;
        double uin, gin = 0.0, dummy;
        if (diffusion) {
          uin = l.TU[fab];
          gin = face_gradient(l.rec, f, ab % P, ab / P, S, l.TU, l.TN);
        } else {
          face_coefficient(l.U, E, dE, f, ab, false, uin, dummy);
        }
        double uout = l.Fm[fab], gout = diffusion ? l.Gn[fab] : 0.0;
        if (static_cast<int>(fr[6]) == face_outflow) {
          uout = uin;
          gout = gin;
        }
        double flux = physics::upwind_flux(fr[0], uin, uout);
        const double dS = fr[1];
        if (diffusion) {
          flux += physics::sipg_flux(nu, fr[5], uin, uout, gin, gout);
          l.Dl[fab] = 0.5 * nu * (uin - uout) * dS;
        }
        l.Fm[fab] = -flux * dS;
      });
      team.team_barrier();

      // 4. Volume terms, lifted face terms, M^{-1} and the epilogue.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P3), [&](int idx) {
        const int k = idx / P3, m = idx % P3;
        const Local l = local(base, k);
        const double* U = l.U;
        const double* Fm = l.Fm;
        const double* rec = l.rec;
        const int ix[3] = {m % P, (m / P) % P, m / P2};
        const int i = ix[0], j = ix[1], kk = ix[2];
        double v0 = 0.0, v1 = 0.0, v2 = 0.0;
        for (int q = 0; q < P; ++q) {
          v0 += S[i * P + q] * U[q + P * (j + P * kk)];
          v1 += S[j * P + q] * U[i + P * (q + P * kk)];
          v2 += S[kk * P + q] * U[i + P * (j + P * q)];
        }
        double r = rec[0] * v0 + rec[1] * v1 + rec[2] * v2;
        // Faces: the flux lifted by E_s along the normal.
        r += E[i] * Fm[0 * P2 + j + P * kk] + E[P + i] * Fm[1 * P2 + j + P * kk];
        r += E[j] * Fm[2 * P2 + i + P * kk] + E[P + j] * Fm[3 * P2 + i + P * kk];
        r += E[kk] * Fm[4 * P2 + i + P * j] + E[P + kk] * Fm[5 * P2 + i + P * j];
        if (diffusion) {
          const double* G = rec + 4;
          // Volume: -nu sum_dd' G_dd' <d_d phi, d_d' u>.
          double vol = 0.0;
          for (int d = 0; d < 3; ++d) {
            const int sd = d == 0 ? 1 : (d == 1 ? P : P2); // stride of direction d
            const int b0 = m - ix[d] * sd;
            double kd = 0.0;
            for (int q = 0; q < P; ++q)
              kd += K[ix[d] * P + q] * U[b0 + q * sd];
            vol += G[4 * d] * kd;
            for (int dp = 0; dp < 3; ++dp) {
              if (dp == d || G[3 * d + dp] == 0.0) continue;
              const int sdp = dp == 0 ? 1 : (dp == 1 ? P : P2);
              const int b2 = b0 - ix[dp] * sdp;
              double mixed = 0.0; // sum_qr S(i_d, q) S(r, i_dp) U[.. q along d, r along dp ..]
              for (int q = 0; q < P; ++q) {
                double t = 0.0;
                for (int rr = 0; rr < P; ++rr)
                  t += S[rr * P + ix[dp]] * U[b2 + q * sd + rr * sdp];
                mixed += S[ix[d] * P + q] * t;
              }
              vol += G[3 * d + dp] * mixed;
            }
          }
          r -= nu * vol;
          // Symmetry term (nu/2)[u] grad(phi) . n, lifted by dE_s and S.
          for (int f = 0; f < 6; ++f) {
            const int d = f / 2, sd = f % 2, ta = d == 0 ? 1 : 0, tb = d == 2 ? 1 : 2;
            const int a = ix[ta], b = ix[tb];
            const double* D = l.Dl + f * P2;
            const double* fr = rec + FR + 8 * f;
            double la = 0.0, lb = 0.0;
            for (int q = 0; q < P; ++q) {
              la += S[a * P + q] * D[q + P * b];
              lb += S[b * P + q] * D[a + P * q];
            }
            r += fr[2 + d] * dE[sd * P + ix[d]] * D[a + P * b] +
                 E[sd * P + ix[d]] * (fr[2 + ta] * la + fr[2 + tb] * lb);
          }
        }
        r *= rec[3];
        const int e = elems(e0 + k);
        if (lsrk) {
          const double kr = ep.a * l.R[m] + ep.dt * r;
          reg(e, m) = kr;
          const double un = U[m] + ep.b * kr;
          u(e, m) = un;
          l.R[m] = un; // the updated state, for the emitted traces
        } else {
          ep.out(e, m) = r;
        }
      });
      if (lsrk && ep.emit_traces) {
        team.team_barrier();
        emit(team, base, e0, nl, true, S, E, dE, trace_out);
      }
    }
  };

  // ----------------------------------------------------------------------------------------
  /// The modal stage in pencil form: the same discretisation and answer as Modal<DIFF>,
  /// organised for few shared-memory accesses and instructions per degree of freedom (the
  /// entry-wise modal kernel is bound by its shared-memory traffic, docs/performance.md):
  ///  * inputs come as per-element records and per-face neighbour words built once per
  ///    operator (build_modal_records), copied into team scratch with asynchronous copies
  ///    together with the states, registers and neighbour traces (copy_async); without
  ///    diffusion only inflow faces' neighbour traces are read and only outflow faces' own
  ///    traces emitted (the upwind flux);
  ///  * face passes run one thread per face coefficient pair (a, b) through all six faces, so
  ///    the pencil strides are compile-time constants and the two faces of a direction share
  ///    their pencil loads (E_0(m) = (-1)^m E_1(m), dE_0(m) = (-1)^(m+1) dE_1(m) for the
  ///    orthonormal Legendre basis);
  ///  * the volume pass runs one thread per x-pencil (j, l): the x-direction works on the pencil
  ///    in registers with compile-time indices, so the structural zeros of S(i, q) =
  ///    int phi_i' phi_q (non-zero only for q < i, i + q odd) and K(i, q) = int phi_i' phi_q'
  ///    (i + q even, i, q >= 1) are skipped at compile time (checked where the tables are
  ///    built); the y- and z-directions use one row of S (and K) per thread; with diffusion the
  ///    x-y and x-z cross terms reuse the y- and z-contractions, the y-z cross terms are summed
  ///    over the (y, z) plane with broadcast loads; every cross term runs only where the
  ///    element's metric has it;
  ///  * the update and the global stores run per mode after a barrier (coalesced).
  template <bool DIFF>
  struct ModalPencil : ModalFields {

    /// Per-element record (mrec, ModalRecordLayout): [0..2] c_d = adj(J)[d] . a, [3] 1/|J|,
    /// with diffusion [4..12] G = adj adj^T / |J| (volume_record); face f at FR + FS f: with
    /// diffusion as written by face_record, its type at FT; advection (a . n) dS alone.
    using Layout = ModalRecordLayout<DIFF>;
    static constexpr int FR = Layout::FR, FS = Layout::FS, FT = Layout::FT, GR = Layout::GR;
    /// Team: S, E_1, and with diffusion K, dE_1.
    static constexpr int TD = DIFF ? 2 * P2 + 2 * P : P2 + P;
    /// Element: U, R, Fm (neighbour's values, then fluxes), with diffusion Gn (neighbour's
    /// normal gradients), TU, TN (own face values and normal derivatives), Dl (symmetry jumps);
    /// the record.
    /// States in scratch with x-rows of PX doubles: P + 1 where P is a multiple of 8, so that
    /// the pencils of neighbouring threads do not fall on the same shared-memory banks.
    static constexpr int PX = P % 8 == 0 ? P + 1 : P, PY = PX * P, UX = PY * P;
    /// ... and per face the neighbour's orientation signs by the parities of (a, b), SG
    /// doubles after the record.
    static constexpr int RS = 2 * UX + (DIFF ? 5 : 1) * 6 * P2, SG = 24;
    static constexpr int ED = RS + GR + SG;
    /// Team scratch: the tables; one element buffer (ne ED), two when a team takes several
    /// batches (the next batch is loaded into the other); three buffers of neighbour words
    /// (6 ne each: the batch computed, the batch loaded, the batch after).
    KOKKOS_INLINE_FUNCTION static constexpr int scratch_doubles(int ne, int batches) {
      return TD + (batches > 1 ? 2 : 1) * ne * ED + 3 * 6 * ne;
    }

    /// Values (t) and normal derivatives (n) at the faces s = 0, 1 of direction D of pencil
    /// (a, b) from the even and odd partial sums.
    template <int D, bool WITH_N>
    KOKKOS_FORCEINLINE_FUNCTION static void
    face_pair(const double* U, int a, int b, const double* E1, const double* dE1, double& t0,
              double& t1, double& n0, double& n1) {
      constexpr int stride = D == 0 ? 1 : (D == 1 ? PX : PY);
      const double* v = U + (D == 0 ? PX * (a + P * b) : (D == 1 ? a + PY * b : a + PX * b));
      double even = 0.0, odd = 0.0, deven = 0.0, dodd = 0.0;
      DG_UNROLL
      for (int m = 0; m < P; ++m) {
        const double x = v[m * stride];
        if (m % 2 == 0) {
          even += E1[m] * x;
          if (WITH_N) deven += dE1[m] * x;
        } else {
          odd += E1[m] * x;
          if (WITH_N) dodd += dE1[m] * x;
        }
      }
      t0 = even - odd;
      t1 = even + odd;
      n0 = dodd - deven;
      n1 = deven + dodd;
    }

    /// Direction D = 1 (y) or 2 (z) of the volume terms of an x-pencil, o = j or l its index
    /// along D, Ud the pencil plane (U(i, q) = Ud[i + stride_D q]): advection c v(i), diffusion
    /// -gdd K-contraction, and the cross terms with x, -g0d sum_q S(i, q) w(q) -
    /// gd0 sum_r S(r, i) v(r), where v = S(o, :) . U and w = S(:, o) . U along D.
    template <int D, bool CROSS>
    KOKKOS_FORCEINLINE_FUNCTION static void
    cross_terms(double* acc, const double* Ud, const double* S, const double* K, int o, double c,
                double gdd, double g0d, double gd0) {
      constexpr int stride = D == 1 ? PX : PY;
      double v[P], w[CROSS ? P : 1];
      DG_UNROLL
      for (int i = 0; i < P; ++i) {
        v[i] = 0.0;
        if (CROSS) w[i] = 0.0;
      }
      DG_UNROLL
      for (int q = 0; q < P; ++q) {
        const double sv = S[o * P + q], sk = gdd * K[o * P + q];
        const double sw = CROSS ? S[q * P + o] : 0.0;
        DG_UNROLL
        for (int i = 0; i < P; ++i) {
          const double x = Ud[i + stride * q];
          v[i] += sv * x;
          if (CROSS) w[i] += sw * x;
          acc[i] -= sk * x;
        }
      }
      DG_UNROLL
      for (int i = 0; i < P; ++i) {
        double x = 0.0;
        if (CROSS) {
          DG_UNROLL
          for (int q = 0; q < P; ++q) {
            if ((i + q) % 2 == 1 && q < i) x += g0d * S[i * P + q] * w[q];
            if ((i + q) % 2 == 1 && i < q) x += gd0 * S[q * P + i] * v[q];
          }
        }
        acc[i] += c * v[i] - x;
      }
    }

    /// grad u . n at face coefficient ab = (a, b) of face f from the face values TU, TN; Sa,
    /// Sb the columns a, b of S.
    KOKKOS_FORCEINLINE_FUNCTION static double face_gradient(const double* fr, int f, int ab, int a,
                                                            int b, const double* Sa,
                                                            const double* Sb, const double* TU,
                                                            const double* TN) {
      const int d = f / 2, ta = d == 0 ? 1 : 0, tb = d == 2 ? 1 : 2;
      const double gn = fr[2 + d] * TN[f * P2 + ab];
      if (fr[2 + ta] == 0.0 && fr[2 + tb] == 0.0) return gn; // J^{-1} n along the normal
      const double* T = TU + f * P2;
      double da = 0.0, db = 0.0;
      DG_UNROLL
      for (int q = 0; q < P; ++q) {
        da += Sa[q] * T[q + P * b];
        db += Sb[q] * T[a + P * q];
      }
      return gn + fr[2 + ta] * da + fr[2 + tb] * db;
    }

    /// Face values (and with diffusion normal derivatives) of the states U of the team's
    /// elements into TU, TN: one thread per (element, a, b).
    KOKKOS_FORCEINLINE_FUNCTION void face_values(const TeamMember& team, const double* E,
                                                 const double* dE, double* base, int nl) const {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, ab = idx % P2, a = ab % P, b = ab / P;
        const double* U = base + k * ED;
        double* TU = base + k * ED + 2 * UX + 12 * P2;
        double* TN = TU + 6 * P2;
        double E1[P], dE1[P];
        DG_UNROLL
        for (int m = 0; m < P; ++m) {
          E1[m] = E[m];
          dE1[m] = dE[m];
        }
        face_pair<0, true>(U, a, b, E1, dE1, TU[ab], TU[P2 + ab], TN[ab], TN[P2 + ab]);
        face_pair<1, true>(U, a, b, E1, dE1, TU[2 * P2 + ab], TU[3 * P2 + ab], TN[2 * P2 + ab],
                           TN[3 * P2 + ab]);
        face_pair<2, true>(U, a, b, E1, dE1, TU[4 * P2 + ab], TU[5 * P2 + ab], TN[4 * P2 + ab],
                           TN[5 * P2 + ab]);
      });
    }

    /// Face coefficients of the states U of the team's nl elements into trace_out (with
    /// diffusion also the normal gradients; a barrier inside).
    KOKKOS_FORCEINLINE_FUNCTION void emit(const TeamMember& team, const double* S, const double* E,
                                          const double* dE, double* base, const long long* wds,
                                          int e0, int nl) const {
      if (DIFF) {
        face_values(team, E, dE, base, nl);
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
          const int k = idx / P2, ab = idx % P2, a = ab % P, b = ab / P;
          const int e = elem(e0 + k);
          const double* TU = base + k * ED + 2 * UX + 12 * P2;
          const double* TN = TU + 6 * P2;
          const double* rec = TU + 18 * P2;
          double Sa[P], Sb[P];
          DG_UNROLL
          for (int q = 0; q < P; ++q) {
            Sa[q] = S[q * P + a];
            Sb[q] = S[q * P + b];
          }
          DG_UNROLL
          for (int f = 0; f < 6; ++f) {
            trace_out(e, f, ab, 0) = TU[f * P2 + ab];
            trace_out(e, f, ab, 1) = face_gradient(rec + FR + FS * f, f, ab, a, b, Sa, Sb, TU, TN);
          }
        });
        return;
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, ab = idx % P2, a = ab % P, b = ab / P;
        const double* U = base + k * ED;
        const int e = elem(e0 + k);
        double E1[P];
        DG_UNROLL
        for (int m = 0; m < P; ++m)
          E1[m] = E[m];
        double t0, t1, n0, n1;
        // The faces a neighbour reads (all of them without words: the trace kernel).
        const long long* w = wds ? wds + 6 * k : nullptr;
        auto put = [&](int f, double v) {
          if (!w || ((w[f] >> word_emit) & 1)) trace_out(e, f, ab, 0) = v;
        };
        face_pair<0, false>(U, a, b, E1, E1, t0, t1, n0, n1);
        put(0, t0);
        put(1, t1);
        face_pair<1, false>(U, a, b, E1, E1, t0, t1, n0, n1);
        put(2, t0);
        put(3, t1);
        face_pair<2, false>(U, a, b, E1, E1, t0, t1, n0, n1);
        put(4, t0);
        put(5, t1);
      });
    }

    KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
      double* scratch = static_cast<double*>(
          team.team_scratch(level).get_shmem(sizeof(double) * scratch_doubles(ne, batches)));
      if (level == 0)
        run<true>(team, shared_space(scratch));
      else
        run<false>(team, scratch);
    }

    /// Elements of batch bi (ne, fewer in the last batch).
    KOKKOS_FORCEINLINE_FUNCTION int batch_elems(int bi) const {
      const int left = static_cast<int>(elems.extent(0)) - bi * ne;
      return left < ne ? left : ne;
    }

    /// Copies the neighbour words of batch bi into dst (asynchronous copies).
    template <bool SHARED>
    KOKKOS_FORCEINLINE_FUNCTION void copy_words(const TeamMember& team, int bi,
                                                long long* dst) const {
      const int e0 = bi * ne;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, batch_elems(bi) * 6), [&](int idx) {
        copy_async<SHARED>(dst + idx, &mwords(elem(e0 + idx / 6), idx % 6));
      });
    }

    /// Issues the loads of batch bi into the element buffer base (asynchronous copies): the
    /// states and registers, the records, the neighbours' traces as stored (wds: the batch's
    /// neighbour words, loaded one batch earlier; the orientation's sign flips are applied in
    /// the flux pass), and the neighbour words of batch bw (if bw >= 0) into wnext.
    template <bool SHARED>
    KOKKOS_FORCEINLINE_FUNCTION void issue(const TeamMember& team, int bi, double* base,
                                           const long long* wds, int bw, long long* wnext) const {
      const bool lsrk = ep.mode == Epilogue::lsrk;
      const int e0 = bi * ne, nl = batch_elems(bi);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P3), [&](int idx) {
        const int k = idx / P3, m = idx % P3, e = elem(e0 + k);
        double* U = base + k * ED;
        const int pm = m + (PX - P) * (m / P); // padded position
        copy_async<SHARED>(U + pm, &u(e, m));
        if (lsrk && !traces_only) copy_async<SHARED>(U + UX + pm, &reg(e, m));
      });
      if (!traces_only || DIFF) // the gradients' J^{-1} n
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * GR), [&](int idx) {
          const int k = idx / GR, g = idx % GR;
          copy_async<SHARED>(base + k * ED + RS + g, &mrec(elem(e0 + k), g));
        });
      if (traces_only) return;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * SG), [&](int idx) {
        const int k = idx / SG, f = (idx % SG) / 4, pa = idx & 1, pb = (idx >> 1) & 1;
        const long long w = wds[6 * k + f];
        base[k * ED + RS + GR + idx % SG] =
            (((w >> word_sign_a) & pa) ^ ((w >> word_sign_b) & pb)) & 1 ? -1.0 : 1.0;
      });
      const int nc = static_cast<int>(trace.extent(3));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * 6 * P2), [&](int idx) {
        const int k = idx / (6 * P2), fab = idx % (6 * P2), f = fab / P2, ab = fab % P2;
        const long long w = wds[6 * k + f];
        double* Fm = base + k * ED + 2 * UX;
        if (!((w >> word_present) & (w >> word_read) & 1)) {
          // Boundary faces (outflow: replaced by u_in) and faces the upwind flux takes from
          // this side: 0.
          Fm[fab] = 0.0;
          if (DIFF) Fm[6 * P2 + fab] = 0.0;
          return;
        }
        const int a = ab % P, b = ab / P;
        const double* src = ((w >> word_ghost) & 1) ? ghost.data() : trace.data();
        src += (w & word_offset_mask) + (((w >> word_swap) & 1) ? b + P * a : a + P * b) * nc;
        copy_async<SHARED>(Fm + fab, src);
        if (DIFF) copy_async<SHARED>(Fm + 6 * P2 + fab, src + 1);
      });
      if (bw >= 0) copy_words<SHARED>(team, bw, wnext);
    }

    /// Batches of ne elements, bi = league rank + i league size for i = 0, 1, ...: the loads of
    /// batch i + 1 (and the neighbour words of batch i + 2) are in flight while batch i is
    /// computed, so a team waits for memory with nothing else to do only before its first
    /// batch.
    template <bool SHARED>
    KOKKOS_FORCEINLINE_FUNCTION void run(const TeamMember& team, double* S) const {
      const int nelem = static_cast<int>(elems.extent(0));
      const int nb = (nelem + ne - 1) / ne, L = team.league_size();
      int bi = team.league_rank();
      if (bi >= nb) return; // the whole team
      double* E = S + P2;   // E_1(m) = phi_m(1)
      double* K = E + P;    // diffusion: K(i, q) = int phi_i' phi_q'
      double* dE = K + P2;  // diffusion: dE_1(m) = phi_m'(1)
      double* buf = S + TD;
      long long* wbuf = reinterpret_cast<long long*>(buf + (batches > 1 ? 2 : 1) * ne * ED);

      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TD), [&](int m) {
        if (m < P2)
          S[m] = tables.S(m / P, m % P);
        else if (m < P2 + P)
          E[m - P2] = tables.E(1, m - P2);
        else if (m < 2 * P2 + P)
          K[m - P2 - P] = tables.K((m - P2 - P) / P, (m - P2 - P) % P);
        else
          dE[m - 2 * P2 - P] = tables.dE(1, m - 2 * P2 - P);
      });
      // Prologue: the first batch's neighbour words; its loads and the second batch's words.
      const bool words = !traces_only;
      if (words) {
        copy_words<SHARED>(team, bi, wbuf);
        copy_wait();
        team.team_barrier();
      }
      issue<SHARED>(team, bi, buf, wbuf, words && bi + L < nb ? bi + L : -1, wbuf + 6 * ne);
      for (int i = 0; bi < nb; ++i, bi += L) {
        copy_wait();
        team.team_barrier();
        const int bn = bi + L;
        if (bn < nb)
          issue<SHARED>(team, bn, buf + ((i + 1) & 1) * ne * ED, wbuf + ((i + 1) % 3) * 6 * ne,
                        words && bn + L < nb ? bn + L : -1, wbuf + ((i + 2) % 3) * 6 * ne);
        compute(team, S, E, K, dE, buf + (i & 1) * ne * ED, wbuf + (i % 3) * 6 * ne, bi);
      }
    }

    /// The stage of batch bi from its loaded buffer base and neighbour words wds.
    KOKKOS_FORCEINLINE_FUNCTION void compute(const TeamMember& team, const double* S,
                                             const double* E, const double* K, const double* dE,
                                             double* base, const long long* wds, int bi) const {
      const bool lsrk = ep.mode == Epilogue::lsrk;
      const int e0 = bi * ne, nl = batch_elems(bi);
      if (traces_only) {
        emit(team, S, E, dE, base, nullptr, e0, nl);
        return;
      }

      // 2. Upwind (+ SIPG) fluxes: one thread per face coefficient (a, b) through the six faces.
      if (DIFF) {
        face_values(team, E, dE, base, nl);
        team.team_barrier();
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, ab = idx % P2, a = ab % P, b = ab / P;
        const double* U = base + k * ED;
        double* Fm = base + k * ED + 2 * UX;
        const double* rec = Fm + (DIFF ? 5 : 1) * 6 * P2;
        const double* sgn = rec + GR + (a & 1) + 2 * (b & 1); // orientation signs, sgn[4 f]
        double t[6];
        double Sa[DIFF ? P : 1], Sb[DIFF ? P : 1];
        if (DIFF) {
          const double* TU = Fm + 12 * P2;
          DG_UNROLL
          for (int f = 0; f < 6; ++f)
            t[f] = TU[f * P2 + ab];
          DG_UNROLL
          for (int q = 0; q < (DIFF ? P : 1); ++q) {
            Sa[q] = S[q * P + a];
            Sb[q] = S[q * P + b];
          }
        } else {
          double E1[P], n0, n1;
          DG_UNROLL
          for (int m = 0; m < P; ++m)
            E1[m] = E[m];
          face_pair<0, false>(U, a, b, E1, E1, t[0], t[1], n0, n1);
          face_pair<1, false>(U, a, b, E1, E1, t[2], t[3], n0, n1);
          face_pair<2, false>(U, a, b, E1, E1, t[4], t[5], n0, n1);
        }
        DG_UNROLL
        for (int f = 0; f < 6; ++f) {
          const double* fr = rec + FR + FS * f;
          const double uin = t[f];
          // Advection: (a . n) dS in the record; a face without a neighbour is an outflow face.
          const double an = fr[0], dS = DIFF ? fr[1] : 1.0;
          // (FT is -1 without diffusion: the index is guarded for the branch not taken.)
          const bool outflow = DIFF ? static_cast<int>(fr[DIFF ? FT : 0]) == face_outflow
                                    : !((wds[6 * k + f] >> word_present) & 1);
          // The neighbour's value as copied, re-oriented; 0 on boundary faces (as stored by
          // issue), this side's on outflow faces.
          const double sg = sgn[4 * f];
          const double uout = outflow ? uin : sg * Fm[f * P2 + ab];
          double flux = physics::upwind_flux(an, uin, uout);
          if (DIFF) {
            const double* TU = Fm + 12 * P2;
            const double gin = face_gradient(fr, f, ab, a, b, Sa, Sb, TU, TU + 6 * P2);
            const double gout = outflow ? gin : sg * Fm[6 * P2 + f * P2 + ab];
            flux += physics::sipg_flux(nu, fr[5], uin, uout, gin, gout);
            Fm[24 * P2 + f * P2 + ab] = 0.5 * nu * (uin - uout) * dS; // Dl
          }
          Fm[f * P2 + ab] = -flux * dS;
        }
      });
      team.team_barrier();

      // 3. Volume and lifted face terms, M^{-1}: one thread per x-pencil (j, l) of an element,
      //    its P results accumulated in registers.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
        const int k = idx / P2, jl = idx % P2, j = jl % P, l = jl / P;
        const double* U = base + k * ED;
        double* R = base + k * ED + UX + PX * jl;
        const double* Fm = base + k * ED + 2 * UX;
        const double* rec = Fm + (DIFF ? 5 : 1) * 6 * P2;
        const double* G = rec + 4; // diffusion: G(d, d') = G[3 d + d']
        const double c0 = rec[0], c1 = rec[1], c2 = rec[2];
        double acc[P];
        // x: the pencil in registers, compile-time indices.
        {
          double u0[P];
          DG_UNROLL
          for (int q = 0; q < P; ++q)
            u0[q] = U[PX * jl + q];
          const double fx0 = Fm[jl], fx1 = Fm[P2 + jl];
          const double g00 = DIFF ? nu * G[0] : 0.0;
          DG_UNROLL
          for (int i = 0; i < P; ++i) {
            double v = 0.0, vk = 0.0;
            DG_UNROLL
            for (int q = 0; q < P; ++q) {
              if ((i + q) % 2 == 1 && q < i) v += S[i * P + q] * u0[q];
              if (DIFF && (i + q) % 2 == 0 && i > 0 && q > 0) vk += K[i * P + q] * u0[q];
            }
            acc[i] = c0 * v - g00 * vk + ((i % 2 == 1) ? fx1 - fx0 : fx1 + fx0) * E[i];
          }
        }
        // y and z: one row of S (and K) each; with diffusion the contractions S U along y and
        // z (vy, vz) and S^T U (wy, wz) feed the x-y and x-z cross terms.
        const double* Uy = U + PY * l; // U(i, q, l) = Uy[i + PX q]
        const double* Uz = U + PX * j; // U(i, j, q) = Uz[i + PY q]
        if (!DIFF) {
          DG_UNROLL
          for (int q = 0; q < P; ++q) {
            const double s1 = c1 * S[j * P + q], s2 = c2 * S[l * P + q];
            DG_UNROLL
            for (int i = 0; i < P; ++i)
              acc[i] += s1 * Uy[i + PX * q] + s2 * Uz[i + PY * q];
          }
        } else {
          // The x-y and x-z cross terms only where G has them (not on axis-aligned elements).
          if (G[1] != 0.0 || G[3] != 0.0)
            cross_terms<1, true>(acc, Uy, S, K, j, c1, nu * G[4], nu * G[1], nu * G[3]);
          else
            cross_terms<1, false>(acc, Uy, S, K, j, c1, nu * G[4], 0.0, 0.0);
          if (G[2] != 0.0 || G[6] != 0.0)
            cross_terms<2, true>(acc, Uz, S, K, l, c2, nu * G[8], nu * G[2], nu * G[6]);
          else
            cross_terms<2, false>(acc, Uz, S, K, l, c2, nu * G[8], 0.0, 0.0);
          // y-z cross terms: sum_qr [G12 S(j, q) S(r, l) + G21 S(l, r) S(q, j)] U(i, q, r).
          const double g12 = nu * G[5], g21 = nu * G[7];
          if (g12 != 0.0 || g21 != 0.0) {
            DG_NO_UNROLL
            for (int q = 0; q < P; ++q) {
              const double a12 = g12 * S[j * P + q], a21 = g21 * S[q * P + j];
              DG_NO_UNROLL
              for (int r = 0; r < P; ++r) {
                const double c = a12 * S[r * P + l] + a21 * S[l * P + r];
                const double* row = U + PX * q + PY * r;
                DG_UNROLL
                for (int i = 0; i < P; ++i)
                  acc[i] -= c * row[i];
              }
            }
          }
        }
        // Faces y and z: the flux lifted by E_s along the normal.
        const double ey1 = E[j], ez1 = E[l];
        const double ey0 = (j & 1) ? -ey1 : ey1, ez0 = (l & 1) ? -ez1 : ez1;
        const double* Fy = Fm + 2 * P2 + P * l;
        const double* Fz = Fm + 4 * P2 + P * j;
        DG_UNROLL
        for (int i = 0; i < P; ++i)
          acc[i] += ey0 * Fy[i] + ey1 * Fy[P2 + i] + ez0 * Fz[i] + ez1 * Fz[P2 + i];
        if (DIFF) {
          // Symmetry terms (nu/2)[u] grad(phi) . n: per face f (d, s) with tangential
          // coefficients (a, b), fr[2 + d] dE_s(i_d) D(a, b) + E_s(i_d) (fr[2 + ta] la +
          // fr[2 + tb] lb), la = sum_q S(a, q) D(q, b), lb = sum_q S(b, q) D(a, q).
          const double* Dl = Fm + 24 * P2;
          const double* frs = rec + FR;
          // x faces: (a, b) = (j, l), i_d = i.
          DG_UNROLL
          for (int s = 0; s < 2; ++s) {
            const double* D = Dl + s * P2;
            const double* fr = frs + FS * s;
            double la = 0.0, lb = 0.0;
            if (fr[3] != 0.0 || fr[4] != 0.0) {
              DG_UNROLL
              for (int q = 0; q < P; ++q) {
                la += S[j * P + q] * D[q + P * l];
                lb += S[l * P + q] * D[j + P * q];
              }
            }
            const double fd = fr[2] * D[jl], tang = fr[3] * la + fr[4] * lb;
            DG_UNROLL
            for (int i = 0; i < P; ++i) {
              const double es = (s == 0 && i % 2 == 1) ? -E[i] : E[i];
              const double des = (s == 0 && i % 2 == 0) ? -dE[i] : dE[i];
              acc[i] += des * fd + es * tang;
            }
          }
          // y faces (d = 1): (a, b) = (i, l), i_d = j; z faces (d = 2): (a, b) = (i, j),
          // i_d = l. Not unrolled over f (register pressure).
          DG_NO_UNROLL
          for (int f = 2; f < 6; ++f) {
            const int d = f / 2, s = f % 2, id = d == 1 ? j : l, ob = d == 1 ? l : j;
            const double* D = Dl + f * P2;
            const double* fr = frs + FS * f;
            const double e1 = E[id], de1 = dE[id];
            const double es = (s == 0 && (id & 1)) ? -e1 : e1;
            const double des = s == 1 ? de1 : ((id & 1) ? de1 : -de1);
            const double fn = fr[2 + d], fa = fr[2 + 0], fb = fr[2 + (d == 1 ? 2 : 1)];
            if (fa == 0.0 && fb == 0.0) { // J^{-1} n along the normal: no tangential terms
              DG_UNROLL
              for (int i = 0; i < P; ++i)
                acc[i] += fn * des * D[i + P * ob];
              continue;
            }
            DG_UNROLL
            for (int i = 0; i < P; ++i) {
              double la = 0.0, lb = 0.0;
              DG_UNROLL
              for (int q = 0; q < P; ++q) {
                if ((i + q) % 2 == 1 && q < i) la += S[i * P + q] * D[q + P * ob];
                lb += S[ob * P + q] * D[i + P * q];
              }
              acc[i] += fn * des * D[i + P * ob] + es * (fa * la + fb * lb);
            }
          }
        }
        const double ij = rec[3];
        DG_UNROLL
        for (int i = 0; i < P; ++i) {
          const double r = acc[i] * ij;
          R[i] = lsrk ? ep.a * R[i] + ep.dt * r : r;
        }
      });
      team.team_barrier();

      // 4. The update and the global stores, one thread per mode.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P3), [&](int idx) {
        const int k = idx / P3, m = idx % P3, e = elem(e0 + k);
        double* U = base + k * ED;
        const int pm = m + (PX - P) * (m / P);
        const double kr = U[UX + pm];
        if (lsrk) {
          reg(e, m) = kr;
          const double un = U[pm] + ep.b * kr;
          u(e, m) = un;
          U[pm] = un;
        } else {
          ep.out(e, m) = kr;
        }
      });
      if (lsrk && ep.emit_traces) {
        team.team_barrier();
        emit(team, S, E, dE, base, wds, e0, nl);
      }
    }
  };

  /// Elements per team on the modal path: the variant's modal_elems, else by order (GPUs;
  /// one on CPUs, where a team is one thread).
  static int modal_elems(const KernelVariant& v) {
    if (v.modal_elems > 0) return v.modal_elems;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // Measured on the H100 with 128-thread teams (docs/performance.md, "Modal path").
    return P3 <= 27 ? 8 : (P3 <= 125 ? 4 : (P3 <= 216 ? 2 : 1));
#else
    return 1;
#endif
  }

  static void modal(const StageArgs& a, bool traces_only, const View4& out) {
    const int n = static_cast<int>(a.elems.extent(0));
    if (n == 0) return;
    const int ne = modal_elems(a.variant);
    const bool diffusion = a.pde.diffusion.nu > 0.0;
    if (a.variant.modal_pencil) {
      if (diffusion)
        launch_pencil<true>(a, traces_only, out);
      else
        launch_pencil<false>(a, traces_only, out);
    } else if (diffusion) {
      launch_modal<true>(a, traces_only, out, ne);
    } else {
      launch_modal<false>(a, traces_only, out, ne);
    }
  }

  /// Elements per team and threads of the pencil kernel: on GPUs about 128 pencils (P^2 per
  /// element) per team, the threads rounded up to whole warps; one element on CPUs.
  static int pencil_elems(const KernelVariant& v, bool diffusion) {
    if (v.modal_elems > 0) return v.modal_elems;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // Measured fastest on the H100 (--modal-elems 1..8, docs/performance.md, "Session 5"):
    // the occupancy steps with registers and scratch make the best count uneven in p.
    if (diffusion) return P <= 2 ? 8 : (P == 3 ? 3 : (P == 4 ? 4 : (P == 6 ? 3 : 1)));
    if (P <= 3) return P2 >= 128 ? 1 : 128 / P2;
    return P == 4 ? 4 : (P == 6 ? 3 : (P == 7 ? 2 : 1));
#else
    (void)diffusion;
    return 1;
#endif
  }

  /// Batches of elements per team of the pencil kernel: the variant's modal_batches, else 1.
  /// Several batches overlap the next batch's loads with the current one's work but need two
  /// element buffers (half the resident teams, or fewer elements per team): slower on the H100
  /// at every order measured (docs/performance.md, "Session 5").
  static int pencil_batches(const KernelVariant& v) {
    return v.modal_batches > 0 ? v.modal_batches : 1;
  }

  /// The modal kernels (Modal, ModalPencil) share their members and their order.
  template <class K>
  static K modal_kernel(const StageArgs& a, bool traces_only, const View4& out, int ne) {
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
                         a.elems_first}};
  }

  /// Launch bounds of the pencil kernel on GPUs: MINB = 0, none; else at most pencil_threads
  /// threads per team and MINB teams per SM, which caps ptxas' registers at 65536 /
  /// (pencil_threads MINB) (rounded down to a multiple of 8): MINB = 3, 4, 5, 6, 8 give 168,
  /// 128, 96, 80, 64. The bounded kernels are built for p <= pencil_bounds_max_order only.
  static constexpr int pencil_threads = 128;
  static constexpr int pencil_bounds_max_order = 8;

  /// The variant's pencil_min_blocks (-1: the order's default, pencil_min_blocks_default);
  /// 0 where the order has no bounded kernels or on CPUs.
  static int pencil_min_blocks(const KernelVariant& v, bool diffusion) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    if (P - 1 > pencil_bounds_max_order) return 0;
    const int m =
        v.pencil_min_blocks >= 0 ? v.pencil_min_blocks : pencil_min_blocks_default(diffusion);
    DG_VERIFY(m == 0 || m == 3 || m == 4 || m == 5 || m == 6 || m == 8,
              "pencil_min_blocks " << m << ": valid are 0, 3, 4, 5, 6, 8");
    return m;
#else
    (void)v;
    (void)diffusion;
    return 0;
#endif
  }

  /// Teams per SM the pencil kernel is bounded to by default (0: unbounded), measured on the
  /// H100 (dgbench stage --pencil-bounds 0,3,4,5,6,8; docs/performance.md, "Sessions 6 and
  /// 7"): advection 64 registers (70 to 74 without bounds: 7 teams of 128 threads per SM, 8
  /// with; p = 7 as well since session 7, 4.8e10 against 4.6e10 unbounded);
  /// advection-diffusion, 96 to 254 registers without bounds, capped at 96 (p = 4, 5), 128
  /// (p = 6) and 168 (p = 7, 8), which spills a little and lets more teams in.
  static constexpr int pencil_min_blocks_default(bool diffusion) {
    if (!diffusion) return 8;
    return P <= 4 ? 0 : (P <= 6 ? 5 : (P == 7 ? 4 : 3));
  }

  /// The pencil kernel with the variant's launch bounds. Where the order's default bounds
  /// leave no team that fits (e.g. the two element buffers of modal_batches > 1 at 8 teams per
  /// SM), the unbounded kernel runs instead; bounds asked for explicitly fail there.
  template <bool DIFF>
  static void launch_pencil(const StageArgs& a, bool traces_only, const View4& out) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    if constexpr (P - 1 <= pencil_bounds_max_order) {
      switch (pencil_min_blocks(a.variant, DIFF)) {
      case 3:
        return launch_pencil<DIFF, 3>(a, traces_only, out);
      case 4:
        return launch_pencil<DIFF, 4>(a, traces_only, out);
      case 5:
        return launch_pencil<DIFF, 5>(a, traces_only, out);
      case 6:
        return launch_pencil<DIFF, 6>(a, traces_only, out);
      case 8:
        return launch_pencil<DIFF, 8>(a, traces_only, out);
      default:
        break;
      }
    }
#endif
    launch_pencil<DIFF, 0>(a, traces_only, out);
  }

  /// One launch with bounds MINB (the unbounded kernel where the order's default bounds leave
  /// no team size that fits this device).
  template <bool DIFF, int MINB>
  static void launch_pencil(const StageArgs& a, bool traces_only, const View4& out) {
    using Pol = std::conditional_t<
        MINB == 0, TeamPolicy,
        Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<pencil_threads, MINB>>>;
    const int n = static_cast<int>(a.elems.extent(0));
    using Kernel = ModalPencil<DIFF>;
    const int batches = pencil_batches(a.variant);
    int ne = pencil_elems(a.variant, DIFF);
    // With two element buffers, fewer elements per team where they would not fit into the
    // 48 KB of level-0 scratch.
    if (a.variant.modal_elems <= 0)
      while (ne > 1 && sizeof(double) * Kernel::scratch_doubles(ne, batches) + 256 > 48 * 1024)
        --ne;
    DG_VERIFY(a.modal_rec.extent(0) == a.block->u.extent(0) &&
                  a.modal_words.extent(0) == a.block->u.extent(0),
              "pencil kernel without its per-element records (DGOperator builds them)");
    Kernel k = modal_kernel<Kernel>(a, traces_only, out, ne);
    k.batches = batches;
    const size_t bytes = sizeof(double) * Kernel::scratch_doubles(ne, batches) + 256;
    const int threads = a.variant.team_size > 0
                            ? a.variant.team_size
                            : std::min(MINB > 0 ? pencil_threads : 256, (ne * P2 + 31) / 32 * 32);
    const int nb = (n + ne - 1) / ne;
    const Pol pol = policy<Kernel, Pol>((nb + batches - 1) / batches, bytes, k, threads);
    if constexpr (MINB > 0)
      if (pol.team_size() < 1 && a.variant.pencil_min_blocks < 0)
        return launch_pencil<DIFF, 0>(a, traces_only, out);
    DG_VERIFY(pol.team_size() >= 1, "pencil kernel (p = " << P - 1 << ", launch bounds " << MINB
                                                          << "): no team size fits on this device");
    const char* label = traces_only ? "dg::fixed::pencil_traces" : "dg::fixed::pencil_stage";
    Kokkos::parallel_for(label, pol, k);
    check_launch(label);
  }

  template <bool DIFF>
  static void launch_modal(const StageArgs& a, bool traces_only, const View4& out, int ne) {
    const int n = static_cast<int>(a.elems.extent(0));
    Modal<DIFF> k = modal_kernel<Modal<DIFF>>(a, traces_only, out, ne);
    const size_t bytes =
        sizeof(double) * (Modal<DIFF>::shared_doubles() + ne * Modal<DIFF>::ED) + 256;
    // 128 threads measured fastest on the H100 for p = 3..7 (docs/performance.md).
    const int threads = a.variant.team_size > 0 ? a.variant.team_size : 128;
    const TeamPolicy pol = policy((n + ne - 1) / ne, bytes, k, threads);
    Kokkos::parallel_for(traces_only ? "dg::fixed::modal_traces" : "dg::fixed::modal_stage", pol,
                         k);
  }

  /// One launch of the quadrature path: the stage (traces_only = false, emitted traces into
  /// `out` = a.trace_out) or the traces of block.u into `out`.
  static void launch(const StageArgs& a, bool traces_only, const View4& out) {
    const int n = static_cast<int>(a.elems.extent(0));
    if (n == 0) return;
    const ElementBlock& b = *a.block;
    const bool recompute = a.variant.recompute_metric && !b.affine;
    Stage k{b.u, b.reg, b.verts, b.vgeo, b.ghost, b.fgeo, b.trace, out, b.ftype, b.nbr, b.nbr_face,
            b.orient, b.tau, a.elems, a.points, b.tables, a.pde, a.bc, a.time, a.ep, b.affine,
            a.variant.register_blocked, recompute, traces_only,
            // vertices: for recomputed metrics, point coordinates (rotation, Dirichlet data)
            recompute || a.pde.advection.kind != 0 || a.has_dirichlet, 0};
    const size_t bytes = sizeof(double) * Stage::scratch_doubles(a.pde.diffusion.nu > 0.0) + 512;
    const TeamPolicy pol = policy(n, bytes, k, a.variant.team_size);
    Kokkos::parallel_for(traces_only ? "dg::fixed::traces" : "dg::fixed::stage", pol, k);
  }

  static void stage(const StageArgs& a) {
    if (a.modal) return modal(a, false, a.trace_out);
    launch(a, false, a.trace_out);
  }

  static void traces(const StageArgs& a, const View4& out) {
    if (a.modal) return modal(a, true, out);
    launch(a, true, out);
  }

  // ----------------------------------------------------------------------------------------
  /// Batched transforms (dgbench): `ne` elements per team, each through the same contractions.
  struct Transform {
    View2 in, out;
    BasisTables tables;
    bool inner, blocked;
    int ne, nelem, level;

    KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
      auto alloc = [&](int n) {
        return static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * n));
      };
      const Tables tb = load_tables(team, alloc(TAB), tables, View1());
      const int nin = inner ? Q3 : P3, nout = inner ? P3 : Q3;
      double* A = alloc(nin);
      double* Bf = alloc(nout);
      double* T1 = alloc(TMP);
      double* T2 = alloc(TMP);
      for (int k = 0; k < ne; ++k) {
        const int e = team.league_rank() * ne + k;
        if (e >= nelem) break;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nin), [&](int m) { A[m] = in(e, m); });
        team.team_barrier();
        if (inner)
          inner3<false>(team, blocked, A, Bf, T1, T2, tb.B, tb.B, tb.B);
        else
          backward3(team, blocked, A, Bf, T1, T2, tb.B, tb.B, tb.B);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nout),
                             [&](int m) { out(e, m) = Bf[m]; });
        team.team_barrier();
      }
    }
  };

  static void transform(const BasisTables& t, const View2& in, const View2& out, bool inner,
                        const KernelVariant& v) {
    if (v.concurrent_transform) return concurrent(t, in, out, inner, v);
    const int nelem = static_cast<int>(in.extent(0));
    const int ne = v.team_elems < 1 ? 1 : v.team_elems;
    Transform k{in, out, t, inner, v.register_blocked, ne, nelem, 0};
    const size_t bytes = sizeof(double) * (TAB + P3 + Q3 + 2 * TMP) + 256;
    const TeamPolicy pol = policy((nelem + ne - 1) / ne, bytes, k, v.team_size);
    Kokkos::parallel_for(inner ? "dg::fixed::inner" : "dg::fixed::backward", pol, k);
  }

  // ----------------------------------------------------------------------------------------
  /// Contracts direction AX of `ne` consecutive (N0, N1, N2) tensors with M (as `contract`
  /// does for one): entry (i0, i1, i2) of element e at in[e * ein + i0 + LI * (i1 + N1 * i2)],
  /// rows of LI >= N0 entries; the result, direction AX of size NOUT, at
  /// out[e * eout + o0 + LO * (o1 + D1 * o2)]. One TeamThreadRange over all the elements:
  /// R = 0: one thread per (element, output entry); R >= 1: one thread per R pencils along AX
  /// (pencils j, j + n, ... of the n = ceil(ne pencils / R) threads, so that neighbouring
  /// threads touch neighbouring pencils), their inputs and sums in registers, each entry of M
  /// loaded once for the R pencils, the stores last. No barrier.
  template <int N0, int N1, int N2, int AX, int NOUT, bool INNER, int LI, int LO, int R>
  KOKKOS_INLINE_FUNCTION static void contract_elems(const TeamMember& team, int ne,
                                                    const double* in, int ein, double* out,
                                                    int eout, const double* M) {
    constexpr int NIN = AX == 0 ? N0 : (AX == 1 ? N1 : N2);
    constexpr int D0 = AX == 0 ? NOUT : N0, D1 = AX == 1 ? NOUT : N1, D2 = AX == 2 ? NOUT : N2;
    constexpr int SIN = AX == 0 ? 1 : (AX == 1 ? LI : LI * N1);
    constexpr int SOUT = AX == 0 ? 1 : (AX == 1 ? LO : LO * D1);
    if (R == 0) {
      constexpr int NO = D0 * D1 * D2;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne * NO), [&](const int idx) {
        const int e = idx / NO, k = idx - e * NO;
        const int i0 = k % D0, i1 = (k / D0) % D1, i2 = k / (D0 * D1);
        const int o = AX == 0 ? i0 : (AX == 1 ? i1 : i2);
        const double* x =
            in + e * ein + (AX == 0 ? 0 : i0) + LI * ((AX == 1 ? 0 : i1) + N1 * (AX == 2 ? 0 : i2));
        double s = 0.0;
        for (int m = 0; m < NIN; ++m)
          s += (INNER ? M[m * NOUT + o] : M[o * NIN + m]) * x[m * SIN];
        out[e * eout + i0 + LO * (i1 + D1 * i2)] = s;
      });
    } else {
      constexpr int RP = R > 0 ? R : 1;
      constexpr int A0 = AX == 0 ? N1 : N0; // the two other directions, lower first
      constexpr int A1 = AX == 2 ? N1 : N2;
      constexpr int NP = A0 * A1;
      const int total = ne * NP, n = (total + RP - 1) / RP;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int j) {
        int bin[RP], bout[RP];
        for (int k = 0; k < RP; ++k) {
          const int idx = j + k * n < total ? j + k * n : j; // a missing pencil repeats j
          const int e = idx / NP, o0 = (idx - e * NP) % A0, o1 = (idx - e * NP) / A0;
          if (AX == 0) {
            bin[k] = LI * (o0 + N1 * o1);
            bout[k] = LO * (o0 + D1 * o1);
          } else if (AX == 1) {
            bin[k] = o0 + LI * N1 * o1;
            bout[k] = o0 + LO * D1 * o1;
          } else {
            bin[k] = o0 + LI * o1;
            bout[k] = o0 + LO * o1;
          }
          bin[k] += e * ein;
          bout[k] += e * eout;
        }
        double r[RP][NIN], s[RP][NOUT];
        for (int k = 0; k < RP; ++k)
          for (int m = 0; m < NIN; ++m)
            r[k][m] = in[bin[k] + m * SIN];
        for (int o = 0; o < NOUT; ++o) {
          for (int k = 0; k < RP; ++k)
            s[k][o] = 0.0;
          for (int m = 0; m < NIN; ++m) {
            const double c = INNER ? M[m * NOUT + o] : M[o * NIN + m];
            for (int k = 0; k < RP; ++k)
              s[k][o] += c * r[k][m];
          }
        }
        for (int k = 0; k < RP; ++k)
          if (k == 0 || j + k * n < total)
            for (int o = 0; o < NOUT; ++o)
              out[bout[k] + o * SOUT] = s[k][o];
      });
    }
  }

  /// Batched transforms with `ne` elements per team processed concurrently (dgbench
  /// --variants conc, conc2, conc-entry): each contraction is one TeamThreadRange over all of
  /// the team's elements (contract_elems with R pencils per thread, R = 0: one thread per
  /// entry), so their loads are in flight together, and a team needs two barriers. The first
  /// contraction reads the input straight from global memory and the last writes the output
  /// straight to it; only the two intermediates (element after element) and B live in scratch.
  /// Contraction order z, x, y (the tensor product does not depend on it): z first, so that
  /// consecutive threads read consecutive input addresses (pencils along z, x fastest across
  /// threads); y last, so that they write runs of D0 consecutive output addresses; x in the
  /// middle, where a thread's pencil is contiguous and its neighbour's one row further: the
  /// intermediates' rows are padded to an odd length, which spreads a warp's rows over all
  /// shared-memory banks. With pencils per thread (R >= 1) the x contraction works in place:
  /// a pencil's input and output are the same row (length OQ, room for P and Q entries), read
  /// whole into registers before the thread writes it, and no other pencil touches that row;
  /// so a team needs one intermediate per element, half the scratch of two. One kernel per
  /// (INNER, R), so that each gets its own registers.
  template <bool INNER, int R>
  struct Concurrent {
    static constexpr int OP = P | 1, OQ = Q | 1; // padded row lengths
    static constexpr bool IN_PLACE = R > 0;
    // Intermediates per element: P x P x Q (rows OP) and Q x P x Q (rows OQ) for backward;
    // Q x Q x P (rows OQ) and P x Q x P (rows OP) for inner: the same two sizes. In place:
    // one of OQ P Q, rows OQ.
    static constexpr int SP = IN_PLACE ? 0 : OP * P * Q, SQ = OQ * P * Q;
    static constexpr int LP = IN_PLACE ? OQ : OP; // row length of the P-row intermediate
    static constexpr int scratch_doubles(int ne) { return Q * P + ne * (SP + SQ); }

    View2 in, out;
    View2 B; // (Q, P)
    int ne, nelem, level;

    KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
      auto alloc = [&](int n) {
        return static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * n));
      };
      const int e0 = team.league_rank() * ne;
      const int n = nelem - e0 < ne ? nelem - e0 : ne; // the last team may have fewer
      double* Bs = alloc(Q * P);
      double* T1 = alloc(ne * (INNER ? SQ : (IN_PLACE ? SQ : SP)));
      double* T2 = IN_PLACE ? T1 : alloc(ne * (INNER ? SP : SQ));
      constexpr int E1 = IN_PLACE ? SQ : (INNER ? SQ : SP), E2 = IN_PLACE ? SQ : (INNER ? SP : SQ);
      // B in scratch for the second and third contractions; the first reads it from global
      // memory, so that its input loads need not wait for a barrier.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * P),
                           [&](const int k) { Bs[k] = B(k / P, k % P); });
      // Rows of a LayoutRight View2 are contiguous; B (Q, P) is one block (as in load_tables).
      const int si = static_cast<int>(in.stride_0()), so = static_cast<int>(out.stride_0());
      const double* x = in.data() + static_cast<size_t>(e0) * si;
      double* y = out.data() + static_cast<size_t>(e0) * so;
      const double* Bg = B.data();
      if (INNER) {
        contract_elems<Q, Q, Q, 2, P, true, Q, OQ, R>(team, n, x, si, T1, E1, Bg);
        team.team_barrier();
        contract_elems<Q, Q, P, 0, P, true, OQ, LP, R>(team, n, T1, E1, T2, E2, Bs);
        team.team_barrier();
        contract_elems<P, Q, P, 1, P, true, LP, P, R>(team, n, T2, E2, y, so, Bs);
      } else {
        contract_elems<P, P, P, 2, Q, false, P, LP, R>(team, n, x, si, T1, E1, Bg);
        team.team_barrier();
        contract_elems<P, P, Q, 0, Q, false, LP, OQ, R>(team, n, T1, E1, T2, E2, Bs);
        team.team_barrier();
        contract_elems<Q, P, Q, 1, Q, false, OQ, Q, R>(team, n, T2, E2, y, so, Bs);
      }
    }
  };

  /// Default threads and elements per team of `Concurrent` on GPUs, from the H100's limits per
  /// SM (65536 registers, 2048 threads, 32 blocks, 228 KB shared memory) and ptxas' 48 to 56
  /// registers per thread at p = 2..8 (one pencil per thread; 32 for one thread per entry, 56 to
  /// 79 for two pencils): 128 threads allow 9 to 10 resident teams; NE = 256 / Q^2 elements
  /// make the widest contraction (Q^2 pencils per element) at most two passes of the team;
  /// fewer where the scratch of a team would exceed 32 KB, down to 1 (22 KB, i.e. 228 KB / 10
  /// teams, was the first guess; the H100 sweep measured NE = 4, 3, 2 faster at p = 6, 7, 8).
  static constexpr int concurrent_threads() {
    return 128;
  }
  static constexpr int concurrent_elems() {
    int ne = 256 / Q2 < 1 ? 1 : (256 / Q2 > 16 ? 16 : 256 / Q2);
    while (ne > 1 && 8 * Concurrent<false, 1>::scratch_doubles(ne) > 32 * 1024)
      --ne;
    return ne;
  }

  template <bool INNER, int R>
  static void concurrent(const BasisTables& t, const View2& in, const View2& out,
                         const KernelVariant& v) {
    const int nelem = static_cast<int>(in.extent(0));
    if (nelem == 0) return;
    using K = Concurrent<INNER, R>;
    const int ne = v.team_elems > 0 ? v.team_elems : concurrent_elems();
    K k{in, out, t.B, ne, nelem, 0};
    const size_t bytes = sizeof(double) * K::scratch_doubles(ne) + 256;
    const int threads = v.team_size > 0 ? v.team_size : concurrent_threads();
    const TeamPolicy pol = policy((nelem + ne - 1) / ne, bytes, k, threads);
    Kokkos::parallel_for(INNER ? "dg::fixed::inner_concurrent" : "dg::fixed::backward_concurrent",
                         pol, k);
  }

  /// KernelVariant::concurrent_transform: R = 0 (one thread per entry), 1, 2 or 3.
  static void concurrent(const BasisTables& t, const View2& in, const View2& out, bool inner,
                         const KernelVariant& v) {
    const int r = !v.register_blocked ? 0 : std::min(std::max(v.pencils_per_thread, 1), 3);
    if (r == 0) {
      if (inner) return concurrent<true, 0>(t, in, out, v);
      return concurrent<false, 0>(t, in, out, v);
    }
    if (r == 1) {
      if (inner) return concurrent<true, 1>(t, in, out, v);
      return concurrent<false, 1>(t, in, out, v);
    }
    if (r == 2) {
      if (inner) return concurrent<true, 2>(t, in, out, v);
      return concurrent<false, 2>(t, in, out, v);
    }
    if (inner) return concurrent<true, 3>(t, in, out, v);
    concurrent<false, 3>(t, in, out, v);
  }
};

} // namespace dg::fixed

/// Explicit instantiation of one order (used by the generated per-order sources).
#define DG_FIXED_INSTANTIATE(p)                                                                    \
  namespace dg::fixed {                                                                            \
  template struct Kernels<(p) + 1, (p) + 2>;                                                       \
  void stage_p##p(const StageArgs& a) {                                                            \
    Kernels<(p) + 1, (p) + 2>::stage(a);                                                           \
  }                                                                                                \
  void traces_p##p(const StageArgs& a, const View4& o) {                                           \
    Kernels<(p) + 1, (p) + 2>::traces(a, o);                                                       \
  }                                                                                                \
  void transform_p##p(const BasisTables& t, const View2& i, const View2& o, bool inner,            \
                      const KernelVariant& v) {                                                    \
    Kernels<(p) + 1, (p) + 2>::transform(t, i, o, inner, v);                                       \
  }                                                                                                \
  }
