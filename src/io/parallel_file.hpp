// Helpers of the writers in src/io (snapshot.cpp, checkpoint.cpp, csv_log.cpp): MPI agreement
// on errors and prefix sums, owned HDF5 identifiers, row selections of shared datasets,
// attributes, and the write of one shared file (collective MPI-IO or ranks in turn). Internal:
// not part of include/dg/io.
#pragma once

#include "dg/core/error.hpp"
#include "dg/io/parallel_io.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dg::io::detail {

int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

/// Makes every rank agree on failure: if any rank has a non-empty `error`, every rank throws the
/// message of the lowest such rank (InputError or InternalError), so none is left in a collective.
void agree(MPI_Comm comm, const std::string& error, bool input_error);

/// `s` of rank `root` on every rank.
std::string bcast_string(MPI_Comm comm, std::string s, int root = 0);

/// Offset of this rank's rows: exclusive prefix sum of the local counts.
std::int64_t exscan(MPI_Comm comm, std::int64_t n);

std::int64_t allsum(MPI_Comm comm, std::int64_t n);

/// Owns an HDF5 identifier.
class H5Id {
public:
  H5Id() = default;
  H5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  H5Id(H5Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  H5Id& operator=(H5Id&& o) noexcept {
    reset();
    id_ = o.id_;
    close_ = o.close_;
    o.id_ = -1;
    return *this;
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  ~H5Id() { reset(); }
  operator hid_t() const { return id_; }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = -1;
  }
  /// Closes now and reports failure (a failed close of a file means lost data).
  herr_t close() {
    herr_t s = 0;
    if (id_ >= 0 && close_) s = close_(id_);
    id_ = -1;
    return s;
  }

private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

H5Id checked(hid_t id, herr_t (*close)(hid_t), const std::string& what);
void check(herr_t s, const std::string& what);

/// Silences HDF5's automatic error-stack printing while alive (we report errors ourselves).
class QuietHdf5 {
public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// Whether shared files go through MPI-IO (parallel HDF5 and ParallelIo::automatic).
bool use_mpio(ParallelIo mode);

/// A file-access list (1.8 format or later; MPI-IO on comm with `mpio`).
H5Id file_access(MPI_Comm comm, bool mpio);

/// A dataset-transfer list (collective MPI-IO transfers with `collective`).
H5Id transfer_list(bool collective);

/// Contiguous runs (first row, count) of a sorted list of row indices.
std::vector<std::pair<hsize_t, hsize_t>> runs_of(const std::vector<std::int64_t>& sorted_rows);

/// Selects rows `runs` of a (nrows, ncols) file dataspace (1-D when ncols == 0); returns the
/// number of elements selected.
hsize_t select_rows(hid_t filespace, const std::vector<std::pair<hsize_t, hsize_t>>& runs,
                    hsize_t ncols);

/// The contiguous memory space of `selected` elements (an empty selection when there are none).
H5Id memory_space(hsize_t selected);

/// One shared file being written: the dataset to create or open, and how to transfer.
struct SharedFile {
  hid_t file;
  bool create;     // this rank creates datasets and attributes (all ranks with MPI-IO)
  bool collective; // transfers are collective (MPI-IO)
};

/// Writes rows `runs` (file rows, in order) of a (nrows, ncols) dataset (1-D when ncols == 0)
/// from the contiguous buffer `buf`, which holds exactly those rows in order.
void write_rows(const SharedFile& f, const char* name, hid_t type, hsize_t nrows, hsize_t ncols,
                const std::vector<std::pair<hsize_t, hsize_t>>& runs, const void* buf);

/// Reads rows `runs` of a (nrows, ncols) dataset into the contiguous buffer `buf`.
void read_rows(hid_t file, bool collective, const char* name, hid_t type, hsize_t ncols,
               const std::vector<std::pair<hsize_t, hsize_t>>& runs, void* buf);

/// Scalar attribute `name` of HDF5 type `type` on obj.
void write_attribute(hid_t obj, const char* name, hid_t type, const void* value);
/// Fixed-length, NUL-padded string attribute.
void write_string_attribute(hid_t obj, const char* name, const std::string& value);

/// Whether `path` is an HDF5 file (H5Fis_hdf5 is deprecated from 1.12 on).
bool is_hdf5(const std::string& path);

bool has_attribute(hid_t obj, const char* name);

template <class T>
T read_attribute(hid_t obj, const char* name, hid_t type) {
  T value{};
  H5Id attr =
      checked(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, std::string("open attribute ") + name);
  check(H5Aread(attr, type, &value), std::string("read attribute ") + name);
  return value;
}

/// A string attribute, fixed-length or variable-length.
std::string read_string_attribute(hid_t obj, const char* name);

/// Writes one shared file: with MPI-IO every rank creates and writes collectively; otherwise
/// rank 0 creates the file and every rank, in rank order, opens it, writes, closes and passes a
/// token on. `body` creates (or opens) datasets and writes this rank's part.
void write_shared(MPI_Comm comm, const std::string& path, ParallelIo mode,
                  const std::function<void(const SharedFile&)>& body);

} // namespace dg::io::detail
