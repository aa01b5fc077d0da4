// The modal path's stage kernel in pencil form (ModalPencil<DIFF, LIN>), the stage the solver runs
// on affine blocks with a constant velocity (LIN: advection with a velocity affine in space, on
// the elements where a . n keeps its sign on each face): ne elements per team, face passes
// one thread per face coefficient pair, the volume pass one thread per x-pencil, the update and
// the stores one thread per mode; with the lsrk epilogue it emits the modal traces of the updated
// state, with traces_only those of block.u. Per element it reads u and the register and writes
// both, reads its record and 6 neighbour words (modal_records.hpp) and the neighbours' modal
// traces (P^2 coefficients per face, ncomp = 1, or 2 with diffusion), and writes its own traces;
// without diffusion only the inflow faces' traces are read and the outflow faces' emitted (3 of
// 6 on the benchmark meshes). Bytes per DOF (stage_bytes_per_dof, averaged over the LSRK stages):
// advection 28.8 + 48 / P + 128 / P^3 (LIN, modal_linear_bytes_per_dof: 28.8 + 48 / P + 152 /
// P^3), advection-diffusion 28.8 + 192 / P + 488 / P^3.
#pragma once

#include "dg/dg/face_flux.hpp"
#include "fixed/contract.hpp"
#include "fixed/device.hpp"
#include "fixed/modal_records.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>
#include <vector>

namespace dg::fixed {

template <int P, int Q>
struct ModalPencilPath : Tensor<P, Q> {
  using T = Tensor<P, Q>;
  using T::P2;
  using T::P3;

  /// Whether the pencil kernels carry their 1-D tables by value (GPUs up to p = 7, where the
  /// functor with them stays under launch_kernel's 4 KB kernel-parameter limit).
  static constexpr bool CT = constant_tables && P <= 8;

  /// The pencil kernels' 1-D tables by value, as team scratch holds them (a placeholder of one
  /// entry each where !CT): S and E_1 = phi(1), and with diffusion K and dE_1 = phi'(1); with
  /// a linear velocity K holds X(i, i + 1).
  static constexpr int CP = CT ? P : 1, CP2 = CP * CP;
  struct ModalConstTables {
    double S[CP2], K[CP2], E[CP], dE[CP];
  };
  /// The tables of a block whose basis tables have q points (modal_matrices, as to_device forms
  /// them, so that they equal team scratch's bit for bit); linear: X in K. Made once per q.
  static const ModalConstTables& const_tables(bool linear, int q) {
    static std::map<int, ModalConstTables> made;
    const int key = linear ? -q : q;
    auto it = made.find(key);
    if (it != made.end()) return it->second;
    ModalConstTables t{};
    if constexpr (CT) {
      const HostTables h = make_tables(P - 1, q);
      std::vector<double> S, K;
      modal_matrices(h, S, K);
      for (int m = 0; m < P2; ++m) {
        t.S[m] = S[m];
        t.K[m] = linear ? 0.0 : K[m];
      }
      for (int m = 0; m < P; ++m) {
        t.E[m] = h.E[P + m];
        t.dE[m] = h.dE[P + m];
        if (linear) t.K[m] = (m + 1.0) / std::sqrt((2.0 * m + 1.0) * (2.0 * m + 3.0));
      }
    }
    return made.emplace(key, t).first->second;
  }

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
  ///
  /// LIN: advection with a velocity affine in space (modal_linear_records): the contravariant
  /// velocity c(xi) = c0 + C xi is linear on the element, so that the flux c_d u has degree
  /// p + 1 along each direction; its projection onto the element's modes, F_d = c0_d u +
  /// sum_e C(d, e) X_e u (X_e: multiplication by xi_e, tridiagonal, X(i, i + 1) = (i + 1) /
  /// sqrt((2i + 1)(2i + 3)) for the orthonormal Legendre modes), gives the volume integrals
  /// against the derivatives of the test functions exactly. On a face (a . n) dS = al + be xi_a
  /// + ga xi_b keeps its sign (elements where it does not take the quadrature pencil path), so
  /// the upwind flux is that linear function times one side's trace, formed the same way.
  /// Two passes (the fluxes and the upwind side's face coefficients, then the face fluxes)
  /// replace the face pass; the volume pass contracts F_d instead of c_d U.
  ///
  /// CART (with diffusion, StageArgs::modal_cartesian): every element axis-aligned, so that G
  /// is diagonal and J^{-1} n lies along each face's normal; the cross terms of the volume
  /// pass and the tangential terms of the face gradients and symmetry terms, which vanish
  /// there, are left out at compile time (fewer registers and scratch loads; the general kernel
  /// tests each element's metric at run time instead).
  template <bool DIFF, bool LIN = false, bool REG = true, bool CART = false>
  struct ModalPencil : ModalFields {
    static_assert(!(DIFF && LIN), "the linear-velocity kernel is for advection");
    static_assert(DIFF || !CART, "the axis-aligned kernel is for advection-diffusion");

