// HDF5 checkpoints (dg/io/checkpoint.hpp), atomic: written to .tmp, then renamed. One shared
// file: collective MPI-IO with parallel HDF5, ranks in turn (token passing) with serial HDF5.
#include "dg/io/checkpoint.hpp"

#include "parallel_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <numeric>

namespace dg::io {
using namespace detail;
namespace {

namespace fs = std::filesystem;

/// A private duplicate of a communicator, freed on scope exit.
class CommDup {
public:
  explicit CommDup(MPI_Comm c) { MPI_Comm_dup(c, &comm_); }
  ~CommDup() { MPI_Comm_free(&comm_); }
  CommDup(const CommDup&) = delete;
  CommDup& operator=(const CommDup&) = delete;
  operator MPI_Comm() const { return comm_; }

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// fsync a file or directory (best effort: durability of the rename, not correctness).
void sync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

const char* const kCheckpointFormat = "dgsolve-checkpoint";

/// Sorts local rows by global id: returns the permutation (sorted position -> local row).
std::vector<std::size_t> by_id(const std::vector<std::int64_t>& ids) {
  std::vector<std::size_t> perm(ids.size());
  std::iota(perm.begin(), perm.end(), std::size_t(0));
  std::sort(perm.begin(), perm.end(),
            [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
  return perm;
}

/// "" if ids are unique and in [0, n); otherwise what is wrong.
std::string check_ids(const std::vector<std::int64_t>& ids, const std::vector<std::size_t>& perm,
                      std::int64_t n) {
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const std::int64_t id = ids[perm[i]];
    if (id < 0 || id >= n)
      return "global element id " + std::to_string(id) + " outside [0, " + std::to_string(n) + ")";
    if (i > 0 && id == ids[perm[i - 1]])
      return "global element id " + std::to_string(id) + " given twice on one rank";
  }
  return {};
}
} // namespace

void write_checkpoint(MPI_Comm comm_in, const std::string& path, const CheckpointData& data,
                      ParallelIo mode) {
  CommDup comm(comm_in);
  const int rank = rank_of(comm);
  const std::size_t nlocal = data.global_ids.size();
  const std::size_t nm = std::size_t(std::max(data.nmodes, 0));
  std::vector<std::size_t> perm = by_id(data.global_ids);
  {
    std::string err;
    if (data.nmodes <= 0)
      err = "checkpoint: nmodes = " + std::to_string(data.nmodes);
    else if (data.modes.size() != nlocal * nm)
      err = "checkpoint: modes has " + std::to_string(data.modes.size()) + " values, expected " +
            std::to_string(nlocal * nm);
    else
      err = check_ids(data.global_ids, perm, data.nelem_global);
    if (!err.empty()) err = path + ": " + err;
    agree(comm, err, false);
    const std::int64_t total = allsum(comm, std::int64_t(nlocal));
    agree(comm,
          total == data.nelem_global
              ? std::string()
              : path + ": ranks hold " + std::to_string(total) +
                    " elements, nelem_global = " + std::to_string(data.nelem_global),
          false);
  }
  // Rows sorted by id, and their runs in the file.
  std::vector<double> rows(nlocal * nm);
  std::vector<std::int64_t> sorted(nlocal);
  for (std::size_t i = 0; i < nlocal; ++i) {
    sorted[i] = data.global_ids[perm[i]];
    std::copy_n(data.modes.begin() + std::ptrdiff_t(perm[i] * nm), nm,
                rows.begin() + std::ptrdiff_t(i * nm));
  }
  const auto runs = runs_of(sorted);

  // Rank 0's metadata is the file's.
  double time = data.time;
  std::int64_t step = data.step;
  int ints[2] = {data.order, data.nmodes};
  MPI_Bcast(&time, 1, MPI_DOUBLE, 0, comm);
  MPI_Bcast(&step, 1, MPI_INT64_T, 0, comm);
  MPI_Bcast(ints, 2, MPI_INT, 0, comm);
  const std::string yaml = bcast_string(comm, data.yaml);

  // Test hook: DG_TEST_KILL_IN_CHECKPOINT=n kills the process (SIGKILL, no clean-up) in the
  // n-th checkpoint it writes, after half of each rank's rows reached the temporary file.
  static int checkpoints_written = 0;
  ++checkpoints_written;
  const char* kill_at = std::getenv("DG_TEST_KILL_IN_CHECKPOINT");
  const bool kill_now = kill_at && std::atoi(kill_at) == checkpoints_written;

  const std::string tmp = path + ".tmp";
  write_shared(comm, tmp, mode, [&](const SharedFile& f) {
    if (kill_now) {
      std::vector<std::pair<hsize_t, hsize_t>> half;
      hsize_t left = nlocal / 2;
      for (const auto& r : runs) {
        if (left == 0) break;
        half.emplace_back(r.first, std::min(left, r.second));
        left -= half.back().second;
      }
      write_rows(f, "modes", H5T_NATIVE_DOUBLE, hsize_t(data.nelem_global), hsize_t(nm), half,
                 rows.data());
      H5Fflush(f.file, H5F_SCOPE_GLOBAL);
      std::raise(SIGKILL);
    }
    write_rows(f, "modes", H5T_NATIVE_DOUBLE, hsize_t(data.nelem_global), hsize_t(nm), runs,
               rows.data());
    if (f.create) {
      write_string_attribute(f.file, "format", kCheckpointFormat);
      write_attribute(f.file, "time", H5T_NATIVE_DOUBLE, &time);
      write_attribute(f.file, "step", H5T_NATIVE_INT64, &step);
      write_attribute(f.file, "order", H5T_NATIVE_INT, &ints[0]);
      write_attribute(f.file, "nmodes", H5T_NATIVE_INT, &ints[1]);
      write_string_attribute(f.file, "yaml", yaml);
    }
  });
  // write_shared returns on every rank only after all have closed the file.
  std::string error;
  if (rank == 0) {
    sync_path(tmp, false);
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      error = "cannot rename " + tmp + " to " + path;
    else {
      const fs::path parent = fs::path(path).parent_path();
      sync_path(parent.empty() ? "." : parent.string(), true);
    }
  }
  agree(comm, error, false);
}

CheckpointData read_checkpoint(MPI_Comm comm_in, const std::string& path,
                               const std::vector<std::int64_t>& my_global_ids, ParallelIo mode) {
  CommDup comm(comm_in);
  QuietHdf5 quiet;
  CheckpointData d;
  // Rank 0 checks the file and reads the metadata; everyone shares its verdict.
  std::int64_t meta_i[4] = {0, 0, 0, 0}; // step, order, nmodes, nelem_global
  {
    std::string error;
    if (rank_of(comm) == 0) {
      std::error_code ec;
      if (!fs::exists(path, ec)) {
        error = path + ": no such checkpoint file";
      } else if (!is_hdf5(path)) {
        error = path + ": not an HDF5 file (expected a dgsolve checkpoint)";
      } else {
        try {
          H5Id file =
              checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + path);
          if (!has_attribute(file, "format") ||
              read_string_attribute(file, "format") != kCheckpointFormat) {
            error = path + ": not a dgsolve checkpoint (no format = \"" +
                    std::string(kCheckpointFormat) + "\" attribute)";
          } else {
            d.time = read_attribute<double>(file, "time", H5T_NATIVE_DOUBLE);
            meta_i[0] = read_attribute<std::int64_t>(file, "step", H5T_NATIVE_INT64);
            meta_i[1] = read_attribute<int>(file, "order", H5T_NATIVE_INT);
            meta_i[2] = read_attribute<int>(file, "nmodes", H5T_NATIVE_INT);
            d.yaml = read_string_attribute(file, "yaml");
            H5Id dset = checked(H5Dopen2(file, "modes", H5P_DEFAULT), H5Dclose, "open /modes");
            H5Id space = checked(H5Dget_space(dset), H5Sclose, "get the /modes dataspace");
            hsize_t dims[2] = {0, 0};
            if (H5Sget_simple_extent_ndims(space) != 2 ||
                H5Sget_simple_extent_dims(space, dims, nullptr) != 2 ||
                std::int64_t(dims[1]) != meta_i[2])
              error = path + ": damaged checkpoint (/modes is not elements x nmodes)";
            meta_i[3] = std::int64_t(dims[0]);
          }
        } catch (const std::exception& e) {
          error = path + ": damaged checkpoint (" + e.what() + ")";
        }
      }
    }
    agree(comm, error, true);
  }
  MPI_Bcast(&d.time, 1, MPI_DOUBLE, 0, comm);
  MPI_Bcast(meta_i, 4, MPI_INT64_T, 0, comm);
  d.yaml = bcast_string(comm, d.yaml);
  d.step = long(meta_i[0]);
  d.order = int(meta_i[1]);
  d.nmodes = int(meta_i[2]);
  d.nelem_global = meta_i[3];

