// The user's problem on one rank: the compiled expressions of the input (velocity, diffusivity,
// source, initial state, exact solution, boundary data), the table of boundary conditions by
// mesh tag name, and their evaluation at the points the kernels read (set-up work; only
// time-dependent boundary data and sources are evaluated again, once per stage time).
#pragma once

#include "dg/dg/operator.hpp"
#include "dg/io/config.hpp"
#include "dg/mesh/local_mesh.hpp"
#include "dg/physics/expression.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace dg {

/// One row of the table of boundary conditions (row 0: boundary.default).
struct ConditionRow {
  std::string name; // tag name, or "default"
  std::string key;  // "boundary.NAME" for messages
  std::string where;
  int type = face_dirichlet;
  enum class Data { none, expression, exact_builtin, zero } data = Data::none;
  expr::Expression value; // Data::expression (a boundary value or initial.exact)
};

class Problem {
public:
  /// Compiles the expressions of `cfg` and resolves the boundary entries against the mesh's tag
  /// names (an unknown name is an InputError listing the tags, nearest first). `builtin` is the
  /// exact solution of a built-in initial.type (fourier, gaussian, ...).
  Problem(const io::Config& cfg, const mesh::LocalMesh& local,
          const physics::ExactSolution& builtin);

  const BoundaryKinds& boundary_kinds() const { return kinds_; }
  const std::vector<ConditionRow>& conditions() const { return rows_; }

  /// Tabulates the fields on the block (velocity, diffusivity, a time-independent source), the
  /// boundary points and data, after checking every value is finite (collective over comm: every
  /// rank throws the same InputError). Sets pde().
  void setup(ElementBlock& b, const mesh::LocalMesh& local, MPI_Comm comm);
  /// The physics as the kernels see it (after setup: velocity kind, max diffusivity, penalty).
  const physics::AdvectionDiffusion& pde() const { return pde_; }

  /// Projects the initial state onto the block's modes.
  void initial_state(ElementBlock& b) const;
  /// Time-dependent boundary data and source at time t (nothing when none depends on t, or when
  /// t is the time of the last call).
  void update(ElementBlock& b, double t);
  bool time_dependent() const { return !t_rows_.empty() || source_t_; }
  /// Whether boundary data alone depend on t (no t-dependent source), so that a step may take
  /// them at all its stage times at once (stage_boundary_data) instead of update() per stage.
  bool boundary_data_only() const { return !t_rows_.empty() && !source_t_; }
  bool boundary_data_depend_on_time() const { return !t_rows_.empty(); }
  /// The boundary data at each of the times ts, (k, slot, point) as ElementBlock::bdata is at
  /// ts[k], on the slots `read` lists (DGOperator::data_slots; the rows of the others are left
  /// as they are): rows without t keep their set-up values, expressions are evaluated on the
  /// host (one copy for all times), the built-in exact solution by one kernel. block.bdata is
  /// left as is.
  const View3& stage_boundary_data(const ElementBlock& b, const std::vector<double>& ts,
                                   const std::vector<int>& read);
  static constexpr int max_stage_times = 8;
  double update_seconds() const { return update_seconds_; }
  /// Point values computed on this rank so far for time-dependent data: on the host (boundary
  /// expressions, a source), and on the device (the built-in exact solution), every stage time
  /// counted.
  long long host_points() const { return host_points_; }
  long long device_points() const { return device_points_; }

  /// Whether error norms are known (an exact solution: initial.exact or a built-in one).
  bool has_exact() const { return exact_expr_ || builtin_exact_; }
  /// This rank's diagnostics at time t (error norms against the exact solution if any) with a
  /// Gauss grid of qerr points per direction.
  Diagnostics diagnostics(const ElementBlock& b, double t, int qerr,
                          const mesh::LocalMesh& local) const;

  /// The rows of the slots `host` (expressions, on the host, then one copy) and `exact` (the
  /// built-in exact solution at the points xyz (i, point, xyz) of exact(i), by one kernel) at
  /// the nt times ts into out (time, slot, point) and its host copy h. Public because it
  /// launches a device lambda (nvcc's extended lambdas may not live in private member
  /// functions); update and stage_boundary_data are its callers.
  void boundary_rows_at(const ElementBlock& b, const double* ts, int nt, const View3& out,
                        const View3::HostMirror& h, const std::vector<int>& host,
                        const IView1& exact, const View3& xyz);

private:
  std::string source_file_;
  expr::Parameters params_;
  physics::AdvectionDiffusion pde_;
  physics::ExactSolution builtin_;
  bool builtin_exact_ = false;
  std::string velocity_field_;
  std::vector<expr::Expression> velocity_; // 3 components (velocity_field expression)
  expr::Expression diffusivity_, source_, initial_, exact_;
  bool has_source_ = false, source_t_ = false, exact_expr_ = false, initial_expr_ = false;
  std::vector<ConditionRow> rows_;
  std::vector<int> t_rows_; // rows whose data depends on t
  BoundaryKinds kinds_;

  std::vector<double> bpoints_; // (slot, point, xyz) boundary face points
  View2::HostMirror hbdata_;    // host copy of ElementBlock::bdata
  View3 stage_bdata_;           // (time, slot, point) stage_boundary_data
  View3::HostMirror hstage_bdata_;
  /// Slots whose data depend on t: with expression data (evaluated on the host), with the
  /// built-in exact solution (on the device) and its face points (i, point, xyz).
  struct TimeSlots {
    std::vector<int> host, exact_host;
    IView1 exact;
    View3 exact_points;
  };
  TimeSlots time_slots_;        // all of them (update)
  TimeSlots ahead_slots_;       // those a step's stages read (stage_boundary_data)
  std::vector<int> ahead_read_; // ... selected for this list of read slots
  TimeSlots select_time_slots(const std::vector<int>& host, const std::vector<int>& exact,
                              int Q2) const;
  std::vector<double> vpoints_; // (elem, point, xyz) volume points (t-dependent source only)
  View2 svals_;                 // (elem, point) source values (t-dependent source only)
  View2::HostMirror hsvals_;    // their host copy
  View2 initial_values_;        // (elem, point) initial state (initial.type expression)
  mutable std::vector<double> gpoints_; // diagnostics grid (initial.exact only), built on use
  mutable int gq_ = 0;
  double last_t_ = -1e300;
  double update_seconds_ = 0.0;
  long long host_points_ = 0, device_points_ = 0;
};

} // namespace dg
