// YAML input: defaults, every kind of input error (one line naming file, key, value and what is
// valid), nearest-key suggestions, --set overrides, duplicate keys, and docs that cover the schema.
#include "catch.hpp"
#include "dg/core/error.hpp"
#include "dg/io/cli.hpp"
#include "dg/io/config.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using dg::io::parse_config;

namespace {

const std::string kMesh = "mesh:\n  box: -nx 4 -periodic xyz\n";

/// The InputError message of parsing `text` (fails the test if nothing is thrown).
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_config(text, "advect.yaml", overrides);
  } catch (const dg::InputError& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos); // one line
    return what;
  }
  FAIL("no InputError for:\n" << text);
  return {};
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::vector<std::string> texts(const std::array<dg::io::ExpressionText, 3>& v) {
  return {v[0].text, v[1].text, v[2].text};
}

} // namespace

TEST_CASE("config: defaults match the Config structure", "[unit][config]") {
  const auto c = parse_config(kMesh, "advect.yaml");
  const dg::io::Config d;
  CHECK(c.source == "advect.yaml");
  CHECK(c.mesh.box == "-nx 4 -periodic xyz");
  CHECK(c.mesh.file.empty());
  CHECK(c.discretization.order == d.discretization.order);
  CHECK(c.discretization.quadrature_points == 0);
  CHECK(c.discretization.op == "matrix_free");
  CHECK(c.time.integrator == "lsrk54");
  CHECK(c.time.cfl == d.time.cfl);
  CHECK(texts(c.physics.velocity) == texts(d.physics.velocity));
  CHECK(c.boundary.default_condition.type == "dirichlet");
  CHECK(c.boundary.conditions.empty());
  CHECK(c.parameters.empty());
  CHECK(c.output.directory == "out");
  CHECK(c.output.snapshots);
  CHECK_FALSE(c.parallel.gpu_aware_mpi);
  CHECK(has(c.yaml, "-nx 4 -periodic xyz"));
}

TEST_CASE("config: every key is read", "[unit][config]") {
  const std::string text = R"(mesh:
  file: box.h5
discretization:
  order: 5
  quadrature_points: 7
  mass: exact
  operator: element_matrix
  geometry: curved
physics:
  velocity_field: rotation
  velocity: [0.5, -1, 2e-1]
  angular_velocity: 2
  rotation_center: [0, 0, 0]
  diffusivity: 0.01
  penalty: 2
initial:
  type: fourier
  amplitude: 3
  wavenumber: [1, -2, 3]
  center: [0.25, 0.5, 0.75]
  width: 0.05
  value: 4
boundary:
  default: outflow
  xmin: dirichlet
  zmax: outflow
time:
  integrator: rk4
  cfl: 0.25
  dt: 1e-3
  final_time: 2.5
  steps: 10
output:
  directory: results
  name: advect
  interval: 0.1
  subdivisions: 4
  snapshots: false
  progress_every: 5
  quiet: yes
  checkpoint_steps: 100
  checkpoint_time: 0.5
parallel:
  gpu_aware_mpi: true
)";
  const auto c = parse_config(text, "all.yaml");
  CHECK(c.mesh.file == "box.h5");
  CHECK(c.discretization.order == 5);
  CHECK(c.discretization.quadrature_points == 7);
  CHECK(c.discretization.mass == "exact");
  CHECK(c.discretization.op == "element_matrix");
  CHECK(c.discretization.geometry == "curved");
  CHECK(c.physics.velocity_field == "rotation");
  CHECK(texts(c.physics.velocity) == std::vector<std::string>{"0.5", "-1", "2e-1"});
  CHECK(c.physics.angular_velocity == 2);
  CHECK(c.physics.rotation_center == std::array<double, 3>{0, 0, 0});
  CHECK(c.physics.diffusivity.text == "0.01");
  CHECK(c.physics.penalty == 2);
  CHECK(c.initial.type == "fourier");
  CHECK(c.initial.amplitude == 3);
  CHECK(c.initial.wavenumber == std::array<double, 3>{1, -2, 3});
  CHECK(c.initial.center == std::array<double, 3>{0.25, 0.5, 0.75});
  CHECK(c.initial.width == 0.05);
  CHECK(c.initial.value == 4);
  CHECK(c.boundary.default_condition.type == "outflow");
  REQUIRE(c.boundary.conditions.size() == 2);
  CHECK(c.boundary.find("xmin")->type == "dirichlet");
  CHECK(c.boundary.find("xmax") == nullptr);
  CHECK(c.boundary.find("zmax")->type == "outflow");
  CHECK(c.time.integrator == "rk4");
  CHECK(c.time.cfl == 0.25);
  CHECK(c.time.dt == 1e-3);
  CHECK(c.time.final_time == 2.5);
  CHECK(c.time.steps == 10);
  CHECK(c.output.directory == "results");
  CHECK(c.output.name == "advect");
  CHECK(c.output.interval == 0.1);
  CHECK(c.output.subdivisions == 4);
  CHECK_FALSE(c.output.snapshots);
  CHECK(c.output.progress_every == 5);
  CHECK(c.output.quiet);
  CHECK(c.output.checkpoint_steps == 100);
  CHECK(c.output.checkpoint_time == 0.5);
  CHECK(c.parallel.gpu_aware_mpi);
  // The stored YAML reproduces the same configuration.
  const auto again = parse_config(c.yaml, "again.yaml");
  CHECK(texts(again.physics.velocity) == texts(c.physics.velocity));
  CHECK(again.output.name == "advect");
  CHECK(again.boundary.find("xmin")->type == "dirichlet");
}

