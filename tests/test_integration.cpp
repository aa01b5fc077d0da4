// Element integration (dg/integration): every kernel against a naive host reference, the
// algebraic properties of the matrices, the tensor path against quadrature on affine elements,
// batched LU / GEMV, and the solver's exact-mass and element-matrix modes.
#include "catch.hpp"
#include "dg/mesh/local_mesh.hpp"
#include "solver_util.hpp"

#include "dg/core/error.hpp"
#include "dg/dg/basis.hpp"
#include "dg/integration/element_matrices.hpp"
#include "dg/mesh/generate.hpp"
#include "dg/mesh/hex.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {
/// Eigenvalues (ascending) of a symmetric n x n matrix by cyclic Jacobi rotations: a naive,
/// self-contained reference (no LAPACK on every build machine).
std::vector<double> symmetric_eigenvalues(std::vector<double> A, int n) {
  auto a = [&](int i, int j) -> double& { return A[static_cast<size_t>(i) * n + j]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0, diag = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        (i == j ? diag : off) += a(i, j) * a(i, j);
    if (off <= 1e-32 * diag) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (a(p, q) == 0.0) continue;
        const double theta = (a(q, q) - a(p, p)) / (2.0 * a(p, q));
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1.0 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) { // columns p, q
          const double akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) { // rows p, q
          const double apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> ev(n);
  for (int i = 0; i < n; ++i)
    ev[i] = a(i, i);
  std::sort(ev.begin(), ev.end());
  return ev;
}
} // namespace

using namespace dg;
using namespace dg::integration;

