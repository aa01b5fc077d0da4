// HDF5+XDMF snapshots, HDF5 checkpoints (atomic: written to .tmp, then renamed) and CSV logs.
// One shared file per snapshot / checkpoint: collective MPI-IO with parallel HDF5, ranks in turn
// (token passing) with serial HDF5; both produce the same file.
#include "dg/io/output.hpp"

#include "dg/core/error.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>

namespace dg::io {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------------------------------------------
// MPI helpers
// ------------------------------------------------------------------------------------------------

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

/// Makes every rank agree on failure: if any rank has a non-empty `error`, every rank throws the
/// message of the lowest such rank (InputError or InternalError), so none is left in a collective.
void agree(MPI_Comm comm, const std::string& error, bool input_error) {
  const int size = size_of(comm);
  const int candidate = error.empty() ? size : rank_of(comm);
  int root = size;
  MPI_Allreduce(&candidate, &root, 1, MPI_INT, MPI_MIN, comm);
  if (root == size) return;
  std::string msg = error;
  int len = int(msg.size());
  MPI_Bcast(&len, 1, MPI_INT, root, comm);
  msg.resize(std::size_t(len));
  MPI_Bcast(msg.data(), len, MPI_CHAR, root, comm);
  if (input_error) throw InputError(msg);
  throw InternalError(msg);
}

std::string bcast_string(MPI_Comm comm, std::string s, int root = 0) {
  int len = int(s.size());
  MPI_Bcast(&len, 1, MPI_INT, root, comm);
  s.resize(std::size_t(len));
  if (len > 0) MPI_Bcast(s.data(), len, MPI_CHAR, root, comm);
  return s;
}

/// Offset of this rank's rows: exclusive prefix sum of the local counts.
std::int64_t exscan(MPI_Comm comm, std::int64_t n) {
  std::int64_t off = 0;
  MPI_Exscan(&n, &off, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank_of(comm) == 0) off = 0; // MPI_Exscan leaves rank 0's result undefined
  return off;
}

std::int64_t allsum(MPI_Comm comm, std::int64_t n) {
  std::int64_t s = 0;
  MPI_Allreduce(&n, &s, 1, MPI_INT64_T, MPI_SUM, comm);
  return s;
}

// ------------------------------------------------------------------------------------------------
// HDF5 helpers
// ------------------------------------------------------------------------------------------------

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

H5Id checked(hid_t id, herr_t (*close)(hid_t), const std::string& what) {
  if (id < 0) throw InternalError("HDF5: cannot " + what);
  return H5Id(id, close);
}
void check(herr_t s, const std::string& what) {
  if (s < 0) throw InternalError("HDF5: cannot " + what);
}

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

bool use_mpio(ParallelIo mode) {
#ifdef DG_HDF5_PARALLEL
  return mode == ParallelIo::automatic;
#else
  (void)mode;
  return false;
#endif
}

H5Id file_access(MPI_Comm comm, bool mpio) {
  H5Id fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a file-access list");
  // 1.8 format or later: large attributes (the YAML text) go to dense storage.
  check(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST), "set format bounds");
#ifdef DG_HDF5_PARALLEL
  if (mpio) check(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "select MPI-IO");
#else
  (void)comm;
  (void)mpio;
#endif
  return fapl;
}

H5Id transfer_list(bool collective) {
  H5Id dxpl = checked(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create a transfer list");
#ifdef DG_HDF5_PARALLEL
  if (collective) check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "select collective I/O");
#else
  (void)collective;
#endif
  return dxpl;
}

/// Contiguous runs (first row, count) of a sorted list of row indices.
std::vector<std::pair<hsize_t, hsize_t>> runs_of(const std::vector<std::int64_t>& sorted_rows) {
  std::vector<std::pair<hsize_t, hsize_t>> runs;
  for (std::size_t i = 0; i < sorted_rows.size();) {
    std::size_t j = i + 1;
    while (j < sorted_rows.size() && sorted_rows[j] == sorted_rows[j - 1] + 1)
      ++j;
    runs.emplace_back(hsize_t(sorted_rows[i]), hsize_t(j - i));
    i = j;
  }
  return runs;
}

/// Selects rows `runs` of a (nrows, ncols) file dataspace (1-D when ncols == 0); returns the
/// number of elements selected.
hsize_t select_rows(hid_t filespace, const std::vector<std::pair<hsize_t, hsize_t>>& runs,
                    hsize_t ncols) {
  hsize_t selected = 0;
  if (runs.empty()) {
    check(H5Sselect_none(filespace), "select nothing");
    return 0;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const hsize_t start[2] = {runs[i].first, 0}, count[2] = {runs[i].second, ncols};
    check(H5Sselect_hyperslab(filespace, i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr,
                              count, nullptr),
          "select rows");
    selected += runs[i].second * (ncols ? ncols : 1);
  }
  return selected;
}