TEST_CASE("config: unknown keys name the nearest valid key", "[unit][config]") {
  auto e = error_of(kMesh + "time:\n  cfll: 0.3\n");
  CHECK(has(e, "advect.yaml:4:3: "));
  CHECK(has(e, "time.cfll: unknown key; did you mean time.cfl?"));
  e = error_of(kMesh + "tme:\n  cfl: 0.3\n");
  CHECK(has(e, "tme: unknown key; did you mean time?"));
  e = error_of(kMesh + "output:\n  intervall: 0.3\n");
  CHECK(has(e, "did you mean output.interval?"));
  e = error_of(kMesh + "boundary:\n  xmin: {type: inflow, valeu: 1}\n");
  CHECK(has(e, "boundary.xmin.valeu: unknown key; did you mean boundary.xmin.value?"));
}

TEST_CASE("config: wrong types and out-of-range values", "[unit][config]") {
  struct Case {
    std::string yaml, key, value, valid;
  };
  const std::string kMax = std::to_string(DG_MAX_ORDER);
  const std::vector<Case> cases = {
      {"time:\n  cfl: abc\n", "time.cfl", "abc", "a number in (0, 10]"},
      {"time:\n  cfl: -0.5\n", "time.cfl", "-0.5", "a number in (0, 10]"},
      {"time:\n  cfl: 11\n", "time.cfl", "11", "(0, 10]"},
      {"time:\n  cfl: 0\n", "time.cfl", "0", "(0, 10]"},
      {"time:\n  cfl: .nan\n", "time.cfl", ".nan", "a number"},
      {"time:\n  cfl:\n", "time.cfl", "(empty)", "a number"},
      {"time:\n  dt: -1\n", "time.dt", "-1", "a number >= 0"},
      {"time:\n  final_time: 0\n", "time.final_time", "0", "a number > 0"},
      {"time:\n  steps: -3\n", "time.steps", "-3", "an integer >= 0"},
      {"time:\n  steps: 2.5\n", "time.steps", "2.5", "an integer >= 0"},
      {"time:\n  integrator: rk5\n", "time.integrator", "rk5", "one of: lsrk54, ssprk3, rk4"},
      {"discretization:\n  order: 0\n", "discretization.order", "0",
       "an integer in [1, " + kMax + "]"},
      {"discretization:\n  order: " + std::to_string(DG_MAX_ORDER + 1) + "\n",
       "discretization.order", std::to_string(DG_MAX_ORDER + 1), "[1, " + kMax + "]"},
      {"discretization:\n  order: [3]\n", "discretization.order", "[3]", "an integer"},
      {"discretization:\n  quadrature_points: 33\n", "discretization.quadrature_points", "33",
       "[0, 32]"},
      {"discretization:\n  quadrature_points: 3\n", "discretization.quadrature_points", "3",
       "[4, 32]"},
      {"discretization:\n  mass: lumped\n", "discretization.mass", "lumped",
       "one of: weight_adjusted, exact"},
      {"physics:\n  diffusivity: -1e-3\n", "physics.diffusivity", "-1e-3", ">= 0"},
      {"physics:\n  penalty: 0\n", "physics.penalty", "0", "> 0"},
      {"physics:\n  velocity: [1, 0]\n", "physics.velocity", "[1, 0]",
       "a list of 3 expressions of x, y, z (numbers for a constant velocity), got 2 components"},
      {"physics:\n  velocity: [1, [x], 0]\n", "physics.velocity", "[1, [x], 0]", "3 expressions"},
      {"physics:\n  velocity: 1\n", "physics.velocity", "1", "a list of 3 expressions"},
      {"initial:\n  wavenumber: [1, 1.5, 0]\n", "initial.wavenumber", "[1, 1.5, 0]",
       "a list of 3 integers"},
      {"initial:\n  width: 0\n", "initial.width", "0", "> 0"},
      {"initial:\n  type: sine\n", "initial.type", "sine",
       "fourier, gaussian, constant, zero, expression"},
      {"output:\n  subdivisions: 33\n", "output.subdivisions", "33", "an integer in [0, 32]"},
      {"output:\n  snapshots: maybe\n", "output.snapshots", "maybe", "true or false"},
      {"output:\n  name: \"\"\n", "output.name", "\"\"", "a non-empty string"},
      {"boundary:\n  default: periodic\n", "boundary.default", "periodic",
       "one of: dirichlet, inflow, outflow, neumann"},
      {"boundary:\n  ymax: wall\n", "boundary.ymax", "wall",
       "one of: dirichlet, inflow, outflow, neumann"},
      {"boundary:\n  ymax: {type: wall}\n", "boundary.ymax.type", "wall", "one of: dirichlet"},
      {"time: 3\n", "time", "3", "must be a map"},
  };
  for (const auto& c : cases) {
    INFO(c.yaml);
    const std::string e = error_of(kMesh + c.yaml);
    INFO(e);
    CHECK(has(e, "advect.yaml:"));
    CHECK(has(e, c.key + " = " + c.value + ":"));
    CHECK(has(e, c.valid));
  }
  // A near-miss choice gets a hint.
  CHECK(has(error_of(kMesh + "time:\n  integrator: ssprk\n"), "did you mean ssprk3?"));
}