namespace {

struct TestMesh {
  mesh::HexMesh mesh;
  ElementBlock block;
};

TestMesh make_mesh(const std::string& flags, int p) {
  TestMesh t;
  t.mesh = mesh::generate_box(mesh::parse_box_flags(flags));
  const auto conn = mesh::build_connectivity(t.mesh);
  const std::vector<int> owner(static_cast<size_t>(t.mesh.num_elements()), 0);
  const mesh::LocalMesh local =
      mesh::extract_local_mesh(t.mesh, conn, owner, 0, mesh::box_info(t.mesh));
  t.block = build_element_block(local, {}, p, p + 2, BoundaryKinds{}, "curved");
  return t;
}

/// Naive reference on the host: physical gradients from the mesh's own Jacobian (mesh::jacobian,
/// inverted by cofactors), the 3-D basis from 1-D Legendre values, one loop over points.
struct PointData {
  double wdet;              // w |J|
  double x[3];              // physical position
  std::vector<double> phi;  // (n)
  std::vector<double> grad; // (n, 3) physical gradient
};

std::vector<PointData> reference_points(const mesh::HexMesh& m, int e, int p, int q) {
  const int P = p + 1, n = P * P * P;
  std::vector<double> x, w;
  gauss_legendre(q, x, w);
  std::vector<PointData> pts;
  std::vector<double> l0(P), d0(P), l1(P), d1(P), l2(P), d2(P);
  for (int c = 0; c < q; ++c)
    for (int b = 0; b < q; ++b)
      for (int a = 0; a < q; ++a) {
        PointData pd;
        const auto J = mesh::jacobian(m, e, x[a], x[b], x[c]);
        const double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                           J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
        double Ji[3][3]; // (J^{-1})[d][i] = cofactor(i, d) / det
        for (int i = 0; i < 3; ++i)
          for (int d = 0; d < 3; ++d) {
            const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, d1 = (d + 1) % 3, d2 = (d + 2) % 3;
            Ji[d][i] = (J[i1][d1] * J[i2][d2] - J[i1][d2] * J[i2][d1]) / det;
          }
        pd.wdet = w[a] * w[b] * w[c] * det;
        const auto X = mesh::map_point(m, e, x[a], x[b], x[c]);
        for (int i = 0; i < 3; ++i)
          pd.x[i] = X[i];
        legendre(P, x[a], l0.data(), d0.data());
        legendre(P, x[b], l1.data(), d1.data());
        legendre(P, x[c], l2.data(), d2.data());
        pd.phi.resize(n);
        pd.grad.resize(3 * n);
        for (int k = 0; k < P; ++k)
          for (int j = 0; j < P; ++j)
            for (int i = 0; i < P; ++i) {
              const int mm = i + P * (j + P * k);
              pd.phi[mm] = l0[i] * l1[j] * l2[k];
              const double g[3] = {d0[i] * l1[j] * l2[k], l0[i] * d1[j] * l2[k],
                                   l0[i] * l1[j] * d2[k]};
              for (int s = 0; s < 3; ++s)
                pd.grad[3 * mm + s] = Ji[0][s] * g[0] + Ji[1][s] * g[1] + Ji[2][s] * g[2];
            }
        pts.push_back(std::move(pd));
      }
  return pts;
}

/// Reference matrix (N x N) of `form` on element e. kfield: kappa per point (or empty).
std::vector<double> reference_matrix(Form form, const Coefficients& c, const mesh::HexMesh& m,
                                     int e, int p, const std::vector<double>& kfield) {
  const int P = p + 1, n = P * P * P, nc = components(form), N = nc * n;
  const auto pts = reference_points(m, e, p, p + 2);
  std::vector<double> K(size_t(N) * N, 0.0);
  for (size_t qi = 0; qi < pts.size(); ++qi) {
    const PointData& pd = pts[qi];
    double kappa = 0.0;
    if (form == Form::laplacian) kappa = kfield.empty() ? kappa_function(c, pd.x) : kfield[qi];
    for (int a = 0; a < nc; ++a)
      for (int b = 0; b < nc; ++b)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) {
            const double* gi = &pd.grad[3 * i];
            const double* gj = &pd.grad[3 * j];
            const double dot = gi[0] * gj[0] + gi[1] * gj[1] + gi[2] * gj[2];
            double v = 0.0;
            switch (form) {
            case Form::mass:
              v = pd.phi[i] * pd.phi[j];
              break;
            case Form::laplacian:
              v = kappa * dot;
              break;
            case Form::elasticity:
              v = c.lambda * gi[a] * gj[b] + c.mu * ((a == b ? dot : 0.0) + gi[b] * gj[a]);
              break;
            case Form::advection_diffusion:
              for (int s = 0; s < 3; ++s)
                v += gi[s] * c.velocity[s] * pd.phi[j];
              v -= c.nu * dot;
              break;
            }
            K[size_t(a * n + i) * N + b * n + j] += pd.wdet * v;
          }
  }
  return K;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

template <class HostView3>
std::vector<double> element_of(const HostView3& h, int e) {
  const size_t N = h.extent(1);
  return std::vector<double>(&h(e, 0, 0), &h(e, 0, 0) + N * N);
}

/// Rigid-body motions (3 translations, 3 rotations) of element e in the modal basis:
/// c(a n + m) = int_ref r_a(x(xi)) phi_m(xi) (exact: x is trilinear, so r_a is in Q_p, p >= 1).
std::vector<std::vector<double>> rigid_modes(const mesh::HexMesh& msh, int e, int p) {
  const int P = p + 1, n = P * P * P, q = p + 2;
  std::vector<double> x, w;
  gauss_legendre(q, x, w);
  std::vector<std::vector<double>> modes(6, std::vector<double>(3 * n, 0.0));
  std::vector<double> l0(P), l1(P), l2(P);
  for (int c = 0; c < q; ++c)
    for (int b = 0; b < q; ++b)
      for (int a = 0; a < q; ++a) {
        const auto X = mesh::map_point(msh, e, x[a], x[b], x[c]);
        const double r[6][3] = {{1, 0, 0},        {0, 1, 0},        {0, 0, 1},
                                {-X[1], X[0], 0}, {0, -X[2], X[1]}, {X[2], 0, -X[0]}};
        legendre(P, x[a], l0.data(), nullptr);
        legendre(P, x[b], l1.data(), nullptr);
        legendre(P, x[c], l2.data(), nullptr);
        const double wq = w[a] * w[b] * w[c];
        for (int k = 0; k < P; ++k)
          for (int j = 0; j < P; ++j)
            for (int i = 0; i < P; ++i) {
              const int m = i + P * (j + P * k);
              const double ph = l0[i] * l1[j] * l2[k] * wq;
              for (int s = 0; s < 6; ++s)
                for (int comp = 0; comp < 3; ++comp)
                  modes[s][comp * n + m] += r[s][comp] * ph;
            }
      }
  return modes;
}

/// Every element of g is genuinely non-affine: |J| differs between its first and last Gauss
/// point. (The box generator warps and perturbs interior vertices only, so a box one element
/// thick, -nz 1, is made of axis-aligned bricks whatever -warp says; "curved" blocks are flagged
/// non-affine regardless.)
bool all_non_affine(const Geometry& g) {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), g.vgeo);
  const int last = static_cast<int>(h.extent(1)) - 1;
  for (int e = 0; e < g.nelem; ++e)
    if (last < 1 || std::fabs(h(e, 0, 9) - h(e, last, 9)) <= 1e-6 * std::fabs(h(e, 0, 9)))
      return false;
  return true;
}

/// NaN (an entry never written) counts as an infinite error (std::max would drop it).
double finite_or_inf(double d) {
  return std::isfinite(d) ? d : std::numeric_limits<double>::infinity();
}

/// An (elem, N, N) batch filled with NaN: a kernel that skips an entry cannot pass a test on
/// stale memory of an earlier run.
View3 poisoned(int nelem, int N) {
  View3 v("poisoned", nelem, N, N);
  Kokkos::deep_copy(v, std::numeric_limits<double>::quiet_NaN());
  return v;
}

/// The element matrices integrate() writes into `out` (empty: a batch it allocates), as a host
/// copy.
auto host_matrices(Form form, const Coefficients& c, const Geometry& geo, const QuadTables& t,
                   const Variant& v, View3 out = View3()) {
  integrate(form, c, geo, t, v, out);
  return Kokkos::create_mirror_view_and_copy(HostSpace(), out);
}

