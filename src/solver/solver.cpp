// dgsolve's application object: set-up from a Config and the time loop.
#include "dg/solver.hpp"

#include "dg/core/error.hpp"
#include "dg/mesh/generate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

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

int face_kind(const std::string& s) { return s == "outflow" ? face_outflow : face_dirichlet; }
} // namespace

physics::AdvectionDiffusion make_pde(const io::Config& cfg) {
  physics::AdvectionDiffusion pde;
  const auto& ph = cfg.physics;
  pde.advection.kind = ph.velocity_field == "rotation" ? 1 : 0;
  for (int d = 0; d < 3; ++d) {
    pde.advection.a[d] = ph.velocity[d];
    pde.advection.center[d] = ph.rotation_center[d];
  }
  pde.advection.omega = ph.angular_velocity;
  pde.diffusion.nu = ph.diffusivity;
  pde.diffusion.eta = ph.penalty;
  return pde;
}

physics::ExactSolution make_exact(const io::Config& cfg, const mesh::HexMesh& mesh,
                                  const mesh::Connectivity&) {
  physics::ExactSolution ex;
  ex.pde = make_pde(cfg);
  const auto& ic = cfg.initial;
  ex.kind = ic.type == "fourier" ? 0 : ic.type == "gaussian" ? 1 : ic.type == "constant" ? 2 : 3;
  ex.amplitude = ic.amplitude;
  ex.width = ic.width;
  ex.value = ic.value;
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (std::int64_t v = 0; v < mesh.num_vertices(); ++v)
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], mesh.coords[3 * v + d]);
      hi[d] = std::max(hi[d], mesh.coords[3 * v + d]);
    }
  for (int d = 0; d < 3; ++d) {
    ex.lo[d] = lo[d];
    ex.len[d] = hi[d] - lo[d];
    ex.center[d] = ic.center[d];
    ex.k[d] = 2.0 * math::pi * ic.wavenumber[d] / ex.len[d];
    ex.periodic[d] = false;
  }
  // A periodic pair whose face centroids differ by a box length along d makes d periodic.
  const std::int64_t np = static_cast<std::int64_t>(mesh.periodic.size() / 4);
  for (std::int64_t i = 0; i < np; ++i) {
    double ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0};
    for (int side = 0; side < 2; ++side) {
      const std::int64_t e = mesh.periodic[4 * i + 2 * side];
      const int f = static_cast<int>(mesh.periodic[4 * i + 2 * side + 1]);
      const auto c = mesh::map_point(mesh, e, f / 2 == 0 ? (f % 2 ? 1.0 : -1.0) : 0.0,
                                     f / 2 == 1 ? (f % 2 ? 1.0 : -1.0) : 0.0,
                                     f / 2 == 2 ? (f % 2 ? 1.0 : -1.0) : 0.0);
      for (int d = 0; d < 3; ++d) (side ? cb : ca)[d] = c[d];
    }
    for (int d = 0; d < 3; ++d)
      if (std::fabs(std::fabs(ca[d] - cb[d]) - ex.len[d]) < 1e-8 * ex.len[d])
        ex.periodic[d] = true;
  }
  return ex;
}

Solver::Solver(const io::Config& cfg, MPI_Comm comm) : cfg_(cfg), comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  mesh_ = cfg.mesh.box.empty() ? mesh::read_mesh(resolve_mesh_path(cfg))
                               : mesh::generate_box(mesh::parse_box_flags(cfg.mesh.box));
  conn_ = mesh::build_connectivity(mesh_);
  part_ = parallel::distribute(mesh_, conn_, comm_);
  if (static_cast<std::int64_t>(part_.global_ids.size()) == 0)
    DG_INPUT_ERROR(cfg.source << ": " << size_ << " ranks for " << mesh_.num_elements()
                              << " elements: every rank needs at least one element");
  const int p = cfg.discretization.order;
  const int q = cfg.discretization.quadrature_points > 0 ? cfg.discretization.quadrature_points
                                                           : p + 2;
  BoundaryKinds bc;
  for (int t = 0; t < 6; ++t)
    bc.kind[t] = face_kind(cfg.boundary.kind[t].empty() ? cfg.boundary.default_kind
                                                        : cfg.boundary.kind[t]);
  const auto ghosts = parallel::ghost_faces(part_);
  block_ = build_element_block(mesh_, conn_, part_.global_ids, ghosts, p, q, bc,
                               cfg.discretization.geometry);
  pde_ = make_pde(cfg);
  exact_ = make_exact(cfg, mesh_, conn_);
  op_ = std::make_unique<DGOperator>(block_, pde_, exact_);
  if (size_ > 1)
    halo_ = std::make_unique<parallel::HaloExchange>(comm_, block_, ghosts,
                                                      cfg.parallel.gpu_aware_mpi);
  rk_ = std::make_unique<TimeIntegrator>(cfg.time.integrator, block_);
}

Solver::~Solver() = default;

void Solver::initialize() {
  project(block_, exact_, 0.0);
  time_ = 0.0;
  step_ = 0;
}

void Solver::rhs(double t, const Epilogue& ep) {
  op_->compute_traces();
  if (halo_) halo_->start();
  op_->apply(t, block_.inner_elems, ep);
  if (halo_) halo_->finish();
  op_->apply(t, block_.halo_elems, ep);
}

void Solver::step(double dt) {
  rk_->step([this](double t, const Epilogue& ep) { rhs(t, ep); }, time_, dt);
  time_ += dt;
  ++step_;
}

double Solver::time_step() const {
  if (cfg_.time.dt > 0.0) return cfg_.time.dt;
  double dt = local_stable_dt(block_, pde_, cfg_.time.cfl);
  MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, comm_);
  return dt;
}

GlobalDiagnostics Solver::diagnostics() const {
  const Diagnostics d = local_diagnostics(block_, exact_, time_, exact_.is_exact() &&
                                                                     exact_.kind != 3,
                                          block_.Q + 2);
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
  const int nm = block_.nmodes;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block_.u);
  std::vector<double> all(static_cast<size_t>(mesh_.num_elements()) * nm, 0.0);
  for (int e = 0; e < block_.nelem; ++e)
    for (int m = 0; m < nm; ++m) all[static_cast<size_t>(block_.global_ids[e]) * nm + m] = h(e, m);
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM,
                comm_);
  return all;
}

GlobalDiagnostics Solver::run() {
  const double T = cfg_.time.final_time;
  const long nsteps = cfg_.time.steps;
  const double dt_rule = time_step();
  while (nsteps > 0 ? step_ < nsteps : time_ < T * (1.0 - 1e-14)) {
    double dt = dt_rule;
    if (nsteps <= 0 && time_ + dt > T) dt = T - time_;
    step(dt);
  }
  return diagnostics();
}

} // namespace dg
