// Sum-factorised assembly of the quadrature element matrices on trilinear hexes (Variant::sumfact):
// the same sum K(e, i, j) = sum_q sum_c psi_i^alpha(c)(q) C_q[c] psi_j^beta(c)(q) as the naive
// kernel (quadrature.cpp), with the tensor-product structure of psi and of the Gauss points used:
//
//   K(i1 i2 i3, j1 j2 j3) = sum_c sum_q1 X^{c,x}(q1, i1 j1) sum_q2 X^{c,y}(q2, i2 j2)
//                                 sum_q3 X^{c,z}(q3, i3 j3) C_c(q1, q2, q3),
//
// X^{c,x}(a, i j) = F(x_a, i) G(x_a, j), F (G) = phi or phi' as entry c of C_q differentiates the
// test (trial) function in direction x or not: one of four 1-D products (QuadTables::X, k = 0..3).
// The slowest direction (z, q3) is contracted first, the fastest (x, q1) last, so the last stage
// runs over (i1 i2, j1 j2) of one (i3, j3) pair and consecutive threads write consecutive
// columns j1 + P j2 + P^2 j3 of a row (coalesced). Entries c with the same (x, y) factor pair
// share the q3 contraction's output T1, entries with the same x pair the q2 contraction's output
// T2 (Laplacian: 9 entries, 9 (x, y) groups, 4 x groups), so per element and (a, b) block:
//
//   stage   what                                                  multiply-adds
//   C       C_q at the Q^3 points (team scratch)                  -
//   s1      T1(g12; q1, q2)     = sum_{c in g12} sum_q3 X C        nb  Q^3 P^2
//   s2      T2(g1; q1, i2, j2)  = sum_{g12 in g1} sum_q2 X T1      ng12 Q^2 P^4
//   s3      K(i1 i2, j1 j2)     = sum_g1 sum_q1 X T2               ng1  Q   P^6
//
// s1 and s2 run once per (i3, j3) pair (P^2 of them), s3 writes the P^4 entries of the pair.
// Index order of the scratch arrays (fastest last): C (le, c, q3, q2, q1); T1 (le, jj, g12, q2,
// q1); T2 (le, jj, g1, q1, i2, j2), jj = j3 - j30 inside a group of J consecutive j3 handled
// together (J = P when team scratch allows: one contiguous run of J P^2 columns per row).
#include "dg/integration/element_matrices.hpp"

#include "dg/core/error.hpp"
#include "dg/integration/point_coefficients.hpp"

#include <algorithm>
#include <cmath>