/// Coefficients of every form away from their defaults: kappa(x), Lame parameters, an
/// advection-diffusion pair.
Coefficients all_form_coefficients() {
  Coefficients c;
  c.kappa0 = 1.3;
  c.kappa_amp = 0.5;
  c.lambda = 2.0;
  c.mu = 0.7;
  c.velocity[0] = 1.0;
  c.velocity[1] = -0.5;
  c.velocity[2] = 0.25;
  c.nu = 0.03;
  return c;
}

/// c with a per-point field kappa (elem, Q^3), uniform in [0.5, 2) drawn from `seed`.
Coefficients with_kappa_field(const Coefficients& c, int nelem, int Q3, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0.5, 2.0);
  Coefficients cf = c;
  cf.kappa_field = View2("kappa", nelem, Q3);
  auto hk = Kokkos::create_mirror_view(cf.kappa_field);
  for (int e = 0; e < nelem; ++e)
    for (int q = 0; q < Q3; ++q)
      hk(e, q) = U(rng);
  Kokkos::deep_copy(cf.kappa_field, hk);
  return cf;
}

/// Host reference matrices of elements 0 .. nref-1, with c's kappa field when it has one.
std::vector<std::vector<double>> reference_matrices(Form form, const Coefficients& c,
                                                    const mesh::HexMesh& m, int p, int nref) {
  const auto hk = Kokkos::create_mirror_view_and_copy(HostSpace(), c.kappa_field);
  std::vector<std::vector<double>> ref;
  for (int e = 0; e < nref; ++e) {
    std::vector<double> kf;
    if (hk.extent(0) > 0)
      for (size_t q = 0; q < hk.extent(1); ++q)
        kf.push_back(hk(e, q));
    ref.push_back(reference_matrix(form, c, m, e, p, kf));
  }
  return ref;
}

/// How a NaN entry counts in max_error: dropped (std::max keeps the running maximum), or as an
/// infinite error (finite_or_inf: the checks on poisoned batches).
enum class NaN { dropped, fails };

/// Max entry error and max |reference| of a comparison.
struct MaxError {
  double err = 0.0, scale = 0.0;
};

/// Matrices 0 .. ref.size()-1 of the host batch h against host references.
template <class HostView3>
MaxError max_error(const HostView3& h, const std::vector<std::vector<double>>& ref, NaN nan) {
  MaxError m;
  for (size_t e = 0; e < ref.size(); ++e) {
    const auto K = element_of(h, static_cast<int>(e));
    m.scale = std::max(m.scale, max_abs(ref[e]));
    for (size_t k = 0; k < K.size(); ++k) {
      const double d = std::fabs(K[k] - ref[e][k]);
      m.err = std::max(m.err, nan == NaN::fails ? finite_or_inf(d) : d);
    }
  }
  return m;
}

/// Two host batches of the same shape, entry by entry (scale from the reference `r`).
template <class HostView3>
MaxError max_error(const HostView3& h, const HostView3& r, NaN nan) {
  MaxError m;
  for (size_t k = 0; k < h.size(); ++k) {
    const double d = std::fabs(h.data()[k] - r.data()[k]);
    m.err = std::max(m.err, nan == NaN::fails ? finite_or_inf(d) : d);
    m.scale = std::max(m.scale, std::fabs(r.data()[k]));
  }
  return m;
}

} // namespace

TEST_CASE("quadrature element matrices match a naive host reference in every variant",
          "[unit][integration]") {
  const Coefficients c = all_form_coefficients();
  std::vector<Variant> variants;
  for (bool stored : {true, false})
    for (bool scratch : {true, false})
      for (int ept : {1, 4})
        variants.push_back(Variant{stored, scratch, ept});

  for (int p = 1; p <= 3; ++p) {
    // 8 elements, each with the warped, perturbed centre vertex (non-affine); ept 4 teams.
    const TestMesh tm = make_mesh("-nx 2 -ny 2 -nz 2 -warp 0.15 -perturb 0.1 -shuffle 3", p);
    const Geometry geo = geometry_of(tm.block);
    REQUIRE(!geo.affine);
    REQUIRE(all_non_affine(geo));
    const QuadTables t = make_quad_tables(p, tm.block.Q);
    // A per-point coefficient field for one Laplacian run.
    const Coefficients cf = with_kappa_field(c, geo.nelem, t.Q3, 7);

    for (Form form : {Form::mass, Form::laplacian, Form::elasticity, Form::advection_diffusion}) {
      if (form == Form::elasticity && p > 2) continue; // keep the naive reference fast
      for (int field = 0; field < (form == Form::laplacian ? 2 : 1); ++field) {
        const Coefficients& cc = field ? cf : c;
        const auto ref = reference_matrices(form, cc, tm.mesh, p, geo.nelem);
        for (const Variant& v : variants) {
          if (p == 3 && !v.scratch) continue; // registers recompute C per entry: slow on a CPU
          const auto h = host_matrices(form, cc, geo, t, v);
          const auto [err, scale] = max_error(h, ref, NaN::dropped);
          INFO(form_name(form) << " p = " << p << " variant " << v.name() << " field " << field);
          CHECK(err <= 1e-12 * scale);
        }
      }
    }
  }
}

