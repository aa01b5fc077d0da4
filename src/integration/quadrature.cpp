// Quadrature integration of element matrices on trilinear hexes (Banas et al.'s formulation):
//   K(e, i, j) = sum_q sum_{id, jd} psi_i^id(q) C_q[id][jd] psi_j^jd(q),
// psi^0 = phi, psi^d = d phi / dr_d (reference), C_q the coefficient tensor at point q holding
// the weight, the metric terms and the PDE coefficients. Template on the form and on where C_q
// lives (team scratch, computed once per point, or registers, recomputed per matrix entry).
#include "dg/integration/element_matrices.hpp"

#include "dg/core/error.hpp"
#include "dg/dg/basis.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/integration/metric.hpp"
#include "dg/integration/point_coefficients.hpp"

#include <sstream>

namespace dg::integration {

const char* form_name(Form f) {
  switch (f) {
  case Form::mass:
    return "mass";
  case Form::laplacian:
    return "laplacian";
  case Form::elasticity:
    return "elasticity";
  case Form::advection_diffusion:
    return "advection_diffusion";
  }
  return "?";
}

Form parse_form(const std::string& s) {
  for (Form f : {Form::mass, Form::laplacian, Form::elasticity, Form::advection_diffusion})
    if (s == form_name(f)) return f;
  DG_INPUT_ERROR("unknown operator '" << s
                                      << "' (valid: mass, laplacian, elasticity, "
                                         "advection_diffusion)");
}

std::string Variant::name() const {
  std::ostringstream os;
  const char* coefficients = sumfact ? "sumfact" : (scratch ? "scratch" : "registers");
  os << (stored_metric ? "stored" : "recomputed") << "/" << coefficients << "/ept"
     << elems_per_team;
  if (sumfact && j3_per_pass > 0) os << "/j" << j3_per_pass;
  if (sumfact && i3_per_team > 0) os << "/i" << i3_per_team;
  return os.str();
}

// ------------------------------------------------------------------------------------------
Geometry make_geometry(const View3& verts, int q) {
  Geometry g;
  g.nelem = static_cast<int>(verts.extent(0));
  g.Q = q;
  g.affine = false;
  g.verts = verts;
  const int Q3 = q * q * q;
  g.vgeo = View3(Kokkos::ViewAllocateWithoutInitializing("dg::integration::vgeo"), g.nelem, Q3,
                 vgeo_size);
  const HostTables t = make_tables(1, q);
  View1 x("dg::integration::gauss_x", q);
  auto hx = Kokkos::create_mirror_view(x);
  for (int a = 0; a < q; ++a)
    hx(a) = t.x[a];
  Kokkos::deep_copy(x, hx);
  const View3 vgeo = g.vgeo;
  Kokkos::parallel_for(
      "dg::integration::metric", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long>(g.nelem) * Q3),
      KOKKOS_LAMBDA(const long i) {
        const int e = static_cast<int>(i / Q3), pt = static_cast<int>(i % Q3);
        const double r[3] = {x(pt % q), x((pt / q) % q), x(pt / (q * q))};
        double A[9], det;
        metric_at(verts, e, r, A, det);
        for (int k = 0; k < 9; ++k)
          vgeo(e, pt, k) = A[k];
        vgeo(e, pt, 9) = det;
      });
  return g;
}

Geometry geometry_of(const ElementBlock& b) {
  Geometry g;
  g.nelem = b.nelem;
  g.Q = b.Q;
  g.affine = b.affine;
  g.verts = b.verts;
  g.vgeo = b.vgeo;
  return g;
}

