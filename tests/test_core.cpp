// Core utilities: the verify macro and input errors carry complete messages.
#include "catch.hpp"
#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"

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
