// dgbench integrate: element-matrix integration (dg/integration) per operator, variant and p:
// elements/s, GFLOP/s, bytes and bandwidth, and the stages of Banas et al.'s tables
// (allocation, transfer in, kernel, transfer out); then the solver's right-hand side with
// element matrices (batched GEMV) against the matrix-free default, per p.
#include "dg/bench/bench.hpp"

#include "dg/core/error.hpp"
#include "dg/core/kokkos.hpp"
#include "dg/integration/element_matrices.hpp"
#include "dg/io/config.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/solver.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

namespace dg::bench {
namespace {

using integration::Form;
using HostView3 = View3::HostMirror;

/// Vertices of `nelem` hexes on a grid of the unit cube (nx = ceil(cbrt(nelem)) per direction),
/// moved by a smooth warp (non-affine trilinear hexes) or, with warp = 0, by a fixed shear
/// (affine but with a full Jacobian).
HostView3 grid_vertices(int nelem, double warp) {
  const int nx = std::max(1, static_cast<int>(std::ceil(std::cbrt(double(nelem)) - 1e-9)));
  const double h = 1.0 / nx;
  HostView3 v("dg::bench::verts", nelem, 8, 3);
  for (int e = 0; e < nelem; ++e) {
    const int ijk[3] = {e % nx, (e / nx) % nx, e / (nx * nx)};
    for (int c = 0; c < 8; ++c) {
      double x[3];
      for (int d = 0; d < 3; ++d)
        x[d] = h * (ijk[d] + (hex::vertex_sign(c, d) + 1) / 2);
      double y[3];
      if (warp != 0.0) {
        const double s = std::sin(2 * math::pi * x[0]) * std::sin(2 * math::pi * x[1]) *
                         std::sin(2 * math::pi * x[2]);
        for (int d = 0; d < 3; ++d)
          y[d] = x[d] + warp * h * s * (d + 1) / 3.0;
      } else {
        y[0] = x[0] + 0.3 * x[1] + 0.1 * x[2];
        y[1] = 0.9 * x[1] + 0.2 * x[2];
        y[2] = x[2] - 0.1 * x[0];
      }
      for (int d = 0; d < 3; ++d)
        v(e, c, d) = y[d];
    }
  }
  return v;
}

integration::Variant parse_variant(const std::string& s) {
  // "stored|recomputed/scratch|registers|sumfact/eptN"
  integration::Variant v;
  std::stringstream ss(s);
  std::string a, b, c;
  std::getline(ss, a, '/');
  std::getline(ss, b, '/');
  std::getline(ss, c, '/');
  const bool ok = (a == "stored" || a == "recomputed") &&
                  (b == "scratch" || b == "registers" || b == "sumfact") &&
                  c.rfind("ept", 0) == 0 && c.size() > 3;
  if (!ok)
    DG_INPUT_ERROR("dgbench integrate: --variants entry '"
                   << s << "': expected stored|recomputed/scratch|registers|sumfact/eptN");
  v.stored_metric = a == "stored";
  v.scratch = b != "registers";
  v.sumfact = b == "sumfact";
  v.elems_per_team = std::stoi(c.substr(3));
  if (v.elems_per_team < 1) DG_INPUT_ERROR("dgbench integrate: '" << s << "': N >= 1");
  return v;
}

struct Budget {
  int max_elements;
  double gflop, max_mb;
};
/// Elements for one measurement: at most max_elements, about `gflop` of work per call, output
/// matrices (device + host) within max_mb.
/// Median time of (re)allocating the (ne, N, N) output matrices into `out` (Banas et al.'s
/// "allocation" stage); `out` keeps the last allocation.
double time_allocation(View3& out, int ne, int N, int reps) {
  return median_time(
      [&]() {
        out = View3();
        out = View3(Kokkos::ViewAllocateWithoutInitializing("out"), ne, N, N);
      },
      reps, 0);
}

int elements_for(const Budget& b, double flops_per_elem, double out_bytes_per_elem) {
  const double by_work = b.gflop * 1e9 / std::max(flops_per_elem, 1.0);
  const double by_mem = b.max_mb * 1e6 / (2.0 * out_bytes_per_elem);
  return std::max(1, static_cast<int>(std::min<double>({double(b.max_elements), by_work, by_mem})));
}

void stage_row(Row& r, double t_alloc, double t_in, double t_kernel, double t_out, int nelem,
               const integration::Cost& c) {
  r.set("elements", nelem)
      .set("flops_per_elem", c.flops)
      .set("bytes_per_elem", c.bytes)
      .set("t_alloc_s", t_alloc)
      .set("t_in_s", t_in)
      .set("t_kernel_s", t_kernel)
      .set("t_out_s", t_out)
      .set("elem_per_s", nelem / t_kernel)
      .set("gflops", c.flops * nelem / t_kernel * 1e-9)
      .set("gbs", c.bytes * nelem / t_kernel * 1e-9)
      .set("gflops_with_transfer", c.flops * nelem / (t_in + t_kernel + t_out) * 1e-9);
}

int run_integrate(Options& o) {
  const auto ops = o.strs(
      "ops", "mass,laplacian,elasticity,advection_diffusion",
      "operators (every one on every path; the tensor paths on affine elements with constant "
      "coefficients)");
  // The default orders stop at the build's highest (DG_MAX_ORDER may be below 7).
  const std::string def_orders = "1:" + std::to_string(std::min(7, DG_MAX_ORDER));
  const auto orders = o.ints("orders", def_orders, "polynomial orders p");
  const auto paths = o.strs("paths", "tensor,tensor-batched,quadrature,rhs",
                            "paths to measure: tensor (geometric tensor + one team per element "
                            "and block), tensor-batched (geometric tensor + entry tiles x element "
                            "batches), quadrature, rhs (element_matrix vs matrix_free right-hand "
                            "side)");
  const auto tensor_epts =
      o.ints("tensor-ept", "0",
             "elements per team of tensor-batched (0: the default; a list sweeps them)");
  const auto vnames =
      o.strs("variants",
             "stored/scratch/ept1,recomputed/scratch/ept1,stored/registers/ept1,"
             "stored/scratch/ept4,stored/sumfact/ept1,recomputed/sumfact/ept1",
             "quadrature variants: metric stored|recomputed / C in scratch|registers, or sumfact "
             "(sum-factorised assembly) / eptN elements per team");
  Budget b;
  b.max_elements = o.integer("elements", 100000, "largest number of elements per measurement");
  b.gflop = o.real("gflop", 10.0, "work per kernel call (GFLOP) that caps the element count");
  b.max_mb = o.real("max-mb", 4000.0, "memory for the output matrices (MB, device + host)");
  const int reps = o.integer("reps", 3, "timed repetitions (median)");
  const double warp = o.real("warp", 0.1, "warp amplitude of the curved test elements");
  const auto rhs_orders = o.ints("rhs-orders", def_orders,
                                 "orders of the element_matrix vs "
                                 "matrix_free RHS comparison");
  const int rhs_nx = o.integer("rhs-nx", 16, "largest mesh (nx^3 elements) of that comparison");
  const double rhs_gflop =
      o.real("rhs-gflop", 50.0, "element-matrix set-up work (GFLOP) that caps that mesh");
  bool no_rhs = o.flag("no-rhs", "skip the RHS comparison (same as leaving rhs out of --paths)");
  if (o.finish()) return 0;
  for (const auto* list : {&orders, &rhs_orders})
    for (int p : *list)
      if (p < 1 || p > DG_MAX_ORDER)
        DG_INPUT_ERROR("dgbench integrate: --" << (list == &orders ? "orders" : "rhs-orders") << " "
                                               << p << ": valid are 1.." << DG_MAX_ORDER);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<integration::Variant> variants;
  for (const auto& s : vnames)
    variants.push_back(parse_variant(s));
  bool run_tensor = false, run_batched = false, run_quad = false, run_rhs = false;
  for (const auto& s : paths) {
    if (s == "tensor")
      run_tensor = true;
    else if (s == "tensor-batched")
      run_batched = true;
    else if (s == "quadrature")
      run_quad = true;
    else if (s == "rhs")
      run_rhs = true;
    else
      DG_INPUT_ERROR("dgbench integrate: --paths entry '"
                     << s << "': expected tensor, tensor-batched, quadrature or rhs");
  }
  if (!run_rhs) no_rhs = true;
  if (!run_quad) variants.clear();
  std::vector<Form> forms;
  for (const auto& s : ops)
    forms.push_back(integration::parse_form(s));

  Table table;
  integration::Coefficients coef;
  coef.kappa_amp = 0.5;
  coef.lambda = 2.0;
  coef.mu = 1.0;
  coef.velocity[0] = 1.0;
  coef.velocity[1] = 0.5;
  coef.velocity[2] = 0.25;
  coef.nu = 0.01;

  for (int p : orders) {
    const int q = p + 2;
    const integration::QuadTables tables = integration::make_quad_tables(p, q);
    for (Form form : forms) {
      const int N = integration::components(form) * tables.n;
      const double out_bytes = double(N) * N * 8;
      // --- tensor representation (affine elements, constant coefficients: kappa = kappa0,
      // the quadrature rows' kappa(x) is not representable): the per-element kernel and the
      // batched (bandwidth-oriented) one, same geometric tensor, same cost model ---
      if (run_tensor || run_batched) {
        integration::Coefficients tcoef = coef;
        tcoef.kappa_amp = 0.0;
        const integration::Cost c = integration::tensor_cost(form, p);
        const int ne = elements_for(b, c.flops, out_bytes);
        const HostView3 hv = grid_vertices(ne, 0.0);
        View3 verts("dg::bench::verts", ne, 8, 3);
        View2 A0 = integration::reference_tensor_device(form, p);
        std::vector<int> kinds; // -1: tensor, >= 0: tensor-batched with that ept
        if (run_tensor) kinds.push_back(-1);
        if (run_batched)
          for (int ept : tensor_epts)
            kinds.push_back(std::max(0, ept));
        for (int kind : kinds) {
          View2 G;
          View3 out;
          const double t_alloc = time_allocation(out, ne, N, reps);
          const double t_in = median_time([&]() { Kokkos::deep_copy(verts, hv); }, reps);
          const double t_kernel = median_time(
              [&]() {
                integration::geometric_tensor(form, tcoef, verts, G);
                if (kind < 0)
                  integration::tensor_contract(form, p, A0, G, out);
                else
                  integration::tensor_contract_batched(form, p, A0, G, out, kind);
              },
              reps);
          auto hout = Kokkos::create_mirror_view(out);
          const double t_out = median_time([&]() { Kokkos::deep_copy(hout, out); }, reps);
          Row r;
          r.set("op", integration::form_name(form))
              .set("path", kind < 0 ? "tensor" : "tensor-batched")
              .set("variant", kind < 0    ? std::string("tensor")
                              : kind == 0 ? std::string("batched/auto")
                                          : "batched/ept" + std::to_string(kind));
          r.set("p", p).set("q", 0);
          stage_row(r, t_alloc, t_in, t_kernel, t_out, ne, c);
          table.add(r);
        }
      }
      // --- quadrature on curved elements ---
      for (const auto& v : variants) {
        const integration::Cost c = integration::quadrature_cost(form, v, p, q, false, false);
        // The registers variant re-evaluates the coefficients per entry: budget for it.
        const double exec = c.flops * (v.scratch ? 1.0 : 8.0);
        const int ne = elements_for(b, exec, out_bytes);
        const HostView3 hv = grid_vertices(ne, warp);
        View3 dverts("dg::bench::verts", ne, 8, 3);
        Kokkos::deep_copy(dverts, hv);
        integration::Geometry geo = integration::make_geometry(dverts, q);
        auto hvgeo = Kokkos::create_mirror_view_and_copy(HostSpace(), geo.vgeo);
        View3 out;
        const double t_alloc = time_allocation(out, ne, N, reps);
        const double t_in = median_time(
            [&]() {
              Kokkos::deep_copy(geo.verts, hv);
              if (v.stored_metric) Kokkos::deep_copy(geo.vgeo, hvgeo);
            },
            reps);
        const double t_kernel =
            median_time([&]() { integration::integrate(form, coef, geo, tables, v, out); }, reps);
        auto hout = Kokkos::create_mirror_view(out);
        const double t_out = median_time([&]() { Kokkos::deep_copy(hout, out); }, reps);
        Row r;
        r.set("op", integration::form_name(form))
            .set("path", "quadrature")
            .set("variant", v.name());
        r.set("p", p).set("q", q);
        stage_row(r, t_alloc, t_in, t_kernel, t_out, ne, c);
        table.add(r);
      }
      if (rank == 0) std::fflush(stdout);
    }
  }
  table.print({"op", "variant", "p", "elements", "t_alloc_s", "t_in_s", "t_kernel_s", "t_out_s",
               "elem_per_s", "gflops", "gbs"});

  // --- element_matrix vs matrix_free right-hand side ---
  Table rhs;
  if (!no_rhs) {
    for (int p : rhs_orders) {
      // Mesh size: the element-matrix set-up (quadrature, O(n^2 q^3)) within the work budget
      // and the matrices within the memory budget.
      integration::Variant v;
      const double setup =
          integration::quadrature_cost(Form::advection_diffusion, v, p, p + 2, false, false).flops;
      const double n = std::pow(p + 1.0, 3);
      Budget brhs = b;
      brhs.gflop = rhs_gflop;
      const int ne = elements_for(brhs, setup, n * n * 8);
      const int nx = std::max(2, std::min(rhs_nx, static_cast<int>(std::cbrt(double(ne)))));
      std::ostringstream yaml;
      yaml << "mesh: {box: \"-nx " << nx << " -warp " << warp << " -periodic xyz\"}\n"
           << "discretization: {order: " << p << "}\n"
           << "physics: {velocity: [1.0, 0.5, 0.25], diffusivity: 0.01}\n"
           << "initial: {type: fourier}\n"
           << "output: {snapshots: false, quiet: true}\n";
      double t_rhs[2], t_setup[2];
      View2 outs[2];
      for (int k = 0; k < 2; ++k) {
        const io::Config cfg = io::parse_config(
            yaml.str(), "dgbench",
            {std::string("discretization.operator=") + (k ? "element_matrix" : "matrix_free")});
        Kokkos::fence();
        Kokkos::Timer timer;
        Solver s(cfg, MPI_COMM_WORLD);
        Kokkos::fence();
        t_setup[k] = timer.seconds();
        s.initialize();
        outs[k] = View2("dg::bench::rhs", s.block().nelem, s.block().nmodes);
        Epilogue ep;
        ep.out = outs[k];
        t_rhs[k] = median_time([&]() { s.rhs(0.0, ep); }, reps);
      }
      auto h0 = Kokkos::create_mirror_view_and_copy(HostSpace(), outs[0]);
      auto h1 = Kokkos::create_mirror_view_and_copy(HostSpace(), outs[1]);
      double diff = 0.0, scale = 0.0;
      for (size_t k = 0; k < h0.size(); ++k) {
        diff = std::max(diff, std::fabs(h0.data()[k] - h1.data()[k]));
        scale = std::max(scale, std::fabs(h0.data()[k]));
      }
      Row r;
      r.set("op", "rhs").set("path", "solver").set("variant", "element_matrix_vs_matrix_free");
      r.set("p", p).set("elements", nx * nx * nx);
      r.set("t_rhs_matrix_free_s", t_rhs[0]).set("t_rhs_element_matrix_s", t_rhs[1]);
      r.set("speedup_element_matrix", t_rhs[0] / t_rhs[1]);
      r.set("t_setup_matrix_free_s", t_setup[0]).set("t_setup_element_matrix_s", t_setup[1]);
      r.set("rel_diff", diff / std::max(scale, 1e-300));
      rhs.add(r);
      table.add(r);
    }
    rhs.print({"p", "elements", "t_rhs_matrix_free_s", "t_rhs_element_matrix_s",
               "speedup_element_matrix", "t_setup_element_matrix_s", "rel_diff"});
  }
  write_outputs(o, table, {{"command", "integrate"}});
  return 0;
}

} // namespace

DG_BENCH_COMMAND("integrate",
                 "element-matrix integration (tensor / quadrature variants) and element_matrix "
                 "vs matrix_free RHS",
                 run_integrate);

} // namespace dg::bench
