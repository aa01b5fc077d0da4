// dgbench stage: one full RK stage (right-hand side and update, trace hand-on and halo packing
// included) through Solver::step, for advection (a constant velocity, a velocity field, the
// rotation, or an inflow face) and advection-diffusion on affine, warped and curved meshes:
// DOF-stages per second against the bandwidth bound of the bytes per DOF that
// fixed::stage_bytes_per_dof (and qpencil_bytes_per_dof) counts. Variants: register-blocked or
// entry-wise contractions, stored or recomputed metric terms, fused or separate RHS and update,
// run-time-sized kernels, the quadrature path in pencil form or one element per team.
#include "dg/bench/bench.hpp"
#include "dg/core/error.hpp"
#include "dg/dg/fixed_order.hpp"
#include "dg/io/config.hpp"
#include "dg/solver.hpp"
#include "dg/time/rk.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace dg::bench {

namespace {

const char* yaml = R"(
mesh: {box: "-nx 8 -periodic xyz"}
discretization: {order: 4}
physics: {velocity: [1.0, 0.5, 0.25], diffusivity: 0.0}
initial: {type: gaussian, center: [0.5, 0.5, 0.5], width: 0.15}
time: {final_time: 1.0, cfl: 0.5}
output: {snapshots: false, quiet: true, directory: dgbench_out}
)";

/// One LSRK(5,4) step with the RHS in store mode and a separate update kernel per stage.
void separate_step(Solver& s, const View2& res, double dt) {
  const View2 u = s.block().u, reg = s.block().reg;
  for (int st = 0; st < 5; ++st) {
    Epilogue ep;
    ep.mode = Epilogue::store;
    ep.out = res;
    s.rhs(s.time(), ep);
    const double as = lsrk_a[st], bs = lsrk_b[st];
    Kokkos::parallel_for(
        "dgbench::lsrk_update",
        Kokkos::RangePolicy<ExecSpace>(0, static_cast<long>(u.extent(0)) * u.extent(1)),
        KOKKOS_LAMBDA(const long i) {
          const int n = static_cast<int>(u.extent(1)), e = static_cast<int>(i / n),
                    m = static_cast<int>(i % n);
          const double k = as * reg(e, m) + dt * res(e, m);
          reg(e, m) = k;
          u(e, m) += bs * k;
        });
  }
}

