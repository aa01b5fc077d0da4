// Projection of a given function onto the modal basis, diagnostics (error norms, integral,
// energy, extrema) with a quadrature finer than the solver's, and sampling for output.
#include "dg/core/error.hpp"
#include "dg/dg/element_map.hpp"
#include "dg/dg/operator.hpp"
#include "dg/dg/sum_factorization.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"

#include <limits>

namespace dg {

namespace {
View1 points_view(const std::vector<double>& x) {
  View1 d("dg::points", x.size());
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < x.size(); ++i)
    h(i) = x[i];
  Kokkos::deep_copy(d, h);
  return d;
}

size_t two_cubes(int P, int Q) {
  const int M = P > Q ? P : Q;
  return sizeof(double) * (2 * M * M * M + P * P * P + Q * Q * Q) + 128;
}

TeamPolicy policy_for(int n, size_t bytes) {
  TeamPolicy p(n, Kokkos::AUTO);
  return p.set_scratch_size(bytes <= 48 * 1024 ? 0 : 1, Kokkos::PerTeam(bytes));
}

/// The common start of the kernels below: team scratch for element e (two transform
/// intermediates, the P^3 modes U, the Q^3 point values V, plus `extra` doubles) and the values
/// of u(e, :) at the Q^3 points of the 1-D table B (Q x P).
struct ElementValues {
  double *T1, *T2, *U, *V, *extra;
  KOKKOS_INLINE_FUNCTION ElementValues(const TeamMember& team, const View2& u, int e, int P, int Q,
                                       const double* B, size_t bytes, int n_extra) {
    const int M = P > Q ? P : Q, lvl = bytes <= 48 * 1024 ? 0 : 1;
    auto alloc = [&](int n) {
      return static_cast<double*>(team.team_scratch(lvl).get_shmem(sizeof(double) * n));
    };
    T1 = alloc(M * M * M);
    T2 = alloc(M * M * M);
    U = alloc(P * P * P);
    V = alloc(Q * Q * Q);
    extra = n_extra > 0 ? alloc(n_extra) : nullptr;
    double* Ul = U;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P * P * P), [&](int m) { Ul[m] = u(e, m); });
    team.team_barrier();
    sf::backward(team, U, V, T1, T2, P, Q, B, B, B);
  }
};

/// Physical position and |J| of point pt (a fastest) of the Q^3 grid x(a) x(b) x(c) of element e.
/// (Q_k map on curved blocks, so that projection, errors and snapshots follow curved elements.)
KOKKOS_INLINE_FUNCTION void grid_point(const View3& verts, const View3& nodes, int k, int e,
                                       const View1& x, int Q, int pt, double xp[3], double& det) {
  const double r[3] = {x(pt % Q), x((pt / Q) % Q), x(pt / (Q * Q))};
  element_map(verts, nodes, k, e, r, xp, &det);
}

