// CSV logs (dg/io/csv_log.hpp), written and flushed row by row by rank 0.
#include "dg/io/csv_log.hpp"

#include "dg/io/parallel_io.hpp"
#include "parallel_file.hpp"

#include <filesystem>
#include <fstream>

namespace dg::io {
using namespace detail;

CsvLog::CsvLog(MPI_Comm comm, const std::string& directory, const std::string& name,
               std::vector<std::string> header, bool append)
    : columns_(header.size()) {
  create_directory(comm, directory);
  path_ = (std::filesystem::path(directory) / (name + ".csv")).string();
  std::string error;
  if (rank_of(comm) == 0) {
    std::string line;
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i].find_first_of(",\"\n") != std::string::npos)
        error = "CSV column name '" + header[i] + "' contains a comma, quote or newline";
      line += (i ? "," : "") + header[i];
    }
    bool resume = false;
    if (append && error.empty()) {
      std::ifstream in(path_);
      std::string first;
      resume = in && std::getline(in, first) && first == line;
    }
    if (error.empty()) {
      file_ = std::fopen(path_.c_str(), resume ? "a" : "w");
      if (!file_)
        error = path_ + ": cannot open for writing";
      else if (!resume) {
        std::fprintf(file_, "%s\n", line.c_str());
        std::fflush(file_);
      }
    }
  }
  agree(comm, error, false);
}

CsvLog::~CsvLog() {
  if (file_) std::fclose(file_);
}

void CsvLog::row(const std::vector<double>& values) {
  if (!file_) return;
  DG_VERIFY(values.size() == columns_,
            path_ << ": row of " << values.size() << " values, header has " << columns_);
  for (std::size_t i = 0; i < values.size(); ++i)
    std::fprintf(file_, i ? ",%.16e" : "%.16e", values[i]);
  std::fputc('\n', file_);
  std::fflush(file_);
}

} // namespace dg::io
