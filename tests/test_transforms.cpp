// Basis, quadrature and sum-factorised transforms against naive dense references.
#include "catch.hpp"
#include "dg/dg/basis.hpp"
#include "dg/dg/transforms.hpp"

#include <cmath>
#include <random>
#include <vector>

using namespace dg;

TEST_CASE("Gauss-Legendre integrates degree 2q-1 exactly; Legendre basis is orthonormal",
          "[unit][basis]") {
  for (int q = 1; q <= 20; ++q) {
    std::vector<double> x, w;
    gauss_legendre(q, x, w);
    for (int deg = 0; deg <= 2 * q - 1; ++deg) {
      double s = 0.0;
      for (int a = 0; a < q; ++a)
        s += w[a] * std::pow(x[a], deg);
      const double exact = (deg % 2) ? 0.0 : 2.0 / (deg + 1);
      CHECK(std::fabs(s - exact) < 1e-14);
    }
  }
  const int P = 16;
  HostTables t = make_tables(P - 1, P + 1);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) {
      double s = 0.0;
      for (int a = 0; a < t.Q; ++a)
        s += t.w[a] * t.B[a * P + i] * t.B[a * P + j];
      CHECK(std::fabs(s - (i == j ? 1.0 : 0.0)) < 1e-13);
    }
  // Derivative table against a centred finite difference of the values.
  for (int a = 0; a < t.Q; ++a) {
    std::vector<double> fp(P), fm(P);
    const double h = 1e-6;
    legendre(P, t.x[a] + h, fp.data(), nullptr);
    legendre(P, t.x[a] - h, fm.data(), nullptr);
    for (int i = 0; i < P; ++i)
      CHECK(std::fabs((fp[i] - fm[i]) / (2 * h) - t.D[a * P + i]) < 1e-6 * (1 + i * i * i));
  }
}

namespace {
// Dense reference: vals(abc) = sum_ijk Mx(a,i) My(b,j) Mz(c,k) modes(ijk).
std::vector<double> naive_backward(const HostTables& t, const std::vector<double>& u, int deriv) {
  const int P = t.P, Q = t.Q;
  auto M = [&](int dir, int a, int i) { return (dir == deriv ? t.D : t.B)[a * P + i]; };
  std::vector<double> v(Q * Q * Q, 0.0);
  for (int c = 0; c < Q; ++c)
    for (int b = 0; b < Q; ++b)
      for (int a = 0; a < Q; ++a) {
        double s = 0.0;
        for (int k = 0; k < P; ++k)
          for (int j = 0; j < P; ++j)
            for (int i = 0; i < P; ++i)
              s += M(0, a, i) * M(1, b, j) * M(2, c, k) * u[i + P * (j + P * k)];
        v[a + Q * (b + Q * c)] = s;
      }
  return v;
}
std::vector<double> naive_inner(const HostTables& t, const std::vector<double>& v, int deriv) {
  const int P = t.P, Q = t.Q;
  auto M = [&](int dir, int a, int i) { return (dir == deriv ? t.D : t.B)[a * P + i]; };
  std::vector<double> u(P * P * P, 0.0);
  for (int k = 0; k < P; ++k)
    for (int j = 0; j < P; ++j)
      for (int i = 0; i < P; ++i) {
        double s = 0.0;
        for (int c = 0; c < Q; ++c)
          for (int b = 0; b < Q; ++b)
            for (int a = 0; a < Q; ++a)
              s += M(0, a, i) * M(1, b, j) * M(2, c, k) * v[a + Q * (b + Q * c)];
        u[i + P * (j + P * k)] = s;
      }
  return u;
}
double rel_err(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}
} // namespace

TEST_CASE("sum-factorised transforms match the dense reference for p = 1..10",
          "[unit][transforms]") {
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int p = 1; p <= 10; ++p) {
    const int q = p + 2, P = p + 1, E = 3;
    HostTables ht = make_tables(p, q);
    BasisTables t = to_device(ht);
    View2 modes("modes", E, P * P * P), vals("vals", E, q * q * q), back("back", E, P * P * P);
    auto hm = Kokkos::create_mirror_view(modes);
    auto hv = Kokkos::create_mirror_view(vals);
    for (int e = 0; e < E; ++e) {
      for (int m = 0; m < P * P * P; ++m)
        hm(e, m) = dist(gen);
      for (int a = 0; a < q * q * q; ++a)
        hv(e, a) = dist(gen);
    }
    Kokkos::deep_copy(modes, hm);
    for (int deriv = -1; deriv < 3; ++deriv) {
      Kokkos::deep_copy(vals, hv);
      View2 out("out", E, q * q * q);
      backward_transform(t, modes, out, deriv);
      inner_product(t, vals, back, deriv);
      auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
      for (int e = 0; e < E; ++e) {
        std::vector<double> u(&hm(e, 0), &hm(e, 0) + P * P * P);
        std::vector<double> v(&hv(e, 0), &hv(e, 0) + q * q * q);
        std::vector<double> got_v(&ho(e, 0), &ho(e, 0) + q * q * q);
        std::vector<double> got_u(&hb(e, 0), &hb(e, 0) + P * P * P);
        INFO("p = " << p << ", deriv = " << deriv << ", element " << e);
        CHECK(rel_err(got_v, naive_backward(ht, u, deriv)) < 1e-13);
        CHECK(rel_err(got_u, naive_inner(ht, v, deriv)) < 1e-13);
      }
    }
    // inner_product(w * backward_transform(u)) = M u = u (orthonormal basis, reference element).
    View2 pts("pts", E, q * q * q), again("again", E, P * P * P);
    backward_transform(t, modes, pts);
    auto w = t.w;
    Kokkos::parallel_for(
        "test::weight", Kokkos::RangePolicy<ExecSpace>(0, E), KOKKOS_LAMBDA(const int e) {
          for (int c = 0; c < q; ++c)
            for (int b = 0; b < q; ++b)
              for (int a = 0; a < q; ++a)
                pts(e, a + q * (b + q * c)) *= w(a) * w(b) * w(c);
        });
    inner_product(t, pts, again);
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), again);
    for (int e = 0; e < E; ++e) {
      std::vector<double> u(&hm(e, 0), &hm(e, 0) + P * P * P);
      std::vector<double> got(&ha(e, 0), &ha(e, 0) + P * P * P);
      INFO("mass identity, p = " << p);
      CHECK(rel_err(got, u) < 1e-13);
    }
  }
}