/// The Q_k map of a curved element on the Q^3 grid x(a) x(b) x(c), by sum factorisation (as
/// mesh::jacobian_grid on the host): the element's (k+1)^3 node values contracted along r with
/// the 1-D Lagrange tables L and D (A0 = L X, A1 = D X), then along s (B00 = L A0, B01 = D A0,
/// B10 = L A1), then along t (x = L B00, dx/dr = L B10, dx/ds = L B01, dx/dt = D B00), the three
/// components together: about 12 (k+1) Q^3 multiply-adds instead of (k+1)^3 terms at each point.
struct CurvedGrid {
  View1 L, D; // (point a, node i) at a (k + 1) + i: l_i(x_a), l_i'(x_a)
  int k = 1, Q = 0;
  bool on = false; // curved: the grids in team scratch; else the map at each point
  /// Team scratch in doubles: the node values, the intermediates and the 12 grids.
  KOKKOS_INLINE_FUNCTION int doubles() const {
    const int n1 = k + 1;
    return on ? 3 * n1 * n1 * n1 + 6 * Q * n1 * n1 + 9 * Q * Q * n1 + 12 * Q * Q * Q : 0;
  }
  /// S <- the grids of element e: component i of the position at S[i Q^3 + pt], of column j
  /// (d/dr, d/ds, d/dt) at S[(3 + 3 j + i) Q^3 + pt]; the scratch after them holds the node
  /// values and the intermediates. Ends with a team barrier.
  KOKKOS_INLINE_FUNCTION void eval(const TeamMember& team, const View3& nodes, int e,
                                   double* S) const {
    const int n1 = k + 1, N3 = n1 * n1 * n1, Q3 = Q * Q * Q, NA = Q * n1 * n1, NB = Q * Q * n1;
    double* X = S + 12 * Q3; // component i at X[i N3 + node]
    double* A = X + 3 * N3;  // A0 of component i at A[2 i NA + idx], A1 at A[(2 i + 1) NA + idx]
    double* B = A + 6 * NA;  // B00, B01, B10 of component i at B[(3 i + m) NB + idx]
    const double *l = L.data(), *d = D.data();
    const int q = Q;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 3 * N3),
                         [&](int m) { X[m] = nodes(e, m % N3, m / N3); });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, NA), [&](int idx) { // (a, nb, nc)
      const int a = idx % q, rest = idx / q;
      for (int i = 0; i < 3; ++i) {
        const double* x = X + i * N3 + n1 * rest;
        double v0 = 0.0, v1 = 0.0;
        for (int na = 0; na < n1; ++na) {
          v0 += l[a * n1 + na] * x[na];
          v1 += d[a * n1 + na] * x[na];
        }
        A[2 * i * NA + idx] = v0;
        A[(2 * i + 1) * NA + idx] = v1;
      }
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, NB), [&](int idx) { // (a, b, nc)
      const int a = idx % q, b = (idx / q) % q, nc = idx / (q * q);
      for (int i = 0; i < 3; ++i) {
        const double *a0 = A + 2 * i * NA + a + q * n1 * nc, *a1 = a0 + NA;
        double v00 = 0.0, v01 = 0.0, v10 = 0.0;
        for (int nb = 0; nb < n1; ++nb) {
          v00 += l[b * n1 + nb] * a0[q * nb];
          v01 += d[b * n1 + nb] * a0[q * nb];
          v10 += l[b * n1 + nb] * a1[q * nb];
        }
        B[3 * i * NB + idx] = v00;
        B[(3 * i + 1) * NB + idx] = v01;
        B[(3 * i + 2) * NB + idx] = v10;
      }
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) { // (a, b, c)
      const int ab = pt % (q * q), c = pt / (q * q);
      for (int i = 0; i < 3; ++i) {
        const double *b00 = B + 3 * i * NB + ab, *b01 = b00 + NB, *b10 = b01 + NB;
        double x = 0.0, jr = 0.0, js = 0.0, jt = 0.0;
        for (int nc = 0; nc < n1; ++nc) {
          const double lc = l[c * n1 + nc];
          x += lc * b00[q * q * nc];
          jr += lc * b10[q * q * nc];
          js += lc * b01[q * q * nc];
          jt += d[c * n1 + nc] * b00[q * q * nc];
        }
        S[i * Q3 + pt] = x;
        S[(3 + i) * Q3 + pt] = jr;
        S[(6 + i) * Q3 + pt] = js;
        S[(9 + i) * Q3 + pt] = jt;
      }
    });
    team.team_barrier();
  }
  /// Position and |J| at point pt from the grids.
  KOKKOS_INLINE_FUNCTION void at(const double* S, int pt, double xp[3], double& det) const {
    const int Q3 = Q * Q * Q;
    double J[3][3];
    for (int i = 0; i < 3; ++i) {
      xp[i] = S[i * Q3 + pt];
      for (int j = 0; j < 3; ++j)
        J[i][j] = S[(3 + 3 * j + i) * Q3 + pt];
    }
    det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
          J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
          J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  }
};