/// The contiguous memory space of `selected` elements (an empty selection when there are none).
H5Id memory_space(hsize_t selected) {
  const hsize_t mdims[1] = {std::max<hsize_t>(selected, 1)};
  H5Id memspace = checked(H5Screate_simple(1, mdims, nullptr), H5Sclose, "create a dataspace");
  if (selected == 0) check(H5Sselect_none(memspace), "select nothing");
  return memspace;
}

/// One shared file being written: the dataset to create or open, and how to transfer.
struct SharedFile {
  hid_t file;
  bool create;     // this rank creates datasets and attributes (all ranks with MPI-IO)
  bool collective; // transfers are collective (MPI-IO)
};

/// Writes rows `runs` (file rows, in order) of a (nrows, ncols) dataset (1-D when ncols == 0)
/// from the contiguous buffer `buf`, which holds exactly those rows in order.
void write_rows(const SharedFile& f, const char* name, hid_t type, hsize_t nrows, hsize_t ncols,
                const std::vector<std::pair<hsize_t, hsize_t>>& runs, const void* buf) {
  const int rank = ncols ? 2 : 1;
  const hsize_t dims[2] = {nrows, ncols};
  H5Id filespace = checked(H5Screate_simple(rank, dims, nullptr), H5Sclose, "create a dataspace");
  H5Id dset;
  if (f.create)
    dset = checked(H5Dcreate2(f.file, name, type, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose, std::string("create dataset ") + name);
  else
    dset =
        checked(H5Dopen2(f.file, name, H5P_DEFAULT), H5Dclose, std::string("open dataset ") + name);
  const hsize_t selected = select_rows(filespace, runs, ncols);
  H5Id memspace = memory_space(selected);
  if (!f.collective && selected == 0) return; // nothing to do outside a collective
  H5Id dxpl = transfer_list(f.collective);
  static const double dummy = 0;
  check(H5Dwrite(dset, type, memspace, filespace, dxpl, selected ? buf : &dummy),
        std::string("write dataset ") + name);
}

/// Reads rows `runs` of a (nrows, ncols) dataset into the contiguous buffer `buf`.
void read_rows(hid_t file, bool collective, const char* name, hid_t type, hsize_t ncols,
               const std::vector<std::pair<hsize_t, hsize_t>>& runs, void* buf) {
  H5Id dset = checked(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, std::string("open ") + name);
  H5Id filespace = checked(H5Dget_space(dset), H5Sclose, "get a dataspace");
  const hsize_t selected = select_rows(filespace, runs, ncols);
  H5Id memspace = memory_space(selected);
  if (!collective && selected == 0) return;
  H5Id dxpl = transfer_list(collective);
  double dummy = 0;
  check(H5Dread(dset, type, memspace, filespace, dxpl, selected ? buf : &dummy),
        std::string("read ") + name);
}

void write_attribute(hid_t obj, const char* name, hid_t type, const void* value) {
  H5Id space = checked(H5Screate(H5S_SCALAR), H5Sclose, "create a dataspace");
  H5Id attr = checked(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                      std::string("create attribute ") + name);
  check(H5Awrite(attr, type, value), std::string("write attribute ") + name);
}

void write_string_attribute(hid_t obj, const char* name, const std::string& value) {
  H5Id type = checked(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  check(H5Tset_size(type, std::max<std::size_t>(value.size(), 1)), "size a string type");
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), "pad a string type");
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  write_attribute(obj, name, type, padded.data());
}

/// Whether `path` is an HDF5 file (H5Fis_hdf5 is deprecated from 1.12 on).
bool is_hdf5(const std::string& path) {
#if H5_VERSION_GE(1, 12, 0)
  return H5Fis_accessible(path.c_str(), H5P_DEFAULT) > 0;
#else
  return H5Fis_hdf5(path.c_str()) > 0;
#endif
}

bool has_attribute(hid_t obj, const char* name) {
  return H5Aexists(obj, name) > 0;
}

template <class T>
T read_attribute(hid_t obj, const char* name, hid_t type) {
  T value{};
  H5Id attr =
      checked(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, std::string("open attribute ") + name);
  check(H5Aread(attr, type, &value), std::string("read attribute ") + name);
  return value;
}