TEST_CASE("config: mesh needs exactly one of file and box", "[unit][config]") {
  CHECK(has(error_of("time:\n  cfl: 0.3\n"), "exactly one of mesh.file and mesh.box"));
  CHECK(has(error_of(""), "exactly one of mesh.file and mesh.box"));
  CHECK(has(error_of("mesh:\n  file: a.h5\n  box: -nx 2\n"),
            "must give exactly one of mesh.file and mesh.box"));
  CHECK_NOTHROW(parse_config("mesh:\n  file: a.h5\n", "a.yaml"));
}

TEST_CASE("config: duplicate keys are errors", "[unit][config]") {
  auto e = error_of(kMesh + "time:\n  cfl: 0.3\n  cfl: 0.4\n");
  CHECK(has(e, "advect.yaml:5:3: time.cfl: duplicate key"));
  e = error_of(kMesh + "time:\n  cfl: 0.3\nmesh:\n  box: -nx 2\n");
  CHECK(has(e, "mesh: duplicate key"));
}

TEST_CASE("config: YAML syntax errors carry a 1-based line and column", "[unit][config]") {
  const auto e = error_of(kMesh + "time:\n  cfl: [0.3\n  dt: 1\n");
  CHECK(has(e, "advect.yaml:"));
  CHECK(has(e, "(YAML syntax)"));
  const auto e2 = error_of("mesh:\n  box: a\n bad: 1\n");
  CHECK(has(e2, "advect.yaml:3:"));
  const auto e3 = error_of("- 1\n- 2\n");
  CHECK(has(e3, "must be a map of sections"));
}

