// dgbench common pieces: options, result tables (text, CSV, JSON), timing, registry.
#include "dg/bench/bench.hpp"

#include "dg/core/error.hpp"
#include "dg/core/kokkos.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace dg::bench {

namespace {
int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int to_int(const std::string& cmd, const std::string& name, const std::string& v) {
  try {
    size_t pos = 0;
    const int x = std::stoi(v, &pos);
    if (pos == v.size()) return x;
  } catch (const std::exception&) {
  }
  DG_INPUT_ERROR("dgbench " << cmd << ": --" << name << " = '" << v << "': expected an integer");
}
} // namespace

Options::Options(std::string command, const std::vector<std::string>& args)
    : command_(std::move(command)) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0 || a.size() < 3)
      DG_INPUT_ERROR("dgbench " << command_ << ": unexpected argument '" << a
                                << "' (options are --name value; see --help)");
    const std::string name = a.substr(2);
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      given_[name.substr(0, eq)] = name.substr(eq + 1);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      given_[name] = args[++i];
    } else {
      flags_given_.push_back(name);
    }
  }
  csv = str("csv", "", "write the results as CSV to this file");
  json = str("json", "", "write the results and machine info as JSON to this file");
}

std::string Options::str(const std::string& name, const std::string& def, const std::string& help) {
  declared_.push_back(name);
  std::ostringstream os;
  os << "  --" << std::left << std::setw(14) << name << (name.size() >= 14 ? " " : "") << help
     << (def.empty() ? "" : " (default " + def + ")") << "\n";
  help_ += os.str();
  const auto it = given_.find(name);
  return it == given_.end() ? def : it->second;
}

int Options::integer(const std::string& name, int def, const std::string& help) {
  return to_int(command_, name, str(name, std::to_string(def), help));
}

double Options::real(const std::string& name, double def, const std::string& help) {
  std::ostringstream d;
  d << def;
  const std::string v = str(name, d.str(), help);
  try {
    size_t pos = 0;
    const double x = std::stod(v, &pos);
    if (pos == v.size()) return x;
  } catch (const std::exception&) {
  }
  DG_INPUT_ERROR("dgbench " << command_ << ": --" << name << " = '" << v << "': expected a number");
}

bool Options::flag(const std::string& name, const std::string& help) {
  declared_.push_back(name);
  help_ += "  --" + name + std::string(name.size() < 14 ? 14 - name.size() : 1, ' ') + help + "\n";
  return std::find(flags_given_.begin(), flags_given_.end(), name) != flags_given_.end();
}

std::vector<int> Options::ints(const std::string& name, const std::string& def,
                               const std::string& help) {
  std::vector<int> out;
  for (const std::string& item : split(str(name, def, help))) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      out.push_back(to_int(command_, name, item));
    } else {
      const int a = to_int(command_, name, item.substr(0, colon));
      const int b = to_int(command_, name, item.substr(colon + 1));
      for (int x = a; x <= b; ++x)
        out.push_back(x);
    }
  }
  return out;
}

std::vector<std::string> Options::strs(const std::string& name, const std::string& def,
                                       const std::string& help) {
  return split(str(name, def, help));
}

bool Options::finish() {
  declared_.push_back("help");
  for (const auto& kv : given_)
    if (std::find(declared_.begin(), declared_.end(), kv.first) == declared_.end())
      DG_INPUT_ERROR("dgbench " << command_ << ": unknown option --" << kv.first << " (see dgbench "
                                << command_ << " --help)");
  for (const auto& f : flags_given_)
    if (std::find(declared_.begin(), declared_.end(), f) == declared_.end())
      DG_INPUT_ERROR("dgbench " << command_ << ": unknown option --" << f << " (see dgbench "
                                << command_ << " --help)");
  const bool help =
      std::find(flags_given_.begin(), flags_given_.end(), "help") != flags_given_.end();
  if (help && world_rank() == 0)
    std::printf("usage: dgbench %s [options]\n%s", command_.c_str(), help_.c_str());
  return help;
}

// ------------------------------------------------------------------------------------------
Row& Row::set(const std::string& key, const std::string& value) {
  for (size_t i = 0; i < cells_.size(); ++i)
    if (cells_[i].first == key) {
      cells_[i].second = value;
      numeric_[i] = false;
      return *this;
    }
  cells_.emplace_back(key, value);
  numeric_.push_back(false);
  return *this;
}
Row& Row::set(const std::string& key, double value) {
  std::ostringstream os;
  os << std::setprecision(6) << value;
  set(key, os.str());
  numeric_.back() = true;
  for (size_t i = 0; i < cells_.size(); ++i)
    if (cells_[i].first == key) numeric_[i] = true;
  return *this;
}
Row& Row::set(const std::string& key, long long value) {
  set(key, std::to_string(value));
  for (size_t i = 0; i < cells_.size(); ++i)
    if (cells_[i].first == key) numeric_[i] = true;
  return *this;
}
std::string Row::get(const std::string& key) const {
  for (const auto& c : cells_)
    if (c.first == key) return c.second;
  return "";
}