TEST_CASE("sum-factorised quadrature assembly matches the naive host reference, p = 1..5",
          "[unit][integration]") {
  const Coefficients c = all_form_coefficients();
  // {stored, scratch, ept, sumfact, j3_per_pass, i3_per_team}: metric stored / recomputed,
  // 4-element teams with a partial last team, j3 passes of 2 and 3 and i3 slabs of 2 per team
  // (partial last ones when P is not a multiple), which is how a GPU splits the work at high p.
  const std::vector<Variant> variants = {{true, true, 1, true, 0, 0},  {false, true, 1, true, 0, 0},
                                         {true, true, 4, true, 0, 0},  {true, true, 1, true, 2, 0},
                                         {false, true, 4, true, 3, 2}, {true, true, 3, true, 1, 1},
                                         {true, true, 1, true, 0, 2}};
  for (int p = 1; p <= 5; ++p) {
    // 8 warped, perturbed, shuffled hexes, each with the moved centre vertex (non-affine);
    // the O(n^2 Q^3) host reference on all of them up to p = 3, on the first 3 above.
    const TestMesh tm = make_mesh("-nx 2 -ny 2 -nz 2 -warp 0.15 -perturb 0.1 -shuffle 3", p);
    const Geometry geo = geometry_of(tm.block);
    REQUIRE(all_non_affine(geo));
    const int nref = p <= 3 ? geo.nelem : 3;
    const QuadTables t = make_quad_tables(p, tm.block.Q);
    const Coefficients cf = with_kappa_field(c, geo.nelem, t.Q3, 13);
    for (Form form : {Form::mass, Form::laplacian, Form::elasticity, Form::advection_diffusion}) {
      for (int field = 0; field < (form == Form::laplacian ? 2 : 1); ++field) {
        const Coefficients& cc = field ? cf : c;
        const auto ref = reference_matrices(form, cc, tm.mesh, p, nref);
        for (const Variant& v : variants) {
          // Every entry must be written.
          const auto h =
              host_matrices(form, cc, geo, t, v, poisoned(geo.nelem, components(form) * t.n));
          const auto [err, scale] = max_error(h, ref, NaN::fails);
          INFO(form_name(form) << " p = " << p << " variant " << v.name() << " field " << field
                               << ": max error " << err << ", max |K| " << scale);
          CHECK(err <= 1e-12 * scale);
        }
      }
    }
  }
}

TEST_CASE("sum-factorised assembly equals the naive quadrature kernel for another rule (q = p+3)",
          "[unit][integration]") {
  // Q != P + 1 takes the run-time-order kernel (the solver's rule q = p + 2 the compile-time
  // one); the naive kernel on the same geometry and rule is the reference.
  Coefficients c;
  c.kappa_amp = 0.4;
  c.lambda = 1.5;
  c.mu = 0.9;
  c.velocity[0] = 0.3;
  c.velocity[1] = 1.0;
  c.velocity[2] = -0.7;
  c.nu = 0.05;
  for (int p = 1; p <= 3; ++p) {
    const TestMesh tm = make_mesh("-nx 2 -ny 2 -nz 2 -warp 0.15 -perturb 0.1 -shuffle 3", p);
    const int q = p + 3;
    const Geometry geo = make_geometry(tm.block.verts, q);
    REQUIRE(all_non_affine(geo));
    const QuadTables t = make_quad_tables(p, q);
    for (Form form : {Form::mass, Form::laplacian, Form::elasticity, Form::advection_diffusion}) {
      const auto hr = host_matrices(form, c, geo, t, Variant{});
      for (const Variant& v :
           {Variant{true, true, 1, true, 0, 0}, Variant{false, true, 4, true, 2, 3}}) {
        // Every entry must be written.
        const auto h =
            host_matrices(form, c, geo, t, v, poisoned(geo.nelem, components(form) * t.n));
        const auto [err, scale] = max_error(h, hr, NaN::fails);
        INFO(form_name(form) << " p = " << p << " q = " << q << " variant " << v.name()
                             << ": max error " << err << ", max |K| " << scale);
        CHECK(err <= 1e-12 * scale);
      }
    }
  }
}

TEST_CASE("sum-factorised assembly equals the naive quadrature kernel at p = 6, 7",
          "[unit][integration]") {
  // The compile-time kernels of the highest orders (P = 7, 8) on two warped elements, against the
  // naive kernel (O(n^2 Q^3): mass only at p = 7, mass and kappa(x) Laplacian at p = 6).
  Coefficients c;
  c.kappa_amp = 0.5;
  for (int p = 6; p <= 7; ++p) {
    // Two of the 8 non-affine hexes of a 2^3 box (the naive kernel is O(n^2 Q^3)).
    const TestMesh tm = make_mesh("-nx 2 -ny 2 -nz 2 -warp 0.15 -perturb 0.1 -shuffle 1", p);
    View3 verts("verts", 2, 8, 3);
    Kokkos::deep_copy(
        verts, Kokkos::subview(tm.block.verts, std::make_pair(0, 2), Kokkos::ALL, Kokkos::ALL));
    const Geometry geo = make_geometry(verts, tm.block.Q);
    REQUIRE(all_non_affine(geo));
    const QuadTables t = make_quad_tables(p, tm.block.Q);
    for (Form form : {Form::mass, Form::laplacian}) {
      if (form == Form::laplacian && p > 6) continue;
      const auto hr = host_matrices(form, c, geo, t, Variant{});
      const Variant v{true, true, 1, true, 3, 0};
      const auto h = host_matrices(form, c, geo, t, v, poisoned(geo.nelem, components(form) * t.n));
      const auto [err, scale] = max_error(h, hr, NaN::fails);
      INFO(form_name(form) << " p = " << p << ": max error " << err << ", max |K| " << scale);
      CHECK(err <= 1e-12 * scale);
    }
  }
}