QuadTables make_quad_tables(int order, int q) {
  DG_VERIFY(order >= 1 && q >= 1, "make_quad_tables: order " << order << ", q " << q);
  const HostTables h = make_tables(order, q);
  QuadTables t;
  t.order = order;
  t.P = order + 1;
  t.n = t.P * t.P * t.P;
  t.Q = q;
  t.Q3 = q * q * q;
  t.psi = View3("dg::integration::psi", t.Q3, 4, t.n);
  t.w = View1("dg::integration::w", t.Q3);
  t.r = View2("dg::integration::r", t.Q3, 3);
  t.X = View3("dg::integration::X", 4, q, t.P * t.P);
  auto hX = Kokkos::create_mirror_view(t.X);
  for (int k = 0; k < 4; ++k)
    for (int a = 0; a < q; ++a)
      for (int i = 0; i < t.P; ++i)
        for (int j = 0; j < t.P; ++j)
          hX(k, a, i * t.P + j) =
              (k & 2 ? h.D : h.B)[a * t.P + i] * (k & 1 ? h.D : h.B)[a * t.P + j];
  Kokkos::deep_copy(t.X, hX);
  auto hp = Kokkos::create_mirror_view(t.psi);
  auto hw = Kokkos::create_mirror_view(t.w);
  auto hr = Kokkos::create_mirror_view(t.r);
  const int P = t.P;
  for (int c = 0; c < q; ++c)
    for (int b = 0; b < q; ++b)
      for (int a = 0; a < q; ++a) {
        const int pt = a + q * (b + q * c);
        hw(pt) = h.w[a] * h.w[b] * h.w[c];
        hr(pt, 0) = h.x[a];
        hr(pt, 1) = h.x[b];
        hr(pt, 2) = h.x[c];
        for (int k = 0; k < P; ++k)
          for (int j = 0; j < P; ++j)
            for (int i = 0; i < P; ++i) {
              const int m = i + P * (j + P * k);
              const double bi = h.B[a * P + i], bj = h.B[b * P + j], bk = h.B[c * P + k];
              hp(pt, 0, m) = bi * bj * bk;
              hp(pt, 1, m) = h.D[a * P + i] * bj * bk;
              hp(pt, 2, m) = bi * h.D[b * P + j] * bk;
              hp(pt, 3, m) = bi * bj * h.D[c * P + k];
            }
      }
  Kokkos::deep_copy(t.psi, hp);
  Kokkos::deep_copy(t.w, hw);
  Kokkos::deep_copy(t.r, hr);
  return t;
}

// ------------------------------------------------------------------------------------------
namespace {

template <Form F, bool Scratch>
struct QuadratureKernel {
  static constexpr int nc = ncomp(F), nb = block_size(F), nct = nc * nc * nb;
  PointCoefficients<F> coefficient;
  View3 psi, out;
  int n, N, Q3, ept, R, nchunks, nelem;
  size_t bytes;

  /// psi_i^T C psi_j at point q (flops: mass 3, laplacian / elasticity 22, adv.-diff. 28,
  /// counting the accumulation into the entry).
  KOKKOS_INLINE_FUNCTION double entry(int q, int i, int j, const double* C) const {
    double s = 0.0;
    if constexpr (F == Form::mass) {
      s = psi(q, 0, i) * C[0] * psi(q, 0, j);
    } else if constexpr (F == Form::advection_diffusion) {
      const double v0 = psi(q, 0, j), v1 = psi(q, 1, j), v2 = psi(q, 2, j), v3 = psi(q, 3, j);
      for (int d = 0; d < 3; ++d)
        s += psi(q, 1 + d, i) *
             (C[4 * d] * v0 + C[4 * d + 1] * v1 + C[4 * d + 2] * v2 + C[4 * d + 3] * v3);
    } else {
      const double v1 = psi(q, 1, j), v2 = psi(q, 2, j), v3 = psi(q, 3, j);
      for (int d = 0; d < 3; ++d)
        s += psi(q, 1 + d, i) * (C[3 * d] * v1 + C[3 * d + 1] * v2 + C[3 * d + 2] * v3);
    }
    return s;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int g = team.league_rank() / nchunks, chunk = team.league_rank() % nchunks;
    double* S = nullptr;
    if constexpr (Scratch) {
      const int level = bytes <= 48 * 1024 ? 0 : 1;
      S = static_cast<double*>(
          team.team_scratch(level).get_shmem(sizeof(double) * size_t(ept) * Q3 * nct));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ept * Q3), [&](int idx) {
        const int le = idx / Q3, q = idx % Q3, e = g * ept + le;
        if (e >= nelem) return;
        for (int a = 0; a < nc; ++a)
          for (int b = 0; b < nc; ++b)
            coefficient(e, q, a, b, S + (size_t(le) * Q3 + q) * nct + (a * nc + b) * nb);
      });
      team.team_barrier();
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ept * R * N), [&](int idx) {
      const int le = idx / (R * N), rem = idx % (R * N);
      const int e = g * ept + le, row = chunk * R + rem / N, col = rem % N;
      if (e >= nelem || row >= N) return;
      const int a = row / n, i = row % n, b = col / n, j = col % n;
      double sum = 0.0;
      for (int q = 0; q < Q3; ++q) {
        if constexpr (Scratch) {
          sum += entry(q, i, j, S + (size_t(le) * Q3 + q) * nct + (a * nc + b) * nb);
        } else {
          double C[nb];
          coefficient(e, q, a, b, C);
          sum += entry(q, i, j, C);
        }
      }
      out(e, row, col) = sum;
    });
  }
};

