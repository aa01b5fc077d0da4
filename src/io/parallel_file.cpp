// Helpers of the writers (parallel_file.hpp) and the collective directory creation.
#include "parallel_file.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace dg::io {
namespace detail {

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

std::string bcast_string(MPI_Comm comm, std::string s, int root) {
  int len = int(s.size());
  MPI_Bcast(&len, 1, MPI_INT, root, comm);
  s.resize(std::size_t(len));
  if (len > 0) MPI_Bcast(s.data(), len, MPI_CHAR, root, comm);
  return s;
}

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

H5Id checked(hid_t id, herr_t (*close)(hid_t), const std::string& what) {
  if (id < 0) throw InternalError("HDF5: cannot " + what);
  return H5Id(id, close);
}
void check(herr_t s, const std::string& what) {
  if (s < 0) throw InternalError("HDF5: cannot " + what);
}

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

H5Id memory_space(hsize_t selected) {
  const hsize_t mdims[1] = {std::max<hsize_t>(selected, 1)};
  H5Id memspace = checked(H5Screate_simple(1, mdims, nullptr), H5Sclose, "create a dataspace");
  if (selected == 0) check(H5Sselect_none(memspace), "select nothing");
  return memspace;
}

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

} // namespace detail

void create_directory(MPI_Comm comm, const std::string& directory) {
  std::string error;
  if (detail::rank_of(comm) == 0 && !directory.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec || !std::filesystem::is_directory(directory))
      error = directory + ": cannot create output directory (" + ec.message() + ")";
  }
  detail::agree(comm, error, true);
}

} // namespace dg::io
