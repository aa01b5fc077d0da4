// The modal path's stage kernel in entry-wise form (Modal<DIFF>): affine elements, constant
// velocity, no Dirichlet faces, the stage without quadrature points; one thread per mode or face
// coefficient, ne elements per team. A measured baseline of the pencil kernel
// (modal_pencil_stage.hpp: same discretisation and answer), run by dgbench stage --variants
// modal-entry and the tests. Per element it reads u and the register and writes both, reads the
// neighbours' modal traces (6 faces, P^2 coefficients, ncomp = 1, or 2 with diffusion) and writes
// its own, and reads the affine metric record, face types, neighbours, orientations and penalties.
// Bytes per DOF (stage_bytes_per_dof): 28.8 + 96 ncomp / P + 560 / P^3.
#pragma once

#include "dg/dg/face_flux.hpp"
#include "fixed/contract.hpp"
#include "fixed/device.hpp"
#include "fixed/modal_records.hpp"

namespace dg::fixed {

template <int P, int Q>
struct ModalEntryPath : Tensor<P, Q> {
  using T = Tensor<P, Q>;
  using T::P2;
  using T::P3;

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
  /// A measured baseline (dgbench stage --variants modal-entry, KernelVariant::modal_pencil =
  /// false): the solver runs ModalPencil, which computes the same stage.
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
        if (lsrk && !traces_only) l.R[m] = ep.a != 0.0 ? reg(e, m) : 0.0; // a = 0: not read
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
          if (ep.keep_reg) reg(e, m) = kr;
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

  template <bool DIFF>
  static void launch_modal(const StageArgs& a, bool traces_only, const View4& out, int ne) {
    const int n = static_cast<int>(a.elems.extent(0));
    Modal<DIFF> k = modal_kernel<Modal<DIFF>>(a, traces_only, out, ne);
    const size_t bytes =
        sizeof(double) * (Modal<DIFF>::shared_doubles() + ne * Modal<DIFF>::ED) + 256;
    // 128 threads measured fastest on the H100 for p = 3..7 (docs/performance.md).
    const int threads = a.variant.team_size > 0 ? a.variant.team_size : 128;
    const TeamPolicy pol = policy<Q>(a.space, (n + ne - 1) / ne, bytes, k, threads);
    launch_kernel(traces_only ? "dg::fixed::modal_traces" : "dg::fixed::modal_stage", pol, k);
  }
};

} // namespace dg::fixed
