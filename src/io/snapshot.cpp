// HDF5+XDMF snapshots (dg/io/snapshot.hpp): one shared HDF5 file per snapshot, collective MPI-IO
// with parallel HDF5, ranks in turn (token passing) with serial HDF5; both produce the same file.
#include "dg/io/snapshot.hpp"

#include "parallel_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dg::io {
using namespace detail;
namespace {

namespace fs = std::filesystem;

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

} // namespace dg::io
