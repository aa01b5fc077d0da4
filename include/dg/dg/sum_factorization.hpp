// Sum-factorised tensor contractions on a team (Algorithms 1 and 2 of "Accelerating DGM with
// GPUs and Kokkos"): a 3-D tensor is contracted with a 1-D matrix one direction at a time, so a
// transform costs O(p^4) per element instead of O(p^6).
//
// Index order of every 3-D tensor: x fastest, entry (i0, i1, i2) at i0 + n0 * (i1 + n1 * i2).
// Modes (i, j, k) <-> directions (r, s, t); points (a, b, c) likewise.
// A 1-D table M is row-major (point, mode) with `ld` = number of modes:
//   backward (modes -> points):  out[a] = sum_i M(a, i) in[i]
//   inner    (points -> modes):  out[i] = sum_a M(a, i) in[a]
#pragma once

#include "dg/core/kokkos.hpp"

namespace dg::sf {

/// Contracts direction `ax` (0, 1, 2) of `in` (dims n[0..2]) with table M; the contracted
/// direction takes size `nout`. `transpose` = false: backward (M is nout x n[ax]);
/// true: inner (M is n[ax] x nout). `accumulate` adds into out. Ends with a team barrier.
KOKKOS_INLINE_FUNCTION void contract(const TeamMember& team, const double* in, double* out, int n0,
                                     int n1, int n2, int ax, const double* M, int ld, int nout,
                                     bool transpose, bool accumulate = false) {
  const int d0 = ax == 0 ? nout : n0, d1 = ax == 1 ? nout : n1, d2 = ax == 2 ? nout : n2;
  const int nin = ax == 0 ? n0 : (ax == 1 ? n1 : n2);
  const int sin = ax == 0 ? 1 : (ax == 1 ? n0 : n0 * n1); // stride of ax in `in`
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, d0 * d1 * d2), [&](const int idx) {
    const int i0 = idx % d0, i1 = (idx / d0) % d1, i2 = idx / (d0 * d1);
    const int o = ax == 0 ? i0 : (ax == 1 ? i1 : i2);
    const int base = (ax == 0 ? 0 : i0) + n0 * ((ax == 1 ? 0 : i1) + n1 * (ax == 2 ? 0 : i2));
    double s = 0.0;
    if (transpose)
      for (int m = 0; m < nin; ++m)
        s += M[m * ld + o] * in[base + m * sin];
    else
      for (int m = 0; m < nin; ++m)
        s += M[o * ld + m] * in[base + m * sin];
    if (accumulate)
      out[idx] += s;
    else
      out[idx] = s;
  });
  team.team_barrier();
}

/// Backward transform: modes (P^3) -> values at Q^3 points, with per-direction tables Mx, My, Mz
/// (each Q x P: B for values, D for a derivative in that direction). tmp1 >= P*P*Q,
/// tmp2 >= P*Q*Q. Order of the contractions: t, then s, then r (Algorithm 1).
KOKKOS_INLINE_FUNCTION void backward(const TeamMember& team, const double* modes, double* vals,
                                     double* tmp1, double* tmp2, int P, int Q, const double* Mx,
                                     const double* My, const double* Mz, bool accumulate = false) {
  contract(team, modes, tmp1, P, P, P, 2, Mz, P, Q, false);
  contract(team, tmp1, tmp2, P, P, Q, 1, My, P, Q, false);
  contract(team, tmp2, vals, P, Q, Q, 0, Mx, P, Q, false, accumulate);
}

/// Inner product: values at Q^3 points (already multiplied by weights and Jacobian) -> modes,
/// out[ijk] = sum_abc Mx(a,i) My(b,j) Mz(c,k) in[abc] (Algorithm 2). tmp1 >= Q*Q*P,
/// tmp2 >= Q*P*P.
KOKKOS_INLINE_FUNCTION void inner(const TeamMember& team, const double* vals, double* modes,
                                  double* tmp1, double* tmp2, int P, int Q, const double* Mx,
                                  const double* My, const double* Mz, bool accumulate = false) {
  contract(team, vals, tmp1, Q, Q, Q, 0, Mx, P, P, true);
  contract(team, tmp1, tmp2, P, Q, Q, 1, My, P, P, true);
  contract(team, tmp2, modes, P, P, Q, 2, Mz, P, P, true, accumulate);
}

} // namespace dg::sf

namespace dg::sf {

/// The two tangential directions (a, b) of face f (dg/mesh/hex.hpp conventions).
KOKKOS_INLINE_FUNCTION void face_tangents(int f, int& ta, int& tb) {
  const int d = f / 2;
  ta = d == 0 ? 1 : 0;
  tb = d == 2 ? 1 : 2;
}

/// Face trace: modes (P^3) -> values at the Q^2 face points (a fastest) of face f.
/// `nrm` holds the P values of the normal-direction factor (phi_i or phi_i' at -1 or +1);
/// Ta, Tb (Q x P) the tangential tables. tmp1 >= P*P, tmp2 >= P*Q.
KOKKOS_INLINE_FUNCTION void face_backward(const TeamMember& team, const double* modes, double* out,
                                          double* tmp1, double* tmp2, int P, int Q, int f,
                                          const double* nrm, const double* Ta, const double* Tb) {
  const int d = f / 2;
  int ta, tb;
  face_tangents(f, ta, tb);
  int n[3] = {P, P, P};
  contract(team, modes, tmp1, n[0], n[1], n[2], d, nrm, P, 1, false);
  n[d] = 1;
  contract(team, tmp1, tmp2, n[0], n[1], n[2], ta, Ta, P, Q, false);
  n[ta] = Q;
  contract(team, tmp2, out, n[0], n[1], n[2], tb, Tb, P, Q, false);
}

/// Face inner product: values at the Q^2 points of face f (weights included) -> modes,
/// out[ijk] (+)= sum_ab nrm[i_d] Ta(a, i_ta) Tb(b, i_tb) in[ab]. tmp1 >= P*Q, tmp2 >= P*P.
KOKKOS_INLINE_FUNCTION void face_inner(const TeamMember& team, const double* vals, double* modes,
                                       double* tmp1, double* tmp2, int P, int Q, int f,
                                       const double* nrm, const double* Ta, const double* Tb,
                                       bool accumulate) {
  const int d = f / 2;
  int ta, tb;
  face_tangents(f, ta, tb);
  int n[3];
  n[d] = 1;
  n[ta] = Q;
  n[tb] = Q;
  contract(team, vals, tmp1, n[0], n[1], n[2], ta, Ta, P, P, true);
  n[ta] = P;
  contract(team, tmp1, tmp2, n[0], n[1], n[2], tb, Tb, P, P, true);
  n[tb] = P;
  contract(team, tmp2, modes, n[0], n[1], n[2], d, nrm, P, P, true, accumulate);
}

} // namespace dg::sf