namespace dg::integration {

namespace {

/// Grouping of the entries of one C_q block by their 1-D factor pairs
/// cls(c, x) = 2 [test derivative in direction x] + [trial derivative in direction x].
/// (x, y) groups are numbered in the order of their x pair, so each x group owns a contiguous
/// range of them, and the entries are sorted by (x, y) group.
struct Groups {
  int nb = 0, ng12 = 0, ng1 = 0;
  int comp[12] = {};       // entries, sorted by (x, y) group
  int cls3[12] = {};       // z pair of comp[k]
  int comp_start[13] = {}; // (x, y) group g: comp[comp_start[g] .. comp_start[g + 1])
  int cls2[12] = {};       // y pair of (x, y) group g
  int g1_start[5] = {};    // x group h: (x, y) groups g1_start[h] .. g1_start[h + 1] - 1
  int cls1[4] = {};        // x pair of x group h
};

constexpr Groups make_groups(Form f) {
  Groups G;
  G.nb = block_size(f);
  auto cls = [f](int c, int x) {
    return 2 * (test_factor(f, c) == x + 1) + (trial_factor(f, c) == x + 1);
  };
  int k = 0;
  for (int c1 = 0; c1 < 4; ++c1) {
    bool any1 = false;
    for (int c2 = 0; c2 < 4; ++c2) {
      bool any = false;
      for (int c = 0; c < G.nb; ++c) {
        if (cls(c, 0) != c1 || cls(c, 1) != c2) continue;
        if (!any) {
          G.comp_start[G.ng12] = k;
          G.cls2[G.ng12] = c2;
          any = true;
        }
        G.comp[k] = c;
        G.cls3[k] = cls(c, 2);
        ++k;
      }
      if (!any) continue;
      if (!any1) {
        G.g1_start[G.ng1] = G.ng12;
        G.cls1[G.ng1] = c1;
        any1 = true;
      }
      ++G.ng12;
    }
    if (any1) ++G.ng1;
  }
  G.comp_start[G.ng12] = k;
  G.g1_start[G.ng1] = G.ng12;
  return G;
}

/// Team scratch of one launch: C (per element nb Q^3 doubles) and T1 + T2 (per element and j3
/// of a group of J, ng12 Q^2 + ng1 Q P^2), each on level 0 (on chip) when it fits, else on
/// level 1.
struct Plan {
  int J = 1, level_c = 0, level_t = 0;
  size_t bytes_c = 0, bytes_t = 0;
};

Plan make_plan(const Groups& g, int P, int Q, int ept, int j3_per_pass) {
  const size_t max0 = TeamPolicy::scratch_size_max(0);
  const size_t c = sizeof(double) * ept * g.nb * Q * Q * Q + 64;
  auto t = [&](int J) {
    return sizeof(double) * ept * J * (g.ng12 * Q * Q + g.ng1 * Q * P * P) + 64;
  };
  Plan pl;
  if (j3_per_pass > 0) {
    pl.J = std::min(j3_per_pass, P);
  } else {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // C on chip if it fits beside a group of j3 wide enough for 32-double (256-byte) row runs;
    // otherwise C goes to level 1 (global, cached: only s1 reads it, P^2 times per element;
    // the hot stages s2 and s3 read T1 and T2). Then the widest group that fits.
    const int jwant = std::min(P, (32 + P * P - 1) / (P * P));
    const size_t room = c + t(jwant) <= max0 ? max0 - c : max0;
    pl.J = P;
    while (pl.J > 1 && t(pl.J) > room)
      --pl.J;
#else
    pl.J = P; // host: whole rows
#endif
  }
  pl.bytes_c = c;
  pl.bytes_t = t(pl.J);
  pl.level_c = c + pl.bytes_t <= max0 ? 0 : 1;
  pl.level_t = pl.bytes_t <= max0 ? 0 : 1;
  return pl;
}

/// The kernel, one team per `ept` elements. TP > 0: P = TP and Q = TP + 1 at compile time (the
/// solver's rule, p = 1..7), so the loops over points and the index arithmetic by P, P^2, Q, Q^2
/// are resolved by the compiler; TP = 0: P and Q at run time (any other order or rule).
template <Form F, int TP>
struct SumfactKernel {
  static constexpr int nc = ncomp(F), nb = block_size(F);
  static constexpr int NG12 = make_groups(F).ng12, NG1 = make_groups(F).ng1;
  PointCoefficients<F> coefficient;
  View3 X, out; // X (4, Q, P^2); out (elem, N, N)
  Groups g;
  int P_, Q_, n, ept, J, nelem, level_c, level_t;
  int I3, nsplit; // i3 per team, teams per element group

