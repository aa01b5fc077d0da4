// CSV logs (diagnostics per output step), written by rank 0.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace dg::io {

/// A CSV log written by rank 0 only (other ranks hold an inert object; calls are not collective).
/// Each row is flushed at once so a crashed run keeps its history. Values use %.16e.
class CsvLog {
public:
  /// Creates DIR (if missing) and DIR/NAME.csv with the header. With `append`, an existing file
  /// whose first line is the same header is continued instead (for restarts).
  /// This constructor is collective (rank 0 creates, the others wait and share its status).
  CsvLog(MPI_Comm comm, const std::string& directory, const std::string& name,
         std::vector<std::string> header, bool append = false);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;

  /// Appends one row (rank 0; a no-op elsewhere). values.size() must equal the header's.
  void row(const std::vector<double>& values);
  const std::string& path() const { return path_; }

private:
  std::FILE* file_ = nullptr;
  std::string path_;
  std::size_t columns_ = 0;
};

} // namespace dg::io
