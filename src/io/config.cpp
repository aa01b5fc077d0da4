// YAML input of dgsolve: one schema table (key, type, default, valid values, description) drives
// parsing, validation, error messages and the reference in docs/input.md, so they cannot drift.
#include "dg/io/config.hpp"

#include "dg/core/error.hpp"
#include "dg/physics/expression.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#ifndef DG_MAX_ORDER
#define DG_MAX_ORDER 15
#endif

namespace dg::io {
namespace {

// ------------------------------------------------------------------------------------------------
// Value rendering and scalar conversion
// ------------------------------------------------------------------------------------------------

/// A node as the user wrote it, for messages: scalars verbatim, collections in flow style.
std::string show(const YAML::Node& n) {
  if (!n || n.IsNull()) return "(empty)";
  if (n.IsScalar()) return n.Scalar().empty() ? "\"\"" : n.Scalar();
  YAML::Emitter e;
  e.SetSeqFormat(YAML::Flow);
  e.SetMapFormat(YAML::Flow);
  e << n;
  std::string s = e.c_str();
  for (auto& ch : s)
    if (ch == '\n') ch = ' ';
  return s;
}

/// Shortest text that reads back as the same double; integers without an exponent.
std::string fmt_number(double x) {
  char buf[64];
  if (x == std::floor(x) && std::fabs(x) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

/// yaml-cpp messages may span lines; ours are one line.
std::string one_line(std::string s) {
  for (auto& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

bool to_double(const YAML::Node& n, double& x) {
  if (!n.IsScalar()) return false;
  const std::string& s = n.Scalar();
  if (s.empty()) return false;
  char* end = nullptr;
  x = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(x);
}

bool to_long(const YAML::Node& n, long& v) {
  if (!n.IsScalar()) return false;
  const std::string& s = n.Scalar();
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtol(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

/// " (did you mean X?)" where the scalar `n` is a near miss of one of `choices`, else "".
std::string did_you_mean(const YAML::Node& n, const std::vector<std::string>& choices) {
  if (!n.IsScalar() || n.Scalar().empty()) return "";
  const std::string near = nearest(n.Scalar(), choices);
  if (edit_distance(near, n.Scalar()) > std::max<std::size_t>(2, near.size() / 3)) return "";
  return " (did you mean " + near + "?)";
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? sep : "") + v[i];
  return s;
}

// ------------------------------------------------------------------------------------------------
// The schema
// ------------------------------------------------------------------------------------------------

/// Where a value came from, for messages: "advect.yaml:12:3" or "--set".
struct Origin {
  std::string source;
  std::set<std::string> overridden; // key paths set by --set
  std::string where(const std::string& path, const YAML::Node& n) const {
    if (overridden.count(path)) return source + ": --set";
    const YAML::Mark m = n.Mark();
    if (m.is_null() || m.line < 0) return source;
    return source + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }
};

[[noreturn]] void bad_value(const Origin& o, const std::string& path, const YAML::Node& n,
                            const std::string& valid) {
  DG_INPUT_ERROR(o.where(path, n) << ": " << path << " = " << show(n) << ": must be " << valid);
}

/// A numeric interval; `lo_open` / `hi_open` exclude the bound.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  bool contains(double x) const {
    return (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi);
  }
  std::string text(bool integer) const {
    const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
    std::string what = integer ? "an integer" : "a number";
    if (has_lo && has_hi)
      return what + " in " + (lo_open ? "(" : "[") + fmt_number(lo) + ", " + fmt_number(hi) +
             (hi_open ? ")" : "]");
    if (has_lo) return what + (lo_open ? " > " : " >= ") + fmt_number(lo);
    if (has_hi) return what + (hi_open ? " < " : " <= ") + fmt_number(hi);
    return what;
  }
};

Range any() {
  return {};
}
Range positive() {
  return {0.0, std::numeric_limits<double>::infinity(), true, false};
}
Range nonnegative() {
  return {0.0, std::numeric_limits<double>::infinity(), false, false};
}
Range closed(double lo, double hi) {
  return {lo, hi, false, false};
}

struct Key {
  std::string path;
  std::string type;  // for the reference: integer, number, boolean, string, choice, ...
  std::string valid; // "an integer in [1, 15]", "one of: a, b"; used in messages and docs
  std::string description;
  std::function<void(Config&, const YAML::Node&, const Origin&)> parse;
  std::function<std::string(const Config&)> value; // current value as YAML text
};

template <class Get>
Key integer_key(std::string path, Get get, Range r, std::string desc) {
  const std::string valid = r.text(true);
  Key k{path, "integer", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    long v = 0;
    if (!to_long(n, v) || !r.contains(double(v))) bad_value(o, path, n, valid);
    get(c) = static_cast<std::remove_reference_t<decltype(get(c))>>(v);
  };
  k.value = [=](const Config& c) { return std::to_string(get(c)); };
  return k;
}

template <class Get>
Key number_key(std::string path, Get get, Range r, std::string desc) {
  const std::string valid = r.text(false);
  Key k{path, "number", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    double v = 0;
    if (!to_double(n, v) || !r.contains(v)) bad_value(o, path, n, valid);
    get(c) = v;
  };
  k.value = [=](const Config& c) { return fmt_number(get(c)); };
  return k;
}

template <class Get>
Key bool_key(std::string path, Get get, std::string desc) {
  const std::string valid = "true or false";
  Key k{path, "boolean", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    bool b = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b)) bad_value(o, path, n, valid);
    get(c) = b;
  };
  k.value = [=](const Config& c) { return std::string(get(c) ? "true" : "false"); };
  return k;
}

template <class Get>
Key string_key(std::string path, Get get, bool allow_empty, std::string desc) {
  const std::string valid = allow_empty ? "a string" : "a non-empty string";
  Key k{path, "string", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    if (!n.IsScalar() || (!allow_empty && n.Scalar().empty())) bad_value(o, path, n, valid);
    get(c) = n.Scalar();
  };
  k.value = [=](const Config& c) {
    const std::string& s = get(c);
    return s.empty() ? std::string("\"\"") : s;
  };
  return k;
}

template <class Get>
Key choice_key(std::string path, Get get, std::vector<std::string> choices, std::string desc) {
  const std::string valid = "one of: " + join(choices, ", ");
  Key k{path, "choice", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    if (!n.IsScalar() || std::find(choices.begin(), choices.end(), n.Scalar()) == choices.end())
      DG_INPUT_ERROR(o.where(path, n) << ": " << path << " = " << show(n) << ": must be " << valid
                                      << did_you_mean(n, choices));
    get(c) = n.Scalar();
  };
  k.value = [=](const Config& c) {
    const std::string& s = get(c);
    return s.empty() ? std::string("(boundary.default)") : s;
  };
  return k;
}

/// A list of three numbers (integers when `integer`), stored as std::array<double, 3>.
template <class Get>
Key vector3_key(std::string path, Get get, bool integer, std::string desc) {
  const std::string valid = integer ? "a list of 3 integers" : "a list of 3 numbers";
  Key k{path, integer ? "3 integers" : "3 numbers", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    if (!n.IsSequence() || n.size() != 3) bad_value(o, path, n, valid);
    std::array<double, 3> v{};
    for (std::size_t i = 0; i < 3; ++i) {
      long l = 0;
      if (integer ? !to_long(n[i], l) : !to_double(n[i], v[i])) bad_value(o, path, n, valid);
      if (integer) v[i] = double(l);
    }
    get(c) = v;
  };
  k.value = [=](const Config& c) {
    const auto& v = get(c);
    return "[" + fmt_number(v[0]) + ", " + fmt_number(v[1]) + ", " + fmt_number(v[2]) + "]";
  };
  return k;
}

/// A scalar written as a number or a string: an expression, compiled once the parameters are
/// known (check_expressions). `nonneg_number`: a plain number must be >= 0.
template <class Get>
Key expression_key(std::string path, Get get, std::string vars, bool nonneg_number,
                   std::string desc) {
  const std::string valid = "a number or an expression of " + vars;
  Key k{path, "expression", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    if (!n.IsScalar() || n.Scalar().empty()) bad_value(o, path, n, valid);
    double v = 0;
    if (nonneg_number && to_double(n, v) && v < 0) bad_value(o, path, n, "a number >= 0");
    ExpressionText& e = get(c);
    e.text = n.Scalar();
    e.key = path;
    e.where = o.where(path, n);
  };
  k.value = [=](const Config& c) {
    const std::string& s = get(c).text;
    return s.empty() ? std::string("\"\"") : s;
  };
  return k;
}

/// physics.velocity: a list of 3 expressions (numbers for a constant velocity).
Key velocity_key(std::string desc) {
  const std::string path = "physics.velocity";
  const std::string valid = "a list of 3 expressions of x, y, z (numbers for a constant velocity)";
  Key k{path, "3 expressions", valid, std::move(desc), nullptr, nullptr};
  k.parse = [=](Config& c, const YAML::Node& n, const Origin& o) {
    if (!n.IsSequence())
      DG_INPUT_ERROR(o.where(path, n) << ": " << path << " = " << show(n) << ": must be " << valid);
    if (n.size() != 3)
      DG_INPUT_ERROR(o.where(path, n)
                     << ": " << path << " = " << show(n) << ": must be " << valid << ", got "
                     << n.size() << " component" << (n.size() == 1 ? "" : "s"));
    for (std::size_t i = 0; i < 3; ++i) {
      if (!n[i].IsScalar() || n[i].Scalar().empty()) bad_value(o, path, n, valid);
      ExpressionText& e = c.physics.velocity[i];
      e.text = n[i].Scalar();
      e.key = path + "[" + std::to_string(i) + "]";
      e.where = o.where(path, n);
    }
  };
  k.value = [=](const Config& c) {
    const auto& v = c.physics.velocity;
    return "[" + v[0].text + ", " + v[1].text + ", " + v[2].text + "]";
  };
  return k;
}

const std::vector<Key>& schema() {
  static const std::vector<Key> keys = [] {
    std::vector<Key> k;
    // mesh
    k.push_back(string_key(
        "mesh.file", [](auto& c) -> auto& { return c.mesh.file; }, true,
        "HDF5 mesh written by dgmesh (a box, or dgmesh import of a Gmsh mesh), or a Gmsh .msh "
        "file (MSH 2.2/4.1, all-hex, geometric order 1-3); relative paths are tried in the "
        "working directory, then beside the YAML file. Give exactly one of mesh.file and "
        "mesh.box"));
    k.push_back(string_key(
        "mesh.box", [](auto& c) -> auto& { return c.mesh.box; }, true,
        "dgmesh flags; the mesh is generated in memory, e.g. \"-nx 8 -periodic xyz\""));
    // discretization
    k.push_back(integer_key(
        "discretization.order", [](auto& c) -> auto& { return c.discretization.order; },
        closed(1, DG_MAX_ORDER),
        "polynomial degree p in each direction: (p+1)^3 modes per element"));
    k.push_back(integer_key(
        "discretization.quadrature_points",
        [](auto& c) -> auto& { return c.discretization.quadrature_points; }, closed(0, 32),
        "Gauss points q per direction; 0 means p+2 (on curved meshes of geometric order k at "
        "least (p+2k+1)/2, which preserves a free stream), otherwise at least p+1; p+1 runs "
        "advection and advection-diffusion on non-affine elements through compile-time kernels "
        "with fewer points and under-integrated metric terms, at the same observed order p+1; "
        "there both step the solution's values at the Gauss points instead of its modes (the "
        "same answer to round-off; docs/performance.md#nodal), and everything written "
        "(snapshots, checkpoints, error norms) is of the modes. Whole runs of a warped box on "
        "one H100 (p = 3..7): advection 1.8 to 2.3x faster than at p+2 "
        "(docs/performance.md#at-a-glance); one CPU core 1.2 to 1.5x"));
    k.push_back(choice_key(
        "discretization.mass", [](auto& c) -> auto& { return c.discretization.mass; },
        {"weight_adjusted", "exact"},
        "inverse mass on curved elements: matrix-free weight-adjusted, or exact element mass "
        "matrices inverted by batched LU (docs/integration.md)"));
    k.push_back(choice_key(
        "discretization.operator", [](auto& c) -> auto& { return c.discretization.op; },
        {"matrix_free", "element_matrix"},
        "volume term by sum factorisation, or by precomputed element matrices and batched GEMV "
        "(constant velocity only; docs/integration.md)"));
    k.push_back(choice_key(
        "discretization.geometry", [](auto& c) -> auto& { return c.discretization.geometry; },
        {"auto", "affine", "curved"},
        "metric terms: detect per element, force one Jacobian per element, or per point"));
    // physics
    k.push_back(choice_key(
        "physics.velocity_field", [](auto& c) -> auto& { return c.physics.velocity_field; },
        {"expression", "constant", "rotation"},
        "advection velocity a(x): the field physics.velocity (constant is a synonym), or solid "
        "rotation about z"));
    k.push_back(velocity_key("advection velocity a(x, y, z), one expression per component; "
                             "need not be divergence-free (the form solved is "
                             "u_t + div(a u) = div(nu grad u) + s)"));
    k.push_back(number_key(
        "physics.angular_velocity", [](auto& c) -> auto& { return c.physics.angular_velocity; },
        any(), "angular velocity of the rotation about z (velocity_field: rotation)"));
    k.push_back(vector3_key(
        "physics.rotation_center", [](auto& c) -> auto& { return c.physics.rotation_center; },
        false, "a point on the rotation axis (velocity_field: rotation)"));
    k.push_back(expression_key(
        "physics.diffusivity", [](auto& c) -> auto& { return c.physics.diffusivity; }, "x, y, z",
        true, "diffusivity nu >= 0, a number or a field; 0 gives pure advection"));
    k.push_back(expression_key(
        "physics.source", [](auto& c) -> auto& { return c.physics.source; }, "x, y, z, t", false,
        "source term s(x, y, z, t) on the right-hand side; empty: none"));
    k.push_back(number_key(
        "physics.penalty", [](auto& c) -> auto& { return c.physics.penalty; }, positive(),
        "SIPG penalty factor eta (scaled as in docs/design.md)"));
    // initial condition
    k.push_back(choice_key(
        "initial.type", [](auto& c) -> auto& { return c.initial.type; },
        {"fourier", "gaussian", "constant", "zero", "expression"},
        "initial condition (and exact solution where known); expression: initial.expression, "
        "chosen by giving initial.expression or initial.exact"));
    k.push_back(number_key(
        "initial.amplitude", [](auto& c) -> auto& { return c.initial.amplitude; }, any(),
        "amplitude of the fourier mode or gaussian"));
    k.push_back(vector3_key(
        "initial.wavenumber", [](auto& c) -> auto& { return c.initial.wavenumber; }, true,
        "fourier wavenumbers, in units of 2 pi / L per direction"));
    k.push_back(vector3_key(
        "initial.center", [](auto& c) -> auto& { return c.initial.center; }, false,
        "centre of the gaussian"));
    k.push_back(number_key(
        "initial.width", [](auto& c) -> auto& { return c.initial.width; }, positive(),
        "standard deviation of the gaussian"));
    k.push_back(number_key(
        "initial.value", [](auto& c) -> auto& { return c.initial.value; }, any(),
        "value of the constant initial condition"));
    k.push_back(expression_key(
        "initial.expression", [](auto& c) -> auto& { return c.initial.expression; }, "x, y, z",
        false,
        "initial state u0(x, y, z) (initial.type: expression); empty: initial.exact at t = 0"));
    k.push_back(expression_key(
        "initial.exact", [](auto& c) -> auto& { return c.initial.exact; }, "x, y, z, t", false,
        "exact solution u(x, y, z, t) for the error norms, and the default Dirichlet and inflow "
        "data"));
    // time
    k.push_back(choice_key(
        "time.integrator", [](auto& c) -> auto& { return c.time.integrator; },
        {"lsrk54", "ssprk3", "rk4"},
        "Runge-Kutta scheme: low-storage Carpenter-Kennedy 5-stage 4th order, SSP-RK3, "
        "classical RK4"));
    k.push_back(number_key(
        "time.cfl", [](auto& c) -> auto& { return c.time.cfl; }, Range{0, 10, true, false},
        "CFL number of the time-step rule (advective and diffusive)"));
    k.push_back(number_key(
        "time.dt", [](auto& c) -> auto& { return c.time.dt; }, nonnegative(),
        "fixed time step; > 0 overrides the CFL rule, 0 uses it"));
    k.push_back(number_key(
        "time.final_time", [](auto& c) -> auto& { return c.time.final_time; }, positive(),
        "end time of the run (the last step is shortened to land on it)"));
    k.push_back(integer_key(
        "time.steps", [](auto& c) -> auto& { return c.time.steps; }, nonnegative(),
        "if > 0, run exactly this many steps instead of up to final_time"));
    // output
    k.push_back(string_key(
        "output.directory", [](auto& c) -> auto& { return c.output.directory; }, false,
        "directory for snapshots, checkpoints and CSV logs (created if missing)"));
    k.push_back(string_key(
        "output.name", [](auto& c) -> auto& { return c.output.name; }, false,
        "stem of every output file: NAME.xdmf, NAME_00000.h5, NAME.csv, ..."));
    k.push_back(number_key(
        "output.interval", [](auto& c) -> auto& { return c.output.interval; }, nonnegative(),
        "snapshot every this much simulated time; 0 writes the initial and final states only"));
    k.push_back(integer_key(
        "output.subdivisions", [](auto& c) -> auto& { return c.output.subdivisions; },
        closed(0, 32), "linear sub-hexes per direction and element in snapshots; 0 means p"));
    k.push_back(bool_key(
        "output.snapshots", [](auto& c) -> auto& { return c.output.snapshots; },
        "write HDF5+XDMF snapshots"));
    k.push_back(integer_key(
        "output.progress_every", [](auto& c) -> auto& { return c.output.progress_every; },
        nonnegative(), "steps between progress lines; 0 chooses about 20 lines per run"));
    k.push_back(bool_key(
        "output.quiet", [](auto& c) -> auto& { return c.output.quiet; },
        "suppress progress lines (as --quiet)"));
    k.push_back(integer_key(
        "output.checkpoint_steps", [](auto& c) -> auto& { return c.output.checkpoint_steps; },
        nonnegative(), "write a checkpoint every this many steps; 0 disables"));
    k.push_back(number_key(
        "output.checkpoint_time", [](auto& c) -> auto& { return c.output.checkpoint_time; },
        nonnegative(), "write a checkpoint every this much simulated time; 0 disables"));
    // parallel
    k.push_back(bool_key(
        "parallel.gpu_aware_mpi", [](auto& c) -> auto& { return c.parallel.gpu_aware_mpi; },
        "hand device buffers to MPI directly (needs a GPU-aware MPI)"));
    k.push_back(bool_key(
        "parallel.stage_fence", [](auto& c) -> auto& { return c.parallel.stage_fence; },
        "with a halo on GPUs, wait on the host for each stage's kernels; false: host-staged "
        "stages are ordered on the device (CUDA events) and queue behind each other"));
    return k;
  }();
  return keys;
}

const Key* find_key(const std::string& path) {
  for (const auto& k : schema())
    if (k.path == path) return &k;
  return nullptr;
}

/// Section names ("time") and full key paths, the candidates for suggestions.
std::vector<std::string> all_names() {
  std::vector<std::string> names;
  for (const auto& k : schema()) {
    names.push_back(k.path);
    const std::string section = k.path.substr(0, k.path.find('.'));
    if (std::find(names.begin(), names.end(), section) == names.end()) names.push_back(section);
  }
  names.push_back("parameters");
  names.push_back("boundary");
  return names;
}

bool is_section(const std::string& path) {
  for (const auto& k : schema())
    if (k.path.compare(0, path.size() + 1, path + ".") == 0) return true;
  return false;
}

[[noreturn]] void unknown_key(const std::string& where, const std::string& path) {
  DG_INPUT_ERROR(where << ": " << path << ": unknown key; did you mean "
                       << nearest(path, all_names()) << "?");
}

// ------------------------------------------------------------------------------------------------
// Walking the document
// ------------------------------------------------------------------------------------------------

std::string mark_of(const std::string& source, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null() || m.line < 0) return source;
  return source + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

// ------------------------------------------------------------------------------------------------
// Sections with user-chosen names: parameters (NAME: value) and boundary (tag name: condition)
// ------------------------------------------------------------------------------------------------

const std::vector<std::string>& boundary_types() {
  static const std::vector<std::string> v{"dirichlet", "inflow", "outflow", "neumann"};
  return v;
}

void check_map_keys(const YAML::Node& map, const std::string& prefix, const Origin& origin,
                    const std::vector<std::string>& allowed) {
  std::set<std::string> here;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar())
      DG_INPUT_ERROR(mark_of(origin.source, key)
                     << ": " << prefix << ": keys must be plain names, got " << show(key));
    const std::string path = prefix + "." + key.Scalar();
    if (!here.insert(key.Scalar()).second)
      DG_INPUT_ERROR(mark_of(origin.source, key)
                     << ": " << path << ": duplicate key (given more than once)");
    if (!allowed.empty() &&
        std::find(allowed.begin(), allowed.end(), key.Scalar()) == allowed.end())
      DG_INPUT_ERROR(mark_of(origin.source, key)
                     << ": " << path << ": unknown key; did you mean " << prefix << "."
                     << nearest(key.Scalar(), allowed) << "?");
  }
}

void parse_parameters(Config& cfg, const YAML::Node& node, const Origin& origin) {
  if (node.IsNull()) return;
  if (!node.IsMap())
    DG_INPUT_ERROR(origin.where("parameters", node)
                   << ": parameters = " << show(node)
                   << ": must be a map of NAME: value (a number or an expression of pi and the "
                      "parameters before it)");
  check_map_keys(node, "parameters", origin, {});
  cfg.parameters.clear();
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string name = it->first.Scalar();
    const std::string path = "parameters." + name;
    expr::check_parameter_name(name, mark_of(origin.source, it->first));
    const YAML::Node v = it->second;
    if (!v.IsScalar() || v.Scalar().empty())
      bad_value(origin, path, v, "a number or an expression of pi and the parameters before it");
    cfg.parameters.emplace_back(
        name, expr::parameter_value(v.Scalar(), cfg.parameters, origin.where(path, v), path));
  }
}