template <Form F, bool Scratch>
void launch(const Coefficients& coef, const Geometry& geo, const QuadTables& t, const Variant& v,
            const View3& out) {
  using K = QuadratureKernel<F, Scratch>;
  const int N = K::nc * t.n;
  const int ept = v.elems_per_team;
  // Rows per team: about 2048 matrix entries per element and team, so that high orders spread
  // one element over many teams (a GPU is saturated by a few elements at p = 7).
  const int R = std::max(1, std::min(N, 2048 / N));
  const int nchunks = (N + R - 1) / R;
  const int ngroups = (geo.nelem + ept - 1) / ept;
  const size_t bytes = Scratch ? sizeof(double) * size_t(ept) * t.Q3 * K::nct + 64 : 0;
  K k{point_coefficients<F>(coef, geo, t, v.stored_metric),
      t.psi,
      out,
      t.n,
      N,
      t.Q3,
      ept,
      R,
      nchunks,
      geo.nelem,
      bytes};
  TeamPolicy policy(ngroups * nchunks, Kokkos::AUTO);
  if (Scratch) policy.set_scratch_size(bytes <= 48 * 1024 ? 0 : 1, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(Scratch ? "dg::integration::quadrature::scratch"
                               : "dg::integration::quadrature::registers",
                       policy, k);
}

template <Form F>
void launch_form(const Coefficients& coef, const Geometry& geo, const QuadTables& t,
                 const Variant& v, const View3& out) {
  if (v.scratch)
    launch<F, true>(coef, geo, t, v, out);
  else
    launch<F, false>(coef, geo, t, v, out);
}

} // namespace

void integrate(Form form, const Coefficients& coef, const Geometry& geo, const QuadTables& t,
               const Variant& v, View3& out) {
  DG_VERIFY(geo.Q == t.Q, "integrate: geometry has q = " << geo.Q << ", tables q = " << t.Q);
  DG_VERIFY(v.elems_per_team >= 1, "integrate: elems_per_team = " << v.elems_per_team);
  DG_VERIFY(!v.stored_metric || geo.vgeo.extent(0) == size_t(geo.nelem),
            "integrate: stored metric requested but the geometry has no vgeo");
  DG_VERIFY(form != Form::laplacian || coef.kappa_field.extent(0) == 0 ||
                (coef.kappa_field.extent(0) == size_t(geo.nelem) &&
                 coef.kappa_field.extent(1) == size_t(t.Q3)),
            "integrate: kappa_field must be (elem, Q^3)");
  const int N = components(form) * t.n;
  if (out.extent(0) != size_t(geo.nelem) || out.extent(1) != size_t(N) ||
      out.extent(2) != size_t(N))
    out = View3(Kokkos::ViewAllocateWithoutInitializing("dg::integration::matrices"), geo.nelem, N,
                N);
  if (geo.nelem == 0) return;
  if (v.sumfact) {
    integrate_sumfact(form, coef, geo, t, v, out);
    return;
  }
  with_form(form, [&](auto f) { launch_form<decltype(f)::value>(coef, geo, t, v, out); });
}

// Flop counts (multiply and add each count one; sin as one). Per point:
//   metric recomputed from the vertices: 250 (metric.hpp), stored: 0 (10 loads);
//   coefficient block: mass 1; laplacian 9 adj products of 5 + 9 scalings + 2 = 56, plus 105
//   for kappa(x) (trilinear position 96, three sines, 5) unless a field is given; elasticity one
//   (a, b) block 45 (adj products) + 9 x 8 + 1 = 118; advection-diffusion 45 + 15 + 9 + 2 = 71;
//   matrix entry (per entry and point): mass 3, laplacian / elasticity 22, adv.-diff. 28.
// Scratch: the coefficients are computed once per point and team (a team covers R rows of an
// element, so nchunks = N / R times per element), registers: once per entry and point.
// `flops` counts the algorithmic work (one coefficient per point and block + the entries), the
// same for every variant so that GFLOP/s compare like with like; `bytes` the minimal traffic:
// geometry in (stored vgeo or 8 vertices; kappa field) and the N^2 matrix out.
Cost quadrature_cost(Form form, const Variant& v, int order, int q, bool affine, bool kappa_field) {
  if (v.sumfact) return sumfact_cost(form, v, order, q, affine, kappa_field);
  const double P = order + 1, n = P * P * P, Q3 = double(q) * q * q;
  const double nc = components(form), N = nc * n;
  const double geo = v.stored_metric ? 0.0 : 250.0;
  const double coefb = coefficient_flops(form, kappa_field);
  const double ent = form == Form::mass ? 3 : (form == Form::advection_diffusion ? 28 : 22);
  Cost c;
  c.flops = Q3 * (geo + nc * nc * coefb) + N * N * Q3 * ent;
  const double geo_bytes = v.stored_metric ? (affine ? 1.0 : Q3) * vgeo_size * 8.0 : 24.0 * 8.0;
  c.bytes = geo_bytes + (kappa_field ? Q3 * 8.0 : 0.0) + N * N * 8.0;
  return c;
}

} // namespace dg::integration