/// The tables of a CurvedGrid for the block's geometric order k on the 1-D points x (off for
/// k = 1, where the trilinear map is cheap at each point).
CurvedGrid curved_grid(const ElementBlock& block, const std::vector<double>& x) {
  CurvedGrid g;
  g.k = block.gorder;
  g.Q = static_cast<int>(x.size());
  g.on = g.k > 1;
  if (!g.on) return g;
  std::vector<double> L, D;
  mesh::lagrange_tables(g.k, x, L, D);
  g.L = points_view(L);
  g.D = points_view(D);
  return g;
}
} // namespace

namespace {
/// The function to project or compare with at point pt of element e (physical position xp).
struct ExactAt {
  physics::ExactSolution exact;
  double t;
  KOKKOS_INLINE_FUNCTION double operator()(int, int, const double xp[3]) const {
    return exact(xp, t);
  }
};
struct TableAt {
  View2 values; // (elem, point)
  KOKKOS_INLINE_FUNCTION double operator()(int e, int pt, const double*) const {
    return values(e, pt);
  }
};

/// out <- W (b - M out) + out from out = 0, `iterations` times, with b_m = (phi_m, f) and W the
/// weight-adjusted inverse mass (exact on affine elements): the L2 projection of f (one
/// iteration: W b, the operator's own inverse mass applied to the load vector). f and the map's
/// points are evaluated once, for b; the sweeps after the first apply M with the block's |J|.
template <class Fn>
void project_impl(const ElementBlock& block, const Fn& fn, const View2& u, int iterations) {
  const int P = block.P, Q = block.Q, P3 = P * P * P, Q3 = Q * Q * Q;
  const HostTables ht = make_tables(block.order, Q);
  const View1 x = points_view(ht.x);
  const BasisTables tb = block.tables;
  const View3 verts = block.verts, vgeo = block.vgeo, nodes = block.nodes;
  const int gk = block.gorder;
  const bool affine = block.affine;
  const CurvedGrid cg = curved_grid(block, ht.x);
  const size_t bytes = two_cubes(P, Q) + sizeof(double) * (P3 + cg.doubles()); // + R, the map
  // b, kept for the sweeps after the first.
  const View2 load = iterations > 1 ? View2("dg::project::load", block.nelem, P3) : View2();
  Kokkos::deep_copy(u, 0.0);
  for (int it = 0; it < iterations; ++it) {
    Kokkos::parallel_for(
        "dg::project", policy_for(block.nelem, bytes), KOKKOS_LAMBDA(const TeamMember& team) {
          const int e = team.league_rank();
          const double* B = tb.B.data();
          const ElementValues ev(team, u, e, P, Q, B, bytes, P3 + cg.doubles());
          double *T1 = ev.T1, *T2 = ev.T2, *U = ev.U, *V = ev.V, *R = ev.extra, *S = R + P3;
          if (it == 0) { // V <- w |J| f, so that R <- b
            if (cg.on) cg.eval(team, nodes, e, S);
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
              const int a = pt % Q, b = (pt / Q) % Q, c = pt / (Q * Q);
              double xp[3], det;
              if (cg.on)
                cg.at(S, pt, xp, det);
              else
                grid_point(verts, nodes, gk, e, x, Q, pt, xp, det);
              V[pt] = tb.w(a) * tb.w(b) * tb.w(c) * det * fn(e, pt, xp);
            });
          } else { // V <- w |J| out, so that R <- M out
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
              const int a = pt % Q, b = (pt / Q) % Q, c = pt / (Q * Q);
              V[pt] *= tb.w(a) * tb.w(b) * tb.w(c) * vgeo(e, affine ? 0 : pt, 9);
            });
          }
          team.team_barrier();
          sf::inner(team, V, R, T1, T2, P, Q, B, B, B);
          if (iterations > 1) { // R <- b - M out
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) {
              if (it == 0)
                load(e, m) = R[m];
              else
                R[m] = load(e, m) - R[m];
            });
            team.team_barrier();
          }
          if (affine) {
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3),
                                 [&](int m) { u(e, m) = U[m] + R[m] / vgeo(e, 0, 9); });
          } else {
            sf::backward(team, R, V, T1, T2, P, Q, B, B, B);
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
              const int a = pt % Q, b = (pt / Q) % Q, c = pt / (Q * Q);
              V[pt] *= tb.w(a) * tb.w(b) * tb.w(c) / vgeo(e, pt, 9);
            });
            team.team_barrier();
            sf::inner(team, V, R, T1, T2, P, Q, B, B, B);
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3),
                                 [&](int m) { u(e, m) = U[m] + R[m]; });
          }
        });
  }
}
} // namespace