/// The switches of the --variants name var in v (fused and separate keep the defaults: separate
/// changes how the step is taken, not the kernels).
void set_variant_by_name(const std::string& var, KernelVariant& v) {
  if (var == "entry")
    v.register_blocked = false;
  else if (var == "blocked")
    v.register_blocked = true;
  else if (var == "recompute")
    v.recompute_metric = true;
  else if (var == "runtime")
    v.fixed_order = false;
  else if (var == "quadrature") {
    v.modal_affine = false;
    v.quadrature_pencil = false;
  } else if (var == "qpencil")
    v.modal_affine = false;
  else if (var == "per-element")
    v.quadrature_pencil = false;
  else if (var == "qpencil-trilinear")
    v.qpencil_recompute = true;
  else if (var == "qpencil-tables") {
    v.qpencil_trilinear_pencil = v.qpencil_trilinear_rotation = false;
    v.qpencil_diffusion_map = 0;
  } else if (var == "qpencil-trilinear-pencil")
    v.qpencil_trilinear_pencil = true;
  else if (var == "qpencil-trilinear-rotation")
    v.qpencil_trilinear_rotation = true;
  else if (var == "qpencil-modal-rhs")
    v.qpencil_collocated = false;
  else if (var == "qpencil-coll-own")
    v.qpencil_collocated_kernel = 1;
  else if (var == "qpencil-coll-shared")
    v.qpencil_collocated_kernel = 0;
  else if (var == "qpencil-map-shared")
    v.qpencil_map_kernel = false;
  else if (var == "qpencil-both-sides")
    v.qpencil_upwind_sides = false;
  else if (var == "qpencil-sync-loads")
    v.qpencil_async_loads = false;
  else if (var == "qpencil-modal-state")
    v.qpencil_nodal = false;
  else if (var == "qpencil-staged-tables" || var == "qpencil-unstaged-tables") {
    v.qpencil_trilinear_pencil = v.qpencil_trilinear_rotation = false;
    v.qpencil_diffusion_map = 0;
    v.qpencil_stage_tables = var == "qpencil-staged-tables" ? 1 : 0;
  } else if (var == "modal-entry")
    v.modal_pencil = false;
  else if (var == "modal-linear-unmixed")
    v.modal_linear_mixed = false;
  else if (var == "qpencil-face-tables" || var == "qpencil-face-map") {
    v.qpencil_diffusion_map = 1; // the map in the volume at every order
    v.qpencil_face_tables = var == "qpencil-face-tables" ? 1 : 0;
  } else if (var == "modal-linear-scratch")
    v.modal_linear_registers = 0;
  else if (var == "modal-linear-registers")
    v.modal_linear_registers = 1;
  else if (var == "boundary-per-stage")
    v.boundary_data_ahead = false;
  else if (var == "modal-affine-general")
    v.modal_cartesian = false;
  else if (var == "modal") {
    v.modal_diffusion = true;
    v.modal_diffusion_max_order = fixed::max_order;
  } else if (var != "fused" && var != "separate")
    throw InputError(
        "dgbench stage: --variants " + var +
        ": valid are fused, blocked, entry, recompute, separate, runtime, "
        "quadrature, qpencil, per-element, qpencil-trilinear, qpencil-tables, "
        "qpencil-trilinear-pencil, qpencil-trilinear-rotation, qpencil-modal-rhs, "
        "qpencil-map-shared, qpencil-coll-own, qpencil-coll-shared, qpencil-both-sides, "
        "qpencil-sync-loads, qpencil-modal-state, qpencil-staged-tables, "
        "qpencil-unstaged-tables, qpencil-face-tables, qpencil-face-map, modal, "
        "modal-entry, modal-linear-unmixed, "
        "modal-linear-scratch, modal-linear-registers, boundary-per-stage, modal-affine-general");
}

int stage(Options& o) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  const double def_dofs = 8.4e6;
#else
  const double def_dofs = 2e5;