  KOKKOS_INLINE_FUNCTION int P() const {
    if constexpr (TP > 0)
      return TP;
    else
      return P_;
  }
  KOKKOS_INLINE_FUNCTION int Q() const {
    if constexpr (TP > 0)
      return TP + 1;
    else
      return Q_;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int P = this->P(), Q = this->Q(), P2 = P * P, Q2 = Q * Q, Q3 = Q2 * Q;
    const int e0 = (team.league_rank() / nsplit) * ept;
    const int i3_begin = (team.league_rank() % nsplit) * I3;
    const int i3_end = i3_begin + I3 < P ? i3_begin + I3 : P;
    const int ne = nelem - e0 < ept ? nelem - e0 : ept;
    const int t1size = NG12 * Q2, tsize = t1size + NG1 * Q * P2; // per (element, jj)
    const double* Xd = X.data();                                 // (k, a, i P + j)
    double* Cs = static_cast<double*>(
        team.team_scratch(level_c).get_shmem(sizeof(double) * size_t(ept) * nb * Q3));
    double* Ts = static_cast<double*>(
        team.team_scratch(level_t).get_shmem(sizeof(double) * size_t(ept) * J * tsize));
    for (int a = 0; a < nc; ++a)
      for (int b = 0; b < nc; ++b) {
        // C: block (a, b) of C_q at every point of the team's elements, (le, c, q).
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne * Q3), [&](int idx) {
          const int le = idx / Q3, q = idx - le * Q3;
          double C[nb];
          coefficient(e0 + le, q, a, b, C);
          for (int c = 0; c < nb; ++c)
            Cs[(le * nb + c) * Q3 + q] = C[c];
        });
        team.team_barrier();
        for (int i3 = i3_begin; i3 < i3_end; ++i3)
          for (int j30 = 0; j30 < P; j30 += J) {
            const int nj = P - j30 < J ? P - j30 : J;
            // s1: contract q3. Threads over (le, jj, g12, q2 q1): C read with q1 fastest, X the
            // same for all threads of a group (broadcast).
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne * nj * NG12 * Q2), [&](int idx) {
              const int q12 = idx % Q2, g12 = (idx / Q2) % NG12, r = idx / (Q2 * NG12);
              const int le = r / nj, jj = r - le * nj;
              const double* x = Xd + i3 * P + j30 + jj;
              double s = 0.0;
              for (int k = g.comp_start[g12]; k < g.comp_start[g12 + 1]; ++k) {
                const double* c = Cs + size_t(le * nb + g.comp[k]) * Q3 + q12;
                const double* xk = x + g.cls3[k] * Q * P2;
                for (int q3 = 0; q3 < Q; ++q3)
                  s += xk[q3 * P2] * c[q3 * Q2];
              }
              Ts[size_t(le * J + jj) * tsize + g12 * Q2 + q12] = s;
            });
            team.team_barrier();
            // s2: contract q2. Threads over (le, jj, g1, q1, i2 j2): X read with j2 fastest,
            // T1 the same for a run of P^2 threads (broadcast).
            Kokkos::parallel_for(
                Kokkos::TeamThreadRange(team, ne * nj * NG1 * Q * P2), [&](int idx) {
                  const int ij2 = idx % P2, q1 = (idx / P2) % Q, h = (idx / (P2 * Q)) % NG1;
                  const int r = idx / (P2 * Q * NG1), le = r / nj, jj = r - le * nj;
                  double* T = Ts + size_t(le * J + jj) * tsize;
                  double s = 0.0;
                  for (int k = g.g1_start[h]; k < g.g1_start[h + 1]; ++k) {
                    const double* xk = Xd + g.cls2[k] * Q * P2 + ij2;
                    for (int q2 = 0; q2 < Q; ++q2)
                      s += xk[q2 * P2] * T[k * Q2 + q2 * Q + q1];
                  }
                  T[t1size + (h * Q + q1) * P2 + ij2] = s;
                });
            team.team_barrier();
            // s3: contract q1 and write. Threads over (le, i2 i1, jj, j2 j1): consecutive
            // threads, consecutive columns of one row (a run of nj P^2 doubles). No barrier
            // after it: the next s1 writes only T1, whose last reader (s2) is behind the barrier
            // above.
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne * P2 * nj * P2), [&](int idx) {
              const int j12 = idx % P2, r = idx / P2;
              const int r2 = r / nj, jj = r - r2 * nj;
              const int i12 = r2 % P2, le = r2 / P2;
              const int j1 = j12 % P, j2 = j12 / P, i1 = i12 % P, i2 = i12 / P;
              const double* T = Ts + size_t(le * J + jj) * tsize + t1size + i2 * P + j2;
              const double* x = Xd + i1 * P + j1;
              double s = 0.0;
              for (int h = 0; h < NG1; ++h) {
                const double* xk = x + g.cls1[h] * Q * P2;
                const double* Th = T + h * Q * P2;
                for (int q1 = 0; q1 < Q; ++q1)
                  s += xk[q1 * P2] * Th[q1 * P2];
              }
              out(e0 + le, a * n + i12 + P2 * i3, b * n + P2 * (j30 + jj) + j12) = s;
            });
          }
      }
  }
};

template <Form F, int TP>
void launch(const Coefficients& coef, const Geometry& geo, const QuadTables& t, const Variant& v,
            const View3& out) {
  using K = SumfactKernel<F, TP>;
  const Groups g = make_groups(F);
  const int ept = v.elems_per_team, P = t.P, Q = t.Q;
  const Plan pl = make_plan(g, P, Q, ept, v.j3_per_pass);
  const int ngroups = (geo.nelem + ept - 1) / ept;
  int I3 = P;
  if (v.i3_per_team > 0) {
    I3 = std::min(v.i3_per_team, P);
  } else {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // Few elements (high p): split an element's i3 slabs over teams until there are ~4096
    // teams (a few waves on an H100); each team then recomputes C_q (Q^3 points, cheap next to
    // its P^4 Q-per-slab contractions).
    const int want = std::min(P, (4096 + ngroups - 1) / ngroups);
    I3 = (P + want - 1) / want;
#endif
  }
  const int nsplit = (P + I3 - 1) / I3, nteams = ngroups * nsplit;
  K k{point_coefficients<F>(coef, geo, t, v.stored_metric),
      t.X,
      out,
      g,
      P,
      Q,
      t.n,
      ept,
      pl.J,
      geo.nelem,
      pl.level_c,
      pl.level_t,
      I3,
      nsplit};
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  // Enough threads for the widest stage (s3: ept P^4 J entries), 64 to 256.
  const int work = ept * P * P * P * P * pl.J;
  int team = std::min(256, std::max(64, 32 * ((work + 31) / 32)));
  team = std::min(team, TeamPolicy(nteams, 1).team_size_max(k, Kokkos::ParallelForTag()));
  TeamPolicy policy(nteams, team);
#else
  TeamPolicy policy(nteams, 1);
#endif
  if (pl.level_c == pl.level_t)
    policy.set_scratch_size(pl.level_c, Kokkos::PerTeam(pl.bytes_c + pl.bytes_t));
  else
    policy.set_scratch_size(pl.level_c, Kokkos::PerTeam(pl.bytes_c))
        .set_scratch_size(pl.level_t, Kokkos::PerTeam(pl.bytes_t));
  Kokkos::parallel_for("dg::integration::sumfact", policy, k);
}