void Table::print(const std::vector<std::string>& columns) const {
  if (world_rank() != 0) return;
  std::vector<size_t> width;
  for (const auto& c : columns) {
    size_t w = c.size();
    for (const auto& r : rows_)
      w = std::max(w, r.get(c).size());
    width.push_back(w + 2);
  }
  for (size_t i = 0; i < columns.size(); ++i)
    std::printf("%*s", static_cast<int>(width[i]), columns[i].c_str());
  std::printf("\n");
  for (const auto& r : rows_) {
    for (size_t i = 0; i < columns.size(); ++i)
      std::printf("%*s", static_cast<int>(width[i]), r.get(columns[i]).c_str());
    std::printf("\n");
  }
  std::fflush(stdout);
}

void Table::write_csv(const std::string& path) const {
  std::ofstream f(path);
  if (!f) DG_INPUT_ERROR("dgbench: --csv " << path << ": cannot open for writing");
  std::vector<std::string> cols;
  for (const auto& r : rows_)
    for (const auto& c : r.cells())
      if (std::find(cols.begin(), cols.end(), c.first) == cols.end()) cols.push_back(c.first);
  for (size_t i = 0; i < cols.size(); ++i)
    f << (i ? "," : "") << cols[i];
  f << "\n";
  for (const auto& r : rows_) {
    for (size_t i = 0; i < cols.size(); ++i)
      f << (i ? "," : "") << r.get(cols[i]);
    f << "\n";
  }
}

namespace {
std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
} // namespace

void Table::write_json(const std::string& path, const std::string& command,
                       const std::map<std::string, std::string>& meta) const {
  std::ofstream f(path);
  if (!f) DG_INPUT_ERROR("dgbench: --json " << path << ": cannot open for writing");
  f << "{\n  \"command\": " << json_string(command) << ",\n  \"meta\": {";
  bool first = true;
  for (const auto& kv : meta) {
    f << (first ? "" : ",") << "\n    " << json_string(kv.first) << ": " << json_string(kv.second);
    first = false;
  }
  f << "\n  },\n  \"rows\": [";
  for (size_t k = 0; k < rows_.size(); ++k) {
    f << (k ? "," : "") << "\n    {";
    const Row& r = rows_[k];
    for (size_t i = 0; i < r.cells_.size(); ++i)
      f << (i ? ", " : "") << json_string(r.cells_[i].first) << ": "
        << (r.numeric_[i] ? r.cells_[i].second : json_string(r.cells_[i].second));
    f << "}";
  }
  f << "\n  ]\n}\n";
}

void write_outputs(const Options& o, const Table& t,
                   const std::map<std::string, std::string>& meta) {
  if (world_rank() != 0) return;
  if (!o.csv.empty()) t.write_csv(o.csv);
  if (!o.json.empty()) {
    auto m = machine_info();
    for (const auto& kv : meta)
      m[kv.first] = kv.second;
    t.write_json(o.json, o.command(), m);
  }
}

// ------------------------------------------------------------------------------------------
double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double median_time(const std::function<void()>& f, int reps, int warmup) {
  for (int i = 0; i < warmup; ++i)
    f();
  Kokkos::fence();
  std::vector<double> t;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

std::map<std::string, std::string> machine_info() {
  std::map<std::string, std::string> m;
  m["execution_space"] = ExecSpace::name();
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  m["host"] = host;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  m["ranks"] = std::to_string(size);
  m["kokkos_version"] = std::to_string(KOKKOS_VERSION);
#if defined(KOKKOS_ENABLE_CUDA)
  cudaDeviceProp prop;
  int dev = 0;
  cudaGetDevice(&dev);
  if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) m["device"] = prop.name;
#endif
  return m;
}

// ------------------------------------------------------------------------------------------
namespace {
std::map<std::string, std::pair<std::string, Command>>& registry() {
  static std::map<std::string, std::pair<std::string, Command>> r;
  return r;
}
} // namespace

Registration::Registration(const std::string& name, const std::string& summary, Command cmd) {
  registry()[name] = {summary, std::move(cmd)};
}
const std::map<std::string, std::pair<std::string, Command>>& commands() {
  return registry();
}

} // namespace dg::bench
