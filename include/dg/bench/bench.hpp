// dgbench: benchmarks of the DG kernels (transforms, RK stage, element integration). Each
// sub-command registers itself with DG_BENCH_COMMAND in its own source under src/bench/; the
// common pieces here are option parsing, timing (medians of repeated runs with a fence) and a
// result table written as CSV and/or JSON.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dg::bench {

/// Command-line options of one sub-command: `--name value` pairs and bare `--flag`s.
/// Every option a command reads must be declared with a default and a help line; an
/// undeclared option is an input error naming the valid ones.
class Options {
public:
  Options(std::string command, const std::vector<std::string>& args);
  /// Declare-and-read. Lists are comma-separated ("1,2,4") or ranges ("1:15").
  std::string str(const std::string& name, const std::string& def, const std::string& help);
  int integer(const std::string& name, int def, const std::string& help);
  double real(const std::string& name, double def, const std::string& help);
  bool flag(const std::string& name, const std::string& help);
  std::vector<int> ints(const std::string& name, const std::string& def, const std::string& help);
  std::vector<std::string> strs(const std::string& name, const std::string& def,
                                const std::string& help);
  /// After all declarations: throws InputError for unknown options; true if --help was given
  /// (the help text has then been printed on rank 0).
  bool finish();
  const std::string& command() const { return command_; }
  /// Every command takes --csv FILE and --json FILE (declared by the constructor).
  std::string csv, json;

private:
  std::string command_;
  std::map<std::string, std::string> given_;
  std::vector<std::string> flags_given_;
  std::vector<std::string> declared_;
  std::string help_;
};

/// One row of results: ordered (column, value) pairs. Numbers keep 6 significant digits.
class Row {
public:
  Row& set(const std::string& key, const std::string& value);
  Row& set(const std::string& key, double value);
  Row& set(const std::string& key, long long value);
  Row& set(const std::string& key, int value) { return set(key, static_cast<long long>(value)); }
  const std::vector<std::pair<std::string, std::string>>& cells() const { return cells_; }
  std::string get(const std::string& key) const;

private:
  std::vector<std::pair<std::string, std::string>> cells_;
  std::vector<bool> numeric_;
  friend class Table;
};

/// Result table: printed as aligned text on stdout (rank 0) and written to --csv / --json.
class Table {
public:
  void add(const Row& r) { rows_.push_back(r); }
  const std::vector<Row>& rows() const { return rows_; }
  void print(const std::vector<std::string>& columns) const;
  void write_csv(const std::string& path) const;
  void write_json(const std::string& path, const std::string& command,
                  const std::map<std::string, std::string>& meta) const;

private:
  std::vector<Row> rows_;
};

/// Median wall time in seconds of `reps` calls of f (each followed by Kokkos::fence), after
/// `warmup` untimed calls.
double median_time(const std::function<void()>& f, int reps, int warmup = 1);
double median(std::vector<double> v);

/// Median bandwidth (bytes read + written per second) of a device copy kernel over `bytes`.
double measure_copy_bandwidth(double bytes, int reps);

/// Machine description for result metadata: execution space, device name, host, ranks.
std::map<std::string, std::string> machine_info();

/// Sub-command registry.
using Command = std::function<int(Options&)>;
struct Registration {
  Registration(const std::string& name, const std::string& summary, Command cmd);
};
const std::map<std::string, std::pair<std::string, Command>>& commands();

/// Writes the table to the --csv / --json files of `o` (rank 0), with machine_info() and
/// `meta` in the JSON header.
void write_outputs(const Options& o, const Table& t,
                   const std::map<std::string, std::string>& meta = {});

} // namespace dg::bench

#define DG_BENCH_CAT2(a, b) a##b
#define DG_BENCH_CAT(a, b) DG_BENCH_CAT2(a, b)
/// Registers `fn` (int(Options&)) as `dgbench name`.
#define DG_BENCH_COMMAND(name, summary, fn)                                                        \
  static ::dg::bench::Registration DG_BENCH_CAT(dg_bench_reg_, __LINE__)(name, summary, fn)
