// The run configuration: every YAML key of dgsolve, with its default. Parsing, validation and
// the --set overrides live in src/io/config.cpp; docs/input.md documents each key.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace dg::io {

struct MeshConfig {
  std::string file; // mesh.file: HDF5 mesh written by dgmesh (relative to the YAML's directory
                    // if not found relative to the working directory)
  std::string box;  // mesh.box: dgmesh flags, mesh generated in memory ("-nx 8 -periodic xyz")
};

struct DiscretizationConfig {
  int order = 3;                        // discretization.order: p, 1..DG_MAX_ORDER
  int quadrature_points = 0;            // discretization.quadrature_points: q, 0 -> p+2
  std::string mass = "weight_adjusted"; // discretization.mass: weight_adjusted | exact
  std::string op = "matrix_free";       // discretization.operator: matrix_free | element_matrix
  std::string geometry = "auto";        // discretization.geometry: auto | affine | curved
};

/// A user expression as written in the YAML (a number is an expression too), with where it was
/// written ("file:line:col") and its key path, for messages.
struct ExpressionText {
  std::string text;
  std::string key;
  std::string where;
  bool given() const { return !text.empty(); }
};

struct PhysicsConfig {
  std::string velocity_field = "expression"; // physics.velocity_field: expression | rotation
  /// physics.velocity: 3 expressions of x, y, z (numbers for a constant velocity)
  std::array<ExpressionText, 3> velocity{{{"1", "physics.velocity[0]", ""},
                                          {"0", "physics.velocity[1]", ""},
                                          {"0", "physics.velocity[2]", ""}}};
  double angular_velocity = 1.0; // physics.angular_velocity (rotation about z)
  std::array<double, 3> rotation_center{0.5, 0.5, 0.5};       // physics.rotation_center
  ExpressionText diffusivity{"0", "physics.diffusivity", ""}; // nu >= 0: number or field of x, y, z
  ExpressionText source{"", "physics.source", ""};            // s(x, y, z, t); empty: none
  double penalty = 1.0; // physics.penalty: SIPG penalty factor eta > 0 (docs/design.md)
};

struct SolutionConfig {          // the initial condition and, where known, exact solution
  std::string type = "gaussian"; // initial.type: fourier | gaussian | constant | zero | expression
  double amplitude = 1.0;        // initial.amplitude
  std::array<double, 3> wavenumber{1, 1, 1};   // initial.wavenumber: integers, in units of 2 pi / L
  std::array<double, 3> center{0.5, 0.5, 0.5}; // initial.center (gaussian)
  double width = 0.1;                          // initial.width: gaussian standard deviation > 0
  double value = 1.0;                          // initial.value (constant)
  ExpressionText expression{"", "initial.expression", ""}; // u0(x, y, z) (type expression)
  ExpressionText exact{"", "initial.exact", ""}; // u(x, y, z, t) for error norms (optional)
};

/// One boundary condition: boundary.NAME (a mesh tag name) or boundary.default.
struct BoundaryCondition {
  std::string name;     // tag name, or "default"
  std::string type;     // dirichlet | inflow | outflow | neumann
  ExpressionText value; // g (dirichlet, inflow) or nu grad u . n (neumann); may be empty
  std::string where;    // "file:line:col" of the entry
};

struct BoundaryConfig {
  /// boundary.default: faces whose tag has no entry. Periodic faces need no entry.
  BoundaryCondition default_condition{
      "default", "dirichlet", {"", "boundary.default.value", ""}, ""};
  std::vector<BoundaryCondition> conditions; // boundary.NAME entries, in the order given
  /// The entry for tag `name`, or nullptr.
  const BoundaryCondition* find(const std::string& name) const {
    for (const auto& c : conditions)
      if (c.name == name) return &c;
    return nullptr;
  }
};

struct TimeConfig {
  std::string integrator = "lsrk54"; // time.integrator: lsrk54 | ssprk3 | rk4
  double cfl = 0.5;                  // time.cfl: > 0
  double dt = 0.0;                   // time.dt: fixed step (> 0) overrides the CFL rule
  double final_time = 1.0;           // time.final_time: > 0
  long steps = 0;                    // time.steps: if > 0, run exactly this many steps
};

struct OutputConfig {
  std::string directory = "out"; // output.directory
  std::string name = "run";      // output.name: stem of every output file
  double interval = 0.0;         // output.interval: snapshot every this much time (0: end)
  int subdivisions = 0;          // output.subdivisions: sub-hexes per direction, 0 -> p
  bool snapshots = true;         // output.snapshots
  long progress_every = 0;       // output.progress_every: steps between lines (0: auto)
  bool quiet = false;            // output.quiet
  long checkpoint_steps = 0;     // output.checkpoint_steps: checkpoint every N steps (0: off)
  double checkpoint_time = 0.0;  // output.checkpoint_time: ... or every T time units
};

struct ParallelConfig {
  bool gpu_aware_mpi = false; // parallel.gpu_aware_mpi: hand device buffers to MPI
  bool stage_fence = false;   // parallel.stage_fence: the host waits for each stage's kernels
};

struct Config {
  std::string source; // path of the YAML file (for messages)
  std::string yaml;   // the YAML text after overrides (stored in checkpoints)
  /// parameters: NAME: value (a number or an expression of pi and earlier parameters), in order;
  /// constants in every expression.
  std::vector<std::pair<std::string, double>> parameters;
  MeshConfig mesh;
  DiscretizationConfig discretization;
  PhysicsConfig physics;
  SolutionConfig initial;
  BoundaryConfig boundary;
  TimeConfig time;
  OutputConfig output;
  ParallelConfig parallel;
};

/// Reads and validates a YAML file, applying `overrides` ("a.b=value", from --set) first.
/// Throws InputError with a one-line message `file: key = value: what is valid` for an unknown
/// key (naming the nearest valid one), a duplicate key, a wrong type or an out-of-range value.
Config load_config(const std::string& path, const std::vector<std::string>& overrides = {});

/// Same as load_config, from YAML text (`source` names it in messages).
Config parse_config(const std::string& yaml_text, const std::string& source,
                    const std::vector<std::string>& overrides = {});

/// The reference table of every key (markdown: key, type, default, valid values, description),
/// rendered from the same schema that parsing and validation use; docs/input.md embeds it.
std::string config_reference_markdown();

/// `names` sorted by edit distance to `word`, nearest first (stable for ties).
std::vector<std::string> nearest_first(const std::string& word, std::vector<std::string> names);

/// Every key path of the schema, in schema order ("mesh.file", ..., "parallel.stage_fence").
std::vector<std::string> config_keys();

} // namespace dg::io
