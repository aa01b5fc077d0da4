// dgsolve's application object: set-up from a Config and the time loop.
#include "dg/solver.hpp"

#include "dg/core/error.hpp"
#include "dg/integration/solver_matrices.hpp"
#include "dg/io/output.hpp"
#include "dg/mesh/generate.hpp"
#include "dg/mesh/local_mesh.hpp"
#include "dg/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <unistd.h>

namespace dg {

namespace {
std::string resolve_mesh_path(const io::Config& cfg) {
  namespace fs = std::filesystem;
  const fs::path p(cfg.mesh.file);
  if (fs::exists(p) || p.is_absolute()) return p.string();
  const fs::path beside = fs::path(cfg.source).parent_path() / p;
  if (fs::exists(beside)) return beside.string();
  return p.string(); // read_mesh reports the missing file
}
} // namespace

int default_quadrature_points(int p, int k) {
  // Q_k elements: the volume and face integrands of a constant state, grad phi . adj(J) a and
  // phi adj(J) a . n, have degree p + 2k - 1 per direction; q Gauss points integrate them exactly
  // when 2q - 1 >= p + 2k - 1, and the discrete divergence theorem then preserves a free stream.
  return std::max(p + 2, (p + 2 * k + 1) / 2);
}

physics::AdvectionDiffusion make_pde(const io::Config& cfg) {
  physics::AdvectionDiffusion pde;
  const auto& ph = cfg.physics;
  auto constant = [&](const io::ExpressionText& e, double& v) {
    const expr::Expression x(e.text, cfg.parameters, false, e.where.empty() ? cfg.source : e.where,
                             e.key);
    if (!x.is_constant()) return false;
    v = x.value();
    return true;
  };
  pde.advection.kind = physics::Advection::constant;
  if (ph.velocity_field == "rotation") {
    pde.advection.kind = physics::Advection::rotation;
  } else {
    for (int d = 0; d < 3; ++d)
      if (!constant(ph.velocity[d], pde.advection.a[d]))
        pde.advection.kind = physics::Advection::field;
    if (pde.advection.kind == physics::Advection::field)
      for (int d = 0; d < 3; ++d)
        pde.advection.a[d] = 0.0;
  }
  for (int d = 0; d < 3; ++d)
    pde.advection.center[d] = ph.rotation_center[d];
  pde.advection.omega = ph.angular_velocity;
  double nu = 0.0;
  pde.diffusion.nu = constant(ph.diffusivity, nu) ? nu : 0.0; // a field: Problem::setup
  pde.diffusion.eta = ph.penalty;
  return pde;
}

physics::ExactSolution make_exact(const io::Config& cfg, const mesh::BoxInfo& box) {
  physics::ExactSolution ex;
  ex.pde = make_pde(cfg);
  const auto& ic = cfg.initial;
  ex.kind = ic.type == "fourier" ? 0 : ic.type == "gaussian" ? 1 : ic.type == "constant" ? 2 : 3;
  ex.amplitude = ic.amplitude;
  ex.width = ic.width;
  ex.value = ic.value;
  for (int d = 0; d < 3; ++d) {
    ex.lo[d] = box.lo[d];
    ex.len[d] = box.hi[d] - box.lo[d];
    ex.center[d] = ic.center[d];
    ex.k[d] = 2.0 * math::pi * ic.wavenumber[d] / ex.len[d];
    ex.periodic[d] = box.periodic[d];
  }
  return ex;
}

namespace {
/// Rank 0 reads or generates the mesh and builds its connectivity, then partitions it and sends
/// every rank its share; the global mesh lives only inside this function, on rank 0. A mistake
/// in the input found on rank 0 is thrown on every rank with the same message.
/// mesh_seconds: the wall time rank 0 took to read or generate the mesh and its connectivity.
parallel::Partition read_and_distribute(const io::Config& cfg, MPI_Comm comm,
                                        double& mesh_seconds) {
  const double t0 = MPI_Wtime();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  mesh::HexMesh mesh;
  mesh::Connectivity conn;
  std::string error;
  if (rank == 0) {
    try {
      if (cfg.mesh.box.empty()) {
        mesh = mesh::read_any_mesh(resolve_mesh_path(cfg));
      } else {
        try {
          mesh = mesh::generate_box(mesh::parse_box_flags(cfg.mesh.box));
        } catch (const InputError& e) {
          DG_INPUT_ERROR(cfg.source << ": mesh.box = \"" << cfg.mesh.box << "\": " << e.what());
        }
      }
      try {
        conn = mesh::build_connectivity(mesh);
      } catch (const InputError& e) {
        if (cfg.mesh.box.empty()) DG_INPUT_ERROR(resolve_mesh_path(cfg) << ": " << e.what());
        throw;
      }
    } catch (const InputError& e) {
      error = e.what();
      if (error.empty()) error = cfg.source + ": the mesh could not be read";
    }
  }
  int len = static_cast<int>(error.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, comm);
  mesh_seconds = MPI_Wtime() - t0; // on every rank: until rank 0 has the mesh
  if (len > 0) {
    error.resize(static_cast<std::size_t>(len));
    MPI_Bcast(error.data(), len, MPI_CHAR, 0, comm);
    throw InputError(error);
  }
  return parallel::distribute(mesh, conn, comm);
}
} // namespace

Solver::Solver(const io::Config& cfg, MPI_Comm comm) : cfg_(cfg), comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  double t = MPI_Wtime(), mesh_seconds = 0.0;
  part_ = read_and_distribute(cfg, comm_, mesh_seconds);
  setup_seconds_.emplace_back("mesh", mesh_seconds);
  t = setup_phase("partition", t + mesh_seconds);
  if (static_cast<std::int64_t>(part_.global_ids.size()) == 0)
    DG_INPUT_ERROR(cfg.source << ": " << size_ << " ranks for " << global_elements()
                              << " elements: every rank needs at least one element");
  const int p = cfg.discretization.order;
  const int q = cfg.discretization.quadrature_points > 0
                    ? cfg.discretization.quadrature_points
                    : default_quadrature_points(p, part_.local.hexes.order);
  exact_ = make_exact(cfg, part_.local.box);
  problem_ = std::make_unique<Problem>(cfg, part_.local, exact_);
  const auto ghosts = parallel::ghost_faces(part_);
  block_ = build_element_block(part_.local, ghosts, p, q, problem_->boundary_kinds(),
                               cfg.discretization.geometry);
  problem_->setup(block_, part_.local, comm_);
  t = setup_phase("element blocks", t);
  pde_ = problem_->pde();
  exact_.pde = pde_;
  op_ = std::make_unique<DGOperator>(block_, pde_);
  matrices_ = integration::make_solver_matrices(cfg, block_, pde_, *op_);
  if (size_ > 1) {
    // Only the traces the neighbour's stages read travel (with advection alone, the faces
    // where its upwind flux may take this side).
    std::vector<int> elems, faces;
    for (const auto& g : ghosts) {
      elems.push_back(g.local_elem);
      faces.push_back(g.face);
    }
    halo_ = std::make_unique<parallel::HaloExchange>(
        comm_, block_, ghosts, cfg.parallel.gpu_aware_mpi,
        op_->reads_neighbour_traces(elems, faces), cfg.parallel.stage_fence);
  }
  rk_ = std::make_unique<TimeIntegrator>(cfg.time.integrator, block_);
  setup_phase("operator", t);
}