/// Compile-time order for the solver's rule Q = P + 1 at p = 1..7, run-time otherwise.
template <Form F>
void launch_form(const Coefficients& coef, const Geometry& geo, const QuadTables& t,
                 const Variant& v, const View3& out) {
  switch (t.Q == t.P + 1 ? t.P : 0) {
  case 2:
    return launch<F, 2>(coef, geo, t, v, out);
  case 3:
    return launch<F, 3>(coef, geo, t, v, out);
  case 4:
    return launch<F, 4>(coef, geo, t, v, out);
  case 5:
    return launch<F, 5>(coef, geo, t, v, out);
  case 6:
    return launch<F, 6>(coef, geo, t, v, out);
  case 7:
    return launch<F, 7>(coef, geo, t, v, out);
  case 8:
    return launch<F, 8>(coef, geo, t, v, out);
  default:
    return launch<F, 0>(coef, geo, t, v, out);
  }
}

} // namespace

void integrate_sumfact(Form form, const Coefficients& coef, const Geometry& geo,
                       const QuadTables& t, const Variant& v, const View3& out) {
  DG_VERIFY(v.elems_per_team >= 1, "integrate_sumfact: elems_per_team = " << v.elems_per_team);
  DG_VERIFY(t.X.extent(0) == 4 && t.X.extent(1) == size_t(t.Q) &&
                t.X.extent(2) == size_t(t.P) * t.P,
            "integrate_sumfact: QuadTables without the 1-D products X");
  const int N = components(form) * t.n;
  DG_VERIFY(out.extent(0) == size_t(geo.nelem) && out.extent(1) == size_t(N) &&
                out.extent(2) == size_t(N),
            "integrate_sumfact: out must be (elem, " << N << ", " << N << ")");
  if (geo.nelem == 0) return;
  with_form(form, [&](auto f) { launch_form<decltype(f)::value>(coef, geo, t, v, out); });
}

// Flops per element (multiply and add one each), per (a, b) block (nc^2 of them):
//   C_q at the Q^3 points: coefficient_flops (+ 250 for a recomputed metric: the sum-factorised
//   kernel evaluates the metric once per point and block);
//   s1 2 nb Q^3 P^2, s2 2 ng12 Q^2 P^4, s3 2 ng1 Q P^6 (stage table above; the group counts are
//   those of make_groups: mass 1/1/1, Laplacian and each elasticity block 9/9/4,
//   advection-diffusion 12/9/4 for nb/ng12/ng1).
// The 1-D products X and the index arithmetic are not counted. Bytes: as the naive kernel
// (geometry in, N^2 matrix out): the minimum traffic, which is what the output-bound low orders
// are measured against.
Cost sumfact_cost(Form form, const Variant& v, int order, int q, bool affine, bool kappa_field) {
  const Groups g = make_groups(form);
  const double P = order + 1, Q = q, Q3 = Q * Q * Q, nc = components(form);
  const double geo = v.stored_metric ? 0.0 : 250.0;
  const double per_block =
      Q3 * (geo + coefficient_flops(form, kappa_field)) +
      2.0 * (g.nb * Q3 * P * P + g.ng12 * Q * Q * std::pow(P, 4) + g.ng1 * Q * std::pow(P, 6));
  Variant naive = v;
  naive.sumfact = false;
  Cost c;
  c.flops = nc * nc * per_block;
  c.bytes = quadrature_cost(form, naive, order, q, affine, kappa_field).bytes;
  return c;
}

} // namespace dg::integration
