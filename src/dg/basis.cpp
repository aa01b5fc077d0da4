// Orthonormal Legendre basis and Gauss-Legendre quadrature.
#include "dg/dg/basis.hpp"

#include "dg/core/error.hpp"

#include <cmath>
#include <string>

namespace dg {

void legendre(int n, double x, double* phi, double* dphi) {
  // Monic-free recurrence for P_i and P_i', then scale by sqrt((2i+1)/2).
  double p0 = 1.0, p1 = x, d0 = 0.0, d1 = 1.0;
  for (int i = 0; i < n; ++i) {
    double pi, di;
    if (i == 0) {
      pi = 1.0;
      di = 0.0;
    } else if (i == 1) {
      pi = x;
      di = 1.0;
    } else {
      pi = ((2.0 * i - 1.0) * x * p1 - (i - 1.0) * p0) / i;
      di = d0 + (2.0 * i - 1.0) * p1; // P_i' = P_{i-2}' + (2i-1) P_{i-1}
      p0 = p1;
      p1 = pi;
      d0 = d1;
      d1 = di;
    }
    const double s = std::sqrt((2.0 * i + 1.0) / 2.0);
    phi[i] = s * pi;
    if (dphi) dphi[i] = s * di;
  }
}

void gauss_legendre(int q, std::vector<double>& x, std::vector<double>& w) {
  DG_VERIFY(q >= 1 && q <= 64, "q = " << q);
  x.assign(q, 0.0);
  w.assign(q, 0.0);
  const double pi = 3.14159265358979323846;
  // P_q(z) and P_q'(z) by the three-term recurrence.
  auto legendre_q = [q](double z, double& dp) {
    double p0 = 1.0, p1 = z;
    for (int j = 2; j <= q; ++j) {
      const double pj = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p0) / j;
      p0 = p1;
      p1 = pj;
    }
    const double pq = (q == 1) ? z : p1, pqm1 = (q == 1) ? 1.0 : p0;
    dp = q * (z * pq - pqm1) / (z * z - 1.0);
    return pq;
  };
  for (int k = 0; k < (q + 1) / 2; ++k) {
    double z = std::cos(pi * (k + 0.75) / (q + 0.5));
    double dp = 0.0;
    for (int it = 0; it < 100; ++it) {
      const double dz = legendre_q(z, dp) / dp;
      z -= dz;
      if (std::fabs(dz) < 1e-16) break;
    }
    legendre_q(z, dp);
    const double wk = 2.0 / ((1.0 - z * z) * dp * dp);
    x[k] = -z;
    x[q - 1 - k] = z;
    w[k] = w[q - 1 - k] = wk;
  }
  if (q % 2 == 1) x[q / 2] = 0.0;
}

HostTables make_tables_at(int order, const std::vector<double>& points) {
  HostTables t;
  t.P = order + 1;
  t.Q = static_cast<int>(points.size());
  t.x = points;
  t.B.resize(t.Q * t.P);
  t.D.resize(t.Q * t.P);
  for (int a = 0; a < t.Q; ++a)
    legendre(t.P, points[a], &t.B[a * t.P], &t.D[a * t.P]);
  t.E.resize(2 * t.P);
  t.dE.resize(2 * t.P);
  legendre(t.P, -1.0, &t.E[0], &t.dE[0]);
  legendre(t.P, 1.0, &t.E[t.P], &t.dE[t.P]);
  return t;
}

HostTables make_tables(int order, int q) {
  std::vector<double> x, w;
  gauss_legendre(q, x, w);
  HostTables t = make_tables_at(order, x);
  t.w = w;
  return t;
}

namespace {
View2 device_matrix(const char* label, const std::vector<double>& v, int rows, int cols) {
  View2 d(std::string(label), rows, cols);
  auto h = Kokkos::create_mirror_view(d);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      h(i, j) = v[i * cols + j];
  Kokkos::deep_copy(d, h);
  return d;
}
} // namespace

