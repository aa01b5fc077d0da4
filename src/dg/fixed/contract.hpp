// Shared building blocks of the fixed-order kernels (dg/dg/fixed_order.hpp): `contract`, one
// direction of a 3-D tensor contracted with a small row-major table, and Tensor<P, Q>, the
// compile-time sizes, the 1-D tables in team scratch and the 3-D transforms, face traces and face
// inner products composed of contractions (the quadrature path and the batched transforms build
// on them). They work on team scratch only; load_tables reads the block's 1-D tables (B, D, E,
// dE, w and the points x: 2QP + 4P + 2Q doubles per team), no per-element data.
#pragma once

#include "dg/dg/fixed_order.hpp"

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

template <int P, int Q>
struct Tensor {
  static constexpr int P2 = P * P, P3 = P * P * P, Q2 = Q * Q, Q3 = Q * Q * Q;
  static constexpr int TMP = P * Q * Q; // largest intermediate of a transform (Q >= P)
  // Scratch tables: B, D (Q x P), E, dE (2 x P), w, x (Q).
  static constexpr int TAB = 2 * Q * P + 4 * P + 2 * Q;

  struct Tables {
    const double *B, *D, *E, *dE, *w, *x;
  };

  /// The 1-D tables into team scratch from s: B and D (with BD; TAB doubles in all), then E,
  /// dE, w and x (4 P + 2 Q doubles without BD, where B and D come from elsewhere: the
  /// constant bank of the quadrature pencil path on GPUs).
  template <bool BD = true>
  KOKKOS_INLINE_FUNCTION static Tables load_tables(const TeamMember& team, double* s,
                                                   const BasisTables& t, const View1& pts) {
    constexpr int o = BD ? 2 * Q * P : 0;
    if constexpr (BD) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * P), [&](int k) {
        s[k] = t.B.data()[k];
        s[Q * P + k] = t.D.data()[k];
      });
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * P), [&](int k) {
      s[o + k] = t.E.data()[k];
      s[o + 2 * P + k] = t.dE.data()[k];
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q), [&](int k) {
      s[o + 4 * P + k] = t.w(k);
      s[o + 4 * P + Q + k] = pts.extent(0) > 0 ? pts(k) : 0.0;
    });
    team.team_barrier();
    return Tables{BD ? s : nullptr, BD ? s + Q * P : nullptr, s + o, s + o + 2 * P,
                  s + o + 4 * P,    s + o + 4 * P + Q};
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
};

} // namespace dg::fixed
