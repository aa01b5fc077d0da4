// The run configuration: every YAML key of dgsolve, with its default. Parsing, validation and
// the --set overrides live in src/io/config.cpp; docs/input.md documents each key.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace dg::io {

struct MeshConfig {
  std::string file;  // mesh.file: HDF5 mesh written by dgmesh (relative to the YAML's directory
                     // if not found relative to the working directory)
  std::string box;   // mesh.box: dgmesh flags, mesh generated in memory ("-nx 8 -periodic xyz")
};

struct DiscretizationConfig {
  int order = 3;                          // discretization.order: p, 1..DG_MAX_ORDER
  int quadrature_points = 0;              // discretization.quadrature_points: q, 0 -> p+2
  std::string mass = "weight_adjusted";   // discretization.mass: weight_adjusted | exact
  std::string op = "matrix_free";         // discretization.operator: matrix_free | element_matrix
  std::string geometry = "auto";          // discretization.geometry: auto | affine | curved
};

struct PhysicsConfig {
  std::string velocity_field = "constant"; // physics.velocity_field: constant | rotation
  std::array<double, 3> velocity{1.0, 0.0, 0.0}; // physics.velocity (constant field)
  double angular_velocity = 1.0;                 // physics.angular_velocity (rotation about z)
  std::array<double, 3> rotation_center{0.5, 0.5, 0.5}; // physics.rotation_center
  double diffusivity = 0.0;                      // physics.diffusivity: nu >= 0
  double penalty = 1.0; // physics.penalty: SIPG penalty factor eta > 0 (docs/design.md)
};

struct SolutionConfig {                 // the initial condition and, where known, exact solution
  std::string type = "gaussian";        // initial.type: fourier | gaussian | constant | zero
  double amplitude = 1.0;               // initial.amplitude
  std::array<double, 3> wavenumber{1, 1, 1}; // initial.wavenumber: integers, in units of 2 pi / L
  std::array<double, 3> center{0.5, 0.5, 0.5}; // initial.center (gaussian)
  double width = 0.1;                   // initial.width: gaussian standard deviation > 0
  double value = 1.0;                   // initial.value (constant)
};

struct BoundaryConfig {
  // boundary.<tag>: dirichlet | outflow, one entry per box face tag (xmin .. zmax) or
  // boundary.default. Periodic faces need no entry.
  std::string default_kind = "dirichlet";
  std::array<std::string, 6> kind{}; // empty -> default_kind
};

struct TimeConfig {
  std::string integrator = "lsrk54"; // time.integrator: lsrk54 | ssprk3 | rk4
  double cfl = 0.5;                  // time.cfl: > 0
  double dt = 0.0;                   // time.dt: fixed step (> 0) overrides the CFL rule
  double final_time = 1.0;           // time.final_time: > 0
  long steps = 0;                    // time.steps: if > 0, run exactly this many steps
};

struct OutputConfig {
  std::string directory = "out";     // output.directory
  std::string name = "run";          // output.name: stem of every output file
  double interval = 0.0;             // output.interval: snapshot every this much time (0: end)
  int subdivisions = 0;              // output.subdivisions: sub-hexes per direction, 0 -> p
  bool snapshots = true;             // output.snapshots
  long progress_every = 0;           // output.progress_every: steps between lines (0: auto)
  bool quiet = false;                // output.quiet
  long checkpoint_steps = 0;         // output.checkpoint_steps: checkpoint every N steps (0: off)
  double checkpoint_time = 0.0;      // output.checkpoint_time: ... or every T time units
};

struct ParallelConfig {
  bool gpu_aware_mpi = false; // parallel.gpu_aware_mpi: hand device buffers to MPI
};

struct Config {
  std::string source;   // path of the YAML file (for messages)
  std::string yaml;     // the YAML text after overrides (stored in checkpoints)
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

/// Every key path of the schema, in schema order ("mesh.file", ..., "parallel.gpu_aware_mpi").
std::vector<std::string> config_keys();

} // namespace dg::io