TEST_CASE("config: --set overrides are applied before validation", "[unit][config]") {
  auto c = parse_config(kMesh + "time:\n  cfl: abc\n", "advect.yaml",
                        {"time.cfl=0.3", "physics.velocity=[1,2,3]", "boundary.xmax=outflow",
                         "output.name=run2", "output.name=run3"});
  CHECK(c.time.cfl == 0.3);
  CHECK(texts(c.physics.velocity) == std::vector<std::string>{"1", "2", "3"});
  CHECK(c.boundary.find("xmax")->type == "outflow");
  CHECK(c.output.name == "run3");
  CHECK(has(c.yaml, "run3"));
  CHECK_FALSE(has(c.yaml, "abc"));
  // An override can supply the whole mesh section.
  c = parse_config("", "empty.yaml", {"mesh.box=-nx 2"});
  CHECK(c.mesh.box == "-nx 2");

  auto e = error_of(kMesh, {"time.cfll=0.3"});
  CHECK(has(e, "advect.yaml: --set time.cfll: unknown key; did you mean time.cfl?"));
  e = error_of(kMesh, {"time.cfl=-1"});
  CHECK(has(e, "advect.yaml: --set: time.cfl = -1: must be a number in (0, 10]"));
  e = error_of(kMesh, {"time.cfl"});
  CHECK(has(e, "expected KEY=VALUE"));
  e = error_of(kMesh, {"physics.velocity=[1,0"});
  CHECK(has(e, "physics.velocity = [1,0: not a YAML value"));
}

TEST_CASE("config: load_config reads files and reports missing ones", "[unit][config]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(DG_BINARY_DIR) / "test_tmp" / "config_load";
  fs::create_directories(dir);
  const fs::path yaml = dir / "advect.yaml";
  std::ofstream(yaml) << "mesh:\n  file: box.h5\ntime:\n  cfl: 0.2\n";
  std::ofstream(dir / "box.h5") << "";
  const auto c = dg::io::load_config(yaml.string());
  CHECK(c.time.cfl == 0.2);
  CHECK(c.source == yaml.string());
  CHECK(fs::path(c.mesh.file) == dir / "box.h5"); // found beside the YAML file
  try {
    dg::io::load_config((dir / "nothere.yaml").string());
    FAIL("no error");
  } catch (const dg::InputError& e) {
    CHECK(has(e.what(), "nothere.yaml: no such file"));
  }
  std::ofstream(dir / "nomesh.yaml") << "mesh:\n  file: missing.h5\n";
  try {
    dg::io::load_config((dir / "nomesh.yaml").string());
    FAIL("no error");
  } catch (const dg::InputError& e) {
    CHECK(has(e.what(), "nomesh.yaml: mesh.file = missing.h5: no such file"));
  }
}

