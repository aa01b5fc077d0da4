// Test helpers shared by the transform tests: random device views and the relative max-norm
// difference of two host copies.
#pragma once

#include "dg/core/kokkos.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace dgtest {

/// max |a - b| / max |b|.
inline double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    // fmax drops NaN: a NaN entry makes the difference infinite instead.
    if (std::isnan(a[i]) || std::isnan(b[i])) return std::numeric_limits<double>::infinity();
    num = std::fmax(num, std::fabs(a[i] - b[i]));
    den = std::fmax(den, std::fabs(b[i]));
  }
  return num / den;
}

/// A (rows, cols) device view of uniform values in [-1, 1) drawn row by row from `seed`.
inline dg::View2 random_view(int rows, int cols, unsigned seed) {
  dg::View2 v("random", rows, cols);
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      h(i, j) = U(gen);
  Kokkos::deep_copy(v, h);
  return v;
}

} // namespace dgtest