TEST_CASE("element matrices: symmetry, Laplacian kernel, mass sums to the volume, elasticity "
          "null space = rigid motions",
          "[unit][integration]") {
  const int p = 2;
  const TestMesh tm = make_mesh("-nx 2 -warp 0.1 -perturb 0.1 -shuffle 5", p);
  const Geometry geo = geometry_of(tm.block);
  const QuadTables t = make_quad_tables(p, tm.block.Q);
  const int n = t.n;
  Coefficients c;
  c.kappa_amp = 0.5;
  c.lambda = 1.5;
  c.mu = 0.8;
  auto hvol = Kokkos::create_mirror_view_and_copy(HostSpace(), tm.block.volume);
  for (Form form : {Form::mass, Form::laplacian, Form::elasticity}) {
    const auto h = host_matrices(form, c, geo, t, Variant{});
    const int N = static_cast<int>(h.extent(1));
    for (int e = 0; e < geo.nelem; ++e) {
      const auto K = element_of(h, e);
      const double scale = max_abs(K);
      double asym = 0.0;
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
          asym = std::max(asym, std::fabs(K[i * N + j] - K[j * N + i]));
      INFO(form_name(form) << " element " << e);
      CHECK(asym <= 1e-13 * scale);
      if (form == Form::mass) {
        // The constant 1 has the single coefficient c_0 = 1 / phi_0^3 = 2 sqrt(2) (mode 0),
        // so c^T M c = 8 M_00 must be the element volume (from the mesh's own quadrature).
        CHECK(std::fabs(8.0 * K[0] - hvol(e)) <= 1e-12 * hvol(e));
      }
      if (form == Form::laplacian) {
        // Rows sum to zero against the constant function (coefficients 2 sqrt(2) e_0): K e_0 = 0.
        double col0 = 0.0;
        for (int i = 0; i < N; ++i)
          col0 = std::max(col0, std::fabs(K[i * N]));
        CHECK(col0 <= 1e-13 * scale);
      }
      if (form == Form::elasticity) {
        const auto modes = rigid_modes(tm.mesh, e, p);
        for (const auto& r : modes) {
          double kr = 0.0, rn = 0.0;
          for (int i = 0; i < N; ++i) {
            double s = 0.0;
            for (int j = 0; j < N; ++j)
              s += K[i * N + j] * r[j];
            kr = std::max(kr, std::fabs(s));
            rn = std::max(rn, std::fabs(r[i]));
          }
          CHECK(kr <= 1e-12 * scale * rn * N);
        }
        if (e < 2) { // spectrum (Jacobi): exactly six (numerically) zero eigenvalues
          const std::vector<double> ev = symmetric_eigenvalues(K, N);
          const double lmax = ev[N - 1];
          INFO("eigenvalues / max: " << ev[0] / lmax << " ... " << ev[5] / lmax << ", 7th "
                                     << ev[6] / lmax);
          CHECK(std::fabs(ev[0]) <= 1e-12 * lmax);
          CHECK(std::fabs(ev[5]) <= 1e-12 * lmax);
          CHECK(ev[6] >= 1e-6 * lmax);
        }
      }
    }
    (void)n;
  }
}

