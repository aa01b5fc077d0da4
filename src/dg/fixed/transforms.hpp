// Batched fixed-order transforms over the rows of a (E, P^3) / (E, Q^3) view: backward (modes
// to points) and inner products (points to modes) with the block's table B, element by element
// (Transform) or with a team's elements through each contraction together (Concurrent). They
// serve dgbench transforms and the tests (fixed::backward, fixed::inner); the solver's stages do
// not call them. Per element they read P^3 (backward) or Q^3 (inner) doubles and write the
// other: 8 (P^3 + Q^3) bytes per element, 8 (1 + Q^3 / P^3) per mode.
#pragma once

#include "fixed/contract.hpp"
#include "fixed/device.hpp"

#include <algorithm>

namespace dg::fixed {

template <int P, int Q>
struct Transforms : Tensor<P, Q> {
  using T = Tensor<P, Q>;
  using T::backward3;
  using T::load_tables;
  using T::P3;
  using T::Q2;
  using T::Q3;
  using T::TAB;
  using T::TMP;
  using typename T::Tables;

  /// Batched transforms: `ne` elements per team, each through the same contractions. A measured
  /// baseline of Concurrent (dgbench transforms --variants blocked, entry).
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
          T::template inner3<false>(team, blocked, A, Bf, T1, T2, tb.B, tb.B, tb.B);
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
    const TeamPolicy pol = policy<Q>(ExecSpace(), (nelem + ne - 1) / ne, bytes, k, v.team_size);
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
  /// fewer where the scratch of a team would exceed 32 KB, down to 1 (32 KB rather than 228 KB /
  /// 10 teams = 22 KB: the H100 sweep measures NE = 4, 3, 2 faster than the 22 KB limit allows
  /// at p = 6, 7, 8).
  static constexpr int concurrent_threads() { return 128; }
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
    const TeamPolicy pol = policy<Q>(ExecSpace(), (nelem + ne - 1) / ne, bytes, k, threads);
    Kokkos::parallel_for(INNER ? "dg::fixed::inner_concurrent" : "dg::fixed::backward_concurrent",
                         pol, k);
  }

  /// KernelVariant::concurrent_transform: R = 0 (one thread per entry), 1, 2 or 3. R = 0 and 1
  /// are measured baselines (dgbench transforms --variants conc-entry, conc) of R = 2 and 3.
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
