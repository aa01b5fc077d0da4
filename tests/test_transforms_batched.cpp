// The transform kernel that takes a team's elements through each contraction together
// (KernelVariant::concurrent_transform, dgbench --variants conc, conc2, conc-entry) against the
// run-time-sized reference and the one-element-at-a-time fixed-order kernels: every order,
// element counts that are not multiples of the elements per team, and rows wider than P^3 / Q^3
// (a strided input and output).
#include "catch.hpp"
#include "dg/dg/fixed_order.hpp"
#include "dg/dg/transforms.hpp"
#include "view_test_util.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace dg;
using dgtest::random_view;
using dgtest::rel_diff;

namespace {
/// Entries (e, 0..cols-1) of v on the host.
std::vector<double> host(const View2& v, int cols) {
  // Through a contiguous device copy: a strided view (a subview of wider rows) cannot be
  // deep-copied straight into a host mirror of another memory space.
  View2 c("contiguous", v.extent(0), v.extent(1));
  Kokkos::deep_copy(c, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  std::vector<double> r;
  for (size_t e = 0; e < h.extent(0); ++e)
    for (int m = 0; m < cols; ++m)
      r.push_back(h(e, m));
  return r;
}
/// The concurrent kernel with `pencils` register-blocked pencils per thread (0: one thread per
/// output entry).
KernelVariant concurrent(int pencils, int ne, int team_size) {
  KernelVariant v;
  v.concurrent_transform = true;
  v.register_blocked = pencils > 0;
  v.pencils_per_thread = pencils;
  v.team_elems = ne;
  v.team_size = team_size;
  return v;
}
} // namespace

TEST_CASE("concurrent transforms equal the reference for p = 1..15 and E not a multiple of NE",
          "[fixed][transforms]") {
  const int E = 11; // 11 = 2 x 4 + 3 = 1 x 8 + 3 = 0 x 16 + 11
  for (int p = 1; p <= fixed::max_order; ++p) {
    const int P3 = (p + 1) * (p + 1) * (p + 1), Q3 = (p + 2) * (p + 2) * (p + 2);
    const BasisTables t = to_device(make_tables(p, p + 2));
    const View2 modes = random_view(E, P3, 31 + p), vals = random_view(E, Q3, 17 + p);
    View2 ref_v("ref_v", E, Q3), ref_m("ref_m", E, P3);
    backward_transform(t, modes, ref_v);
    inner_product(t, vals, ref_m);
    // The existing fixed-order kernel (one element after another) as a second reference.
    View2 old_v("old_v", E, Q3), old_m("old_m", E, P3);
    KernelVariant old;
    old.team_elems = 4;
    fixed::backward(p, t, modes, old_v, old);
    fixed::inner(p, t, vals, old_m, old);
    const auto rv = host(ref_v, Q3), rm = host(ref_m, P3);
    CHECK(rel_diff(host(old_v, Q3), rv) < 1e-13);
    CHECK(rel_diff(host(old_m, P3), rm) < 1e-13);
    for (int pencils : {0, 1, 2, 3})
      for (int ne : {0, 1, 3, 4, 8, 16})
        for (int team_size : {0, 64, 256}) {
          View2 out_v("out_v", E, Q3), out_m("out_m", E, P3);
          Kokkos::deep_copy(out_v, 7.0);
          Kokkos::deep_copy(out_m, 7.0);
          const KernelVariant v = concurrent(pencils, ne, team_size);
          fixed::backward(p, t, modes, out_v, v);
          fixed::inner(p, t, vals, out_m, v);
          INFO("p = " << p << ", pencils per thread " << pencils << ", elements per team " << ne
                      << ", threads " << team_size);
          CHECK(rel_diff(host(out_v, Q3), rv) < 1e-13);
          CHECK(rel_diff(host(out_m, P3), rm) < 1e-13);
        }
  }
}

TEST_CASE("concurrent transforms: strided rows, one element, no elements", "[fixed][transforms]") {
  for (int p : {1, 4, 8}) {
    if (p > fixed::max_order) continue; // a build for lower orders (DG_MAX_ORDER)
    const int P3 = (p + 1) * (p + 1) * (p + 1), Q3 = (p + 2) * (p + 2) * (p + 2);
    const BasisTables t = to_device(make_tables(p, p + 2));
    for (int E : {0, 1, 5}) {
      // Rows wider than a tensor: the kernel must step by the row stride and leave the tail.
      const View2 wide_m = random_view(E, P3 + 3, 5 + p), wide_v = random_view(E, Q3 + 5, 9 + p);
      const View2 modes = Kokkos::subview(wide_m, Kokkos::ALL, std::make_pair(0, P3));
      const View2 vals = Kokkos::subview(wide_v, Kokkos::ALL, std::make_pair(0, Q3));
      View2 ref_v("ref_v", E, Q3), ref_m("ref_m", E, P3);
      if (E > 0) {
        View2 cm("cm", E, P3), cv("cv", E, Q3);
        Kokkos::deep_copy(cm, modes);
        Kokkos::deep_copy(cv, vals);
        backward_transform(t, cm, ref_v);
        inner_product(t, cv, ref_m);
      }
      for (int pencils : {0, 1, 2, 3}) {
        View2 out_wv("out_wv", E, Q3 + 2), out_wm("out_wm", E, P3 + 2);
        Kokkos::deep_copy(out_wv, 7.0);
        Kokkos::deep_copy(out_wm, 7.0);
        const View2 out_v = Kokkos::subview(out_wv, Kokkos::ALL, std::make_pair(0, Q3));
        const View2 out_m = Kokkos::subview(out_wm, Kokkos::ALL, std::make_pair(0, P3));
        const KernelVariant v = concurrent(pencils, 2, 0);
        fixed::backward(p, t, modes, out_v, v);
        fixed::inner(p, t, vals, out_m, v);
        INFO("p = " << p << ", E = " << E << ", pencils per thread " << pencils);
        if (E > 0) {
          CHECK(rel_diff(host(out_v, Q3), host(ref_v, Q3)) < 1e-13);
          CHECK(rel_diff(host(out_m, P3), host(ref_m, P3)) < 1e-13);
        }
        const auto hv = host(out_wv, Q3 + 2), hm = host(out_wm, P3 + 2);
        for (int e = 0; e < E; ++e) {
          CHECK(hv[e * (Q3 + 2) + Q3] == 7.0);
          CHECK(hv[e * (Q3 + 2) + Q3 + 1] == 7.0);
          CHECK(hm[e * (P3 + 2) + P3 + 1] == 7.0);
        }
      }
    }
  }
}