TEST_CASE("tensor representation A0 : G_e equals quadrature on affine elements",
          "[unit][integration]") {
  // Random parallelepipeds x = L xi + b (full, non-symmetric L), built directly.
  const int nelem = 5;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-0.3, 0.3);
  View3 verts("verts", nelem, 8, 3);
  auto hv = Kokkos::create_mirror_view(verts);
  for (int e = 0; e < nelem; ++e) {
    double L[3][3], b[3];
    for (int i = 0; i < 3; ++i) {
      b[i] = U(rng);
      for (int j = 0; j < 3; ++j)
        L[i][j] = (i == j ? 0.5 + 0.1 * e : 0.0) + U(rng);
    }
    for (int v = 0; v < 8; ++v)
      for (int i = 0; i < 3; ++i) {
        double s = b[i];
        for (int j = 0; j < 3; ++j)
          s += L[i][j] * hex::vertex_sign(v, j);
        hv(e, v, i) = s;
      }
  }
  Kokkos::deep_copy(verts, hv);
  Coefficients c;
  c.kappa0 = 1.7;
  c.lambda = 2.0;
  c.mu = 0.6;
  c.velocity[0] = 0.8;
  c.velocity[1] = -0.4;
  c.velocity[2] = 0.3;
  c.nu = 0.25;
  for (int p = 1; p <= 4; ++p) {
    // Each form's reference tensors against a direct 3-D quadrature of the basis (derivatives):
    // A0(k, i, j) = int psi_i^alpha psi_j^beta, (alpha, beta) = (0, 0) for mass,
    // (1 + d, 1 + d') for k = 3 d + d', (1 + d, 0) for advection term k = 9 + d.
    {
      const QuadTables t = make_quad_tables(p, p + 1);
      auto hp = Kokkos::create_mirror_view_and_copy(HostSpace(), t.psi);
      auto hw = Kokkos::create_mirror_view_and_copy(HostSpace(), t.w);
      for (Form form : {Form::mass, Form::laplacian, Form::advection_diffusion}) {
        const auto& A0 = reference_tensor(form, p);
        const int K = tensor_terms(form);
        REQUIRE(A0.size() == size_t(K) * t.n * t.n);
        double err = 0.0;
        for (int k = 0; k < K; ++k) {
          const int alpha = form == Form::mass ? 0 : (k < 9 ? 1 + k / 3 : 1 + k - 9);
          const int beta = form == Form::mass ? 0 : (k < 9 ? 1 + k % 3 : 0);
          for (int i = 0; i < t.n; ++i)
            for (int j = 0; j < t.n; ++j) {
              double s = 0.0;
              for (int q = 0; q < t.Q3; ++q)
                s += hw(q) * hp(q, alpha, i) * hp(q, beta, j);
              err = std::max(err, std::fabs(s - A0[(size_t(k) * t.n + i) * t.n + j]));
            }
        }
        INFO(form_name(form) << " p = " << p);
        CHECK(err <= 1e-12);
      }
    }
    const Geometry geo = make_geometry(verts, p + 2);
    const QuadTables t = make_quad_tables(p, p + 2);
    for (Form form : {Form::mass, Form::laplacian, Form::elasticity, Form::advection_diffusion}) {
      if (form == Form::elasticity && p > 3) continue;
      const auto hq = host_matrices(form, c, geo, t, Variant{});
      View3 tt;
      tensor_integrate(form, c, verts, p, tt);
      const auto ht = Kokkos::create_mirror_view_and_copy(HostSpace(), tt);
      const auto [err, scale] = max_error(ht, hq, NaN::dropped);
      INFO(form_name(form) << " p = " << p);
      CHECK(err <= 1e-12 * scale);
    }
  }
}

namespace {
/// A 7-element box (shuffled: each hex in one of its 24 rotated local numberings) under the
/// full affine map x -> L x + b (shear, rotation, stretch): every element has its own constant
/// Jacobian.
TestMesh affine_shuffled_mesh(int p) {
  TestMesh tm;
  tm.mesh = mesh::generate_box(mesh::parse_box_flags("-nx 7 -ny 1 -nz 1 -shuffle 3"));
  const double L[3][3] = {{1.1, 0.3, -0.2}, {0.1, 0.8, 0.25}, {-0.15, 0.2, 1.3}};
  for (size_t v = 0; v < tm.mesh.coords.size() / 3; ++v) {
    const double x[3] = {tm.mesh.coords[3 * v], tm.mesh.coords[3 * v + 1],
                         tm.mesh.coords[3 * v + 2]};
    for (int i = 0; i < 3; ++i)
      tm.mesh.coords[3 * v + i] = 0.1 * i + L[i][0] * x[0] + L[i][1] * x[1] + L[i][2] * x[2];
  }
  const auto conn = mesh::build_connectivity(tm.mesh);
  const std::vector<int> owner(static_cast<size_t>(tm.mesh.num_elements()), 0);
  const mesh::LocalMesh local =
      mesh::extract_local_mesh(tm.mesh, conn, owner, 0, mesh::box_info(tm.mesh));
  tm.block = build_element_block(local, {}, p, p + 2, BoundaryKinds{}, "curved");
  return tm;
}

/// Coefficients of the tensor tests: constant kappa, Lame pair, an advection-diffusion pair
/// whose two parts are of similar size (a transposed or mis-signed term cannot hide).
Coefficients tensor_coefficients() {
  Coefficients c;
  c.kappa0 = 1.3;
  c.lambda = 2.0;
  c.mu = 0.7;
  c.velocity[0] = 1.0;
  c.velocity[1] = -0.6;
  c.velocity[2] = 0.35;
  c.nu = 0.3;
  return c;
}

/// Every tensor kernel variant on `tm`'s elements against `ref` (host reference matrices of
/// elements 0 .. ref.size()-1): geometric tensor with the default team and with 1 and 3
/// elements per team (partial teams; all three must give the same G), then tensor_contract and
/// tensor_contract_batched (default, ept 1, ept 4, ept 4 / tile 100, ept 3 / tile 7: partial
/// batches and tiles) into NaN-poisoned outputs.
void check_tensor_kernels(Form form, const Coefficients& c, const TestMesh& tm, int p,
                          const std::vector<std::vector<double>>& ref) {
  const int nelem = tm.block.nelem, N = components(form) * (p + 1) * (p + 1) * (p + 1);
  const View2 A0 = reference_tensor_device(form, p);
  View2 G;
  geometric_tensor(form, c, tm.block.verts, G);
  REQUIRE(G.extent(0) == size_t(nelem));
  REQUIRE(G.extent(1) == size_t(tensor_width(form)));
  const auto hG = Kokkos::create_mirror_view_and_copy(HostSpace(), G);
  for (int ept : {1, 3}) {
    View2 Gt("Gt", nelem, tensor_width(form));
    Kokkos::deep_copy(Gt, std::numeric_limits<double>::quiet_NaN());
    geometric_tensor(form, c, tm.block.verts, Gt, ept);
    const auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), Gt);
    double diff = 0.0;
    for (size_t k = 0; k < h.size(); ++k)
      diff = std::max(diff, finite_or_inf(std::fabs(h.data()[k] - hG.data()[k])));
    INFO(form_name(form) << " geometric tensor, " << ept << " elements per team");
    CHECK(diff == 0.0);
  }
  // kind -1: tensor_contract; otherwise tensor_contract_batched(ept, tile).
  const int kinds[][2] = {{-1, 0}, {0, 0}, {1, 0}, {4, 0}, {4, 100}, {3, 7}};
  for (const auto& k : kinds) {
    View3 out = poisoned(nelem, N);
    if (k[0] < 0)
      tensor_contract(form, p, A0, G, out);
    else
      tensor_contract_batched(form, p, A0, G, out, k[0], k[1]);
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), out);
    REQUIRE(h.extent(0) == size_t(nelem));
    const auto [err, scale] = max_error(h, ref, NaN::fails);
    INFO(form_name(form) << " p = " << p << " ept " << k[0] << " tile " << k[1]);
    CHECK(err <= 1e-12 * scale);
    // The poison in elements without a reference must be gone too.
    bool finite = true;
    for (size_t q = 0; q < h.size(); ++q)
      finite = finite && std::isfinite(h.data()[q]);
    CHECK(finite);
  }
}
} // namespace