void modal_matrices(const HostTables& t, std::vector<double>& S, std::vector<double>& K) {
  S.assign(static_cast<size_t>(t.P) * t.P, 0.0);
  K = S;
  if (t.w.empty()) return;
  for (int i = 0; i < t.P; ++i)
    for (int m = 0; m < t.P; ++m)
      for (int a = 0; a < t.Q; ++a) {
        S[i * t.P + m] += t.w[a] * t.D[a * t.P + i] * t.B[a * t.P + m];
        K[i * t.P + m] += t.w[a] * t.D[a * t.P + i] * t.D[a * t.P + m];
      }
}

BasisTables to_device(const HostTables& t) {
  BasisTables d;
  d.P = t.P;
  d.Q = t.Q;
  d.w = View1("dg::basis::w", t.Q);
  auto hw = Kokkos::create_mirror_view(d.w);
  for (int a = 0; a < t.Q; ++a)
    hw(a) = t.w.empty() ? 0.0 : t.w[a];
  Kokkos::deep_copy(d.w, hw);
  d.B = device_matrix("dg::basis::B", t.B, t.Q, t.P);
  d.D = device_matrix("dg::basis::D", t.D, t.Q, t.P);
  d.E = device_matrix("dg::basis::E", t.E, 2, t.P);
  d.dE = device_matrix("dg::basis::dE", t.dE, 2, t.P);
  std::vector<double> S, K;
  modal_matrices(t, S, K);
  // The modal kernels (ModalPencil) rely on the structure of the orthonormal Legendre basis:
  // S(i, m) = 0 unless m < i and i + m odd; phi_m(-1) = (-1)^m phi_m(1).
  if (!t.w.empty() && t.Q > t.P)
    for (int i = 0; i < t.P; ++i)
      for (int m = 0; m < t.P; ++m)
        if (!(m < i && (i + m) % 2 == 1))
          DG_VERIFY(std::fabs(S[i * t.P + m]) < 1e-10,
                    "basis: S(" << i << ", " << m << ") = " << S[i * t.P + m] << " is not zero");
  // K(i, m) = 0 unless i + m even and i, m >= 1; phi_m'(-1) = (-1)^(m+1) phi_m'(1).
  if (!t.w.empty() && t.Q > t.P)
    for (int i = 0; i < t.P; ++i)
      for (int m = 0; m < t.P; ++m)
        if (!((i + m) % 2 == 0 && i > 0 && m > 0))
          DG_VERIFY(std::fabs(K[i * t.P + m]) < 1e-10,
                    "basis: K(" << i << ", " << m << ") = " << K[i * t.P + m] << " is not zero");
  for (int m = 0; m < t.P; ++m) {
    DG_VERIFY(std::fabs(t.E[m] - (m % 2 ? -1.0 : 1.0) * t.E[t.P + m]) < 1e-12,
              "basis: phi_" << m << "(-1) != (-1)^m phi_" << m << "(1)");
    DG_VERIFY(std::fabs(t.dE[m] - (m % 2 ? 1.0 : -1.0) * t.dE[t.P + m]) <
                  1e-12 * (1.0 + std::fabs(t.dE[t.P + m])),
              "basis: phi_" << m << "'(-1) != (-1)^(m+1) phi_" << m << "'(1)");
  }
  // The quadrature pencil path's contractions (sym_points, sym_modes) rely on the symmetry of
  // the Gauss points (x[Q - 1 - a] = -x[a] exactly): B(Q - 1 - a, m) = (-1)^m B(a, m) and
  // D(Q - 1 - a, m) = (-1)^(m+1) D(a, m), exactly.
  if (!t.w.empty())
    for (int a = 0; a < t.Q; ++a)
      for (int m = 0; m < t.P; ++m) {
        const double sg = m % 2 ? -1.0 : 1.0, *B = t.B.data(), *D = t.D.data();
        DG_VERIFY(B[(t.Q - 1 - a) * t.P + m] == sg * B[a * t.P + m] &&
                      D[(t.Q - 1 - a) * t.P + m] == -sg * D[a * t.P + m],
                  "basis: B or D at points " << a << " and " << t.Q - 1 - a << ", mode " << m
                                             << ", without the parity of phi_" << m);
      }
  d.S = device_matrix("dg::basis::S", S, t.P, t.P);
  d.K = device_matrix("dg::basis::K", K, t.P, t.P);
  return d;
}

} // namespace dg
