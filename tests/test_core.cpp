// Core utilities: the verify macro and input errors carry complete messages.
#include "catch.hpp"
#include "dg/core/error.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/physics/exact.hpp"

#include <cmath>
#include <random>
#include <string>

TEST_CASE("DG_VERIFY reports condition, message and location", "[unit][core]") {
  try {
    int n = -3;
    DG_VERIFY(n > 0, "n = " << n);
    FAIL("DG_VERIFY did not throw");
  } catch (const dg::InternalError& e) {
    const std::string what = e.what();
    CHECK(what.find("(n > 0)") != std::string::npos);
    CHECK(what.find("n = -3") != std::string::npos);
    CHECK(what.find("test_core.cpp:") != std::string::npos);
  }
}

TEST_CASE("orientation codes: inverse composes to identity on a grid", "[unit][core]") {
  const int n = 5;
  for (int o = 0; o < 8; ++o) {
    const int oi = dg::hex::inverse_orientation(o);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        int ip, jp, ii, jj;
        dg::hex::map_index(o, n, i, j, ip, jp);
        dg::hex::map_index(oi, n, ip, jp, ii, jj);
        CHECK(ii == i);
        CHECK(jj == j);
      }
  }
}

TEST_CASE("Gaussian exact solution: the product over directions equals the naive sum over the "
          "27 periodic images",
          "[unit][physics]") {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int mask = 0; mask < 8; ++mask) { // which directions are periodic
    dg::physics::ExactSolution ex;
    ex.kind = 1;
    ex.width = 0.15;
    ex.amplitude = 1.3;
    ex.center[0] = 0.2, ex.center[1] = 0.7, ex.center[2] = 0.45;
    ex.len[0] = 1.0, ex.len[1] = 2.0, ex.len[2] = 0.5;
    ex.pde.advection.a[0] = 1.0, ex.pde.advection.a[1] = -0.5, ex.pde.advection.a[2] = 0.25;
    ex.pde.diffusion.nu = 0.01;
    for (int d = 0; d < 3; ++d)
      ex.periodic[d] = (mask >> d) & 1;
    for (int k = 0; k < 200; ++k) {
      const double t = 0.7 * unit(gen);
      double x[3];
      for (int d = 0; d < 3; ++d)
        x[d] = ex.lo[d] + ex.len[d] * unit(gen);
      // The naive reference: every image of the Gaussian in one sum.
      const double s2 = ex.width * ex.width + 2.0 * ex.pde.diffusion.nu * t;
      const double ratio = ex.width * ex.width / s2;
      double r[3];
      for (int d = 0; d < 3; ++d) {
        r[d] = x[d] - (ex.center[d] + ex.pde.advection.a[d] * t);
        if (ex.periodic[d]) r[d] -= ex.len[d] * std::floor(r[d] / ex.len[d] + 0.5);
      }
      double sum = 0.0;
      const int m0 = ex.periodic[0], m1 = ex.periodic[1], m2 = ex.periodic[2];
      for (int i = -m0; i <= m0; ++i)
        for (int j = -m1; j <= m1; ++j)
          for (int l = -m2; l <= m2; ++l) {
            const double dx = r[0] + i * ex.len[0], dy = r[1] + j * ex.len[1],
                         dz = r[2] + l * ex.len[2];
            sum += std::exp(-(dx * dx + dy * dy + dz * dz) / (2.0 * s2));
          }
      const double naive = ex.amplitude * ratio * std::sqrt(ratio) * sum;
      INFO("periodic mask " << mask << ", x = (" << x[0] << ", " << x[1] << ", " << x[2]
                            << "), t = " << t);
      // exp of a sum against a product of exps: round-off relative to the exponent (up to ~90).
      CHECK(std::fabs(ex(x, t) - naive) <= 1e-12 * std::fabs(naive) + 1e-300);
    }
  }
}

TEST_CASE("trilinear map: the polynomial's coefficients give the naive map's points and |J|",
          "[unit][core]") {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int h = 0; h < 20; ++h) {
    double X[24]; // a perturbed, stretched unit cube
    for (int v = 0; v < 8; ++v)
      for (int i = 0; i < 3; ++i)
        X[3 * v + i] = (1.0 + 0.5 * i) * 0.5 * (1 + dg::hex::vertex_sign(v, i)) + 0.15 * unit(gen);
    const dg::ArrayVertices A{X};
    double C[24];
    for (int i = 0; i < 3; ++i)
      dg::trilinear_coefficients(A, i, C);
    for (int k = 0; k < 50; ++k) {
      const double r[3] = {unit(gen), unit(gen), unit(gen)};
      double x0[3], adj[9], det0, x1[3], det1;
      dg::trilinear_point(A, r, x0);
      dg::trilinear_metric(A, r, adj, det0);
      dg::trilinear_point_det(C, r, x1, det1);
      for (int i = 0; i < 3; ++i)
        CHECK(std::fabs(x1[i] - x0[i]) <= 1e-14);
      CHECK(std::fabs(det1 - det0) <= 1e-13 * std::fabs(det0));
    }
  }
}