void project(ElementBlock& block, const physics::ExactSolution& exact, double t) {
  DG_VERIFY(!block.nodal, "project: the state is nodal (DGOperator::to_modal_state first)");
  project_impl(block, ExactAt{exact, t}, block.u, projection_iterations(block));
}

int projection_iterations(const ElementBlock& block) {
  // On curved elements |J| varies more: 12 sweeps take a constant to round-off.
  return block.affine ? 1 : (block.curved ? 12 : 6);
}

void project_values(const ElementBlock& block, const View2& values, const View2& out,
                    int iterations) {
  project_impl(block, TableAt{values}, out, iterations);
}

namespace {
template <class Fn>
Diagnostics diagnostics_impl(const ElementBlock& block, const Fn& exact, bool with_error,
                             int qerr) {
  DG_VERIFY(!block.nodal, "diagnostics: the state is nodal (DGOperator::to_modal_state first)");
  const int P = block.P, Q = qerr, Q3 = Q * Q * Q;
  const HostTables ht = make_tables(block.order, Q);
  const BasisTables tb = to_device(ht);
  const View1 x = points_view(ht.x);
  const View3 verts = block.verts, nodes = block.nodes;
  const int gk = block.gorder;
  const View2 u = block.u;
  View2 per("dg::diagnostics::per_element", block.nelem, 6);
  const CurvedGrid cg = curved_grid(block, ht.x);
  const int n_extra = 2 * Q3 + 24 + cg.doubles(); // W, Err, M, the curved map's grids
  const size_t bytes = two_cubes(P, Q) + sizeof(double) * n_extra;
  Kokkos::parallel_for(
      "dg::diagnostics", policy_for(block.nelem, bytes), KOKKOS_LAMBDA(const TeamMember& team) {
        const int e = team.league_rank();
        const ElementValues ev(team, u, e, P, Q, tb.B.data(), bytes, n_extra);
        const double* V = ev.V;
        double* W = ev.extra;               // w |J| at each point
        double* Err = ev.extra + Q3;        // u - exact at each point (0 without error)
        double* M = ev.extra + 2 * Q3;      // trilinear maps: the polynomial's coefficients
        double* S = ev.extra + 2 * Q3 + 24; // curved maps: the grids of CurvedGrid
        if (gk <= 1) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 3), [&](int i) {
            trilinear_coefficients(ViewVertices{verts, e}, i, M);
          });
          team.team_barrier();
        } else if (cg.on) {
          cg.eval(team, nodes, e, S);
        }
        // The geometry and the exact solution once per point; then the reductions.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
          const int a = pt % Q, b = (pt / Q) % Q, c = pt / (Q * Q);
          double xp[3], det;
          if (gk <= 1) {
            const double r[3] = {x(a), x(b), x(c)};
            trilinear_point_det(M, r, xp, det);
          } else if (cg.on) {
            cg.at(S, pt, xp, det);
          } else {
            grid_point(verts, nodes, gk, e, x, Q, pt, xp, det);
          }
          W[pt] = tb.w(a) * tb.w(b) * tb.w(c) * det;
          Err[pt] = with_error ? V[pt] - exact(e, pt, xp) : 0.0;
        });
        team.team_barrier();
        double err2 = 0, errmax = 0, integral = 0, energy = 0, umin = 0, umax = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, Q3),
            [&](int pt, double& sum) { sum += W[pt] * Err[pt] * Err[pt]; }, err2);
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, Q3), [&](int pt, double& sum) { sum += W[pt] * V[pt]; },
            integral);
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, Q3),
            [&](int pt, double& sum) { sum += W[pt] * V[pt] * V[pt]; }, energy);
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, Q3),
            [&](int pt, double& m) {
              const double err = math::fabs(Err[pt]);
              if (with_error && !(err <= m)) m = err; // also propagates NaN
            },
            Kokkos::Max<double>(errmax));
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, Q3),
            [&](int pt, double& m) {
              if (!(V[pt] >= m)) m = V[pt];
            },
            Kokkos::Min<double>(umin));
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, Q3),
            [&](int pt, double& m) {
              if (!(V[pt] <= m)) m = V[pt];
            },
            Kokkos::Max<double>(umax));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          per(e, 0) = err2;
          per(e, 1) = errmax;
          per(e, 2) = integral;
          per(e, 3) = energy;
          per(e, 4) = umin;
          per(e, 5) = umax;
        });
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), per);
  Diagnostics d;
  d.umin = std::numeric_limits<double>::infinity();
  d.umax = -std::numeric_limits<double>::infinity();
  for (int e = 0; e < block.nelem; ++e) {
    d.l2_error += h(e, 0);
    d.max_error = std::max(d.max_error, h(e, 1));
    d.integral += h(e, 2);
    d.energy += h(e, 3);
    d.umin = std::min(d.umin, h(e, 4));
    d.umax = std::max(d.umax, h(e, 5));
    for (int k = 0; k < 6; ++k)
      if (!std::isfinite(h(e, k)) && (k != 1 || with_error)) d.finite = false;
  }
  return d; // l2_error holds the squared sum; the caller reduces and takes the root
}
} // namespace

