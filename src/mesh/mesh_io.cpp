// The HDF5 mesh file (docs/mesh-format.md) and its XDMF companion, with plain serial HDF5: the
// file is written by one process and read by each rank that needs it.
#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"
#include "dg/mesh/qk_map.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace dg::mesh {

namespace {

constexpr const char* format_name = "dgsolve-mesh";
constexpr int format_version = 2; // written; versions 1 and 2 are read

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class H5Handle {
public:
  H5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void quiet_hdf5() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

void write_string_attr(hid_t obj, const char* name, const std::string& value,
                       const std::string& path) {
  H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size() + 1);
  H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Handle attr(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.ok() || H5Awrite(attr.get(), type.get(), value.c_str()) < 0)
    throw InternalError(path + ": cannot write attribute " + name);
}

void write_2d(hid_t file, const char* name, hid_t filetype, hid_t memtype, const void* data,
              hsize_t rows, hsize_t cols, const std::string& path) {
  const hsize_t dims[2] = {rows, cols};
  H5Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
  H5Handle dset(
      H5Dcreate2(file, name, filetype, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  if (!dset.ok()) throw InternalError(path + ": cannot create dataset " + name);
  if (rows > 0 && H5Dwrite(dset.get(), memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    throw InternalError(path + ": cannot write dataset " + name);
}

void write_int_attr(hid_t obj, const char* name, int value, const std::string& path) {
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Handle attr(H5Acreate2(obj, name, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose);
  if (!attr.ok() || H5Awrite(attr.get(), H5T_NATIVE_INT, &value) < 0)
    throw InternalError(path + ": cannot write attribute " + name);
}

int read_int_attr(hid_t obj, const char* name, const std::string& path) {
  if (H5Aexists(obj, name) <= 0) DG_INPUT_ERROR(path << ": attribute '" << name << "' is missing");
  H5Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  int value = -1;
  if (!attr.ok() || H5Aread(attr.get(), H5T_NATIVE_INT, &value) < 0)
    DG_INPUT_ERROR(path << ": cannot read attribute '" << name << "'");
  return value;
}

/// A 1-D dataset of fixed-length NUL-terminated strings.
void write_strings(hid_t file, const char* name, const std::vector<std::string>& v,
                   const std::string& path) {
  std::size_t len = 1;
  for (const auto& x : v)
    len = std::max(len, x.size() + 1);
  std::vector<char> buf(len * v.size(), '\0');
  for (std::size_t i = 0; i < v.size(); ++i)
    std::copy(v[i].begin(), v[i].end(), buf.begin() + std::ptrdiff_t(i * len));
  H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), len);
  H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
  const hsize_t dims[1] = {v.size()};
  H5Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
  H5Handle dset(
      H5Dcreate2(file, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  if (!dset.ok() || (!v.empty() && H5Dwrite(dset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                            buf.data()) < 0))
    throw InternalError(path + ": cannot write dataset " + name);
}

std::vector<std::string> read_strings(hid_t file, const char* name, const std::string& path) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
    DG_INPUT_ERROR(path << ": dataset /" << name << " is missing");
  H5Handle dset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  H5Handle space(H5Dget_space(dset.get()), H5Sclose);
  H5Handle type(H5Dget_type(dset.get()), H5Tclose);
  hsize_t n = 0;
  if (!dset.ok() || H5Sget_simple_extent_ndims(space.get()) != 1 ||
      H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0)
    DG_INPUT_ERROR(path << ": /" << name << " is not a 1-D dataset of fixed-length strings");
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  const std::size_t len = H5Tget_size(type.get());
  std::vector<char> buf(len * n + 1, '\0');
  H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.get(), len);
  H5Tset_strpad(mem.get(), H5T_STR_NULLTERM);
  if (n > 0 && H5Dread(dset.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
    DG_INPUT_ERROR(path << ": cannot read dataset /" << name);
  std::vector<std::string> out;
  for (hsize_t i = 0; i < n; ++i) {
    const char* c = buf.data() + i * len;
    out.emplace_back(c, strnlen(c, len));
  }
  return out;
}

/// Linear sub-hexes joining the node lattice of each element (k^3 per element, VTK order): what
/// the XDMF shows of a curved mesh.
std::vector<std::int64_t> lattice_hexes(const HexMesh& m) {
  const int k = m.order, n1 = k + 1;
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(m.num_elements()) * k * k * k * 8);
  for (std::int64_t e = 0; e < m.num_elements(); ++e)
    for (int c = 0; c < k; ++c)
      for (int b = 0; b < k; ++b)
        for (int a = 0; a < k; ++a)
          for (int v = 0; v < 8; ++v) {
            const int i = a + (hex::vertex_sign(v, 0) > 0 ? 1 : 0);
            const int j = b + (hex::vertex_sign(v, 1) > 0 ? 1 : 0);
            const int l = c + (hex::vertex_sign(v, 2) > 0 ? 1 : 0);
            out.push_back(m.node(e, i + n1 * (j + n1 * l)));
          }
  return out;
}

std::string read_string_attr(hid_t obj, const char* name, const std::string& path) {
  H5Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  H5Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!attr.ok() || H5Tget_class(type.get()) != H5T_STRING)
    DG_INPUT_ERROR(path << ": attribute '" << name << "' is not a string");
  if (H5Tis_variable_str(type.get()) > 0) {
    H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    char* s = nullptr;
    if (H5Aread(attr.get(), mem.get(), &s) < 0 || s == nullptr)
      DG_INPUT_ERROR(path << ": cannot read attribute '" << name << "'");
    std::string out(s);
    H5free_memory(s);
    return out;
  }
  const std::size_t n = H5Tget_size(type.get());
  std::string buf(n + 1, '\0');
  H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.get(), n + 1);
  H5Tset_strpad(mem.get(), H5T_STR_NULLTERM);
  if (H5Aread(attr.get(), mem.get(), buf.data()) < 0)
    DG_INPUT_ERROR(path << ": cannot read attribute '" << name << "'");
  return std::string(buf.c_str());
}

template <class T>
std::vector<T> read_2d(hid_t file, const char* name, hsize_t cols, H5T_class_t cls, hid_t memtype,
                       const std::string& path) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
    DG_INPUT_ERROR(path << ": dataset /" << name << " is missing");
  H5Handle dset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  if (!dset.ok()) DG_INPUT_ERROR(path << ": /" << name << " is not a dataset");
  H5Handle space(H5Dget_space(dset.get()), H5Sclose);
  H5Handle type(H5Dget_type(dset.get()), H5Tclose);
  hsize_t dims[2] = {0, 0};
  const int nd = H5Sget_simple_extent_ndims(space.get());
  if (nd != 2 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2 || dims[1] != cols)
    DG_INPUT_ERROR(path << ": dataset /" << name << " has the wrong shape (expected N x " << cols
                        << ")");
  if (H5Tget_class(type.get()) != cls)
    DG_INPUT_ERROR(path << ": dataset /" << name << " has the wrong type (expected "
                        << (cls == H5T_FLOAT ? "float64" : "int64") << ")");
  std::vector<T> v(dims[0] * cols);
  if (!v.empty() && H5Dread(dset.get(), memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    DG_INPUT_ERROR(path << ": cannot read dataset /" << name);
  return v;
}

void write_xdmf(const HexMesh& m, const std::string& xdmf_path, const std::string& h5_name) {
  std::ofstream os(xdmf_path);
  if (!os) throw InternalError(xdmf_path + ": cannot create file");
  // Curved meshes show the linear sub-hexes of their node lattices (/xdmf_hex).
  const auto ne = m.num_elements() * m.order * m.order * m.order, nv = m.num_vertices();
  const char* topo = m.order > 1 ? "xdmf_hex" : "hex";
  os << "<?xml version=\"1.0\" ?>\n"
     << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
     << "<Xdmf Version=\"3.0\">\n  <Domain>\n    <Grid Name=\"mesh\" GridType=\"Uniform\">\n"
     << "      <Topology TopologyType=\"Hexahedron\" NumberOfElements=\"" << ne << "\">\n"
     << "        <DataItem Dimensions=\"" << ne << " 8\" NumberType=\"Int\" Precision=\"8\" "
     << "Format=\"HDF\">" << h5_name << ":/" << topo << "</DataItem>\n"
     << "      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n"
     << "        <DataItem Dimensions=\"" << nv << " 3\" NumberType=\"Float\" Precision=\"8\" "
     << "Format=\"HDF\">" << h5_name << ":/coordinates</DataItem>\n"
     << "      </Geometry>\n    </Grid>\n  </Domain>\n</Xdmf>\n";
  os.close();
  if (!os) throw InternalError(xdmf_path + ": write failed");
}

} // namespace

std::vector<std::string> box_tag_names() {
  return {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
}

std::string tag_name(const std::vector<std::string>& names, int t) {
  if (t >= 0 && t < int(names.size()) && !names[std::size_t(t)].empty())
    return names[std::size_t(t)];
  return "tag" + std::to_string(t);
}

void write_mesh(const HexMesh& m, const std::string& h5_path) {
  quiet_hdf5();
  DG_VERIFY(m.coords.size() % 3 == 0 && m.hex.size() % 8 == 0 && m.boundary.size() % 3 == 0 &&
                m.periodic.size() % 4 == 0 && m.order >= 1 && m.order <= qk::max_order &&
                (m.order == 1 ? m.nodes.empty()
                              : m.nodes.size() == std::size_t(m.num_elements()) *
                                                      std::size_t(m.nodes_per_element())) &&
                (m.region.empty() || std::int64_t(m.region.size()) == m.num_elements()),
            "malformed HexMesh arrays");
  namespace fs = std::filesystem;
  const fs::path h5(h5_path);
  const std::string xdmf_path = fs::path(h5).replace_extension(".xdmf").string();
  // Written under temporary names and renamed at the end, so a failure leaves nothing behind.
  const std::string h5_tmp = h5_path + ".tmp", xdmf_tmp = xdmf_path + ".tmp";
  try {
    {
      H5Handle file(H5Fcreate(h5_tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
      if (!file.ok()) throw InternalError(h5_path + ": cannot create file");
      write_string_attr(file.get(), "format", format_name, h5_path);
      write_int_attr(file.get(), "version", format_version, h5_path);
      write_int_attr(file.get(), "order", m.order, h5_path);
      write_string_attr(file.get(), "command", m.command, h5_path);
      if (m.order > 1) {
        const std::vector<std::int64_t> sub = lattice_hexes(m);
        write_2d(file.get(), "nodes", H5T_STD_I64LE, H5T_NATIVE_INT64, m.nodes.data(),
                 m.nodes.size() / m.nodes_per_element(), m.nodes_per_element(), h5_path);
        write_2d(file.get(), "xdmf_hex", H5T_STD_I64LE, H5T_NATIVE_INT64, sub.data(),
                 sub.size() / 8, 8, h5_path);
      }
      write_strings(file.get(), "tag_names", m.tag_names, h5_path);
      if (!m.region.empty()) {
        write_2d(file.get(), "region", H5T_STD_I64LE, H5T_NATIVE_INT64, m.region.data(),
                 m.region.size(), 1, h5_path);
        write_strings(file.get(), "region_names", m.region_names, h5_path);
      }
      write_2d(file.get(), "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m.coords.data(),
               m.coords.size() / 3, 3, h5_path);
      write_2d(file.get(), "hex", H5T_STD_I64LE, H5T_NATIVE_INT64, m.hex.data(), m.hex.size() / 8,
               8, h5_path);
      write_2d(file.get(), "boundary", H5T_STD_I64LE, H5T_NATIVE_INT64, m.boundary.data(),
               m.boundary.size() / 3, 3, h5_path);
      write_2d(file.get(), "periodic", H5T_STD_I64LE, H5T_NATIVE_INT64, m.periodic.data(),
               m.periodic.size() / 4, 4, h5_path);
      if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0)
        throw InternalError(h5_path + ": flush failed");
    }
    write_xdmf(m, xdmf_tmp, h5.filename().string());
    std::error_code ec;
    fs::rename(h5_tmp, h5_path, ec);
    if (ec) throw InternalError(h5_path + ": cannot rename from " + h5_tmp + ": " + ec.message());
    fs::rename(xdmf_tmp, xdmf_path, ec);
    if (ec)
      throw InternalError(xdmf_path + ": cannot rename from " + xdmf_tmp + ": " + ec.message());
  } catch (...) {
    std::error_code ec;
    fs::remove(h5_tmp, ec);
    fs::remove(xdmf_tmp, ec);
    throw;
  }
}

HexMesh read_mesh(const std::string& path) {
  quiet_hdf5();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) DG_INPUT_ERROR(path << ": mesh file not found");
#if H5_VERSION_GE(1, 12, 0)
  const htri_t is_h5 = H5Fis_accessible(path.c_str(), H5P_DEFAULT); // H5Fis_hdf5 is deprecated
#else
  const htri_t is_h5 = H5Fis_hdf5(path.c_str());
#endif
  if (is_h5 <= 0) DG_INPUT_ERROR(path << ": not an HDF5 file");
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) DG_INPUT_ERROR(path << ": cannot open HDF5 file");
  if (H5Aexists(file.get(), "format") <= 0)
    DG_INPUT_ERROR(path << ": not a dgsolve mesh file (no 'format' attribute)");
  const std::string fmt = read_string_attr(file.get(), "format", path);
  if (fmt != format_name)
    DG_INPUT_ERROR(path << ": format = '" << fmt << "': expected '" << format_name << "'");
  const int version = read_int_attr(file.get(), "version", path);
  if (version != 1 && version != 2)
    DG_INPUT_ERROR(path << ": version = " << version << ": this build reads versions 1 and 2");
  HexMesh m;
  if (H5Aexists(file.get(), "command") > 0)
    m.command = read_string_attr(file.get(), "command", path);
  m.coords = read_2d<double>(file.get(), "coordinates", 3, H5T_FLOAT, H5T_NATIVE_DOUBLE, path);
  m.hex = read_2d<std::int64_t>(file.get(), "hex", 8, H5T_INTEGER, H5T_NATIVE_INT64, path);
  m.boundary =
      read_2d<std::int64_t>(file.get(), "boundary", 3, H5T_INTEGER, H5T_NATIVE_INT64, path);
  m.periodic =
      read_2d<std::int64_t>(file.get(), "periodic", 4, H5T_INTEGER, H5T_NATIVE_INT64, path);
  if (version >= 2) {
    m.order = read_int_attr(file.get(), "order", path);
    if (m.order < 1 || m.order > qk::max_order)
      DG_INPUT_ERROR(path << ": order = " << m.order << ": geometric orders 1 to " << qk::max_order
                          << " are supported");
    if (m.order > 1) {
      m.nodes = read_2d<std::int64_t>(file.get(), "nodes", m.nodes_per_element(), H5T_INTEGER,
                                      H5T_NATIVE_INT64, path);
      if (m.nodes.size() != std::size_t(m.num_elements()) * m.nodes_per_element())
        DG_INPUT_ERROR(path << ": /nodes has " << m.nodes.size() / m.nodes_per_element()
                            << " rows for " << m.num_elements() << " elements");
    }
    m.tag_names = read_strings(file.get(), "tag_names", path);
    if (H5Lexists(file.get(), "region", H5P_DEFAULT) > 0) {
      m.region =
          read_2d<std::int64_t>(file.get(), "region", 1, H5T_INTEGER, H5T_NATIVE_INT64, path);
      m.region_names = read_strings(file.get(), "region_names", path);
      if (std::int64_t(m.region.size()) != m.num_elements())
        DG_INPUT_ERROR(path << ": /region has " << m.region.size() << " rows for "
                            << m.num_elements() << " elements");
    }
  } else {
    // Version 1 files carry no tag names: their tags are the box tags of dgmesh.
    m.tag_names = box_tag_names();
  }
  const std::int64_t nv = m.num_vertices(), ne = m.num_elements();
  if (ne == 0) DG_INPUT_ERROR(path << ": /hex holds no elements");
  for (double x : m.coords)
    if (!std::isfinite(x)) DG_INPUT_ERROR(path << ": /coordinates holds a non-finite value");
  for (std::size_t i = 0; i < m.hex.size(); ++i)
    if (m.hex[i] < 0 || m.hex[i] >= nv)
      DG_INPUT_ERROR(path << ": /hex[" << i / 8 << "][" << i % 8 << "] = " << m.hex[i]
                          << ": vertex id out of range [0, " << nv << ")");
  for (std::size_t i = 0; i < m.boundary.size(); i += 3)
    if (m.boundary[i] < 0 || m.boundary[i] >= ne || m.boundary[i + 1] < 0 ||
        m.boundary[i + 1] > 5 || m.boundary[i + 2] < 0)
      DG_INPUT_ERROR(path << ": /boundary[" << i / 3 << "] = (" << m.boundary[i] << ", "
                          << m.boundary[i + 1] << ", " << m.boundary[i + 2]
                          << "): expected element in [0, " << ne << "), face 0..5, tag >= 0");
  for (std::size_t i = 0; i < m.periodic.size(); i += 4)
    if (m.periodic[i] < 0 || m.periodic[i] >= ne || m.periodic[i + 2] < 0 ||
        m.periodic[i + 2] >= ne || m.periodic[i + 1] < 0 || m.periodic[i + 1] > 5 ||
        m.periodic[i + 3] < 0 || m.periodic[i + 3] > 5)
      DG_INPUT_ERROR(path << ": /periodic[" << i / 4 << "]: expected elements in [0, " << ne
                          << ") and faces 0..5");
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i] < 0 || m.nodes[i] >= nv)
      DG_INPUT_ERROR(path << ": /nodes[" << i / m.nodes_per_element() << "]["
                          << i % m.nodes_per_element() << "] = " << m.nodes[i]
                          << ": vertex id out of range [0, " << nv << ")");
  for (int v = 0; v < 8 && m.order > 1; ++v)
    for (std::int64_t e = 0; e < ne; ++e)
      if (m.node(e, qk::corner_node(m.order, v)) != m.hex[8 * e + v])
        DG_INPUT_ERROR(path << ": element " << e << ": corner " << v << " of /hex is not node "
                            << qk::corner_node(m.order, v) << " of /nodes");
  const std::int64_t bad = first_inverted_element(m);
  if (bad >= 0)
    DG_INPUT_ERROR(path << ": element " << bad
                        << " is inverted (det J = " << min_corner_jacobian(m, bad)
                        << " <= 0 at a corner, the centre or a quadrature point)");
  return m;
}

} // namespace dg::mesh