BoundaryCondition parse_condition(const std::string& name, const YAML::Node& n,
                                  const Origin& origin) {
  const std::string path = "boundary." + name;
  BoundaryCondition c;
  c.name = name;
  c.where = origin.where(path, n);
  c.value.key = path + ".value";
  auto check_type = [&](const YAML::Node& t, const std::string& key) {
    const auto& types = boundary_types();
    if (!t.IsScalar() || std::find(types.begin(), types.end(), t.Scalar()) == types.end())
      DG_INPUT_ERROR(origin.where(key, t)
                     << ": " << key << " = " << show(t) << ": must be one of: " << join(types, ", ")
                     << did_you_mean(t, types) << " (periodic pairs come from the mesh)");
    return t.Scalar();
  };
  if (n.IsScalar()) {
    c.type = check_type(n, path);
  } else if (n.IsMap()) {
    check_map_keys(n, path, origin, {"type", "value"});
    const YAML::Node t = n["type"];
    if (!t)
      DG_INPUT_ERROR(c.where << ": " << path << " = " << show(n)
                             << ": needs a type (one of: " << join(boundary_types(), ", ") << ")");
    c.type = check_type(t, path + ".type");
    const YAML::Node v = n["value"];
    if (v) {
      if (!v.IsScalar() || v.Scalar().empty())
        bad_value(origin, path + ".value", v, "a number or an expression of x, y, z, t");
      c.value.text = v.Scalar();
      c.value.where = origin.where(path + ".value", v);
    }
  } else {
    DG_INPUT_ERROR(c.where << ": " << path << " = " << show(n) << ": must be a condition type ("
                           << join(boundary_types(), ", ")
                           << ") or a map {type: TYPE, value: EXPRESSION}");
  }
  if (c.type == "outflow" && c.value.given())
    DG_INPUT_ERROR(c.value.where << ": " << c.value.key << " = \"" << c.value.text
                                 << "\": an outflow boundary takes no value");
  return c;
}