#endif
  // The default orders stop at the build's highest (DG_MAX_ORDER may be below 8).
  const std::string def_orders = std::to_string(std::min(2, fixed::max_order)) + ":" +
                                 std::to_string(std::min(8, fixed::max_order));
  const std::vector<int> orders = o.ints("p", def_orders, "orders p (q = p + 2)");
  const std::vector<std::string> physics =
      o.strs("physics", "advection,advdiff",
             "advection, advdiff (nu = 0.01), advection-field (a periodic divergence-free velocity "
             "field), advection-linear (a divergence-free velocity field affine in space), "
             "advection-rotation (solid-body rotation about the box's axis, Dirichlet "
             "faces), advection-inflow (inflow face xmin with data, outflow xmax)");
  const std::vector<std::string> meshes =
      o.strs("mesh", "affine,warped", "affine, warped (-warp 0.05), curved (-curve 2: a Q2 shell)");
  const double dofs = o.real("dofs", def_dofs, "target DOF per run (the mesh is n^3)");
  const std::vector<std::string> variants = o.strs(
      "variants", "fused",
      "fused (default kernels), blocked / entry (register-blocked / entry-wise contractions), "
      "recompute (metric from "
      "vertices), separate (RHS then update kernel), runtime (run-time-sized kernels), "
      "quadrature (affine meshes through the quadrature path one element per team, not the modal "
      "path), qpencil (affine meshes through the quadrature pencil path), per-element (the "
      "quadrature path one element per team instead of the pencil form), qpencil-trilinear "
      "(warped meshes: the trilinear metric recomputed instead of per-point tables; with "
      "advection-diffusion CPU builds only), "
      "qpencil-tables / qpencil-trilinear-pencil (warped meshes: per-point tables / adj(J) a "
      "and |J| along each pencil and (a . n) dS along each face row from the map, instead of "
      "the backend's default: the map on GPUs, the tables on CPUs; qpencil-tables also for the "
      "rotation), qpencil-trilinear-rotation (warped meshes, the "
      "rotation: the map along each "
      "pencil instead of the tables), "
      "qpencil-modal-rhs (q = p + 1, non-affine: the modal right-hand side before the "
      "weight-adjusted inverse mass instead of the collocated passes), qpencil-map-shared "
      "(the map along each pencil with a constant velocity in the kernel of every geometry, "
      "not its own), qpencil-coll-own / qpencil-coll-shared (the collocated passes in a kernel "
      "of their own / in the kernel of the modal right-hand side; default by physics), "
      "qpencil-both-sides "
      "(per-point tables: both sides of every interior face through the face passes, not only "
      "those the upwind flux takes), qpencil-sync-loads (GPUs: the quadrature pencil path's "
      "loads one after another, not as asynchronous copies), qpencil-modal-state (q = p + 1, "
      "non-affine: the modal state through the collocated passes, not the state at the "
      "points), qpencil-staged-tables (the nodal state: the per-point tables, each element's "
      "staged in team scratch before the passes), qpencil-unstaged-tables (the same tables "
      "read where the passes use them), qpencil-face-tables / qpencil-face-map (diffusion on "
      "the trilinear map with the nodal state, GPUs: the map in the volume at every order and "
      "each face point's geometry from the per-point face tables / from the map), "
      "modal-linear-unmixed (a velocity "
      "affine in space: elements "
      "with faces where a . n changes sign through the quadrature pencil path), "
      "modal-linear-scratch / modal-linear-registers (a velocity affine in space on GPUs: the "
      "flux F_0 and the upwind face coefficients in team scratch / in registers and the "
      "neighbours' slots, instead of the order's default), boundary-per-stage (boundary data "
      "that depend on time evaluated and projected at each stage, not once for the step), "
      "modal-affine-general (advection-diffusion on axis-aligned boxes through the general "
      "affine kernel, not the one that leaves out the cross terms), "
      "modal "
      "(advection-diffusion "
      "on affine meshes through the modal SIPG path, the default)");
  const std::vector<int> qoffsets =
      o.ints("q-offset", "2",
             "quadrature points q = p + this per direction: 2 (the default) or 1 (q = p + 1: "
             "the quadrature pencil path on every mesh)");
  const std::vector<int> team_sizes =
      o.ints("team-size", "0", "threads per team on GPUs (0: by the face size)");
  const std::vector<int> modal_elems =
      o.ints("modal-elems", "0", "elements per team on the modal path (0: by order)");
  const std::vector<int> modal_batches = o.ints(
      "modal-batches", "0", "batches of elements per team of the pencil kernel (0: default)");
  const std::vector<int> pencil_bounds =
      o.ints("pencil-bounds", "-1",
             "pencil kernel on GPUs, p <= 8: launch bounds of 128 threads and this many teams "
             "per SM (0: none, 3, 4, 5, 6, 8; -1: by order)");
  const std::vector<int> qpencil_elems =
      o.ints("qpencil-elems", "0", "elements per team of the quadrature pencil path (0: by order)");
  const std::vector<int> qpencil_bounds =
      o.ints("qpencil-bounds", "-1",
             "quadrature pencil path on GPUs, p <= 8: launch bounds of 128 threads and this "
             "many teams per SM (0: none, 4, 5, 6, 8; -1: default)");
  const int steps = o.integer("steps", 5, "timed steps (median of per-step times)");
  const int batch = o.integer(
      "batch", 1,
      "steps per timed repetition, with no fence between them: 1 times each step alone; more "
      "time them as a whole run does, each step's launches queued behind the one before "
      "(the rate is of the repetition's median time over batch steps)");
  const bool check = o.flag(
      "check", "each setting from the initial state: the relative difference of the state after "
               "its warm-up and timed steps from the first setting's of the same case "
               "(rel_diff_first; the same discretisation, so round-off)");
  if (batch < 1)
    throw InputError("dgbench stage: --batch " + std::to_string(batch) + ": valid are 1, 2, ...");
  if (o.finish()) return 0;

  for (int b : pencil_bounds)
    if (b != -1 && b != 0 && b != 3 && b != 4 && b != 5 && b != 6 && b != 8)
      DG_INPUT_ERROR("dgbench stage: --pencil-bounds " << b << ": valid are -1, 0, 3, 4, 5, 6, 8");
  // The pencil kernel's settings: (elements, batches, launch bounds) per team.
  std::vector<std::array<int, 3>> pencil;
  for (int mel : modal_elems)
    for (int mb : modal_batches)
      for (int pb : pencil_bounds)
        pencil.push_back({mel, mb, pb});
  for (int p : orders)
    if (p < fixed::min_order || p > fixed::max_order)
      DG_INPUT_ERROR("dgbench stage: --p " << p << ": valid are " << fixed::min_order << ".."
                                           << fixed::max_order);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double copy_bw = measure_copy_bandwidth(def_dofs > 1e6 ? 2e9 : 2e8, 10);
  Table t;
  for (const std::string& ph : physics)
    for (const std::string& me : meshes)
      for (int p : orders)
        for (int qo : qoffsets) {
          if (qo != 1 && qo != 2)
            throw InputError("dgbench stage: --q-offset " + std::to_string(qo) +
                             ": valid are 1 and 2");
          if (ph != "advection" && ph != "advdiff" && ph != "advection-field" &&
              ph != "advection-linear" && ph != "advection-rotation" && ph != "advection-inflow")
            throw InputError("dgbench stage: --physics " + ph +
                             ": valid are advection, advdiff, advection-field, advection-linear, "
                             "advection-rotation, advection-inflow");
          if (me != "affine" && me != "warped" && me != "curved")
            throw InputError("dgbench stage: --mesh " + me + ": valid are affine, warped, curved");
          const int P = p + 1;
          const int n = std::max(2, static_cast<int>(std::lround(std::cbrt(dofs / (P * P * P)))));
          const bool inflow = ph == "advection-inflow", rotation = ph == "advection-rotation";
          const std::string box =
              "mesh.box=-nx " + std::to_string(n) +
              (me == "curved" ? (rotation ? " -curve 2" : " -periodic xz -curve 2")
                              : (inflow ? " -periodic yz" : (rotation ? "" : " -periodic xyz"))) +
              (me == "warped" ? " -warp 0.05" : "");
          std::vector<std::string> sets = {
              box, "discretization.order=" + std::to_string(p),
              "discretization.quadrature_points=" + std::to_string(p + qo),
              "physics.diffusivity=" + std::string(ph == "advdiff" ? "0.01" : "0.0")};
          if (ph == "advection-field")
            sets.push_back("physics.velocity=[\"1+0.5*sin(2*pi*y)\", \"0.5+0.5*sin(2*pi*z)\", "
                           "\"0.25+0.5*sin(2*pi*x)\"]");
          if (ph == "advection-linear") // each component constant along its own direction
            sets.push_back("physics.velocity=[\"1+0.5*(y-0.5)\", \"0.5+0.3*(z-0.5)\", "
                           "\"0.25+0.2*(x-0.5)\"]");
          if (rotation)
            sets.insert(sets.end(),
                        {"physics.velocity_field=rotation",
                         "physics.rotation_center=[0.5, 0.5, 0.5]",
                         "initial.center=[0.7, 0.5, 0.5]", "boundary.default=dirichlet"});
          if (inflow) {
            if (me == "curved")
              throw InputError(
                  "dgbench stage: --physics advection-inflow: affine or warped meshes");
            sets.insert(sets.end(),
                        {"boundary.xmin.type=inflow", "boundary.xmin.value=sin(2*pi*y)*cos(2*pi*z)",
                         "boundary.xmax.type=outflow"});
          }
          const io::Config cfg = io::parse_config(yaml, "dgbench-stage", sets);
          Solver s(cfg, MPI_COMM_WORLD);
          s.initialize();
          const double dt = s.time_step();
          const double gdofs = double(s.global_elements()) * s.block().nmodes;
          std::vector<double> first; // --check: the first setting's state after its steps
          for (const std::string& var : variants)
            for (int ts : team_sizes)
              for (int qe : qpencil_elems)
                for (int qb : qpencil_bounds)
                  for (const std::array<int, 3>& pk : pencil) {
                    KernelVariant v;
                    v.team_size = ts;
                    v.qpencil_elems = qe;
                    v.qpencil_min_blocks = qb;
                    v.modal_elems = pk[0];
                    v.modal_batches = pk[1];
                    v.pencil_min_blocks = pk[2];
                    set_variant_by_name(var, v);
                    if (var == "recompute" && me == "affine") continue;
                    if ((var == "quadrature" || var == "qpencil") && me != "affine") continue;
                    if ((var == "qpencil-trilinear" || var == "qpencil-tables" ||
                         var == "qpencil-trilinear-pencil" ||
                         var == "qpencil-trilinear-rotation") &&
                        me != "warped")
                      continue;
                    if (var == "qpencil-trilinear-rotation" && ph != "advection-rotation") continue;
                    if (var == "qpencil-trilinear" && ph == "advdiff" && !fixed::diffusion_map &&
                        qo != 1)
                      continue; // on GPUs the nodal state's alone
                    if ((var == "qpencil-face-tables" || var == "qpencil-face-map") &&
                        (me != "warped" || ph != "advdiff" || qo != 1))
                      continue;
                    if ((var == "qpencil-modal-rhs" || var == "qpencil-modal-state") &&
                        (me == "affine" || qo != 1))
                      continue;
                    if (var == "qpencil-both-sides" && me == "affine" && ph == "advection")
                      continue;
                    if (var == "modal" && (me != "affine" || ph != "advdiff")) continue;
                    if (var == "modal-entry" && me != "affine") continue;
                    if (var == "modal-linear-unmixed" &&
                        (me != "affine" ||
                         (ph != "advection-rotation" && ph != "advection-linear")))
                      continue;
                    s.modal_state(); // as the variant before left it
                    if (check) s.initialize();
                    s.op().set_variant(v);
                    if (!s.op().modal_path() && pk != pencil.front()) continue;
                    // A block with a velocity affine in space on the modal path counts as such
                    // (its other elements, if any, take the quadrature pencil path).
                    const bool lin = s.op().modal_linear();
                    const bool qp = s.op().quadrature_pencil_path() && !lin;
                    if (!qp && (qe != qpencil_elems.front() || qb != qpencil_bounds.front()))
                      continue;
                    View2 res;
                    if (var == "separate")
                      res = View2("dgbench::res", s.block().nelem, s.block().nmodes);
                    // The state as the stages take it (nodal where they can), as in a run.
                    s.stage_state();
                    auto one_step = [&] {
                      for (int k = 0; k < batch; ++k)
                        if (var == "separate")
                          separate_step(s, res, dt);
                        else
                          s.advance(dt);
                      MPI_Barrier(MPI_COMM_WORLD);
                    };
                    double tstep = 0.0;
                    try {
                      tstep = median_time(one_step, steps) / batch;
                    } catch (const InternalError&
                                 e) { // a kernel setting this device cannot run: next one
                      if (rank == 0)
                        std::fprintf(stderr, "dgbench stage: %s p = %d, %s: skipped: %s\n",
                                     ph.c_str(), p, var.c_str(), e.what());
                      s.initialize();
                      continue;
                    }
                    double rel_first = 0.0;
                    if (check) {
                      s.modal_state();
                      auto h =
                          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.block().u);
                      std::vector<double> x(h.data(), h.data() + h.size());
                      if (first.empty())
                        first = x;
                      else {
                        double d = 0.0, n2 = 0.0;
                        for (size_t i = 0; i < x.size(); ++i) {
                          d += (x[i] - first[i]) * (x[i] - first[i]);
                          n2 += first[i] * first[i];
                        }
                        double g[2] = {d, n2};
                        MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                        rel_first = std::sqrt(g[0] / std::max(g[1], 1e-300));
                      }
                    }
                    const bool diff = ph == "advdiff";
                    const bool affine = s.block().affine;
                    const bool field = ph == "advection-field";
                    const double bpd =
                        (lin  ? fixed::modal_linear_bytes_per_dof(p)
                         : qp ? fixed::qpencil_bytes_per_dof(
                                    p, s.op().quadrature_pencil_geometry(), s.block().Q, diff,
                                    s.op().quadrature_pencil_upwind_sides() &&
                                        !s.op().nodal_capable(),
                                    s.op().nodal_face_tables())
                              : fixed::stage_bytes_per_dof(p, diff, affine, v) +
                                    fixed::field_bytes_per_dof(p, field, false, false)) +
                        (var == "separate" ? 5.0 * sizeof(double) : 0.0);
                    const double rate = gdofs * 5.0 / tstep;
                    const double bound = copy_bw * size / bpd;
                    Row r;
                    r.set("physics", ph).set("mesh", me).set("p", p).set("q", s.block().Q);
                    r.set("n", n).set("dof", gdofs);
                    r.set("ranks", size).set("variant", var).set("team_size", v.team_size);
                    r.set("path",
                          lin ? "modal-linear"
                              : (qp ? "qpencil" : (s.op().modal_path() ? "modal" : "quadrature")));
                    r.set("qpencil_elems", qp ? v.qpencil_elems : 0);
                    r.set("qpencil_bounds", qp ? v.qpencil_min_blocks : 0);
                    r.set("modal_elems", s.op().modal_path() ? v.modal_elems : 0);
                    r.set("modal_batches", s.op().modal_path() ? v.modal_batches : 0);
                    r.set("pencil_bounds", s.op().modal_path() ? v.pencil_min_blocks : 0);
                    r.set("step_s", tstep);
                    r.set("dof_stages_per_s", rate).set("bytes_per_dof", bpd);
                    r.set("gb_per_s", rate * bpd * 1e-9).set("bound_dof_stages_per_s", bound);
                    r.set("frac_bound", rate / bound);
                    r.set("gflops", (lin  ? fixed::modal_linear_flops_per_element(p)
                                     : qp ? fixed::qpencil_flops_per_element(
                                                p, s.op().quadrature_pencil_geometry(), affine,
                                                s.block().Q, diff, v.qpencil_collocated,
                                                s.op().quadrature_pencil_upwind_sides(),
                                                ph == "advection-rotation", s.op().nodal_capable())
                                          : fixed::stage_flops_per_element(p, diff, affine, v)) *
                                        s.global_elements() * 5.0 / tstep * 1e-9);
                    r.set("batch", batch);
                    if (check) r.set("rel_diff_first", rel_first);
                    t.add(r);
                  }
        }
  std::vector<std::string> columns = {"physics",
                                      "mesh",
                                      "p",
                                      "q",
                                      "n",
                                      "dof",
                                      "variant",
                                      "path",
                                      "team_size",
                                      "qpencil_elems",
                                      "qpencil_bounds",
                                      "modal_elems",
                                      "modal_batches",
                                      "pencil_bounds",
                                      "step_s",
                                      "dof_stages_per_s",
                                      "bytes_per_dof",
                                      "gb_per_s",
                                      "frac_bound",
                                      "gflops",
                                      "batch"};
  if (check) columns.push_back("rel_diff_first");
  t.print(columns);
  char bw[64];
  std::snprintf(bw, sizeof(bw), "%.4g", copy_bw * 1e-9);
  if (rank == 0) std::printf("measured copy bandwidth: %s GB/s per rank's device\n", bw);
  write_outputs(o, t, {{"copy_bw_gb_per_s", bw}});
  return 0;
}

} // namespace

DG_BENCH_COMMAND("stage", "one RK stage (RHS + update): DOF-stages/s against the bandwidth bound",
                 stage);

} // namespace dg::bench
