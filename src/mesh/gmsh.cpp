// Gmsh MSH reader (versions 2.2 and 4.1, ASCII and binary): all-hex meshes of geometric order 1,
// 2 or 3, physical surfaces as named boundary tags, physical volumes as regions, periodic
// surfaces as periodic face pairs. Every problem is one InputError line naming the file.
#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"
#include "dg/mesh/qk_map.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace dg::mesh {

namespace {

/// Gmsh element types this reader knows: name, node count, what it is.
enum class Kind { point, line, triangle, quad, tet, hex, prism, pyramid, hex_incomplete };
struct ElementType {
  int type, nodes;
  Kind kind;
  int order;
};
constexpr ElementType known_types[] = {{15, 1, Kind::point, 1},
                                       {1, 2, Kind::line, 1},
                                       {8, 3, Kind::line, 2},
                                       {26, 4, Kind::line, 3},
                                       {2, 3, Kind::triangle, 1},
                                       {9, 6, Kind::triangle, 2},
                                       {20, 9, Kind::triangle, 3},
                                       {21, 10, Kind::triangle, 3},
                                       {3, 4, Kind::quad, 1},
                                       {16, 8, Kind::quad, 2},
                                       {10, 9, Kind::quad, 2},
                                       {36, 16, Kind::quad, 3},
                                       {4, 4, Kind::tet, 1},
                                       {11, 10, Kind::tet, 2},
                                       {29, 20, Kind::tet, 3},
                                       {5, 8, Kind::hex, 1},
                                       {12, 27, Kind::hex, 2},
                                       {92, 64, Kind::hex, 3},
                                       {17, 20, Kind::hex_incomplete, 2},
                                       {6, 6, Kind::prism, 1},
                                       {13, 18, Kind::prism, 2},
                                       {18, 15, Kind::prism, 2},
                                       {90, 40, Kind::prism, 3},
                                       {7, 5, Kind::pyramid, 1},
                                       {14, 14, Kind::pyramid, 2},
                                       {19, 13, Kind::pyramid, 2},
                                       {118, 30, Kind::pyramid, 3}};

const ElementType* find_type(int type) {
  for (const ElementType& t : known_types)
    if (t.type == type) return &t;
  return nullptr;
}

// Gmsh's local node i of a hexahedron of order 2 / 3 -> lexicographic node (dg/mesh/qk_map.hpp).
// Found from Gmsh's reference element: vertices, then edge nodes, face nodes and interior nodes.
constexpr int gmsh_hex27[27] = {0,  2,  8,  6,  18, 20, 26, 24, 1,  3,  9,  5,  11, 7,
                                17, 15, 19, 21, 23, 25, 4,  10, 12, 14, 16, 22, 13};
constexpr int gmsh_hex64[64] = {0,  3,  15, 12, 48, 51, 63, 60, 1,  2,  4,  8,  16, 32, 7,  11,
                                19, 35, 14, 13, 31, 47, 28, 44, 49, 50, 52, 56, 55, 59, 62, 61,
                                5,  9,  10, 6,  17, 18, 34, 33, 20, 36, 40, 24, 23, 27, 43, 39,
                                30, 29, 45, 46, 53, 54, 58, 57, 21, 22, 26, 25, 37, 38, 42, 41};

std::string what_is(const ElementType& t) {
  switch (t.kind) {
  case Kind::tet:
    return "a tetrahedron";
  case Kind::prism:
    return "a prism";
  case Kind::pyramid:
    return "a pyramid";
  case Kind::triangle:
    return "a triangle";
  default:
    return "an element";
  }
}

/// A cursor over the whole file: ASCII tokens and lines, and little-endian binary values.
class Cursor {
public:
  Cursor(std::string data, std::string path) : s_(std::move(data)), path_(std::move(path)) {}
  std::string section = "$MeshFormat";
  bool binary = false;