void parse_boundary(Config& cfg, const YAML::Node& node, const Origin& origin) {
  if (node.IsNull()) return;
  if (!node.IsMap())
    DG_INPUT_ERROR(origin.where("boundary", node)
                   << ": boundary = " << show(node)
                   << ": must be a map of tag names (and default) to conditions");
  check_map_keys(node, "boundary", origin, {});
  cfg.boundary.conditions.clear();
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string name = it->first.Scalar();
    BoundaryCondition c = parse_condition(name, it->second, origin);
    if (name == "default")
      cfg.boundary.default_condition = c;
    else
      cfg.boundary.conditions.push_back(c);
  }
}

/// Checks every key of a map (recursively): known, not repeated, of the right type.
/// With `parse_values` false only the structure is checked (names, duplicates, sections).
void walk(const YAML::Node& map, const std::string& prefix, Config& cfg, const Origin& origin,
          bool parse_values) {
  std::set<std::string> here;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    if (!key.IsScalar())
      DG_INPUT_ERROR(mark_of(origin.source, key)
                     << ": " << (prefix.empty() ? "(top level)" : prefix)
                     << ": keys must be plain names, got " << show(key));
    const std::string path = prefix.empty() ? key.Scalar() : prefix + "." + key.Scalar();
    if (!here.insert(key.Scalar()).second)
      DG_INPUT_ERROR(mark_of(origin.source, key)
                     << ": " << path << ": duplicate key (given more than once)");
    if (path == "parameters") {
      if (parse_values) parse_parameters(cfg, value, origin);
    } else if (path == "boundary") {
      if (parse_values) parse_boundary(cfg, value, origin);
    } else if (is_section(path)) {
      if (value.IsNull()) continue; // "time:" with nothing below: all defaults
      if (!value.IsMap())
        DG_INPUT_ERROR(origin.where(path, value)
                       << ": " << path << " = " << show(value) << ": must be a map of keys ("
                       << path << ".KEY: VALUE)");
      walk(value, path, cfg, origin, parse_values);
    } else if (const Key* k = find_key(path)) {
      if (parse_values) k->parse(cfg, value, origin);
    } else {
      unknown_key(mark_of(origin.source, key), path);
    }
  }
}