Solver::~Solver() = default;

double Solver::setup_phase(const char* name, double t0) {
  Kokkos::fence();
  const double now = MPI_Wtime();
  for (auto& [n, s] : setup_seconds_)
    if (std::string(n) == name) {
      s += now - t0;
      return now;
    }
  setup_seconds_.emplace_back(name, now - t0);
  return now;
}

void Solver::initialize() {
  const double t0 = MPI_Wtime();
  block_.nodal = false; // the projection writes modes
  problem_->initial_state(block_);
  op_->invalidate_traces();
  time_ = 0.0;
  step_ = 0;
  setup_phase("initial state", t0);
}

void Solver::rhs(double t, const Epilogue& ep, bool data_ahead) {
  // Time-dependent boundary data and source at the stage time, unless the step took the
  // boundary data at all its stage times already.
  if (!data_ahead) problem_->update(block_, t);
  if (matrices_) matrices_->before_rhs();
  if (!(ep.traces_ready && op_->traces_current())) op_->compute_traces();
  if (halo_)
    op_->apply_overlapped(t, ep, *halo_);
  else
    op_->apply(t, block_.inner_elems, ep);
  op_->finish_stage(ep);
}

void Solver::stage_state() {
  if (!block_.nodal && op_->nodal_capable()) op_->to_nodal_state();
}