TEST_CASE("config: docs/input.md covers every key and embeds the reference", "[unit][config]") {
  std::ifstream in(std::string(DG_SOURCE_DIR) + "/docs/input.md");
  REQUIRE(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const auto& key : dg::io::config_keys()) {
    INFO(key);
    CHECK(has(doc, "`" + key + "`"));
  }
  // Verbatim, so descriptions and defaults cannot drift (regenerate: dgsolve --help-input).
  // The docs show the default build's order limit.
  if (DG_MAX_ORDER == 15) CHECK(has(doc, dg::io::config_reference_markdown()));
  // The complete example in the docs is a valid input.
  const auto begin = doc.find("```yaml\n");
  REQUIRE(begin != std::string::npos);
  const auto end = doc.find("```", begin + 8);
  CHECK_NOTHROW(parse_config(doc.substr(begin + 8, end - begin - 8), "docs/input.md"));
}

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

namespace {
dg::io::CommandLine parse(std::vector<std::string> args) {
  args.insert(args.begin(), "dgsolve");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  return dg::io::parse_command_line(int(args.size()), argv.data());
}
std::string cli_error(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const dg::InputError& e) {
    return e.what();
  }
  FAIL("no InputError");
  return {};
}
} // namespace

TEST_CASE("cli: options and input", "[unit][cli]") {
  auto cl = parse({"-q", "--set", "time.cfl=0.3", "in.yaml", "--set=physics.velocity=[1,0,0]",
                   "--restart", "ck.h5"});
  CHECK(cl.input == "in.yaml");
  CHECK(cl.quiet);
  CHECK(cl.restart == "ck.h5");
  CHECK(cl.overrides == std::vector<std::string>{"time.cfl=0.3", "physics.velocity=[1,0,0]"});
  cl = parse({"--restart=a.h5", "--quiet", "x.yaml"});
  CHECK(cl.restart == "a.h5");
  CHECK(parse({"--help"}).help);
  CHECK(parse({"-h"}).help);
  CHECK(parse({"--version"}).version);
  CHECK(parse({"--", "-odd.yaml"}).input == "-odd.yaml");
  CHECK(has(dg::io::dgsolve_help(), "--set KEY=VALUE"));
}

TEST_CASE("cli: errors", "[unit][cli]") {
  CHECK(cli_error({"--foo", "in.yaml"}) == "dgsolve: unknown option --foo; see dgsolve --help");
  CHECK(has(cli_error({"in.yaml", "--set"}), "--set needs an argument"));
  CHECK(has(cli_error({"in.yaml", "--restart"}), "--restart needs an argument"));
  CHECK(has(cli_error({"in.yaml", "--set", "cfl"}), "expected KEY=VALUE"));
  CHECK(has(cli_error({}), "no input file"));
  CHECK(has(cli_error({"a.yaml", "b.yaml"}), "more than one input file"));
}

TEST_CASE("config: every example in inputs/ (and its folders) is a valid input", "[unit][config]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(DG_SOURCE_DIR) / "inputs";
  int n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.path().extension() == ".yaml") {
      INFO(entry.path().string());
      CHECK_NOTHROW(dg::io::load_config(entry.path().string()));
      ++n;
    }
  CHECK(n >= 1);
}

TEST_CASE("config: expressions, parameters and boundary entries", "[unit][config][expr]") {
  const auto c = parse_config(kMesh + R"Y(parameters: {U: 2, w: "2*pi*U"}
physics:
  velocity: ["U", "0.2*sin(w*y)", "0"]
  diffusivity: 0.01
  source: "exp(-t)"
initial: {expression: "exp(-((x-0.3)^2)/0.01)"}
boundary:
  xmin: {type: inflow, value: "exp(-t) * sin(pi*y)"}
  xmax: {type: outflow}
  ymin: neumann
)Y",
                              "plume.yaml");
  REQUIRE(c.parameters.size() == 2);
  CHECK(c.parameters[1].first == "w");
  CHECK(c.parameters[1].second == Approx(4 * M_PI));
  CHECK(texts(c.physics.velocity) == std::vector<std::string>{"U", "0.2*sin(w*y)", "0"});
  CHECK(c.physics.source.text == "exp(-t)");
  CHECK(c.initial.type == "expression");
  REQUIRE(c.boundary.conditions.size() == 3);
  CHECK(c.boundary.find("xmin")->type == "inflow");
  CHECK(c.boundary.find("xmin")->value.text == "exp(-t) * sin(pi*y)");
  CHECK(c.boundary.find("ymin")->type == "neumann");
  CHECK_FALSE(c.boundary.find("ymin")->value.given());
  // --set reaches named entries and their fields.
  const auto o =
      parse_config(kMesh, "a.yaml",
                   {"parameters.U=3", "boundary.xmin=outflow", "boundary.ymax.type=inflow",
                    "boundary.ymax.value=1+U", "physics.source=U*x"});
  CHECK(o.parameters.at(0).second == 3);
  CHECK(o.boundary.find("xmin")->type == "outflow");
  CHECK(o.boundary.find("ymax")->type == "inflow");
  CHECK(o.boundary.find("ymax")->value.text == "1+U");
}

