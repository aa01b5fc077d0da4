// h-convergence studies for the tests: run one case on a sequence of meshes, check the observed
// L2 orders and record (case, p, n, h, L2 error, order) rows in <build>/convergence/<slug>.csv,
// which postprocess/plot_convergence.py draws.
#pragma once

#include "catch.hpp"
#include "solver_util.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

namespace dgtest {

/// One physical set-up on the periodic unit box with the exact Fourier mode
/// sin(2 pi (x + y + z) - ...) advected by a constant velocity and damped by diffusion.
struct Study {
  std::string name;       ///< case label in the CSV and the plot ("advection warped")
  std::string mesh_extra; ///< extra generator flags (" -warp 0.05 -shuffle 7")
  double nu = 0.0;        ///< diffusivity
  std::string velocity;   ///< "[1.0,0.5,0.25]"
  double final_time = 0.1;
};

/// The --set override of a periodic n^3 unit box with extra generator flags.
inline std::string periodic_box(int n, const std::string& extra = "") {
  return "mesh.box=-nx " + std::to_string(n) + " -periodic xyz" + extra;
}

inline const char* convergence_base_yaml() {
  return R"(
mesh: {box: "-nx 4 -periodic xyz"}
discretization: {order: 2}
physics: {velocity: [1.0, 0.5, 0.25], diffusivity: 0.0}
initial: {type: fourier, wavenumber: [1, 1, 1]}
time: {final_time: 0.1, cfl: 0.5}
output: {snapshots: false, quiet: true, directory: test_out}
)";
}

/// Appends rows to <DG_BINARY_DIR>/convergence/<slug>.csv; the first use in a process truncates
/// the file, so each Catch test case owns one file and ctest can run cases in parallel.
class ConvergenceCsv {
public:
  explicit ConvergenceCsv(const std::string& slug) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(DG_BINARY_DIR) / "convergence";
    fs::create_directories(dir);
    path_ = (dir / (slug + ".csv")).string();
    out_.open(path_, std::ios::trunc);
    out_ << "case,p,n,h,l2_error,order\n";
    out_ << std::setprecision(10);
  }
  void row(const std::string& name, int p, int n, double err, double order, bool has_order) {
    out_ << '"' << name << "\"," << p << ',' << n << ',' << 1.0 / n << ',' << err << ',';
    if (has_order) out_ << order;
    out_ << '\n';
    out_.flush();
  }
  const std::string& path() const { return path_; }

private:
  std::string path_;
  std::ofstream out_;
};

/// Runs `study` at order p on the meshes n in `ns` (periodic unit box, h = 1/n), writes the rows
/// and checks the observed order of the last refinement against `expected` - `tol`.
inline void check_order(ConvergenceCsv& csv, const Study& s, int p, const std::vector<int>& ns,
                        double expected, double tol = 0.3,
                        const std::vector<std::string>& extra = {}) {
  std::vector<double> e;
  for (int n : ns) {
    std::vector<std::string> ov = {
        periodic_box(n, s.mesh_extra), "discretization.order=" + std::to_string(p),
        "physics.diffusivity=" + std::to_string(s.nu), "physics.velocity=" + s.velocity,
        "time.final_time=" + std::to_string(s.final_time)};
    ov.insert(ov.end(), extra.begin(), extra.end());
    e.push_back(run_case(convergence_base_yaml(), ov).l2_error);
  }
  double rate = 0.0;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) rate = std::log(e[i - 1] / e[i]) / std::log(double(ns[i]) / ns[i - 1]);
    csv.row(s.name, p, ns[i], e[i], rate, i > 0);
  }
  std::cout << s.name << " p = " << p << ": n";
  for (size_t i = 0; i < ns.size(); ++i)
    std::cout << ' ' << ns[i];
  std::cout << ", L2 errors";
  for (double v : e)
    std::cout << ' ' << v;
  std::cout << ", observed order " << rate << " (expected " << expected << ")\n";
  INFO(s.name << ": p = " << p << ", n " << ns.front() << " -> " << ns.back() << ", errors "
              << e.front() << " -> " << e.back() << ", order " << rate << ", expected " << expected
              << " - " << tol);
  CHECK(std::isfinite(rate));
  CHECK(rate > expected - tol);
}

} // namespace dgtest
