// dgbench transforms: backward_transform and inner_product (the DGM paper's Figs. 4.1-4.4):
// time, DOF/s, GFLOP/s, bandwidth and its fraction of the measured copy bandwidth, with and
// without the host <-> device transfer of the input and output.
#include "dg/dg/transforms.hpp"
#include "dg/bench/bench.hpp"
#include "dg/core/error.hpp"
#include "dg/core/kokkos.hpp"
#include "dg/dg/fixed_order.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace dg::bench {

/// Median bandwidth (bytes read + written per second) of a device copy of `bytes` bytes.
double measure_copy_bandwidth(double bytes, int reps) {
  const long n = static_cast<long>(bytes / (2 * sizeof(double)));
  View1 a("copy_a", n), b("copy_b", n);
  Kokkos::deep_copy(a, 1.0);
  const double t = median_time(
      [&] {
        Kokkos::parallel_for(
            "dgbench::copy", Kokkos::RangePolicy<ExecSpace>(0, n),
            KOKKOS_LAMBDA(const long i) { b(i) = a(i); });
      },
      reps);
  return 2.0 * n * sizeof(double) / t;
}

namespace {

int transforms(Options& o) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  const double def_dofs = 1e8;
#else
  const double def_dofs = 2e6;
#endif
  const std::vector<int> orders = o.ints("p", "1:" + std::to_string(fixed::max_order),
                                         "orders p (q = p + 2), up to the build's highest");
  const std::vector<int> sizes =
      o.ints("elements", "8,16,32,64,128,256,512", "element counts E (the paper's sizes)");
  const double big =
      o.real("dofs", def_dofs, "also run one size with about this many DOF (0: off)");
  const std::vector<std::string> ops = o.strs("ops", "backward,inner", "backward, inner");
  const std::vector<std::string> variants = o.strs(
      "variants", "blocked",
      "blocked (register-blocked pencils), entry (one thread per entry), runtime (run-time-sized "
      "kernels), conc, conc2, conc3, conc-entry (a team's elements through each contraction "
      "together: one, two or three register-blocked pencils per thread, or one thread per "
      "entry)");
  const std::vector<int> team_elems =
      o.ints("team-elems", "1", "elements per team (conc: 0 for the per-order default)");
  const std::vector<int> team_sizes =
      o.ints("team-size", "0", "threads per team on GPUs (0: the kernel's default)");
  const int reps = o.integer("reps", 10, "timed repetitions (median)");
  const bool transfer =
      o.flag("transfer", "also time the host<->device transfer of input and output");
  if (o.finish()) return 0;

  int nranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const double copy_bw = measure_copy_bandwidth(def_dofs > 1e7 ? 2e9 : 2e8, 10);
  Table t;
  for (const std::string& op : ops) {
    if (op != "backward" && op != "inner")
      throw InputError("dgbench transforms: --ops " + op + ": valid are backward, inner");
    const bool inner = op == "inner";
    for (int p : orders) {
      if (p < fixed::min_order || p > fixed::max_order)
        throw InputError("dgbench transforms: --p " + std::to_string(p) + ": valid are 1.." +
                         std::to_string(fixed::max_order));
      const int P = p + 1, Q = p + 2, P3 = P * P * P, Q3 = Q * Q * Q;
      const BasisTables tab = to_device(make_tables(p, Q));
      std::vector<int> es = sizes;
      if (big > 0) es.push_back(std::max(1, static_cast<int>(big / P3)));
      for (int E : es) {
        View2 modes("modes", E, P3), vals("vals", E, Q3);
        Kokkos::deep_copy(modes, 1.0);
        Kokkos::deep_copy(vals, 1.0);
        auto hmodes = Kokkos::create_mirror_view(modes);
        auto hvals = Kokkos::create_mirror_view(vals);
        const double flops = 2.0 * E * (double(P3) * Q + double(P * P) * Q * Q + double(P) * Q3);
        const double bytes = double(E) * (P3 + Q3) * sizeof(double);
        for (const std::string& var : variants)
          for (int ne : team_elems)
            for (int team_size : team_sizes) {
              if (var != "blocked" && var != "entry" && var != "runtime" && var != "conc" &&
                  var != "conc2" && var != "conc3" && var != "conc-entry")
                throw InputError(
                    "dgbench transforms: --variants " + var +
                    ": valid are blocked, entry, runtime, conc, conc2, conc3, conc-entry");
              if (var == "runtime" && (ne != team_elems.front() || team_size != team_sizes.front()))
                continue;
              KernelVariant v;
              v.register_blocked =
                  var == "blocked" || var == "conc" || var == "conc2" || var == "conc3";
              v.concurrent_transform =
                  var == "conc" || var == "conc2" || var == "conc3" || var == "conc-entry";
              v.pencils_per_thread = var == "conc3" ? 3 : (var == "conc2" ? 2 : 1);
              v.team_elems = ne;
              v.team_size = team_size;
              auto kernel = [&] {
                if (var == "runtime") {
                  if (inner)
                    inner_product(tab, vals, modes);
                  else
                    backward_transform(tab, modes, vals);
                } else if (inner) {
                  fixed::inner(p, tab, vals, modes, v);
                } else {
                  fixed::backward(p, tab, modes, vals, v);
                }
              };
              // Every rank transforms its own E elements (weak scaling over the host's cores);
              // the rates count all ranks' DOF over the slowest rank's time.
              const double tk = median_time(
                  [&] {
                    kernel();
                    Kokkos::fence();
                    MPI_Barrier(MPI_COMM_WORLD);
                  },
                  reps);
              Row r;
              r.set("op", op).set("p", p).set("q", Q).set("E", E).set("dof", (long long)E * P3);
              r.set("variant", var).set("team_elems", var == "runtime" ? 1 : ne);
              r.set("team_size", var == "runtime" ? 0 : team_size);
              r.set("ranks", nranks)
                  .set("time_s", tk)
                  .set("dof_per_s", nranks * E * double(P3) / tk);
              r.set("gflops", nranks * flops / tk * 1e-9).set("bytes", bytes);
              r.set("gb_per_s", nranks * bytes / tk * 1e-9);
              r.set("frac_copy_bw", bytes / tk / copy_bw);
              if (transfer) {
                const double tt = median_time(
                    [&] {
                      if (inner)
                        Kokkos::deep_copy(vals, hvals);
                      else
                        Kokkos::deep_copy(modes, hmodes);
                      kernel();
                      if (inner)
                        Kokkos::deep_copy(hmodes, modes);
                      else
                        Kokkos::deep_copy(hvals, vals);
                      MPI_Barrier(MPI_COMM_WORLD);
                    },
                    std::max(3, reps / 2));
                r.set("time_with_transfer_s", tt)
                    .set("dof_per_s_with_transfer", nranks * E * double(P3) / tt);
              }
              t.add(r);
            }
      }
    }
  }
  std::vector<std::string> cols = {"op",      "p",          "E",           "dof",    "ranks",
                                   "variant", "team_elems", "team_size",   "time_s", "dof_per_s",
                                   "gflops",  "gb_per_s",   "frac_copy_bw"};
  if (transfer) cols.push_back("time_with_transfer_s");
  t.print(cols);
  char bw[64];
  std::snprintf(bw, sizeof(bw), "%.4g", copy_bw * 1e-9);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("measured copy bandwidth: %s GB/s\n", bw);
  write_outputs(o, t, {{"copy_bw_gb_per_s", bw}});
  return 0;
}

} // namespace

DG_BENCH_COMMAND("transforms", "backward_transform / inner_product: time, DOF/s, GFLOP/s, GB/s",
                 transforms);

} // namespace dg::bench