TEST_CASE("config: expression errors name the key, the column and the valid names",
          "[unit][config][expr]") {
  auto e = error_of(kMesh + "physics:\n  source: \"sin(x\"\n");
  CHECK(has(e, "advect.yaml:4:11: physics.source = \"sin(x\": missing ')' at column 6"));
  e = error_of(kMesh + "physics:\n  source: \"sin(x) + w\"\n");
  CHECK(has(e, "physics.source = \"sin(x) + w\": unknown name 'w' at column 10; valid: "
               "variables x, y, z, t; constants and parameters pi; functions sin, cos,"));
  e = error_of(kMesh + "parameters: {U: 1}\ninitial: {expression: \"bessel(x)*U\"}\n");
  CHECK(has(e, "initial.expression = \"bessel(x)*U\": unknown name 'bessel' at column 1; valid: "
               "variables x, y, z; constants and parameters pi, U; functions"));
  e = error_of(kMesh + "physics:\n  velocity: [\"x*t\", 0, 0]\n");
  CHECK(has(e, "physics.velocity[0] = \"x*t\": t at column 3: this field must not depend on time"));
  e = error_of(kMesh + "physics:\n  diffusivity: \"0.1*(1+t)\"\n");
  CHECK(has(e, "physics.diffusivity = \"0.1*(1+t)\": t at column 8: this field must not depend"));
  e = error_of(kMesh + "physics:\n  velocity: [1, 0]\n");
  CHECK(has(e, "physics.velocity = [1, 0]: must be a list of 3 expressions"));
  CHECK(has(e, "got 2 components"));
  e = error_of(kMesh + "parameters: {x: 1}\n");
  CHECK(has(e, "advect.yaml:3:14: parameters.x: shadows the variable x"));
  e = error_of(kMesh + "parameters: {pi: 3}\n");
  CHECK(has(e, "parameters.pi: shadows the constant pi"));
  e = error_of(kMesh + "parameters: {t: 3}\n");
  CHECK(has(e, "parameters.t: shadows the variable t"));
  e = error_of(kMesh + "parameters: {sin: 3}\n");
  CHECK(has(e, "parameters.sin: shadows the function sin"));
  e = error_of(kMesh + "parameters: {a: \"2*b\", b: 1}\n");
  CHECK(has(e, "parameters.a = \"2*b\": unknown name 'b'"));
  e = error_of(kMesh + "boundary:\n  xmax: {type: outflow, value: 1}\n");
  CHECK(has(e, "boundary.xmax.value = \"1\": an outflow boundary takes no value"));
  e = error_of(kMesh + "boundary:\n  xmax: {value: 1}\n");
  CHECK(has(e, "boundary.xmax = {value: 1}: needs a type"));
  e = error_of(kMesh + "initial: {type: expression}\n");
  CHECK(has(e, "initial.type = expression: needs initial.expression"));
  e = error_of(kMesh + "physics:\n  source: \"\"\n");
  CHECK(has(e, "physics.source = \"\": must be a number or an expression of x, y, z, t"));
}