Diagnostics local_diagnostics(const ElementBlock& block, const physics::ExactSolution& exact,
                              double t, bool with_error, int qerr) {
  return diagnostics_impl(block, ExactAt{exact, t}, with_error, qerr);
}

Diagnostics local_diagnostics(const ElementBlock& block, const View2& exact_values, int qerr) {
  return diagnostics_impl(block, TableAt{exact_values}, true, qerr);
}

void sample(const ElementBlock& block, int n, View2& values, View3& coords) {
  DG_VERIFY(!block.nodal, "sample: the state is nodal (DGOperator::to_modal_state first)");
  std::vector<double> pts(n);
  for (int i = 0; i < n; ++i)
    pts[i] = n == 1 ? 0.0 : -1.0 + 2.0 * i / (n - 1);
  const HostTables ht = make_tables_at(block.order, pts);
  const BasisTables tb = to_device(ht);
  const View1 x = points_view(pts);
  const int P = block.P, Q = n, Q3 = Q * Q * Q;
  values = View2("dg::sample::values", block.nelem, Q3);
  coords = View3("dg::sample::coords", block.nelem, Q3, 3);
  const View2 u = block.u, vals = values;
  const View3 verts = block.verts, xyz = coords, nodes = block.nodes;
  const int gk = block.gorder;
  const CurvedGrid cg = curved_grid(block, pts);
  const size_t bytes = two_cubes(P, Q) + sizeof(double) * cg.doubles();
  Kokkos::parallel_for(
      "dg::sample", policy_for(block.nelem, bytes), KOKKOS_LAMBDA(const TeamMember& team) {
        const int e = team.league_rank();
        const ElementValues ev(team, u, e, P, Q, tb.B.data(), bytes, cg.doubles());
        const double* V = ev.V;
        double* S = ev.extra;
        if (cg.on) cg.eval(team, nodes, e, S);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
          double xp[3], det;
          if (cg.on)
            cg.at(S, pt, xp, det);
          else
            grid_point(verts, nodes, gk, e, x, Q, pt, xp, det);
          vals(e, pt) = V[pt];
          for (int d = 0; d < 3; ++d)
            xyz(e, pt, d) = xp[d];
        });
      });
}

} // namespace dg