void Solver::modal_state() {
  if (block_.nodal) op_->to_modal_state();
}

void Solver::step(double dt) {
  advance(dt);
  modal_state();
}

void Solver::advance(double dt) {
  stage_state();
  const double t0 = MPI_Wtime();
  // Boundary data read by the stages in modal form: projected once where they do not depend
  // on time; where they alone do, evaluated and projected once for all the step's stage times,
  // instead of two small kernels per stage, on the slots the stages read (with advection the
  // faces the flow enters).
  const bool ahead = problem_->boundary_data_only() && op_->boundary_data_ahead();
  if (ahead) {
    const std::vector<double> ts = rk_->stage_times(time_, dt);
    op_->project_boundary_data(problem_->stage_boundary_data(block_, ts, op_->data_slots()), ts);
  } else if (!problem_->boundary_data_depend_on_time() && op_->boundary_data_ahead() &&
             !op_->holds_constant_boundary_data()) {
    const View2& g = block_.bdata; // as one time's rows
    op_->project_boundary_data(View3(g.data(), 1, g.extent(0), g.extent(1)), {});
  }
  rk_->step([this, ahead](double t, const Epilogue& ep) { rhs(t, ep, ahead); }, time_, dt);
  // The step time is the denominator of the halo wait fractions: with a halo the step's
  // kernels are waited for (one drain of the GPU a step; its stages order themselves on the
  // device unless parallel.stage_fence). Otherwise the next step's launches queue behind this
  // step's, and the GPU does not drain once per step.
  if (halo_) {
    Kokkos::fence();
    step_seconds_ += MPI_Wtime() - t0;
  }
  time_ += dt;
  ++step_;
}

HaloStatistics Solver::halo_statistics() const {
  double bytes = halo_ ? double(halo_->bytes_per_exchange()) : 0.0;
  const double wait = halo_ ? halo_->wait_seconds() : 0.0;
  const double staging = halo_ ? halo_->staging_seconds() : 0.0;
  double frac = step_seconds_ > 0.0 ? wait / step_seconds_ : 0.0, frac_max = frac;
  double staging_max = step_seconds_ > 0.0 ? staging / step_seconds_ : 0.0;
  MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &frac, 1, MPI_DOUBLE, MPI_SUM, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &frac_max, 1, MPI_DOUBLE, MPI_MAX, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &staging_max, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return HaloStatistics{bytes, frac_max, frac / size_, staging_max};
}

double Solver::time_step() const {
  if (cfg_.time.dt > 0.0) return cfg_.time.dt;
  double dt = local_stable_dt(block_, pde_, cfg_.time.cfl);
  MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, comm_);
  return dt;
}

GlobalDiagnostics Solver::diagnostics() const {
  const Diagnostics d = problem_->diagnostics(block_, time_, block_.Q + 2, part_.local);
  double sums[3] = {d.l2_error, d.integral, d.energy};
  double maxs[4] = {d.max_error, -d.umin, d.umax, d.finite ? 0.0 : 1.0};
  MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE, MPI_SUM, comm_);
  MPI_Allreduce(MPI_IN_PLACE, maxs, 4, MPI_DOUBLE, MPI_MAX, comm_);
  GlobalDiagnostics g;
  g.l2_error = std::sqrt(sums[0]);
  g.integral = sums[1];
  g.energy = sums[2];
  g.max_error = maxs[0];
  g.umin = -maxs[1];
  g.umax = maxs[2];
  g.finite = maxs[3] == 0.0 && std::isfinite(g.l2_error) && std::isfinite(g.integral);
  return g;
}