TEST_CASE("tensor contraction, per-element and batched kernels, match a naive host reference",
          "[unit][integration]") {
  const Coefficients c = tensor_coefficients();
  for (int p = 1; p <= 4; ++p) {
    const TestMesh tm = affine_shuffled_mesh(p);
    for (Form form : {Form::mass, Form::laplacian, Form::elasticity, Form::advection_diffusion}) {
      if (form == Form::elasticity && p > 2) continue; // keep the naive reference fast
      check_tensor_kernels(form, c, tm, p, reference_matrices(form, c, tm.mesh, p, tm.block.nelem));
    }
  }
}

TEST_CASE("tensor path for mass and advection-diffusion matches the naive host reference, "
          "p = 5..7",
          "[unit][integration]") {
  // The naive reference costs O(n^2 Q^3) per element (p = 7: 2e8 terms): two elements.
  const Coefficients c = tensor_coefficients();
  for (int p = 5; p <= 7; ++p) {
    const TestMesh tm = affine_shuffled_mesh(p);
    for (Form form : {Form::mass, Form::advection_diffusion})
      check_tensor_kernels(form, c, tm, p, reference_matrices(form, c, tm.mesh, p, 2));
  }
}

TEST_CASE("geometric tensor refuses coefficients the tensor path cannot represent",
          "[unit][integration]") {
  const TestMesh tm = affine_shuffled_mesh(1);
  Coefficients c = tensor_coefficients();
  View2 G;
  for (Form form : {Form::mass, Form::laplacian, Form::elasticity, Form::advection_diffusion})
    CHECK_NOTHROW(geometric_tensor(form, c, tm.block.verts, G));
  // kappa(x) (either way of giving it) is refused for the laplacian, with a message naming it.
  Coefficients ca = c;
  ca.kappa_amp = 0.5;
  // (the message checked by hand: Catch2 2.x and 3.x name their string matchers differently)
  std::string message;
  try {
    geometric_tensor(Form::laplacian, ca, tm.block.verts, G);
  } catch (const std::exception& ex) {
    message = ex.what();
  }
  CHECK(message.find("constant kappa") != std::string::npos);
  const Coefficients cf = with_kappa_field(c, tm.block.nelem, 27, 5);
  CHECK_THROWS_AS(geometric_tensor(Form::laplacian, cf, tm.block.verts, G), InternalError);
  // A geometric tensor of the wrong width is refused by the contraction.
  geometric_tensor(Form::laplacian, c, tm.block.verts, G);
  View3 out;
  CHECK_THROWS_AS(tensor_contract_batched(Form::advection_diffusion, 1,
                                          reference_tensor_device(Form::advection_diffusion, 1), G,
                                          out),
                  InternalError);
  CHECK_THROWS_AS(tensor_contract(Form::mass, 1, reference_tensor_device(1), G, out),
                  InternalError);
}