  // The mesh must match: same element count, every id once.
  const std::vector<std::size_t> perm = by_id(my_global_ids);
  const std::int64_t total = allsum(comm, std::int64_t(my_global_ids.size()));
  agree(comm,
        total == d.nelem_global ? std::string()
                                : path + ": checkpoint holds " + std::to_string(d.nelem_global) +
                                      " elements, but the mesh has " + std::to_string(total),
        true);
  {
    std::string err = check_ids(my_global_ids, perm, d.nelem_global);
    agree(comm, err.empty() ? err : path + ": " + err, true);
  }

  const std::size_t nlocal = my_global_ids.size(), nm = std::size_t(d.nmodes);
  std::vector<std::int64_t> sorted(nlocal);
  for (std::size_t i = 0; i < nlocal; ++i)
    sorted[i] = my_global_ids[perm[i]];
  std::vector<double> rows(nlocal * nm);
  std::string error;
  try {
    const bool mpio = use_mpio(mode);
    H5Id fapl = file_access(comm, mpio);
    H5Id file = checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl), H5Fclose, "open " + path);
    read_rows(file, mpio, "modes", H5T_NATIVE_DOUBLE, hsize_t(nm), runs_of(sorted), rows.data());
  } catch (const std::exception& e) {
    error = path + ": " + e.what();
  }
  agree(comm, error, false);
  d.global_ids = my_global_ids;
  d.modes.resize(nlocal * nm);
  for (std::size_t i = 0; i < nlocal; ++i)
    std::copy_n(rows.begin() + std::ptrdiff_t(i * nm), nm,
                d.modes.begin() + std::ptrdiff_t(perm[i] * nm));
  return d;
}

} // namespace dg::io
