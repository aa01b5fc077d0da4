// The dgsolve application object: builds the mesh, partition, element block, operator, halo
// exchange and time integrator from a Config, and runs the time loop with progress, error
// norms, snapshots and checkpoints.
#pragma once

#include "dg/dg/operator.hpp"
#include "dg/io/config.hpp"
#include "dg/mesh/local_mesh.hpp"
#include "dg/parallel/halo.hpp"
#include "dg/parallel/partition.hpp"
#include "dg/time/rk.hpp"

#include <mpi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dg {

namespace io {
class SnapshotWriter;
}
class Problem;
namespace integration {
class SolverMatrices;
}

/// Gauss points per direction for order p on geometric order k when the input gives 0: p + 2, or
/// enough to integrate a constant state's volume and face terms exactly on Q_k elements.
int default_quadrature_points(int p, int k);

/// Global (all-rank) diagnostics at one time.
struct GlobalDiagnostics {
  double l2_error = 0.0, max_error = 0.0, integral = 0.0, energy = 0.0, umin = 0.0, umax = 0.0;
  bool finite = true;
};

/// Halo-exchange statistics of the steps taken so far, reduced over ranks.
struct HaloStatistics {
  double bytes_per_stage = 0.0;    // trace bytes sent per RK stage, summed over ranks
  double wait_fraction_max = 0.0;  // time waiting for messages / time stepping, max over ranks
  double wait_fraction_mean = 0.0; // the same, mean over ranks
  /// Time waiting for the packed traces (and, host-staged, their copy to the host) before
  /// sending / time stepping, max over ranks.
  double staging_fraction_max = 0.0;
};

class Solver {
public:
  Solver(const io::Config& cfg, MPI_Comm comm);
  ~Solver();

  /// Projects the initial condition (t = 0).
  void initialize();
  /// One time step of size dt from the current time (block().u modal before and after).
  void step(double dt);
  /// ... on the state as the stages take it (stage_state), which it leaves: with a nodal state
  /// block().u then holds the values at the points until modal_state().
  void advance(double dt);
  /// The state as the stages take it: nodal where the operator can step it so
  /// (DGOperator::nodal_capable), else modal.
  void stage_state();
  /// The modal state, which diagnostics, output, checkpoints and gather_modes read.
  void modal_state();
  /// Runs to the final time (or step count) with output; returns the final diagnostics.
  GlobalDiagnostics run();
  /// Diagnostics of the current state, reduced over ranks.
  GlobalDiagnostics diagnostics() const;
  /// Stable dt of the CFL rule (reduced over ranks), or the fixed time.dt.
  double time_step() const;

  double time() const { return time_; }
  long steps_taken() const { return step_; }
  const ElementBlock& block() const { return block_; }
  ElementBlock& block() { return block_; }
  DGOperator& op() { return *op_; }
  const parallel::Partition& partition() const { return part_; }
  const physics::ExactSolution& exact() const { return exact_; }
  const Problem& problem() const { return *problem_; }
  std::int64_t global_elements() const { return part_.local.nelem_global; }
  /// Elements whose geometry this rank holds: its own plus the face neighbours on other ranks.
  std::int64_t held_elements() const { return part_.local.num_elements(); }
  /// Mesh vertices this rank holds (those of its held elements).
  std::int64_t held_vertices() const { return part_.local.hexes.num_vertices(); }
  /// Bytes per stage and waiting fractions of the exchange so far (collective).
  HaloStatistics halo_statistics() const;
  /// Modal coefficients of all elements, ordered by global id, gathered on every rank.
  std::vector<double> gather_modes() const;
  /// Right-hand side evaluation of one stage (traces, halo, volume + faces, epilogue); with
  /// data_ahead, the step has taken the boundary data at its stage times already (step).
  void rhs(double t, const Epilogue& ep, bool data_ahead = false);

  /// Resumes from a checkpoint written on any rank count.
  void restart(const std::string& path);
  /// Writes a checkpoint of the current state (collective; atomic rename).
  void write_checkpoint(const std::string& path) const;
  void write_snapshot(io::SnapshotWriter& w, int index) const;

  void set_state(double t, long step) {
    time_ = t;
    step_ = step;
  }

private:
  io::Config cfg_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  parallel::Partition part_;
  ElementBlock block_;
  physics::AdvectionDiffusion pde_;
  physics::ExactSolution exact_;
  std::unique_ptr<Problem> problem_; // expressions and boundary conditions of the input
  std::unique_ptr<DGOperator> op_;
  std::unique_ptr<integration::SolverMatrices> matrices_; // exact mass / element matrices
  std::unique_ptr<parallel::HaloExchange> halo_;
  std::unique_ptr<TimeIntegrator> rk_;
  double time_ = 0.0;
  long step_ = 0;
  double step_seconds_ = 0.0; // wall time inside step(), fenced; with a halo only
  /// Wall seconds of the set-up's phases on this rank, in order (the summary's set-up line).
  std::vector<std::pair<const char*, double>> setup_seconds_;
  /// Adds the seconds since t0 (MPI_Wtime, device fenced) to phase `name`; returns the time now.
  double setup_phase(const char* name, double t0);
};

/// Builds the physics (constant velocity and diffusivity from their expressions; fields are
/// tabulated by Problem::setup) and the built-in exact solution from a config and the mesh's
/// bounding box / periodicity.
physics::AdvectionDiffusion make_pde(const io::Config& cfg);
physics::ExactSolution make_exact(const io::Config& cfg, const mesh::BoxInfo& box);

} // namespace dg
