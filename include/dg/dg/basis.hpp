// One-dimensional building blocks of the modal tensor basis: orthonormal Legendre polynomials,
// Gauss-Legendre quadrature and the tables B, D (values and derivatives at points) that the
// sum-factorised kernels contract with. Host-side; device copies live in BasisTables.
#pragma once

#include "dg/core/kokkos.hpp"

#include <vector>

namespace dg {

/// Orthonormal Legendre polynomial phi_i(x) = sqrt((2i+1)/2) P_i(x) on [-1,1] and its
/// derivative, for i = 0..n-1, by the three-term recurrence.
void legendre(int n, double x, double* phi, double* dphi);

/// Gauss-Legendre nodes and weights on [-1,1], q points (exact for degree 2q-1). Newton on P_q
/// from Chebyshev guesses; nodes ascending, symmetric to round-off.
void gauss_legendre(int q, std::vector<double>& x, std::vector<double>& w);

/// 1-D tables for P = p+1 modes and Q points, row-major (point, mode):
///   B(a, i) = phi_i(x_a), D(a, i) = phi_i'(x_a), w(a) the weights,
///   E(s, i) = phi_i(-1 + 2s), dE(s, i) = phi_i'(-1 + 2s) for s = 0, 1 (face values).
struct HostTables {
  int P = 0, Q = 0;
  std::vector<double> x, w, B, D, E, dE;
};
HostTables make_tables(int order, int q);
/// Tables at arbitrary points (no weights): used for sampling output and error quadrature.
HostTables make_tables_at(int order, const std::vector<double>& points);

/// The 1-D matrices of the modal kernels from t's quadrature, row-major (P, P):
/// S(i, m) = sum_a w_a phi_i'(x_a) phi_m(x_a), K(i, m) = sum_a w_a phi_i'(x_a) phi_m'(x_a)
/// (zero without weights). BasisTables' S and K are these.
void modal_matrices(const HostTables& t, std::vector<double>& S, std::vector<double>& K);

/// Device copies of HostTables.
struct BasisTables {
  int P = 0, Q = 0;
  View1 w;  // (Q)
  View2 B;  // (Q, P)
  View2 D;  // (Q, P)
  View2 E;  // (2, P)
  View2 dE; // (2, P)
  View2 S;  // (P, P) 1-D S(i, m) = sum_a w_a phi_i'(x_a) phi_m(x_a)
  View2 K;  // (P, P) 1-D stiffness K(i, m) = sum_a w_a phi_i'(x_a) phi_m'(x_a)
};
BasisTables to_device(const HostTables& t);

} // namespace dg