/// Applies one "--set a.b=value" to the document tree.
void apply_override(YAML::Node& root, const std::string& text, const std::string& source,
                    std::set<std::string>& overridden) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    DG_INPUT_ERROR(source << ": --set " << text << ": expected KEY=VALUE, e.g. --set time.cfl=0.4");
  const std::string path = text.substr(0, eq);
  const std::string value_text = text.substr(eq + 1);
  const bool named = path.rfind("parameters.", 0) == 0 || path.rfind("boundary.", 0) == 0;
  if (named) {
    // parameters.NAME, boundary.NAME (a type), boundary.NAME.type, boundary.NAME.value
    const bool param = path[0] == 'p';
    const std::string rest = path.substr(path.find('.') + 1);
    const auto dot = rest.find('.');
    const std::string name = rest.substr(0, dot);
    const std::string field = dot == std::string::npos ? "" : rest.substr(dot + 1);
    if (name.empty() || (param && !field.empty()) ||
        (!param && !field.empty() && field != "type" && field != "value"))
      DG_INPUT_ERROR(source << ": --set " << path
                            << ": expected parameters.NAME, boundary.NAME, boundary.NAME.type or "
                               "boundary.NAME.value");
    YAML::Node value;
    try {
      value = YAML::Load(value_text);
    } catch (const YAML::Exception& e) {
      DG_INPUT_ERROR(source << ": --set " << path << " = " << value_text
                            << ": not a YAML value: " << one_line(e.msg));
    }
    if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
    const std::string section = param ? "parameters" : "boundary";
    YAML::Node sec = root[section];
    if (sec.IsNull() || !sec.IsDefined()) {
      root[section] = YAML::Node(YAML::NodeType::Map);
      sec = root[section];
    }
    if (!sec.IsMap())
      DG_INPUT_ERROR(mark_of(source, sec)
                     << ": " << section << " = " << show(sec) << ": must be a map");
    if (field.empty()) {
      sec[name] = value;
    } else {
      YAML::Node entry = sec[name];
      if (!entry.IsMap()) {
        YAML::Node m(YAML::NodeType::Map);
        if (entry.IsScalar()) m["type"] = entry.Scalar();
        sec[name] = m;
        entry = sec[name];
      }
      entry[field] = value;
    }
    overridden.insert(path);
    overridden.insert(section + "." + name);
    return;
  }
  if (!find_key(path)) {
    if (is_section(path))
      DG_INPUT_ERROR(source << ": --set " << path
                            << ": is a section, not a key; set one of its "
                               "keys, e.g. "
                            << nearest(path + ".", all_names()));
    DG_INPUT_ERROR(source << ": --set " << path << ": unknown key; did you mean "
                          << nearest(path, all_names()) << "?");
  }
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    DG_INPUT_ERROR(source << ": --set " << path << " = " << value_text
                          << ": not a YAML value: " << one_line(e.msg));
  }
  if (value_text.empty()) value = YAML::Node(YAML::NodeType::Null);
  if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
  // Walk down, creating sections as needed (non-const operator[] inserts, which is wanted here).
  const std::string section = path.substr(0, path.find('.'));
  const std::string leaf = path.substr(path.find('.') + 1);
  YAML::Node sec = root[section];
  if (sec.IsNull() || !sec.IsDefined()) {
    root[section] = YAML::Node(YAML::NodeType::Map);
    sec = root[section];
  }
  if (!sec.IsMap())
    DG_INPUT_ERROR(mark_of(source, sec)
                   << ": " << section << " = " << show(sec) << ": must be a map of keys ("
                   << section << ".KEY: VALUE)");
  sec[leaf] = value;
  overridden.insert(path);
}