std::string read_string_attribute(hid_t obj, const char* name) {
  H5Id attr =
      checked(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, std::string("open attribute ") + name);
  H5Id ftype = checked(H5Aget_type(attr), H5Tclose, "get an attribute type");
  if (H5Tget_class(ftype) != H5T_STRING)
    throw InternalError(std::string("attribute ") + name + " is not a string");
  if (H5Tis_variable_str(ftype) > 0) {
    H5Id mtype = checked(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
    check(H5Tset_size(mtype, H5T_VARIABLE), "size a string type");
    char* s = nullptr;
    check(H5Aread(attr, mtype, &s), std::string("read attribute ") + name);
    std::string out = s ? s : "";
    H5free_memory(s);
    return out;
  }
  const std::size_t size = H5Tget_size(ftype);
  std::string buf(size, '\0');
  check(H5Aread(attr, ftype, buf.data()), std::string("read attribute ") + name);
  buf.resize(std::strlen(buf.c_str())); // strip NUL padding
  return buf;
}

/// Writes one shared file: with MPI-IO every rank creates and writes collectively; otherwise
/// rank 0 creates the file and every rank, in rank order, opens it, writes, closes and passes a
/// token on. `body` creates (or opens) datasets and writes this rank's part.
void write_shared(MPI_Comm comm, const std::string& path, ParallelIo mode,
                  const std::function<void(const SharedFile&)>& body) {
  QuietHdf5 quiet;
  const int rank = rank_of(comm), size = size_of(comm);
  std::string error;
  if (use_mpio(mode)) {
    try {
      H5Id fapl = file_access(comm, true);
      H5Id file = checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), H5Fclose,
                          "create " + path);
      body(SharedFile{file, true, true});
      check(file.close(), "close " + path);
    } catch (const std::exception& e) {
      error = e.what();
    }
  } else {
    const int tag = 7301; // on a communicator private to this call
    int ok = 1;
    if (rank > 0) MPI_Recv(&ok, 1, MPI_INT, rank - 1, tag, comm, MPI_STATUS_IGNORE);
    if (ok) {
      try {
        H5Id fapl = file_access(comm, false);
        H5Id file = rank == 0 ? checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl),
                                        H5Fclose, "create " + path)
                              : checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl), H5Fclose,
                                        "open " + path);
        body(SharedFile{file, rank == 0, false});
        check(file.close(), "close " + path);
      } catch (const std::exception& e) {
        error = e.what();
        ok = 0;
      }
    }
    if (rank + 1 < size) MPI_Send(&ok, 1, MPI_INT, rank + 1, tag, comm);
  }
  agree(comm, error, false);
}

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

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

} // namespace

// ------------------------------------------------------------------------------------------------
// Directories
// ------------------------------------------------------------------------------------------------

void create_directory(MPI_Comm comm, const std::string& directory) {
  std::string error;
  if (rank_of(comm) == 0 && !directory.empty()) {
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec || !fs::is_directory(directory))
      error = directory + ": cannot create output directory (" + ec.message() + ")";
  }
  agree(comm, error, true);
}

// ------------------------------------------------------------------------------------------------
// Snapshots
// ------------------------------------------------------------------------------------------------

SnapshotWriter::SnapshotWriter(MPI_Comm comm, std::string directory, std::string name,
                               int points_per_element, int cells_per_element,
                               std::int64_t nelem_global, ParallelIo mode)
    : directory_(std::move(directory)), name_(std::move(name)), npts_(points_per_element),
      ncells_(cells_per_element), nelem_global_(nelem_global), mode_(mode) {
  n_ = int(std::lround(std::cbrt(double(points_per_element))));
  DG_VERIFY(n_ >= 2 && n_ * n_ * n_ == points_per_element &&
                (n_ - 1) * (n_ - 1) * (n_ - 1) == cells_per_element,
            "snapshot lattice: points_per_element = "
                << points_per_element << " must be n^3 and cells_per_element = "
                << cells_per_element << " (n-1)^3 with n >= 2");
  DG_VERIFY(nelem_global >= 0, "nelem_global = " << nelem_global);
  MPI_Comm_dup(comm, &comm_);
  create_directory(comm_, directory_);
  if (rank_of(comm_) == 0) adopt_existing();
}