TEST_CASE("batched LU inverse and batched GEMV (Kokkos-Kernels) against host loops",
          "[unit][integration]") {
  const int p = 2;
  const TestMesh tm = make_mesh("-nx 2 -warp 0.1 -shuffle 1", p);
  const QuadTables t = make_quad_tables(p, tm.block.Q);
  View3 M, Minv;
  integrate(Form::mass, Coefficients{}, geometry_of(tm.block), t, Variant{}, M);
  batched_inverse(M, Minv);
  View2 x("x", tm.block.nelem, t.n), y("y", tm.block.nelem, t.n);
  auto hx = Kokkos::create_mirror_view(x);
  for (size_t k = 0; k < hx.size(); ++k)
    hx.data()[k] = std::sin(1.0 + k);
  Kokkos::deep_copy(x, hx);
  batched_gemv(M, x, y);
  auto hM = Kokkos::create_mirror_view_and_copy(HostSpace(), M);
  auto hI = Kokkos::create_mirror_view_and_copy(HostSpace(), Minv);
  auto hy = Kokkos::create_mirror_view_and_copy(HostSpace(), y);
  const int n = t.n;
  double err_inv = 0.0, err_mv = 0.0;
  for (int e = 0; e < tm.block.nelem; ++e)
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int j = 0; j < n; ++j) {
        s += hM(e, i, j) * hx(e, j);
        double mi = 0.0;
        for (int k = 0; k < n; ++k)
          mi += hM(e, i, k) * hI(e, k, j);
        err_inv = std::max(err_inv, std::fabs(mi - (i == j ? 1.0 : 0.0)));
      }
      err_mv = std::max(err_mv, std::fabs(s - hy(e, i)));
    }
  CHECK(err_inv <= 1e-12);
  CHECK(err_mv <= 1e-13);
}

namespace {
const char* solver_yaml = R"(
mesh: {box: "-nx 3 -warp 0.15 -shuffle 2 -periodic xyz"}
discretization: {order: 3}
physics: {velocity: [1.0, 0.5, 0.25], diffusivity: 0.02}
initial: {type: fourier, wavenumber: [1, 1, 1]}
time: {steps: 4, cfl: 0.5}
output: {snapshots: false, quiet: true, directory: test_out}
)";

std::vector<double> run_modes(const std::string& yaml, const std::vector<std::string>& set) {
  const io::Config cfg = io::parse_config(yaml, "test.yaml", set);
  Solver s(cfg, MPI_COMM_WORLD);
  s.initialize();
  s.run();
  return s.gather_modes();
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (size_t k = 0; k < a.size(); ++k)
    d = std::max(d, std::fabs(a[k] - b[k]));
  return d;
}
} // namespace

TEST_CASE("solver: element_matrix operator equals matrix_free to round-off",
          "[integration][solver]") {
  for (const std::string geom : {"curved", "affine"}) {
    const std::string mesh = geom == "curved" ? "mesh.box=-nx 3 -warp 0.15 -shuffle 2 -periodic xyz"
                                              : "mesh.box=-nx 3 -Ly 2 -shuffle 2";
    const auto mf = run_modes(solver_yaml, {mesh});
    const auto em = run_modes(solver_yaml, {mesh, "discretization.operator=element_matrix"});
    INFO(geom << ": max |u_mf| " << max_abs(mf) << ", max diff " << max_diff(mf, em));
    CHECK(max_diff(mf, em) <= 1e-12 * max_abs(mf));
    // Exact mass together with element matrices (both hooks at once) stays close to the
    // weight-adjusted default (they differ by the discretisation, not by round-off).
    const auto ex = run_modes(
        solver_yaml, {mesh, "discretization.operator=element_matrix", "discretization.mass=exact"});
    CHECK(max_diff(mf, ex) <= 1e-3 * max_abs(mf));
  }
  CHECK_THROWS_AS(run_modes(solver_yaml, {"discretization.operator=element_matrix",
                                          "physics.velocity_field=rotation"}),
                  InputError);
}

TEST_CASE("solver: exact and weight-adjusted mass both converge at order p+1 on a warped mesh",
          "[integration][solver][convergence]") {
  const char* yaml = R"(
mesh: {box: "-nx 4 -warp 0.1 -shuffle 3 -periodic xyz"}
discretization: {order: 2}
physics: {velocity: [1.0, 0.5, 0.25], diffusivity: 0.0}
initial: {type: fourier, wavenumber: [1, 1, 1]}
time: {final_time: 0.02, cfl: 0.5}
output: {snapshots: false, quiet: true, directory: test_out}
)";
  std::vector<std::vector<double>> errors;
  for (const std::string mass : {"weight_adjusted", "exact"}) {
    std::vector<double> e;
    for (int nx : {4, 8})
      e.push_back(dgtest::run_case(yaml, {"mesh.box=-nx " + std::to_string(nx) +
                                              " -warp 0.1 -shuffle 3 -periodic xyz",
                                          "discretization.mass=" + mass})
                      .l2_error);
    const double order = dgtest::orders(e)[0];
    INFO("mass " << mass << ": errors " << e[0] << ", " << e[1] << ", order " << order);
    // Design order p+1 = 3; 4^3 -> 8^3 is still pre-asymptotic for this mode (both options
    // observe 2.67 here, 2.70 from 6^3 to 12^3 at t = 0.05), so the bound is p + 1/2, upwind DG's
    // proven rate.
    CHECK(order >= 2.5);
    CHECK(order <= 3.5);
    errors.push_back(e);
  }
  // Both are consistent L2 projections; their errors agree closely (not to round-off).
  for (int k = 0; k < 2; ++k)
    CHECK(std::fabs(errors[0][k] - errors[1][k]) <= 0.01 * errors[0][k]);
}