    /// Per-element record (mrec, ModalRecordLayout): [0..2] c_d = adj(J)[d] . a, [3] 1/|J|,
    /// with diffusion [4..12] G = adj adj^T / |J| (volume_record); face f at FR + FS f: with
    /// diffusion as written by face_record, its type at FT; advection (a . n) dS alone. LIN:
    /// c0, 1/|J|, C (linear_record_doubles).
    using Layout = ModalRecordLayout<DIFF>;
    static constexpr int FR = Layout::FR, FS = Layout::FS, FT = Layout::FT,
                         GR = LIN ? linear_record_doubles : Layout::GR;
    /// Team: S, E_1, and with diffusion K, dE_1; LIN: X(i, i + 1) after E_1.
    static constexpr int TD = DIFF ? 2 * P2 + 2 * P : (LIN ? P2 + 2 * P : P2 + P);
    /// Element: U, R, Fm (neighbour's values, then fluxes), with diffusion Gn (neighbour's
    /// normal gradients, then the symmetry jumps Dl: the flux pass's thread of (f, a, b) reads
    /// the one and writes the other at the same place), TU, TN (own face values and normal
    /// derivatives);
    /// LIN: UP (the upwind side's face coefficients, 6 P^2; in Fm with LREG) and F3 (F_0, F_1,
    /// F_2; F_1, F_2 with LREG); the record at RS.
    /// States in scratch as U(i, j, l) = U[i + PX j + PY l] (at(j, l): x-pencil (j, l)), padded
    /// so that the pencils and rows the threads of a warp read side by side fall on different
    /// shared-memory banks (16 banks of 8 bytes for a half-warp's doubles): x-rows of P + 1
    /// doubles where P is a multiple of 8; x-y planes of P^2 + 3 (odd, and not 1 modulo 16)
    /// where P is otherwise even. At P = 4 unpadded, the x-pencils P j + P^2 l of a half-warp's
    /// 16 threads fall on 4 bank pairs, four threads each. The padding is the one of least
    /// wavefronts in a count of the kernels' main accesses (docs/performance.md).
    static constexpr int PX = P % 8 == 0 ? P + 1 : P;
    static constexpr int PY = PX * P + (P % 2 == 0 && P % 8 != 0 ? 3 : 0), UX = PY * P;
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int at(int j, int l) { return PX * j + PY * l; }
    /// The place of mode m = i + P j + P^2 l in the padded layout.
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int padded(int m) {
      return m % P + at((m / P) % P, m / P2);
    }
    /// LIN on GPUs (LREG): the launch gives each (element, pencil) of a pass its own thread
    /// (launch_pencil), so that F_0, which the thread of x-pencil (j, l) forms and then alone
    /// contracts, stays in its registers from the flux pass to the volume pass, and the upwind
    /// side's face coefficients take the neighbours' slots in Fm (the face fluxes, which read
    /// four neighbouring coefficients each, are held in registers over one more barrier):
    /// UX + 6 P^2 doubles less scratch per element than with F_0 and UP in scratch (CPUs,
    /// whose one thread runs every pencil of a pass).
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    static constexpr bool LREG = LIN && REG; // REG = false: KernelVariant::modal_linear_registers
#else
    static constexpr bool LREG = false;
#endif
    static constexpr int OFM = 2 * UX, OUP = LREG ? OFM : OFM + (DIFF ? 4 : 1) * 6 * P2,
                         OF3 = OFM + (DIFF ? 4 : 1) * 6 * P2 + (LIN && !LREG ? 6 * P2 : 0);
    /// ... and per face the neighbour's orientation signs by the parities of (a, b), SG
    /// doubles after the record.
    static constexpr int RS = OF3 + (LIN ? (LREG ? 2 : 3) * UX : 0), SG = 24;
    static constexpr int ED = RS + GR + SG;
    /// The 1-D tables by value (ModalConstTables, filled where CT), read wherever a
    /// pass indexes them at compile time (the volume pass along x, the face values, F_d along
    /// x): the functor lives in a constant bank (launch_kernel), so each such entry is a
    /// constant-cache operand instead of a shared-memory load. Rows indexed by a thread's own
    /// pencil (S(j, :), E(j), ...) stay in team scratch, where different addresses cost no
    /// replay.
    ModalConstTables ct{};
    /// Team scratch: the tables; one element buffer (ne ED), two when a team takes several
    /// batches (the next batch is loaded into the other); three buffers of neighbour words
    /// (6 ne each: the batch computed, the batch loaded, the batch after).
    KOKKOS_INLINE_FUNCTION static constexpr int scratch_doubles(int ne, int batches) {
      return TD + (batches > 1 ? 2 : 1) * ne * ED + 3 * 6 * ne;
    }

    /// f(q) for the q < P of parity par (0 or 1): a compile-time trip count of (P + 1) / 2, q a
    /// run-time value. The contractions with one row of S (non-zero only where i + q is odd) or
    /// K (i + q even) at a run-time row i take the rows of one parity only.
    template <class F>
    KOKKOS_FORCEINLINE_FUNCTION static void for_parity(int par, const F& f) {
      DG_UNROLL
      for (int t = 0; t < (P + 1) / 2; ++t) {
        const int q = par + 2 * t;
        if (2 * t + 1 < P || q < P) f(q);
      }
    }

    /// Values (t) and normal derivatives (n) at the faces s = 0, 1 of direction D of pencil
    /// (a, b) from the even and odd partial sums.
    template <int D, bool WITH_N>
    KOKKOS_FORCEINLINE_FUNCTION static void
    face_pair(const double* U, int a, int b, const double* E1, const double* dE1, double& t0,
              double& t1, double& n0, double& n1) {
      constexpr int stride = D == 0 ? 1 : (D == 1 ? PX : PY);
      const double* v = U + (D == 0 ? at(a, b) : (D == 1 ? a + PY * b : a + PX * b));
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

    /// f(idx) for each (element, pencil) index idx < n: with LREG each thread its own index (the
    /// launch makes the team that large), so that the local arrays a thread keeps from one pass
    /// to the next stay in its registers; else through the team's threads.
    template <class F>
    KOKKOS_FORCEINLINE_FUNCTION static void pencils(const TeamMember& team, int n, const F& f) {
      if constexpr (LREG) {
        const int idx = team.team_rank();
        if (idx < n) f(idx);
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), f);
      }
    }

