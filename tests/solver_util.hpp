// Test helper: run dgsolve's Solver on a YAML text (no output files) and return diagnostics.
#pragma once

#include "dg/io/config.hpp"
#include "dg/solver.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace dgtest {

inline dg::GlobalDiagnostics run_case(const std::string& yaml,
                                      const std::vector<std::string>& overrides = {}) {
  const dg::io::Config cfg = dg::io::parse_config(yaml, "test.yaml", overrides);
  dg::Solver s(cfg, MPI_COMM_WORLD);
  s.initialize();
  return s.run();
}

/// Observed orders log2(e_k / e_{k+1}) of a sequence of errors under halving h.
inline std::vector<double> orders(const std::vector<double>& e) {
  std::vector<double> r;
  for (size_t i = 0; i + 1 < e.size(); ++i)
    r.push_back(std::log2(e[i] / e[i + 1]));
  return r;
}

} // namespace dgtest