/// Compiles every expression with the parameters (syntax, unknown names, a t where time is not
/// allowed) and settles initial.type: expression when initial.expression or initial.exact is
/// given without a type.
void check_expressions(Config& c, const YAML::Node& root, const Origin& o) {
  const expr::Parameters& prm = c.parameters;
  auto compile = [&](const ExpressionText& e, bool allow_t) {
    if (e.given())
      expr::Expression(e.text, prm, allow_t, e.where.empty() ? o.source : e.where, e.key);
  };
  if (c.physics.velocity_field != "rotation")
    for (const auto& v : c.physics.velocity)
      compile(v, false);
  compile(c.physics.diffusivity, false);
  compile(c.physics.source, true);
  compile(c.initial.expression, false);
  compile(c.initial.exact, true);
  compile(c.boundary.default_condition.value, true);
  for (const auto& b : c.boundary.conditions)
    compile(b.value, true);
  const YAML::Node croot = root;
  const YAML::Node init = croot.IsMap() ? croot["initial"] : YAML::Node();
  const bool type_given = init && init.IsMap() && init["type"];
  if (!type_given && (c.initial.expression.given() || c.initial.exact.given()))
    c.initial.type = "expression";
  if (c.initial.type == "expression" && !c.initial.expression.given() && !c.initial.exact.given())
    DG_INPUT_ERROR(o.where("initial.type", type_given ? init["type"] : YAML::Node())
                   << ": initial.type = expression: needs initial.expression (or initial.exact, "
                      "taken at t = 0)");
}