std::vector<double> Solver::gather_modes() const {
  DG_VERIFY(!block_.nodal, "Solver::gather_modes: the state is nodal (modal_state first)");
  const int nm = block_.nmodes;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block_.u);
  std::vector<double> all(static_cast<size_t>(global_elements()) * nm, 0.0);
  for (int e = 0; e < block_.nelem; ++e)
    for (int m = 0; m < nm; ++m)
      all[static_cast<size_t>(block_.global_ids[e]) * nm + m] = h(e, m);
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, comm_);
  return all;
}

void Solver::restart(const std::string& path) {
  const double t0 = MPI_Wtime();
  const io::CheckpointData c = io::read_checkpoint(comm_, path, block_.global_ids);
  if (c.order != block_.order || c.nmodes != block_.nmodes)
    DG_INPUT_ERROR(path << ": checkpoint of order " << c.order << " but discretization.order = "
                        << block_.order << ": restart with the same order");
  auto h = Kokkos::create_mirror_view(block_.u);
  for (int e = 0; e < block_.nelem; ++e)
    for (int m = 0; m < block_.nmodes; ++m)
      h(e, m) = c.modes[static_cast<size_t>(e) * c.nmodes + m];
  Kokkos::deep_copy(block_.u, h);
  block_.nodal = false;
  op_->invalidate_traces();
  time_ = c.time;
  step_ = c.step;
  setup_phase("checkpoint", t0);
}

void Solver::write_checkpoint(const std::string& path) const {
  DG_VERIFY(!block_.nodal, "Solver::write_checkpoint: the state is nodal (modal_state first)");
  io::CheckpointData c;
  c.time = time_;
  c.step = step_;
  c.order = block_.order;
  c.nmodes = block_.nmodes;
  c.yaml = cfg_.yaml;
  c.nelem_global = global_elements();
  c.global_ids = block_.global_ids;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block_.u);
  c.modes.assign(h.data(), h.data() + h.size());
  io::write_checkpoint(comm_, path, c);
}

void Solver::write_snapshot(io::SnapshotWriter& w, int index) const {
  const int n = (cfg_.output.subdivisions > 0 ? cfg_.output.subdivisions : block_.order) + 1;
  View2 vals;
  View3 xyz;
  sample(block_, n, vals, xyz);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vals);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xyz);
  std::vector<double> u(hv.data(), hv.data() + hv.size()), x(hx.data(), hx.data() + hx.size());
  w.write(index, time_, step_, block_.global_ids, x, u);
}