void SnapshotWriter::adopt_existing() {
  // Snapshots of an earlier run in the same directory (a restart continues its collection). Only
  // files of this writer's size are taken; the first write() drops every index >= its own, so a
  // fresh run starting at index 0 never lists stale files.
  QuietHdf5 quiet;
  const std::string prefix = name_ + "_";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory_, ec)) {
    const std::string f = entry.path().filename().string();
    if (f.size() <= prefix.size() + 3 || f.compare(0, prefix.size(), prefix) != 0 ||
        f.compare(f.size() - 3, 3, ".h5") != 0)
      continue;
    const std::string digits = f.substr(prefix.size(), f.size() - prefix.size() - 3);
    if (digits.size() < 5 || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    try {
      H5Id file = checked(H5Fopen(entry.path().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                          "open " + f);
      Entry e{read_attribute<double>(file, "time", H5T_NATIVE_DOUBLE), f, {}};
      {
        H5Id dset = checked(H5Dopen2(file, "coordinates", H5P_DEFAULT), H5Dclose, "open");
        H5Id space = checked(H5Dget_space(dset), H5Sclose, "space");
        hsize_t dims[2] = {0, 0};
        if (H5Sget_simple_extent_ndims(space) != 2) continue;
        H5Sget_simple_extent_dims(space, dims, nullptr);
        if (std::int64_t(dims[0]) != nelem_global_ * npts_) continue; // another mesh or lattice
      }
      H5G_info_t info;
      check(H5Gget_info(file, &info), "list " + f);
      for (hsize_t i = 0; i < info.nlinks; ++i) {
        char buf[256] = {0};
        if (H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, buf, sizeof buf,
                               H5P_DEFAULT) < 0)
          continue;
        const std::string link = buf;
        if (link != "coordinates" && link != "u" && link != "connectivity" && link != "element_id")
          e.fields.push_back(link);
      }
      entries_[std::stoi(digits)] = e;
    } catch (const std::exception&) {
      // Not a readable snapshot: leave it out of the collection.
    }
  }
}

SnapshotWriter::~SnapshotWriter() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

std::string SnapshotWriter::file_name(int index) const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%05d.h5", index);
  return name_ + buf;
}

std::string SnapshotWriter::xdmf_path() const {
  return (fs::path(directory_) / (name_ + ".xdmf")).string();
}