void cross_checks(Config& c, const YAML::Node& root, const Origin& o) {
  const YAML::Node croot = root;
  auto node = [&](const std::string& section, const std::string& key) -> YAML::Node {
    if (!croot.IsMap()) return YAML::Node();
    const YAML::Node s = croot[section];
    if (!s || !s.IsMap()) return YAML::Node();
    return s[key];
  };
  // quadrature_points: 0 or in [p+1, 32]
  const int p = c.discretization.order, q = c.discretization.quadrature_points;
  if (q != 0 && q < p + 1) {
    const YAML::Node n = node("discretization", "quadrature_points");
    DG_INPUT_ERROR(o.where("discretization.quadrature_points", n)
                   << ": discretization.quadrature_points = " << q
                   << ": must be 0 (meaning p+2) or an integer in [order+1, 32] = [" << p + 1
                   << ", 32] for discretization.order = " << p);
  }
  check_expressions(c, root, o);
  // exactly one of mesh.file / mesh.box
  const bool has_file = !c.mesh.file.empty(), has_box = !c.mesh.box.empty();
  if (has_file == has_box) {
    if (has_file) {
      const YAML::Node n = node("mesh", "box");
      DG_INPUT_ERROR(o.where("mesh.box", n)
                     << ": mesh.file = " << c.mesh.file << ", mesh.box = " << c.mesh.box
                     << ": must give exactly one of mesh.file and mesh.box");
    }
    DG_INPUT_ERROR(
        o.source << ": mesh: missing: must give exactly one of mesh.file and mesh.box "
                    "(a dgmesh HDF5 file, or dgmesh flags such as \"-nx 8 -periodic xyz\")");
  }
}

} // namespace

