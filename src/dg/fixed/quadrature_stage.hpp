// The quadrature path of the fixed-order stage (any element, any velocity field, Dirichlet
// faces): one team per element takes the state to the Q^3 quadrature points, forms the fluxes
// there and on the six faces (upwind + SIPG against the neighbours' traces), takes them back by
// inner products, applies M^{-1} and the epilogue, and with the lsrk epilogue emits the traces of
// the updated state; with traces_only it writes the traces of block.u instead. Per element it
// reads u and the register and writes both, reads the neighbours' traces (6 faces, Q^2 points,
// ncomp = 1, or 2 with diffusion) and writes its own, and reads the metric, face types,
// neighbours, orientations and penalties. Bytes per DOF (stage_bytes_per_dof): 28.8 + 96 Q^2 ncomp
// / P^3 + (metric + 144) / P^3, metric = 464 affine (one record per element and face), 80 Q^3 +
// 384 Q^2 stored per point, 192 recomputed from the 8 vertices.
#pragma once

#include "dg/dg/face_flux.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/mesh/hex.hpp"
#include "fixed/contract.hpp"
#include "fixed/device.hpp"

namespace dg::fixed {

/// Geometry of one point from the 8 vertices X[v * 3 + i]: adjugate A[d * 3 + i] and |J|.
KOKKOS_INLINE_FUNCTION void metric_from_vertices(const double* X, const double r[3], double A[9],
                                                 double& det) {
  trilinear_metric(ArrayVertices{X}, r, A, det);
}

/// x = sum_v N_v(r) X_v from vertices in scratch.
KOKKOS_INLINE_FUNCTION void map_from_vertices(const double* X, const double r[3], double x[3]) {
  trilinear_point(ArrayVertices{X}, r, x);
}

template <int P, int Q>
struct QuadraturePath : Tensor<P, Q> {
  using T = Tensor<P, Q>;
  using T::backward3;
  using T::face_backward;
  using T::face_inner;
  using T::load_tables;
  using T::P3;
  using T::Q2;
  using T::Q3;
  using T::TAB;
  using T::TMP;
  using typename T::Tables;

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
    View2 bdata, nuvol, source; // boundary data, diffusivity field, source (ElementBlock)
    View3 avol, aface, nuface;  // velocity and diffusivity fields (empty: constant / rotation)
    physics::AdvectionDiffusion pde;
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
                contract_face(g + 4, d, ta, tbd, F[Q2 + pt], F[2 * Q2 + pt], F[3 * Q2 + pt]);
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
        const double uq = V[pt];
        double Fp[3] = {0.0, 0.0, 0.0}, C[3]; // diffusive flux, contravariant velocity adj(J) a
        contravariant_velocity(
            pde, avol, e, pt, A,
            [&](double xp[3]) {
              const double r[3] = {tb.x[a], tb.x[b], tb.x[c]};
              map_from_vertices(X, r, xp);
            },
            C);
        if (diffusion) {
          const double nq = nuvol.extent(0) > 0 ? nuvol(e, pt) : nu;
          const double g0 = V1[pt], g1 = V2[pt], g2 = V[3 * Q3 + pt];
          for (int i = 0; i < 3; ++i)
            Fp[i] = -nq * (A[i] * g0 + A[3 + i] * g1 + A[6 + i] * g2) / det;
        }
        const double wq = tb.w[a] * tb.w[b] * tb.w[c];
        for (int d = 0; d < 3; ++d)
          V[d * Q3 + pt] =
              wq * (C[d] * uq + A[3 * d] * Fp[0] + A[3 * d + 1] * Fp[1] + A[3 * d + 2] * Fp[2]);
      });
      team.team_barrier();
      T::template inner3<false>(team, blocked, V, R, T1, T2, tb.D, tb.B, tb.B);
      T::template inner3<true>(team, blocked, V1, R, T1, T2, tb.B, tb.D, tb.B);
      T::template inner3<true>(team, blocked, V2, R, T1, T2, tb.B, tb.B, tb.D);

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
        const double tau_e = pde.diffusion.eta * tau(e, f);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q2), [&](int pt) {
          const int i = pt % Q, j = pt / Q;
          double g[7];
          face_metric(e, f, i, j, X, tb, g);
          const double uin = F[pt];
          const double gin = diffusion ? contract_face(g + 4, d, ta, tbd, F[Q2 + pt],
                                                       F[2 * Q2 + pt], F[3 * Q2 + pt])
                                       : 0.0;
          double uout = 0.0, gout = 0.0;
          int ip, jp;
          hex::map_index(o, Q, i, j, ip, jp);
          neighbour_trace(type, trace, ghost, nb, nf, ip + Q * jp, diffusion, uout, gout);
          const double an = normal_velocity(pde, aface, e, f, pt, g, [&](double xp[3]) {
            double r[3];
            hex::face_point(f, tb.x[i], tb.x[j], r);
            map_from_vertices(X, r, xp);
          });
          const double nf_pt = nuface.extent(0) > 0 ? nuface(e, f, pt) : nu;
          double out[4] = {0.0, 0.0, 0.0, 0.0};
          face_flux(type, an, nf_pt, g, tb.w[i] * tb.w[j], tau_e * nf_pt, d, ta, tbd, uin, gin,
                    uout, gout, is_boundary_face(type) ? bdata(nb, pt) : 0.0, out);
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
        T::template inner3<false>(team, blocked, V, R, T1, T2, tb.B, tb.B, tb.B);
      }

      if (source.extent(0) > 0) { // the source's projection M^{-1} (phi, s)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3),
                             [&](int m) { R[m] += source(e, m); });
        team.team_barrier();
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

  /// One launch of the quadrature path: the stage (traces_only = false, emitted traces into
  /// `out` = a.trace_out) or the traces of block.u into `out`.
  static void launch(const StageArgs& a, bool traces_only, const View4& out) {
    const int n = static_cast<int>(a.elems.extent(0));
    if (n == 0) return;
    const ElementBlock& b = *a.block;
    const bool recompute = a.variant.recompute_metric && !b.affine;
    Stage k{b.u, b.reg, b.verts, b.vgeo, b.ghost, b.fgeo, b.trace, out, b.ftype, b.nbr, b.nbr_face,
            b.orient, b.tau, a.elems, a.points, b.tables, b.bdata, b.nuvol, b.source, b.avol,
            b.aface, b.nuface, a.pde, a.ep, b.affine, a.variant.register_blocked, recompute,
            traces_only,
            // vertices: for recomputed metrics, point coordinates (rotation)
            recompute || a.pde.advection.kind == physics::Advection::rotation, 0};
    const size_t bytes = sizeof(double) * Stage::scratch_doubles(a.pde.diffusion.nu > 0.0) + 512;
    const TeamPolicy pol = policy<Q>(a.space, n, bytes, k, a.variant.team_size);
    launch_kernel(traces_only ? "dg::fixed::traces" : "dg::fixed::stage", pol, k);
  }
};

} // namespace dg::fixed