GlobalDiagnostics Solver::run() {
  const auto& out = cfg_.output;
  const double T = cfg_.time.final_time;
  const long nsteps = cfg_.time.steps;
  const double dt_rule = time_step();
  const bool talk = rank_ == 0 && !out.quiet;
  const long expected = nsteps > 0 ? nsteps : static_cast<long>(std::ceil(T / dt_rule - 1e-9));
  const long every = out.progress_every > 0 ? out.progress_every : std::max<long>(1, expected / 20);
  const int n = (out.subdivisions > 0 ? out.subdivisions : block_.order) + 1;
  std::unique_ptr<io::SnapshotWriter> writer;
  if (out.snapshots)
    writer = std::make_unique<io::SnapshotWriter>(comm_, out.directory, out.name, n * n * n,
                                                  (n - 1) * (n - 1) * (n - 1), global_elements());
  io::CsvLog csv(comm_, out.directory, out.name,
                 {"step", "time", "l2_error", "max_error", "integral", "energy", "umin", "umax"},
                 step_ > 0);
  const bool with_error = problem_->has_exact();
  const double dofs = static_cast<double>(global_elements()) * block_.nmodes;
  const bool tty = isatty(fileno(stdout));
  const std::string checkpoint = out.directory + "/" + out.name + "_checkpoint.h5";

  // Snapshot k is written at t = k * interval (k = 0 at the start of a fresh run).
  int index = out.interval > 0 ? static_cast<int>(std::floor(time_ / out.interval + 1e-9)) : 0;
  if (step_ > 0) ++index; // a restart continues after the snapshot at or before its time
  double next_output =
      out.interval > 0 ? (std::floor(time_ / out.interval + 1e-9) + 1) * out.interval : T;
  double next_checkpoint =
      out.checkpoint_time > 0
          ? (std::floor(time_ / out.checkpoint_time + 1e-9) + 1) * out.checkpoint_time
          : 1e300;
  std::string last_snapshot;
  double last_record = -1.0;
  auto record = [&](bool snapshot) {
    const GlobalDiagnostics d = diagnostics();
    last_record = time_;
    csv.row({double(step_), time_, d.l2_error, d.max_error, d.integral, d.energy, d.umin, d.umax});
    if (snapshot && writer && d.finite) {
      write_snapshot(*writer, index);
      last_snapshot = out.directory + "/" + writer->file_name(index);
      ++index;
    }
    return d;
  };
  double t0 = MPI_Wtime();
  GlobalDiagnostics d = record(step_ == 0 || out.interval <= 0);
  t0 = setup_phase("first diagnostics and output", t0);
  if (!d.finite) {
    if (rank_ == 0)
      std::fprintf(stderr, "dgsolve: the %s state at t = %.6e is non-finite (NaN or Inf)\n",
                   step_ > 0 ? "restarted" : "initial", time_);
    return d;
  }
  if (talk)
    std::printf("dgsolve: %lld elements, p = %d, q = %d, %.3g DOF, %s, %s mesh, %d rank(s), "
                "dt = %.4g, %ld steps\n",
                static_cast<long long>(global_elements()), block_.order, block_.Q, dofs,
                rk_->scheme().c_str(), block_.affine ? "affine" : "curved", size_, dt_rule,
                expected);
  op_->prepare(rk_->emits_traces());
  setup_phase("kernels", t0);
  {
    // Each phase's maximum over ranks (every rank has the same phases in the same order).
    std::vector<double> secs;
    for (const auto& ph : setup_seconds_)
      secs.push_back(ph.second);
    MPI_Allreduce(MPI_IN_PLACE, secs.data(), static_cast<int>(secs.size()), MPI_DOUBLE, MPI_MAX,
                  comm_);
    if (talk) {
      double total = 0.0;
      for (double x : secs)
        total += x;
      std::printf("dgsolve: set-up %.2f s (max over ranks):", total);
      for (std::size_t i = 0; i < secs.size(); ++i)
        std::printf("%s %s %.2f s", i ? "," : "", setup_seconds_[i].first, secs[i]);
      std::printf("\n");
    }
  }
  Kokkos::fence();
  const double wall0 = MPI_Wtime();
  const long step0 = step_;
  const long long host0 = problem_->host_points(), device0 = problem_->device_points();
  // Diagnostics, snapshots and checkpoints inside the timed loop: the DOF-stages/s of the
  // summary and the progress lines are those of the steps alone (the error norm against an
  // exact solution costs more than a step on a CPU core at some sizes).
  double out_wall = 0.0;
  auto timed = [&](auto&& work) {
    Kokkos::fence();
    const double t0 = MPI_Wtime();
    work();
    out_wall += MPI_Wtime() - t0;
  };
  // DOF-stages/s of the steps taken after `wall` seconds in the loop.
  auto stage_rate = [&](double wall) {
    return dofs * rk_->stages() * (step_ - step0) / std::max(wall - out_wall, 1e-12);
  };
  auto done = [&]() { return nsteps > 0 ? step_ >= nsteps : time_ >= T * (1.0 - 1e-14); };
  while (!done()) {
    double dt = dt_rule;
    if (nsteps <= 0 && time_ + dt > T) dt = T - time_;
    if (out.interval > 0 && time_ + dt > next_output * (1 + 1e-14)) dt = next_output - time_;
    advance(dt);
    const bool at_output = out.interval > 0 && time_ >= next_output * (1 - 1e-12);
    const bool last = done();
    const bool at_progress = (step_ - step0) % every == 0 || last;
    if (at_output || at_progress) {
      timed([&] {
        modal_state();
        d = at_output ? record(true) : diagnostics();
      });
      if (at_output) next_output += out.interval;
      const double wall = MPI_Wtime() - wall0;
      const double rate = stage_rate(wall);
      const double eta =
          wall / std::max(1e-12, nsteps > 0 ? double(step_ - step0) : time_ - (T - T));
      const double remaining = nsteps > 0 ? eta * (nsteps - step_) : eta * (T - time_);
      if (talk) {
        std::printf("%sstep %6ld  t = %.5e  dt = %.3e  wall %7.2f s  ETA %7.2f s  %.3e DOF-stages/s"
                    "  u in [%.4e, %.4e]",
                    tty ? "\r" : "", step_, time_, dt, wall, remaining, rate, d.umin, d.umax);
        if (with_error) std::printf("  L2 err %.4e", d.l2_error);
        std::printf(tty && !last ? "" : "\n");
        std::fflush(stdout);
      }
      if (!d.finite) {
        // The step the user set (time.dt or the CFL rule); with diffusion an SIPG penalty too
        // small for the elements is unstable at any step (docs/design.md).
        const char* remedy = cfg_.time.dt > 0.0 ? "lower time.dt" : "lower time.cfl";
        const char* penalty = pde_.diffusion.nu > 0.0 ? ", or raise physics.penalty" : "";
        if (rank_ == 0)
          std::fprintf(stderr,
                       "dgsolve: the solution became non-finite by step %ld, t = %.6e (dt = %.3e "
                       "may be unstable: %s%s); last good snapshot: %s\n",
                       step_, time_, dt, remedy, penalty,
                       last_snapshot.empty() ? "none" : last_snapshot.c_str());
        return d;
      }
    }
    const bool ck_steps = out.checkpoint_steps > 0 && step_ % out.checkpoint_steps == 0;
    const bool ck_time = time_ >= next_checkpoint * (1 - 1e-12);
    if (ck_steps || ck_time) {
      timed([&] {
        modal_state();
        write_checkpoint(checkpoint);
      });
      if (ck_time) next_checkpoint += out.checkpoint_time;
    }
  }
  timed([&] { modal_state(); });
  if (time_ != last_record) timed([&] { d = record(true); });
  Kokkos::fence();
  const double wall = MPI_Wtime() - wall0;
  if (out.checkpoint_steps > 0 || out.checkpoint_time > 0) write_checkpoint(checkpoint);
  const double rate = stage_rate(wall);
  const HaloStatistics hs = halo_statistics();
  if (rank_ == 0 && !out.quiet) {
    std::printf("dgsolve: done: %ld steps to t = %.6e in %.3f s (%.3f s of it diagnostics and "
                "output), %.3e DOF-stages/s",
                step_ - step0, time_, wall, out_wall, rate);
    if (with_error) std::printf(", L2 error %.6e, max error %.6e", d.l2_error, d.max_error);
    std::printf(", integral %.15e\n", d.integral);
    std::printf("dgsolve: halo: %.0f bytes per stage (sent, summed over ranks), waiting %.1f%% of "
                "step time for messages (max over ranks; mean %.1f%%) and %.1f%% for the packed "
                "traces (max)\n",
                hs.bytes_per_stage, 100.0 * hs.wait_fraction_max, 100.0 * hs.wait_fraction_mean,
                100.0 * hs.staging_fraction_max);
    if (problem_->time_dependent()) {
      const double stages = std::max(1.0, double(rk_->stages()) * double(step_ - step0));
      std::printf("dgsolve: time-dependent boundary data and source: %.3f s on rank 0 (%.1f%% of "
                  "step time); per stage %.0f points evaluated on the host (expressions) and "
                  "copied to the device, %.0f on the device (built-in exact solution)\n",
                  problem_->update_seconds(),
                  100.0 * problem_->update_seconds() / std::max(wall - out_wall, 1e-12),
                  double(problem_->host_points() - host0) / stages,
                  double(problem_->device_points() - device0) / stages);
    }
    if (writer) std::printf("dgsolve: snapshots in %s\n", writer->xdmf_path().c_str());
  }
  // One row per run: the figures of the summary, for scripts (scripts/scaling.sh).
  io::CsvLog summary(comm_, out.directory, out.name + "_summary",
                     {"ranks", "elements", "order", "dofs", "steps", "wall_s", "dof_stages_per_s",
                      "halo_bytes_per_stage", "halo_wait_fraction_max", "halo_wait_fraction_mean",
                      "halo_staging_fraction_max"});
  summary.row({double(size_), double(global_elements()), double(block_.order), dofs,
               double(step_ - step0), wall, rate, hs.bytes_per_stage, hs.wait_fraction_max,
               hs.wait_fraction_mean, hs.staging_fraction_max});
  return d;
}

} // namespace dg