// ------------------------------------------------------------------------------------------------
// Public interface
// ------------------------------------------------------------------------------------------------

Config parse_config(const std::string& yaml_text, const std::string& source,
                    const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    if (!e.mark.is_null())
      DG_INPUT_ERROR(source << ":" << e.mark.line + 1 << ":" << e.mark.column + 1 << ": "
                            << one_line(e.msg) << " (YAML syntax)");
    DG_INPUT_ERROR(source << ": " << one_line(e.msg) << " (YAML syntax)");
  }
  if (root.IsNull() || !root.IsDefined()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap())
    DG_INPUT_ERROR(mark_of(source, root) << ": the document must be a map of sections (mesh:, "
                                            "time:, ...), got "
                                         << show(root));

  // Duplicates first: with a repeated section, operator[] in the overrides below would only
  // see the first one.
  // Values are checked only after the overrides, which may fix them.
  {
    Config scratch;
    walk(root, "", scratch, Origin{source, {}}, false);
  }

  Origin origin{source, {}};
  for (const auto& o : overrides)
    apply_override(root, o, source, origin.overridden);

  Config cfg;
  cfg.source = source;
  walk(root, "", cfg, origin, true);
  cross_checks(cfg, root, origin);

  YAML::Emitter out;
  out << root;
  cfg.yaml = std::string(out.c_str()) + "\n";
  return cfg;
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
  namespace fs = std::filesystem;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec)) DG_INPUT_ERROR(path << ": no such file");
    DG_INPUT_ERROR(path << ": cannot be read (permissions?)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  Config cfg = parse_config(text.str(), path, overrides);

  // mesh.file: relative to the working directory, else beside the YAML file; missing is an
  // input error here, before any rank starts reading meshes.
  if (!cfg.mesh.file.empty()) {
    std::error_code ec;
    const fs::path given(cfg.mesh.file);
    const fs::path beside = fs::path(path).parent_path() / given;
    if (fs::exists(given, ec)) {
      // as given
    } else if (given.is_relative() && fs::exists(beside, ec)) {
      cfg.mesh.file = beside.string();
    } else {
      const std::string dir = fs::path(path).parent_path().string();
      DG_INPUT_ERROR(path << ": mesh.file = " << cfg.mesh.file << ": no such file"
                          << (given.is_relative() && !dir.empty()
                                  ? " (looked in the working directory and in " + dir + ")"
                                  : std::string())
                          << "; write one with dgmesh, or give mesh.box instead");
    }
  }
  return cfg;
}