void SnapshotWriter::write(
    int index, double time, long step, const std::vector<std::int64_t>& global_ids,
    const std::vector<double>& xyz, const std::vector<double>& u,
    const std::vector<std::pair<std::string, std::vector<double>>>& extra_point_fields) {
  const std::int64_t nlocal = std::int64_t(global_ids.size());
  const std::size_t npts_local = std::size_t(nlocal) * std::size_t(npts_);
  {
    std::ostringstream err;
    if (xyz.size() != 3 * npts_local)
      err << "snapshot: xyz has " << xyz.size() << " values, expected " << 3 * npts_local;
    else if (u.size() != npts_local)
      err << "snapshot: u has " << u.size() << " values, expected " << npts_local;
    for (const auto& f : extra_point_fields) {
      const bool reserved = f.first == "coordinates" || f.first == "u" ||
                            f.first == "connectivity" || f.first == "element_id";
      const auto same = std::count_if(extra_point_fields.begin(), extra_point_fields.end(),
                                      [&](const auto& g) { return g.first == f.first; });
      if ((f.first.empty() || reserved || same > 1 || f.first.find('/') != std::string::npos) &&
          err.str().empty())
        err << "snapshot: field name '" << f.first
            << "' is empty, reserved, repeated or contains '/'";
    }
    for (const auto& f : extra_point_fields)
      if (f.second.size() != npts_local && err.str().empty())
        err << "snapshot: field " << f.first << " has " << f.second.size() << " values, expected "
            << npts_local;
    agree(comm_, err.str(), false);
  }
  const std::int64_t total = allsum(comm_, nlocal);
  agree(comm_,
        total == nelem_global_ ? std::string()
                               : "snapshot: ranks hold " + std::to_string(total) +
                                     " elements, expected " + std::to_string(nelem_global_),
        false);
  const std::int64_t offset = exscan(comm_, nlocal);
  // Rank 0's values label the file.
  MPI_Bcast(&time, 1, MPI_DOUBLE, 0, comm_);
  long step0 = step;
  MPI_Bcast(&step0, 1, MPI_LONG, 0, comm_);
  const std::int64_t step64 = step0;

  // Connectivity: VTK hexahedron order, point ids global (element e's points start at e*npts).
  const int n = n_;
  std::vector<std::int64_t> conn(std::size_t(nlocal) * std::size_t(ncells_) * 8);
  {
    std::size_t c = 0;
    auto id = [n](int i, int j, int k) { return std::int64_t(i + n * (j + n * k)); };
    for (std::int64_t e = 0; e < nlocal; ++e) {
      const std::int64_t base = (offset + e) * npts_;
      for (int k = 0; k + 1 < n; ++k)
        for (int j = 0; j + 1 < n; ++j)
          for (int i = 0; i + 1 < n; ++i) {
            const std::int64_t v[8] = {
                id(i, j, k),     id(i + 1, j, k),     id(i + 1, j + 1, k),     id(i, j + 1, k),
                id(i, j, k + 1), id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
            for (int a = 0; a < 8; ++a)
              conn[c++] = base + v[a];
          }
    }
  }

  const hsize_t np_global = hsize_t(nelem_global_) * hsize_t(npts_);
  const hsize_t nc_global = hsize_t(nelem_global_) * hsize_t(ncells_);
  auto run = [&](std::int64_t per) {
    std::vector<std::pair<hsize_t, hsize_t>> r;
    if (nlocal > 0) r.emplace_back(hsize_t(offset * per), hsize_t(nlocal * per));
    return r;
  };
  const std::string path = (fs::path(directory_) / file_name(index)).string();
  write_shared(comm_, path, mode_, [&](const SharedFile& f) {
    write_rows(f, "coordinates", H5T_NATIVE_DOUBLE, np_global, 3, run(npts_), xyz.data());
    write_rows(f, "u", H5T_NATIVE_DOUBLE, np_global, 0, run(npts_), u.data());
    for (const auto& field : extra_point_fields)
      write_rows(f, field.first.c_str(), H5T_NATIVE_DOUBLE, np_global, 0, run(npts_),
                 field.second.data());
    write_rows(f, "connectivity", H5T_NATIVE_INT64, nc_global, 8, run(ncells_), conn.data());
    write_rows(f, "element_id", H5T_NATIVE_INT64, hsize_t(nelem_global_), 0, run(1),
               global_ids.data());
    if (f.create) {
      write_attribute(f.file, "time", H5T_NATIVE_DOUBLE, &time);
      write_attribute(f.file, "step", H5T_NATIVE_INT64, &step64);
      write_attribute(f.file, "index", H5T_NATIVE_INT, &index);
    }
  });

  std::string error;
  if (rank_of(comm_) == 0) {
    entries_.erase(entries_.lower_bound(index), entries_.end());
    Entry entry{time, file_name(index), {}};
    for (const auto& field : extra_point_fields)
      entry.fields.push_back(field.first);
    entries_[index] = entry;
    try {
      write_xdmf();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree(comm_, error, false);
}

void SnapshotWriter::write_xdmf() const {
  const std::int64_t np = nelem_global_ * npts_, nc = nelem_global_ * ncells_;
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"3.0\">\n <Domain>\n"
    << "  <Grid Name=\"" << xml_escape(name_)
    << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  auto item = [&](const std::string& dims, const char* number_type, const std::string& file,
                  const std::string& dataset) {
    x << "     <DataItem Dimensions=\"" << dims << "\" NumberType=\"" << number_type
      << "\" Precision=\"8\" Format=\"HDF\">" << xml_escape(file) << ":/" << xml_escape(dataset)
      << "</DataItem>\n";
  };
  for (const auto& [index, e] : entries_) {
    x << "   <Grid Name=\"" << xml_escape(name_) << "_" << index << "\" GridType=\"Uniform\">\n"
      << "    <Time Value=\"" << e.time << "\"/>\n"
      << "    <Topology TopologyType=\"Hexahedron\" NumberOfElements=\"" << nc << "\">\n";
    item(std::to_string(nc) + " 8", "Int", e.file, "connectivity");
    x << "    </Topology>\n    <Geometry GeometryType=\"XYZ\">\n";
    item(std::to_string(np) + " 3", "Float", e.file, "coordinates");
    x << "    </Geometry>\n";
    std::vector<std::string> fields{"u"};
    fields.insert(fields.end(), e.fields.begin(), e.fields.end());
    for (const auto& f : fields) {
      x << "    <Attribute Name=\"" << xml_escape(f)
        << "\" AttributeType=\"Scalar\" Center=\"Node\">\n";
      item(std::to_string(np), "Float", e.file, f);
      x << "    </Attribute>\n";
    }
    x << "   </Grid>\n";
  }
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";

  // Temp name + rename: a reader (or a crash) never sees a half-written XDMF.
  const std::string path = xdmf_path(), tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << x.str();
    out.close();
    if (!out) throw InternalError("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw InternalError("cannot rename " + tmp + " to " + path);
}

// ------------------------------------------------------------------------------------------------
// Checkpoints
// ------------------------------------------------------------------------------------------------

namespace {
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

// ------------------------------------------------------------------------------------------------
// CSV
// ------------------------------------------------------------------------------------------------

CsvLog::CsvLog(MPI_Comm comm, const std::string& directory, const std::string& name,
               std::vector<std::string> header, bool append)
    : columns_(header.size()) {
  create_directory(comm, directory);
  path_ = (fs::path(directory) / (name + ".csv")).string();
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