    /// The values at the six faces (0..5) of face coefficient (a, b) of U; E: E_1.
    KOKKOS_FORCEINLINE_FUNCTION static void six_face_values(const double* U, int a, int b,
                                                            const double* E, double* t) {
      double E1[P], n0, n1;
      DG_UNROLL
      for (int m = 0; m < P; ++m)
        E1[m] = E[m];
      face_pair<0, false>(U, a, b, E1, E1, t[0], t[1], n0, n1);
      face_pair<1, false>(U, a, b, E1, E1, t[2], t[3], n0, n1);
      face_pair<2, false>(U, a, b, E1, E1, t[4], t[5], n0, n1);
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
      // S(o, q) and S(q, o) at the q of the parity opposite to o's, K(o, q) at o's.
      for_parity((o + 1) & 1, [&](int q) {
        const double sv = S[o * P + q], sw = CROSS ? S[q * P + o] : 0.0;
        DG_UNROLL
        for (int i = 0; i < P; ++i) {
          const double x = Ud[i + stride * q];
          v[i] += sv * x;
          if (CROSS) w[i] += sw * x;
        }
      });
      for_parity(o & 1, [&](int q) {
        const double sk = gdd * K[o * P + q];
        DG_UNROLL
        for (int i = 0; i < P; ++i)
          acc[i] -= sk * Ud[i + stride * q];
      });
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
      if (CART || (fr[2 + ta] == 0.0 && fr[2 + tb] == 0.0)) return gn; // J^{-1} n along the normal
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
          const double* rec = base + k * ED + RS;
          double Sa[CART ? 1 : P], Sb[CART ? 1 : P];
          DG_UNROLL
          for (int q = 0; q < (CART ? 0 : P); ++q) {
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

    /// LIN, step 2 of compute: (a) one thread per x-pencil (j, l) and face coefficient
    /// (a, b) = (j, l) of each element: F_d = c0_d u + sum_e C(d, e) X_e u on the pencil into F3
    /// (F_0 into f0 with LREG), and each face's upwind side's coefficient (this element's face
    /// value, or the neighbour's as copied and re-oriented) into UP; (b) after a barrier, the
    /// face flux coefficients -(al + be X_a + ga X_b) UP into Fm (with LREG, where UP is Fm,
    /// after one more barrier); boundary data faces that are read hold their flux already
    /// (modal_boundary_data with (a . n) dS). X holds X(i, i + 1), Xc the same at compile-time
    /// indices (ct on GPUs); E: E_1 at compile-time indices.
    KOKKOS_FORCEINLINE_FUNCTION void linear_fluxes(const TeamMember& team, const double* E,
                                                   const double* X, const double* Xc, double* base,
                                                   const long long* wds, int nl, double* f0) const {
      pencils(team, nl * P2, [&](int idx) {
        const int k = idx / P2, jl = idx % P2, j = jl % P, l = jl / P;
        const double* U = base + k * ED;
        const double* rec = U + RS;
        const double* u0p = U + at(j, l);
        // The neighbouring pencils along y and z (the pencil itself at the element's edge,
        // where its coefficient is 0).
        const double* ym = j > 0 ? u0p - PX : u0p;
        const double* yp = j < P - 1 ? u0p + PX : u0p;
        const double* zm = l > 0 ? u0p - PY : u0p;
        const double* zp = l < P - 1 ? u0p + PY : u0p;
        const double xym = j > 0 ? X[j - 1] : 0.0, xyp = j < P - 1 ? X[j] : 0.0;
        const double xzm = l > 0 ? X[l - 1] : 0.0, xzp = l < P - 1 ? X[l] : 0.0;
        double u0[P];
        DG_UNROLL
        for (int i = 0; i < P; ++i)
          u0[i] = u0p[i];
        double* F3 = base + k * ED + OF3 + at(j, l);
        DG_UNROLL
        for (int i = 0; i < P; ++i) {
          const double xx =
              (i > 0 ? Xc[i - 1] * u0[i - 1] : 0.0) + (i < P - 1 ? Xc[i] * u0[i + 1] : 0.0);
          const double xy = xym * ym[i] + xyp * yp[i], xz = xzm * zm[i] + xzp * zp[i];
          DG_UNROLL
          for (int d = 0; d < 3; ++d) {
            const double v =
                rec[d] * u0[i] + rec[4 + 3 * d] * xx + rec[5 + 3 * d] * xy + rec[6 + 3 * d] * xz;
            if (LREG && d == 0)
              f0[i] = v;
            else
              F3[(LREG ? d - 1 : d) * UX + i] = v;
          }
        }
        // Faces: this element's values, or the neighbour's coefficient re-oriented.
        const int a = j, b = l, ab = jl;
        double t[6];
        six_face_values(U, a, b, E, t);
        const double* Fm = U + 2 * UX;
        double* UP = base + k * ED + OUP;
        const double* sgn = rec + GR + (a & 1) + 2 * (b & 1);
        DG_UNROLL
        for (int f = 0; f < 6; ++f) {
          const long long w = wds[6 * k + f];
          if (!((w >> word_present) & (w >> word_read) & 1))
            UP[f * P2 + ab] = t[f];
          else if (!((w >> word_data) & 1))
            UP[f * P2 + ab] = sgn[4 * f] * Fm[f * P2 + ab];
        }
      });
      team.team_barrier();
      double fl[LREG ? 6 : 1]; // LREG: the face fluxes until every thread has read UP
      pencils(team, nl * P2, [&](int idx) {
        const int k = idx / P2, ab = idx % P2, a = ab % P, b = ab / P;
        const double* rec = base + k * ED + RS;
        const double* UP = base + k * ED + OUP;
        double* Fm = base + k * ED + OFM;
        const double xam = a > 0 ? X[a - 1] : 0.0, xap = a < P - 1 ? X[a] : 0.0;
        const double xbm = b > 0 ? X[b - 1] : 0.0, xbp = b < P - 1 ? X[b] : 0.0;
        const int am = a > 0 ? ab - 1 : ab, ap = a < P - 1 ? ab + 1 : ab;
        const int bm = b > 0 ? ab - P : ab, bp = b < P - 1 ? ab + P : ab;
        DG_UNROLL
        for (int f = 0; f < 6; ++f) {
          const long long w = wds[6 * k + f];
          double v;
          if ((w >> word_present) & (w >> word_read) & (w >> word_data) & 1) {
            v = -Fm[f * P2 + ab];
          } else {
            double al, be, ga;
            linear_face_flux(rec, f, al, be, ga);
            const double* V = UP + f * P2;
            v = -(al * V[ab] + be * (xam * V[am] + xap * V[ap]) + ga * (xbm * V[bm] + xbp * V[bp]));
          }
          if (LREG)
            fl[LREG ? f : 0] = v;
          else
            Fm[f * P2 + ab] = v;
        }
      });
      if (LREG) {
        team.team_barrier();
        pencils(team, nl * P2, [&](int idx) {
          double* Fm = base + (idx / P2) * ED + OFM + idx % P2;
          DG_UNROLL
          for (int f = 0; f < 6; ++f)
            Fm[f * P2] = fl[LREG ? f : 0];
        });
      }
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

    /// The neighbour's trace (coefficient 0) that the neighbour word w points to: in bmodal
    /// (boundary data), ghost or trace.
    KOKKOS_FORCEINLINE_FUNCTION const double* neighbour_source(long long w) const {
      return word_source(w, trace.data(), ghost.data(), bmodal.data());
    }

    /// CPUs: asks the cache for batch bi's states, registers and the neighbour traces it reads
    /// (which lie anywhere in trace and ghost).
    KOKKOS_FORCEINLINE_FUNCTION void prefetch_batch(int bi, int nc) const {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
      if (bi * ne >= static_cast<int>(elems.extent(0))) return;
      const int e0 = bi * ne, nl = batch_elems(bi);
      for (int k = 0; k < nl; ++k) {
        const int e = elem(e0 + k);
        for (int m = 0; m < P3; m += 8) {
          __builtin_prefetch(&u(e, m));
          if (reg.extent(0) > 0) __builtin_prefetch(&reg(e, m));
        }
        if (traces_only) continue;
        for (int f = 0; f < 6; ++f) {
          const long long w = mwords(e, f);
          if (!((w >> word_present) & (w >> word_read) & 1)) continue;
          const double* v = neighbour_source(w);
          for (int i = 0; i < P2 * nc; i += 8)
            __builtin_prefetch(v + i);
          __builtin_prefetch(v + P2 * nc - 1);
        }
      }
#else
      (void)bi;
      (void)nc;
#endif
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
        const int pm = padded(m);
        copy_async<SHARED>(U + pm, &u(e, m));
        if (lsrk && !traces_only) {
          // With a = 0 (the first stage) the register is not read: 0 in its place keeps the
          // volume pass's a R + dt r free of a branch (registers: advection-diffusion).
          if (ep.a != 0.0)
            copy_async<SHARED>(U + UX + pm, &reg(e, m));
          else
            U[UX + pm] = 0.0;
        }
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
        base[k * ED + RS + GR + idx % SG] = neighbour_flip(w, pa, pb) ? -1.0 : 1.0;
      });
      const int nc = static_cast<int>(trace.extent(3));
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
      // CPUs (one team at a time, copies synchronous): one face at a time, its word decoded once
      // (one coefficient at a time, as on GPUs, spent most of the copy on index arithmetic);
      // the next batch's neighbour traces, states and registers prefetched.
      prefetch_batch(bi + 1, nc);
      for (int k = 0; k < nl; ++k) {
        double* Fm = base + k * ED + 2 * UX;
        for (int f = 0; f < 6; ++f) {
          const long long w = wds[6 * k + f];
          double* F = Fm + f * P2;
          if (!((w >> word_present) & (w >> word_read) & 1)) {
            for (int ab = 0; ab < P2; ++ab) {
              F[ab] = 0.0;
              if (DIFF) F[6 * P2 + ab] = 0.0;
            }
            continue;
          }
          const double* src = neighbour_source(w);
          const int sa = ((w >> word_swap) & 1) ? P : 1, sb = sa == 1 ? P : 1;
          for (int b = 0; b < P; ++b) {
            DG_UNROLL
            for (int a = 0; a < P; ++a) {
              const double* v = src + (sa * a + sb * b) * nc;
              F[a + P * b] = v[0];
              if (DIFF) F[6 * P2 + a + P * b] = v[1];
            }
          }
        }
      }
#else
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
        const double* src = neighbour_source(w) + neighbour_coefficient(w, a, b, P) * nc;
        copy_async<SHARED>(Fm + fab, src);
        if (DIFF) copy_async<SHARED>(Fm + 6 * P2 + fab, src + 1);
      });
#endif
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
      double* K = E + P;    // diffusion: K(i, q) = int phi_i' phi_q'; LIN: X(i, i + 1)
      double* dE = K + P2;  // diffusion: dE_1(m) = phi_m'(1)
      double* buf = S + TD;
      long long* wbuf = reinterpret_cast<long long*>(buf + (batches > 1 ? 2 : 1) * ne * ED);

      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TD), [&](int m) {
        if (m < P2)
          S[m] = tables.S(m / P, m % P);
        else if (m < P2 + P)
          E[m - P2] = tables.E(1, m - P2);
        else if (LIN)
          K[m - P2 - P] = (m - P2 - P + 1.0) /
                          math::sqrt((2.0 * (m - P2 - P) + 1.0) * (2.0 * (m - P2 - P) + 3.0));
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
      // The tables at compile-time indices: from the constant bank on GPUs (ct).
      const double* Sc = CT ? ct.S : S;
      const double* Kc = CT ? ct.K : K;
      const double* Ec = CT ? ct.E : E;
      const double* dEc = CT ? ct.dE : dE;
      if (traces_only) {
        emit(team, S, Ec, dEc, base, nullptr, e0, nl);
        return;
      }

      // 2. Upwind (+ SIPG) fluxes: one thread per face coefficient (a, b) through the six faces.
      if (DIFF) {
        face_values(team, Ec, dEc, base, nl);
        team.team_barrier();
      }
      double f0[LREG ? P : 1]; // LREG: this thread's pencil of F_0
      if (LIN) {
        linear_fluxes(team, Ec, K, Kc, base, wds, nl, f0);
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nl * P2), [&](int idx) {
          const int k = idx / P2, ab = idx % P2, a = ab % P, b = ab / P;
          const double* U = base + k * ED;
          double* Fm = base + k * ED + 2 * UX;
          const double* rec = base + k * ED + RS;
          const double* sgn = rec + GR + (a & 1) + 2 * (b & 1); // orientation signs, sgn[4 f]
          double t[6];
          double Sa[DIFF && !CART ? P : 1], Sb[DIFF && !CART ? P : 1];
          if (DIFF) {
            const double* TU = Fm + 12 * P2;
            DG_UNROLL
            for (int f = 0; f < 6; ++f)
              t[f] = TU[f * P2 + ab];
            DG_UNROLL
            for (int q = 0; q < (DIFF && !CART ? P : 0); ++q) {
              Sa[q] = S[q * P + a];
              Sb[q] = S[q * P + b];
            }
          } else {
            six_face_values(U, a, b, Ec, t);
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
              Fm[6 * P2 + f * P2 + ab] = 0.5 * nu * (uin - uout) * dS; // Dl, in gout's place
            }
            Fm[f * P2 + ab] = -flux * dS;
          }
        });
      }
      team.team_barrier();

      // 3. Volume and lifted face terms, M^{-1}: one thread per x-pencil (j, l) of an element,
      //    its P results accumulated in registers.
      pencils(team, nl * P2, [&](int idx) {
        const int k = idx / P2, jl = idx % P2, j = jl % P, l = jl / P;
        const double* U = base + k * ED;
        double* R = base + k * ED + UX + at(j, l);
        const double* Fm = base + k * ED + 2 * UX;
        const double* rec = base + k * ED + RS;
        const double* G = rec + 4; // diffusion: G(d, d') = G[3 d + d']
        // LIN: the contractions take F_0, F_1, F_2 with unit coefficients instead of c_d U.
        const double c0 = LIN ? 1.0 : rec[0], c1 = LIN ? 1.0 : rec[1], c2 = LIN ? 1.0 : rec[2];
        const double* F3 = base + k * ED + OF3;
        const double* Ux = LIN ? F3 : U;
        double acc[P];
        // x: the pencil in registers, compile-time indices.
        {
          double u0[P];
          DG_UNROLL
          for (int q = 0; q < P; ++q)
            u0[q] = LREG ? f0[LREG ? q : 0] : Ux[at(j, l) + q];
          const double fx0 = Fm[jl], fx1 = Fm[P2 + jl];
          const double g00 = DIFF ? nu * G[0] : 0.0;
          DG_UNROLL
          for (int i = 0; i < P; ++i) {
            double v = 0.0, vk = 0.0;
            DG_UNROLL
            for (int q = 0; q < P; ++q) {
              if ((i + q) % 2 == 1 && q < i) v += Sc[i * P + q] * u0[q];
              if (DIFF && (i + q) % 2 == 0 && i > 0 && q > 0) vk += Kc[i * P + q] * u0[q];
            }
            acc[i] = c0 * v - g00 * vk + ((i % 2 == 1) ? fx1 - fx0 : fx1 + fx0) * Ec[i];
          }
        }
        // y and z: one row of S (and K) each; with diffusion the contractions S U along y and
        // z (vy, vz) and S^T U (wy, wz) feed the x-y and x-z cross terms.
        const double* F12 = F3 + (LREG ? 0 : UX);         // F_1, then F_2
        const double* Uy = (LIN ? F12 : U) + PY * l;      // U(i, q, l) = Uy[i + PX q]
        const double* Uz = (LIN ? F12 + UX : U) + PX * j; // U(i, j, q) = Uz[i + PY q]
        if (!DIFF) {
          // S(j, q) vanishes unless j + q is odd: half the rows along y and z.
          for_parity((j + 1) & 1, [&](int q) {
            const double s1 = c1 * S[j * P + q];
            DG_UNROLL
            for (int i = 0; i < P; ++i)
              acc[i] += s1 * Uy[i + PX * q];
          });
          for_parity((l + 1) & 1, [&](int q) {
            const double s2 = c2 * S[l * P + q];
            DG_UNROLL
            for (int i = 0; i < P; ++i)
              acc[i] += s2 * Uz[i + PY * q];
          });
        } else {
          // The x-y and x-z cross terms only where G has them (not on axis-aligned elements).
          if (!CART && (G[1] != 0.0 || G[3] != 0.0))
            cross_terms<1, true>(acc, Uy, S, K, j, c1, nu * G[4], nu * G[1], nu * G[3]);
          else
            cross_terms<1, false>(acc, Uy, S, K, j, c1, nu * G[4], 0.0, 0.0);
          if (!CART && (G[2] != 0.0 || G[6] != 0.0))
            cross_terms<2, true>(acc, Uz, S, K, l, c2, nu * G[8], nu * G[2], nu * G[6]);
          else
            cross_terms<2, false>(acc, Uz, S, K, l, c2, nu * G[8], 0.0, 0.0);
          // y-z cross terms: sum_qr [G12 S(j, q) S(r, l) + G21 S(l, r) S(q, j)] U(i, q, r).
          const double g12 = CART ? 0.0 : nu * G[5], g21 = CART ? 0.0 : nu * G[7];
          if (!CART && (g12 != 0.0 || g21 != 0.0)) {
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
          const double* Dl = Fm + 6 * P2;
          const double* frs = rec + FR;
          // x faces: (a, b) = (j, l), i_d = i.
          DG_UNROLL
          for (int s = 0; s < 2; ++s) {
            const double* D = Dl + s * P2;
            const double* fr = frs + FS * s;
            double la = 0.0, lb = 0.0;
            if (!CART && (fr[3] != 0.0 || fr[4] != 0.0)) {
              DG_UNROLL
              for (int q = 0; q < P; ++q) {
                la += S[j * P + q] * D[q + P * l];
                lb += S[l * P + q] * D[j + P * q];
              }
            }
            const double fd = fr[2] * D[jl], tang = CART ? 0.0 : fr[3] * la + fr[4] * lb;
            DG_UNROLL
            for (int i = 0; i < P; ++i) {
              const double es = (s == 0 && i % 2 == 1) ? -Ec[i] : Ec[i];
              const double des = (s == 0 && i % 2 == 0) ? -dEc[i] : dEc[i];
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
            const double fn = fr[2 + d], fa = CART ? 0.0 : fr[2 + 0],
                         fb = CART ? 0.0 : fr[2 + (d == 1 ? 2 : 1)];
            // J^{-1} n along the normal: no tangential terms.
            if (CART || (fa == 0.0 && fb == 0.0)) {
              DG_UNROLL
              for (int i = 0; i < P; ++i)
                acc[i] += fn * des * D[i + P * ob];
            } else {
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
        const int pm = padded(m);
        const double kr = U[UX + pm];
        if (lsrk) {
          if (ep.keep_reg) reg(e, m) = kr;
          const double un = U[pm] + ep.b * kr;
          u(e, m) = un;
          U[pm] = un;
        } else {
          ep.out(e, m) = kr;
        }
      });
      if (lsrk && ep.emit_traces) {
        team.team_barrier();
        emit(team, S, Ec, dEc, base, wds, e0, nl);
      }
    }
  };

  /// Elements per team and threads of the pencil kernel (linear: the linear-velocity kernel;
  /// cartesian: the kernel for axis-aligned elements): on GPUs about 128 pencils (P^2 per
  /// element) per team, the threads rounded up to whole warps; one element on CPUs.
  static int pencil_elems(const KernelVariant& v, bool diffusion, bool linear = false,
                          bool cartesian = false) {
    if (v.modal_elems > 0) return v.modal_elems;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // Measured fastest (dgbench stage --modal-elems, docs/performance.md): on the H100 with
    // 1..8 elements, on the H200 with 0..5 for p = 4 (advection: 5 elements, unbounded) and
    // with diffusion for p = 4..7 (general affine kernel: 5, 4, 2, 2 elements at p = 4..7;
    // axis-aligned: 1, 3, 2, 1); the occupancy steps with registers and scratch make the best
    // count uneven in p.
    if (diffusion && cartesian && (P == 5 || P == 6 || P == 8)) return P == 6 ? 3 : 1;
    if (diffusion)
      return P <= 2 ? 8 : (P == 3 ? 3 : (P == 4 || P == 6 ? 4 : (P == 5 ? 5 : (P <= 8 ? 2 : 1))));
    if (P <= 3) return P2 >= 128 ? 1 : 128 / P2;
    if (P == 5) return linear ? 1 : 5;
    return P == 4 ? 4 : (P == 6 ? 3 : (P == 7 ? 2 : 1));
#else
    (void)diffusion;
    (void)linear;
    (void)cartesian;
    return 1;
#endif
  }

  /// Batches of elements per team of the pencil kernel: the variant's modal_batches, else 1.
  /// Several batches overlap the next batch's loads with the current one's work but need two
  /// element buffers (half the resident teams, or fewer elements per team): slower on the H100
  /// at every order measured, so modal_batches > 1 is a measured baseline (dgbench stage
  /// --modal-batches, docs/performance.md).
  static int pencil_batches(const KernelVariant& v) {
    return v.modal_batches > 0 ? v.modal_batches : 1;
  }

  /// Launch bounds of the pencil kernel on GPUs: MINB = 0, none; else at most pencil_threads
  /// threads per team and MINB teams per SM, which caps ptxas' registers at 65536 /
  /// (pencil_threads MINB) (rounded down to a multiple of 8): MINB = 3, 4, 5, 6, 8 give 168,
  /// 128, 96, 80, 64. The bounded kernels are built for p <= pencil_bounds_max_order only.
  static constexpr int pencil_threads = 128;
  static constexpr int pencil_bounds_max_order = 8;

  /// The variant's pencil_min_blocks (-1: the order's default, pencil_min_blocks_default);
  /// 0 where the order has no bounded kernels or on CPUs.
  static int pencil_min_blocks(const KernelVariant& v, bool diffusion, bool cartesian = false) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    if (P - 1 > pencil_bounds_max_order) return 0;
    const int m = v.pencil_min_blocks >= 0 ? v.pencil_min_blocks
                                           : pencil_min_blocks_default(diffusion, cartesian);
    DG_VERIFY(m == 0 || m == 3 || m == 4 || m == 5 || m == 6 || m == 8,
              "pencil_min_blocks " << m << ": valid are 0, 3, 4, 5, 6, 8");
    return m;
#else
    (void)v;
    (void)diffusion;
    (void)cartesian;
    return 0;
#endif
  }

  /// Teams per SM the pencil kernel is bounded to by default (0: unbounded), measured on the
  /// H100 with the kernel parameters carrying the functor (launch_kernel; dgbench stage
  /// --pencil-bounds 0,4,5,6,8; docs/performance.md): advection 64 registers (70 to 74 without
  /// bounds: 7 teams of 128 threads per SM, 8 with; within 2% of unbounded at p = 3..7);
  /// advection-diffusion, 96 to 254 registers without bounds, capped at 96 (p = 4) and 128
  /// (p = 7), which spills a little and lets more teams in; unbounded at p = 5, where the
  /// cap of 96 spilled 144 bytes a thread (2.56e10 DOF-stages/s against 2.77e10 unbounded),
  /// and at p = 8 capped at 168 (not measured since). On the H200 (--modal-elems 0..5,
  /// docs/performance.md) advection at p = 4 with 5 elements per team and advection-diffusion
  /// at p = 6 with 2 run fastest unbounded (1.02 to 1.04x the H100's settings there); the
  /// kernel for axis-aligned elements (cartesian) at p = 4 unbounded and at p = 7 with 5 teams
  /// per SM (one element per team at both). With the tables at compile-time indices in the
  /// constant bank (CT; --modal-elems 0..8 --pencil-bounds -1,0,5,6,8 on the H200) advection at
  /// p = 3 runs fastest unbounded too (1.03x over 8 teams per SM).
  static constexpr int pencil_min_blocks_default(bool diffusion, bool cartesian = false) {
    if (!diffusion) return P == 4 || P == 5 ? 0 : 8;
    if (cartesian && (P == 5 || P == 8)) return P == 5 ? 0 : 5;
    return P <= 4 || P == 6 || P == 7 ? 0 : (P == 5 ? 5 : (P <= 8 ? 4 : 3));
  }

  /// The pencil kernel with the variant's launch bounds. Where the order's default bounds
  /// leave no team that fits (e.g. the two element buffers of modal_batches > 1 at 8 teams per
  /// SM), the unbounded kernel runs instead; bounds asked for explicitly fail there.
  /// With diffusion on axis-aligned elements (StageArgs::modal_cartesian) the CART kernel.
  template <bool DIFF>
  static void launch_pencil(const StageArgs& a, bool traces_only, const View4& out) {
    const int m = pencil_min_blocks(a.variant, DIFF, a.modal_cartesian);
    if constexpr (DIFF)
      if (a.modal_cartesian) return launch_bounded<true, false, true, true>(a, m, traces_only, out);
    launch_bounded<DIFF>(a, m, traces_only, out);
  }

  /// The launch with MINB = m teams per SM among the bounded kernels built (GPUs, p <=
  /// pencil_bounds_max_order: 3, 4, 5, 6, 8; the linear-velocity kernel 5, 6, 8; the CART
  /// kernel 4 and 5, the order defaults' bounds, the general kernel's for the others), else
  /// unbounded.
  template <bool DIFF, bool LIN = false, bool REG = true, bool CART = false>
  static void launch_bounded(const StageArgs& a, int m, bool traces_only, const View4& out) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    if constexpr (P - 1 <= pencil_bounds_max_order) {
      if constexpr (CART) {
        if (m == 4) return launch_pencil<DIFF, 4, LIN, REG, CART>(a, traces_only, out);
        if (m == 5) return launch_pencil<DIFF, 5, LIN, REG, CART>(a, traces_only, out);
        if (m != 0) return launch_bounded<DIFF, LIN, REG>(a, m, traces_only, out);
      } else {
        if constexpr (!LIN) {
          if (m == 3) return launch_pencil<DIFF, 3>(a, traces_only, out);
          if (m == 4) return launch_pencil<DIFF, 4>(a, traces_only, out);
        }
        if (m == 5) return launch_pencil<DIFF, 5, LIN, REG>(a, traces_only, out);
        if (m == 6) return launch_pencil<DIFF, 6, LIN, REG>(a, traces_only, out);
        if (m == 8) return launch_pencil<DIFF, 8, LIN, REG>(a, traces_only, out);
      }
    }
#else
    (void)m;
#endif
    launch_pencil<DIFF, 0, LIN, REG, CART>(a, traces_only, out);
  }

  /// The kernel with a velocity affine in space (advection; StageArgs::modal_linear), on GPUs
  /// with F_0 in registers or in scratch (KernelVariant::modal_linear_registers), each built
  /// with launch bounds of 5, 6 and 8 teams per SM and without; its traces are those of the
  /// constant-velocity kernel.
  static void launch_linear(const StageArgs& a, bool traces_only, const View4& out) {
    if (traces_only) return launch_pencil<false>(a, true, out);
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    if constexpr (P - 1 <= pencil_bounds_max_order) {
      const int r = a.variant.modal_linear_registers;
      const bool regs = r > 0 || (r < 0 && linear_registers_default);
      const int m = a.variant.pencil_min_blocks < 0 && regs ? linear_min_blocks_default
                                                            : pencil_min_blocks(a.variant, false);
      DG_VERIFY(m == 0 || m == 5 || m == 6 || m == 8,
                "pencil_min_blocks " << m << " with a linear velocity: valid are 0, 5, 6, 8");
      if (regs) return launch_bounded<false, true, true>(a, m, false, out);
      return launch_bounded<false, true, false>(a, m, false, out);
    }
#endif
    launch_pencil<false, 0, true>(a, false, out);
  }

  /// Whether the linear-velocity kernel keeps F_0 in registers by default on GPUs
  /// (ModalPencil::LREG), and with how many teams per SM (launch bounds; 0: none), measured on
  /// the H100 (dgbench stage --physics advection-linear --variants
  /// modal-linear-registers,modal-linear-scratch --pencil-bounds 0,5,6,8, docs/performance.md):
  /// 8 teams at p = 3, 6 at p = 4 to 6 (80 registers: the F_0 it holds across the passes spills
  /// under the 64 of 8 teams, and unbounded, 128 to 147 registers, lets too few teams in), 5 at
  /// p = 7; 1.04 to 1.11x over the kernel with F_0 in scratch at its best bounds. p = 8 (not
  /// measured) keeps F_0 in scratch with the constant-velocity kernel's bounds.
  static constexpr bool linear_registers_default = P <= 8;
  static constexpr int linear_min_blocks_default = P <= 4 ? 8 : (P <= 7 ? 6 : (P == 8 ? 5 : 0));

  /// One launch with bounds MINB (the unbounded kernel where the order's default bounds leave
  /// no team size that fits this device).
  template <bool DIFF, int MINB, bool LIN = false, bool REG = true, bool CART = false>
  static void launch_pencil(const StageArgs& a, bool traces_only, const View4& out) {
    using Pol = std::conditional_t<
        MINB == 0, TeamPolicy,
        Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<pencil_threads, MINB>>>;
    const int n = static_cast<int>(a.elems.extent(0));
    using Kernel = ModalPencil<DIFF, LIN, REG, CART>;
    const int batches = pencil_batches(a.variant);
    int ne = pencil_elems(a.variant, DIFF, LIN, CART);
    auto bytes = [&](int m) { return sizeof(double) * Kernel::scratch_doubles(m, batches) + 256; };
    // Fewer elements per team where they would not fit into level-0 scratch (level0_max_bytes;
    // two element buffers with several batches) or, with F_0 in registers, not one thread per
    // pencil into the team.
    const int cap =
        a.variant.team_size > 0 ? a.variant.team_size : (MINB > 0 ? pencil_threads : 256);
    if (a.variant.modal_elems <= 0)
      while (ne > 1 && (bytes(ne) > level0_max_bytes || (Kernel::LREG && ne * P2 > cap)))
        --ne;
    DG_VERIFY(a.modal_rec.extent(0) == a.block->u.extent(0) &&
                  a.modal_words.extent(0) == a.block->u.extent(0),
              "pencil kernel without its per-element records (DGOperator builds them)");
    // The kernel for ne elements per team and its policy asking for `threads` threads.
    Kernel k;
    auto configure = [&](int threads) {
      k = modal_kernel<Kernel>(a, traces_only, out, ne);
      if constexpr (CT) k.ct = const_tables(LIN, a.block->tables.Q);
      k.batches = batches;
      const int nb = (n + ne - 1) / ne;
      return policy<Q, Kernel, Pol>(a.space, (nb + batches - 1) / batches, bytes(ne), k, threads,
                                    level0_max_bytes);
    };
    Pol pol = configure(a.variant.team_size > 0 ? cap : std::min(cap, (ne * P2 + 31) / 32 * 32));
    if (Kernel::LREG && pol.team_size() >= P2 && pol.team_size() < ne * P2 &&
        a.variant.modal_elems <= 0) {
      // The device gave fewer threads than asked for: fewer elements, one thread per pencil.
      ne = pol.team_size() / P2;
      pol = configure(pol.team_size());
    }
    if constexpr (MINB > 0)
      if (pol.team_size() < 1 && a.variant.pencil_min_blocks < 0)
        return launch_pencil<DIFF, 0, LIN, REG, CART>(a, traces_only, out);
    DG_VERIFY(pol.team_size() >= 1, "pencil kernel (p = " << P - 1 << ", launch bounds " << MINB
                                                          << "): no team size fits on this device");
    DG_VERIFY(!Kernel::LREG || pol.team_size() >= ne * P2,
              "linear-velocity pencil kernel (p = "
                  << P - 1 << "): " << ne << " elements of " << P2
                  << " pencils need as many threads, the team has " << pol.team_size());
    const char* label = traces_only ? "dg::fixed::pencil_traces" : "dg::fixed::pencil_stage";
    launch_kernel(label, pol, k);
  }
};

} // namespace dg::fixed