  [[noreturn]] void truncated() const {
    DG_INPUT_ERROR(path_ << ": truncated file: it ends inside " << section
                         << " (write the mesh again)");
  }
  [[noreturn]] void bad(const std::string& what) const {
    DG_INPUT_ERROR(path_ << ": " << section << ": " << what);
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= s_.size();
  }
  std::string token() {
    skip_space();
    if (pos_ >= s_.size()) truncated();
    const std::size_t a = pos_;
    while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
    return s_.substr(a, pos_ - a);
  }
  /// The rest of the current line (after a token), without the line end.
  std::string rest_of_line() {
    const std::size_t a = pos_;
    while (pos_ < s_.size() && s_[pos_] != '\n')
      ++pos_;
    std::string out = s_.substr(a, pos_ - a);
    if (pos_ < s_.size()) ++pos_;
    if (!out.empty() && out.back() == '\r') out.pop_back();
    return out;
  }
  long long ascii_int() {
    const std::string t = token();
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (end == t.c_str() || *end != '\0') {
      if (t.rfind("$End", 0) == 0) truncated();
      bad("'" + t + "' is not an integer");
    }
    return v;
  }
  double ascii_real() {
    const std::string t = token();
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0') {
      if (t.rfind("$End", 0) == 0) truncated();
      bad("'" + t + "' is not a number");
    }
    return v;
  }
  template <class T>
  T raw() {
    if (pos_ + sizeof(T) > s_.size()) truncated();
    T v;
    std::memcpy(&v, s_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  /// A size_t-sized count (4.1 binary) or an ASCII integer.
  long long count() { return binary ? static_cast<long long>(raw<std::uint64_t>()) : ascii_int(); }
  long long int4() { return binary ? raw<std::int32_t>() : ascii_int(); }
  double real() { return binary ? raw<double>() : ascii_real(); }
  /// After binary data: the line end before the next section keyword.
  void end(const std::string& name) {
    const std::string t = at_end() ? std::string() : token();
    if (t.empty()) truncated();
    if (t != "$End" + name) {
      if (pos_ >= s_.size()) truncated(); // the keyword itself is cut
      bad("expected $End" + name + ", found '" + t.substr(0, 20) + "'");
    }
    section = "the file";
  }
  void skip_section(const std::string& name) {
    const std::string key = "$End" + name;
    const std::size_t at = s_.find(key, pos_);
    if (at == std::string::npos) truncated();
    pos_ = at + key.size();
    section = "the file";
  }

private:
  std::string s_;
  std::string path_;
  std::size_t pos_ = 0;
};

struct RawElement {
  int type;
  int entity;   // elementary entity tag
  int physical; // MSH 2.2: first physical tag (0: none); 4.1: from $Entities
  std::int64_t id;
  std::vector<std::int64_t> nodes; // node tags
};

struct PeriodicLink {
  int dim, slave, master;
  std::vector<double> affine; // 16 values, row-major 4x4: master -> slave, or empty
  std::vector<std::pair<std::int64_t, std::int64_t>> nodes; // slave tag, master tag
};

struct Raw {
  double version = 0.0;
  std::map<std::pair<int, int>, std::string> names;    // (dim, physical tag) -> name
  std::map<std::pair<int, int>, std::vector<int>> ent; // (dim, entity) -> physical tags
  std::unordered_map<std::int64_t, std::int64_t> node_index;
  std::vector<double> xyz;
  std::vector<RawElement> elements;
  std::vector<PeriodicLink> periodic;
  bool has_nodes = false, has_elements = false;
};

void read_physical_names(Cursor& c, Raw& r) {
  const long long n = c.ascii_int();
  for (long long i = 0; i < n; ++i) {
    const int dim = int(c.ascii_int()), tag = int(c.ascii_int());
    std::string name = c.rest_of_line();
    const std::size_t a = name.find('"'), b = name.rfind('"');
    if (a == std::string::npos || b == a) c.bad("a physical name is not quoted");
    r.names[{dim, tag}] = name.substr(a + 1, b - a - 1);
  }
  c.end("PhysicalNames");
}

void read_entities(Cursor& c, Raw& r) {
  long long n[4];
  for (auto& x : n)
    x = c.count();
  for (int dim = 0; dim < 4; ++dim)
    for (long long i = 0; i < n[dim]; ++i) {
      const int tag = int(c.int4());
      for (int k = 0; k < (dim == 0 ? 3 : 6); ++k)
        c.real();
      const long long np = c.count();
      if (np < 0 || np > 1000000) c.bad("bad physical tag count");
      std::vector<int> phys;
      for (long long k = 0; k < np; ++k)
        phys.push_back(int(c.int4()));
      r.ent[{dim, tag}] = phys;
      if (dim > 0) {
        const long long nb = c.count();
        if (nb < 0 || nb > 100000000) c.bad("bad bounding entity count");
        for (long long k = 0; k < nb; ++k)
          c.int4();
      }
    }
  c.end("Entities");
}

void add_node(Cursor& c, Raw& r, std::int64_t tag, double x, double y, double z) {
  if (!r.node_index.emplace(tag, std::int64_t(r.xyz.size() / 3)).second)
    c.bad("node " + std::to_string(tag) + " is defined twice");
  r.xyz.insert(r.xyz.end(), {x, y, z});
}

void read_nodes(Cursor& c, Raw& r) {
  r.has_nodes = true;
  if (r.version < 4) {
    const long long n = c.ascii_int();
    if (c.binary) c.rest_of_line();
    for (long long i = 0; i < n; ++i) {
      const std::int64_t tag = c.binary ? c.raw<std::int32_t>() : c.ascii_int();
      const double x = c.real(), y = c.real(), z = c.real();
      add_node(c, r, tag, x, y, z);
    }
    c.end("Nodes");
    return;
  }
  const long long blocks = c.count();
  c.count(); // number of nodes
  c.count(); // min tag
  c.count(); // max tag
  for (long long b = 0; b < blocks; ++b) {
    const int dim = int(c.int4());
    c.int4(); // entity tag
    const int parametric = int(c.int4());
    const long long n = c.count();
    if (n < 0) c.bad("negative node count");
    std::vector<std::int64_t> tags(static_cast<std::size_t>(n));
    for (auto& t : tags)
      t = c.count();
    for (long long i = 0; i < n; ++i) {
      const double x = c.real(), y = c.real(), z = c.real();
      for (int k = 0; k < (parametric ? dim : 0); ++k)
        c.real();
      add_node(c, r, tags[std::size_t(i)], x, y, z);
    }
  }
  c.end("Nodes");
}

const ElementType& checked_type(Cursor& c, int type) {
  const ElementType* t = find_type(type);
  if (!t)
    c.bad("element type " + std::to_string(type) +
          " is not supported (dgsolve reads hexahedra of order 1 to 3 and their quadrilateral "
          "faces)");
  return *t;
}

void read_elements(Cursor& c, Raw& r) {
  r.has_elements = true;
  if (r.version < 4) {
    const long long n = c.ascii_int();
    if (c.binary) c.rest_of_line();
    long long done = 0;
    while (done < n) {
      if (c.binary) {
        const int type = c.raw<std::int32_t>(), follow = c.raw<std::int32_t>(),
                  ntags = c.raw<std::int32_t>();
        const ElementType& t = checked_type(c, type);
        if (follow <= 0 || ntags < 0) c.bad("bad element block header");
        for (int i = 0; i < follow; ++i) {
          RawElement e{type, 0, 0, c.raw<std::int32_t>(), {}};
          for (int k = 0; k < ntags; ++k) {
            const int v = c.raw<std::int32_t>();
            if (k == 0) e.physical = v;
            if (k == 1) e.entity = v;
          }
          for (int k = 0; k < t.nodes; ++k)
            e.nodes.push_back(c.raw<std::int32_t>());
          r.elements.push_back(std::move(e));
        }
        done += follow;
      } else {
        RawElement e{0, 0, 0, c.ascii_int(), {}};
        e.type = int(c.ascii_int());
        const ElementType& t = checked_type(c, e.type);
        const long long ntags = c.ascii_int();
        for (long long k = 0; k < ntags; ++k) {
          const int v = int(c.ascii_int());
          if (k == 0) e.physical = v;
          if (k == 1) e.entity = v;
        }
        for (int k = 0; k < t.nodes; ++k)
          e.nodes.push_back(c.ascii_int());
        r.elements.push_back(std::move(e));
        ++done;
      }
    }
    c.end("Elements");
    return;
  }
  const long long blocks = c.count();
  c.count();
  c.count();
  c.count();
  for (long long b = 0; b < blocks; ++b) {
    const int dim = int(c.int4()), entity = int(c.int4()), type = int(c.int4());
    const long long n = c.count();
    const ElementType& t = checked_type(c, type);
    auto it = r.ent.find({dim, entity});
    const int phys = it != r.ent.end() && !it->second.empty() ? it->second[0] : 0;
    for (long long i = 0; i < n; ++i) {
      RawElement e{type, entity, phys, static_cast<std::int64_t>(c.count()), {}};
      for (int k = 0; k < t.nodes; ++k)
        e.nodes.push_back(c.count());
      r.elements.push_back(std::move(e));
    }
  }
  c.end("Elements");
}

void read_periodic(Cursor& c, Raw& r) {
  // MSH 2.2 writes this section in ASCII even in binary files.
  const bool bin = c.binary && r.version >= 4;
  const bool saved = c.binary;
  c.binary = bin;
  const long long n = c.count();
  for (long long i = 0; i < n; ++i) {
    PeriodicLink l;
    l.dim = int(c.int4());
    l.slave = int(c.int4());
    l.master = int(c.int4());
    if (r.version >= 4) {
      const long long na = c.count();
      for (long long k = 0; k < na; ++k)
        l.affine.push_back(c.real());
    }
    long long nn;
    if (r.version < 4) {
      std::string t = c.token();
      if (t == "Affine") {
        for (int k = 0; k < 16; ++k)
          l.affine.push_back(c.ascii_real());
        t = c.token();
      }
      nn = std::strtoll(t.c_str(), nullptr, 10);
    } else {
      nn = c.count();
    }
    for (long long k = 0; k < nn; ++k) {
      const std::int64_t a = c.count(), b = c.count();
      l.nodes.emplace_back(a, b);
    }
    r.periodic.push_back(std::move(l));
  }
  c.binary = saved;
  c.end("Periodic");
}

Raw parse(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  if (!is) DG_INPUT_ERROR(path << ": mesh file not found");
  std::ostringstream ss;
  ss << is.rdbuf();
  Cursor c(ss.str(), path);
  Raw r;
  if (c.at_end() || c.token() != "$MeshFormat")
    DG_INPUT_ERROR(path << ": not a Gmsh mesh file (it does not start with $MeshFormat)");
  const std::string version = c.token();
  const long long file_type = c.ascii_int();
  const long long data_size = c.ascii_int();
  if (version != "4.1" && version != "2.2")
    DG_INPUT_ERROR(path << ": MSH version " << version
                        << " is not supported: write MSH 4.1 or 2.2 (gmsh -format msh41 or "
                           "-format msh22)");
  r.version = std::atof(version.c_str());
  if (data_size != 8) c.bad("data size " + std::to_string(data_size) + ": expected 8");
  c.binary = file_type == 1;
  if (c.binary) {
    c.rest_of_line();
    if (c.raw<std::int32_t>() != 1)
      c.bad("the binary file has the other byte order (not little-endian)");
  }
  c.end("MeshFormat");
  while (!c.at_end()) {
    const std::string t = c.token();
    if (t.size() < 2 || t[0] != '$')
      DG_INPUT_ERROR(path << ": expected a section ($Nodes, $Elements, ...), found '"
                          << t.substr(0, 20) << "'");
    const std::string name = t.substr(1);
    c.section = t;
    if (c.binary) c.rest_of_line(); // binary data starts on the next line
    if (name == "PhysicalNames")
      read_physical_names(c, r);
    else if (name == "Entities" && r.version >= 4)
      read_entities(c, r);
    else if (name == "Nodes")
      read_nodes(c, r);
    else if (name == "Elements")
      read_elements(c, r);
    else if (name == "Periodic")
      read_periodic(c, r);
    else if (name == "PartitionedEntities")
      DG_INPUT_ERROR(path << ": the mesh is partitioned by Gmsh: write it unpartitioned "
                             "(dgsolve partitions it)");
    else
      c.skip_section(name);
  }
  if (!r.has_nodes || !r.has_elements)
    DG_INPUT_ERROR(path << ": no $" << (r.has_nodes ? "Elements" : "Nodes") << " section");
  return r;
}

std::array<std::int64_t, 4> sorted4(std::array<std::int64_t, 4> k) {
  std::sort(k.begin(), k.end());
  return k;
}

} // namespace

HexMesh read_gmsh(const std::string& path) {
  const Raw r = parse(path);
  HexMesh m;

  // Hexahedra, one geometric order; anything three-dimensional that is not a hex is refused.
  std::map<int, std::int64_t> hex_orders; // order -> count
  std::vector<const RawElement*> hexes, quads;
  // The first element that is not part of an all-hex mesh: a volume element (tetrahedron, prism,
  // pyramid) is named before a boundary triangle, since that is what the user has to change.
  const RawElement* foreign = nullptr;
  for (const RawElement& e : r.elements) {
    const Kind kind = find_type(e.type)->kind;
    if (kind == Kind::tet || kind == Kind::prism || kind == Kind::pyramid) {
      foreign = &e;
      break;
    }
    if (kind == Kind::triangle && !foreign) foreign = &e;
  }
  if (foreign) {
    const ElementType& t = *find_type(foreign->type);
    DG_INPUT_ERROR(path << ": element " << foreign->id << " is " << what_is(t) << " (Gmsh type "
                        << t.type
                        << "): dgsolve needs all-hex meshes; in Gmsh recombine (Recombine "
                           "Surface and Extrude with Layers and Recombine, or Mesh.RecombineAll "
                           "= 1 with Mesh.SubdivisionAlgorithm = 2) or use Transfinite Volume");
  }
  for (const RawElement& e : r.elements) {
    const ElementType& t = *find_type(e.type);
    if (t.kind == Kind::hex_incomplete)
      DG_INPUT_ERROR(path << ": element " << e.id
                          << " is a 20-node (incomplete) hexahedron: set "
                             "Mesh.SecondOrderIncomplete = 0 for 27-node hexahedra");
    if (t.kind == Kind::hex) {
      ++hex_orders[t.order];
      hexes.push_back(&e);
    }
    if (t.kind == Kind::quad) quads.push_back(&e);
  }
  if (hexes.empty())
    DG_INPUT_ERROR(path << ": the mesh has no hexahedra (mesh it in 3-D: gmsh FILE.geo -3)");
  if (hex_orders.size() > 1) {
    std::ostringstream os;
    for (auto [k, n] : hex_orders)
      os << (os.tellp() > 0 ? " and " : "") << n << " of order " << k;
    DG_INPUT_ERROR(path << ": mixed geometric orders: " << os.str()
                        << " hexahedra; mesh with one order (gmsh -order K)");
  }
  m.order = hex_orders.begin()->first;
  const int k = m.order, nn = (k + 1) * (k + 1) * (k + 1);
  const int* perm = k == 2 ? gmsh_hex27 : gmsh_hex64;

  // Vertices: the nodes the hexahedra use, in order of first use.
  std::unordered_map<std::int64_t, std::int64_t> vid; // node tag -> vertex id
  auto vertex = [&](std::int64_t tag, std::int64_t elem) {
    auto it = vid.find(tag);
    if (it != vid.end()) return it->second;
    auto src = r.node_index.find(tag);
    if (src == r.node_index.end())
      DG_INPUT_ERROR(path << ": element " << elem << " uses node " << tag
                          << ", which $Nodes does not define");
    const std::int64_t id = std::int64_t(m.coords.size() / 3);
    for (int d = 0; d < 3; ++d)
      m.coords.push_back(r.xyz[3 * src->second + d]);
    vid.emplace(tag, id);
    return id;
  };
  std::set<int> volume_phys;
  for (const RawElement* e : hexes)
    volume_phys.insert(e->physical);
  if (volume_phys.size() == 1 && *volume_phys.begin() <= 0) volume_phys.clear(); // no regions
  const std::int64_t ne = std::int64_t(hexes.size());
  m.hex.resize(8 * ne);
  if (k > 1) m.nodes.resize(std::size_t(nn) * ne);
  if (!volume_phys.empty()) m.region.resize(ne);
  for (std::int64_t e = 0; e < ne; ++e) {
    const RawElement& h = *hexes[e];
    for (int v = 0; v < 8; ++v)
      m.hex[8 * e + v] = vertex(h.nodes[v], h.id); // Gmsh's corner order is VTK's
    for (int i = 0; k > 1 && i < nn; ++i)
      m.nodes[std::size_t(e) * nn + perm[i]] = vertex(h.nodes[i], h.id);
    if (!volume_phys.empty())
      m.region[e] = std::distance(volume_phys.begin(), volume_phys.find(h.physical));
  }
  for (int p : volume_phys) {
    auto it = r.names.find({3, p});
    m.region_names.push_back(it != r.names.end() ? it->second : "volume" + std::to_string(p));
  }

  // Faces: those of one element only are the boundary (or periodic).
  std::map<std::array<std::int64_t, 4>, std::vector<std::int64_t>> faces; // key -> 6 e + f
  auto face_key = [&](std::int64_t e, int f) {
    std::array<std::int64_t, 4> key;
    for (int c = 0; c < 4; ++c)
      key[c] = m.hex[8 * e + hex::face_vertex(f, c)];
    return sorted4(key);
  };
  for (std::int64_t e = 0; e < ne; ++e)
    for (int f = 0; f < 6; ++f)
      faces[face_key(e, f)].push_back(6 * e + f);

  // Periodic surfaces: a boundary face whose corners are slave nodes (of the links of the
  // surface, its curves and points) pairs with the boundary face their master nodes make. A node
  // on an edge of a doubly periodic mesh has one master per direction: every choice is tried.
  std::set<std::int64_t> paired;
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> masters; // vertex -> master vertices
  for (const PeriodicLink& l : r.periodic)
    for (auto [a, b] : l.nodes) {
      auto ia = vid.find(a), ib = vid.find(b);
      if (ia != vid.end() && ib != vid.end()) masters[ia->second].push_back(ib->second);
    }
  if (!masters.empty())
    for (const auto& [key, list] : faces) {
      if (list.size() != 1 || paired.count(list[0])) continue;
      const std::vector<std::int64_t>* opts[4];
      bool all = true;
      for (int c = 0; c < 4 && all; ++c) {
        auto it = masters.find(key[c]);
        all = it != masters.end();
        if (all) opts[c] = &it->second;
      }
      if (!all) continue;
      std::size_t choice[4] = {0, 0, 0, 0};
      for (bool more = true; more;) {
        std::array<std::int64_t, 4> image;
        for (int c = 0; c < 4; ++c)
          image[c] = (*opts[c])[choice[c]];
        auto it = faces.find(sorted4(image));
        if (it != faces.end() && it->second.size() == 1 && it->second[0] != list[0] &&
            !paired.count(it->second[0])) {
          const std::int64_t a = list[0], b = it->second[0];
          m.periodic.insert(m.periodic.end(), {a / 6, a % 6, b / 6, b % 6});
          paired.insert(a);
          paired.insert(b);
          break;
        }
        more = false;
        for (int c = 0; c < 4 && !more; ++c) {
          if (++choice[c] < opts[c]->size())
            more = true;
          else
            choice[c] = 0;
        }
      }
    }

  // Links without node pairs (Gmsh leaves them out for surfaces it does not save): the affine
  // map of a surface link carries the corners of each remaining face to those of its partner.
  {
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (std::size_t i = 0; i < m.coords.size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], m.coords[i]);
      hi[i % 3] = std::max(hi[i % 3], m.coords[i]);
    }
    const double h = 1e-7 * std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    std::map<std::array<long long, 3>, std::int64_t> at; // quantised position -> vertex
    auto cell = [&](const double* x, int d) { return std::llround(x[d] / h); };
    for (const auto& [key, list] : faces)
      if (list.size() == 1 && !paired.count(list[0]))
        for (std::int64_t v : key)
          at.emplace(std::array<long long, 3>{cell(&m.coords[3 * v], 0), cell(&m.coords[3 * v], 1),
                                              cell(&m.coords[3 * v], 2)},
                     v);
    auto find_vertex = [&](const double* x) -> std::int64_t {
      for (int a = -1; a <= 1; ++a)
        for (int b = -1; b <= 1; ++b)
          for (int c = -1; c <= 1; ++c) {
            auto it = at.find({cell(x, 0) + a, cell(x, 1) + b, cell(x, 2) + c});
            if (it == at.end()) continue;
            const double* y = &m.coords[3 * it->second];
            if (std::fabs(x[0] - y[0]) + std::fabs(x[1] - y[1]) + std::fabs(x[2] - y[2]) < 3 * h)
              return it->second;
          }
      return -1;
    };
    for (const PeriodicLink& l : r.periodic) {
      if (l.dim != 2 || l.affine.size() != 16) continue;
      for (const auto& [key, list] : faces) {
        if (list.size() != 1 || paired.count(list[0])) continue;
        std::array<std::int64_t, 4> image;
        bool all = true;
        for (int c = 0; c < 4 && all; ++c) {
          const double* x = &m.coords[3 * key[c]];
          double y[3];
          for (int i = 0; i < 3; ++i)
            y[i] = l.affine[4 * i] * x[0] + l.affine[4 * i + 1] * x[1] +
                   l.affine[4 * i + 2] * x[2] + l.affine[4 * i + 3];
          image[c] = find_vertex(y);
          all = image[c] >= 0;
        }
        if (!all) continue;
        auto it = faces.find(sorted4(image));
        if (it == faces.end() || it->second.size() != 1 || it->second[0] == list[0] ||
            paired.count(it->second[0]))
          continue;
        const std::int64_t a = it->second[0], b = list[0]; // slave face first, as above
        m.periodic.insert(m.periodic.end(), {a / 6, a % 6, b / 6, b % 6});
        paired.insert(a);
        paired.insert(b);
      }
    }
  }

  // Boundary tags from the physical surfaces of the quadrilaterals on boundary faces.
  std::set<int> surface_phys;
  for (const auto& [dp, name] : r.names)
    if (dp.first == 2) surface_phys.insert(dp.second);
  for (const RawElement* q : quads)
    if (q->physical > 0) surface_phys.insert(q->physical);
  std::map<std::array<std::int64_t, 4>, int> quad_tag;
  for (const RawElement* q : quads) {
    if (q->physical <= 0) continue;
    std::array<std::int64_t, 4> key;
    bool known = true;
    for (int c = 0; c < 4 && known; ++c) {
      auto it = vid.find(q->nodes[c]);
      known = it != vid.end();
      if (known) key[c] = it->second;
    }
    if (known)
      quad_tag.emplace(sorted4(key),
                       int(std::distance(surface_phys.begin(), surface_phys.find(q->physical))));
  }
  for (int p : surface_phys) {
    auto it = r.names.find({2, p});
    m.tag_names.push_back(it != r.names.end() ? it->second : "surface" + std::to_string(p));
  }
  std::int64_t untagged = 0, first_untagged = -1;
  for (const auto& [key, list] : faces) {
    if (list.size() > 2) {
      const std::int64_t a = list[0], b = list[1], c = list[2];
      DG_INPUT_ERROR(path << ": non-conforming mesh: element " << a / 6 << " face " << a % 6
                          << " is shared by elements " << b / 6 << " and " << c / 6);
    }
    if (list.size() != 1 || paired.count(list[0])) continue;
    auto it = quad_tag.find(key);
    if (it == quad_tag.end()) {
      if (untagged++ == 0) first_untagged = list[0];
      continue;
    }
    m.boundary.insert(m.boundary.end(), {list[0] / 6, list[0] % 6, std::int64_t(it->second)});
  }
  if (untagged > 0) {
    const std::int64_t e = first_untagged / 6;
    const int f = int(first_untagged % 6);
    const auto x =
        map_point(m, e, f / 2 == 0 ? (f % 2 ? 1.0 : -1.0) : 0.0,
                  f / 2 == 1 ? (f % 2 ? 1.0 : -1.0) : 0.0, f / 2 == 2 ? (f % 2 ? 1.0 : -1.0) : 0.0);
    DG_INPUT_ERROR(path << ": " << untagged
                        << " boundary faces belong to no physical surface (the first at (" << x[0]
                        << ", " << x[1] << ", " << x[2]
                        << ")): give every boundary surface a Physical Surface(\"name\") in the "
                           ".geo (or make it periodic) and mesh again");
  }
  const std::int64_t bad = first_inverted_element(m);
  if (bad >= 0)
    DG_INPUT_ERROR(path << ": element " << hexes[bad]->id
                        << " is inverted (det J = " << min_corner_jacobian(m, bad)
                        << " <= 0 at a corner, the centre or a quadrature point)");
  return m;
}

HexMesh read_any_mesh(const std::string& path) {
  const std::size_t n = path.size();
  if (n >= 4 && path.compare(n - 4, 4, ".msh") == 0) return read_gmsh(path);
  return read_mesh(path);
}

} // namespace dg::mesh