namespace {
/// Keys whose names the user chooses (parameters, boundary tags): key, type, default, valid
/// values, description, for the reference.
const std::vector<std::array<std::string, 5>>& named_keys() {
  static const std::vector<std::array<std::string, 5>> rows{
      {"parameters.NAME", "expression", "(none)",
       "a number or an expression of pi and the parameters before it",
       "a constant NAME usable in every expression; NAME must not be x, y, z, t, pi or a function"},
      {"boundary.default", "condition", "dirichlet", "one of: dirichlet, inflow, outflow, neumann",
       "condition on every non-periodic boundary face whose tag has no entry (a type, or a map "
       "with type and value as boundary.NAME)"},
      {"boundary.NAME", "condition", "(boundary.default)",
       "a type, or a map {type: TYPE, value: EXPRESSION}",
       "condition on the faces of the mesh tag NAME (dgmesh boxes: xmin .. zmax; Gmsh meshes: "
       "the physical names); a name the mesh does not have is an error listing its tags"},
      {"boundary.NAME.type", "choice", "dirichlet", "one of: dirichlet, inflow, outflow, neumann",
       "dirichlet: u = value (weak, upwind + SIPG); inflow: u = value where a.n < 0, free "
       "elsewhere; outflow: free (upwind, no diffusive flux); neumann: nu grad u . n = value "
       "(outward n), advective part upwind from inside"},
      {"boundary.NAME.value", "expression", "(exact solution)",
       "a number or an expression of x, y, z, t",
       "dirichlet / inflow data g or neumann flux h; default: initial.exact or the built-in "
       "exact solution (dirichlet, inflow), 0 (neumann); none for outflow"},
  };
  return rows;
}
} // namespace

std::string config_reference_markdown() {
  const Config defaults;
  std::ostringstream os;
  os << "| key | type | default | valid values | description |\n";
  os << "|---|---|---|---|---|\n";
  for (const auto& k : schema()) {
    std::string def = k.value(defaults);
    if (def == "\"\"") def = "(none)";
    std::string desc = k.description;
    // '|' would break the table.
    for (auto& ch : desc)
      if (ch == '|') ch = '/';
    os << "| `" << k.path << "` | " << k.type << " | `" << def << "` | " << k.valid << " | " << desc
       << " |\n";
  }
  for (const auto& r : named_keys())
    os << "| `" << r[0] << "` | " << r[1] << " | `" << r[2] << "` | " << r[3] << " | " << r[4]
       << " |\n";
  return os.str();
}

std::vector<std::string> nearest_first(const std::string& word, std::vector<std::string> names) {
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return edit_distance(word, a) < edit_distance(word, b);
  });
  return names;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  for (const auto& k : schema())
    keys.push_back(k.path);
  for (const auto& r : named_keys())
    keys.push_back(r[0]);
  return keys;
}

} // namespace dg::io
