// Gmsh import: the committed annulus and box meshes (tests/meshes/*.geo, written by Debian's
// gmsh) read in every format and order with their names, regions and periodic pairs; high-order
// nodes land on the geometry and in the right lexicographic slots; the mesh file (version 2)
// round-trips; every kind of bad file is refused with one line naming it.
#include "catch.hpp"
#include "mesh_test_util.hpp"

#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"

#include <hdf5.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

using namespace dg;

namespace {

std::string mesh_file(const std::string& name) {
  return std::string(DG_SOURCE_DIR) + "/tests/meshes/" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  std::ostringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream os(path, std::ios::binary);
  os << text;
}

double radius(const std::array<double, 3>& x) {
  return std::sqrt(x[0] * x[0] + x[1] * x[1]);
}

/// Volume of the mesh by 6^3-point Gauss quadrature of det J.
double volume(const mesh::HexMesh& m) {
  const double x[6] = {-0.9324695142031521, -0.6612093864662645, -0.2386191860831969,
                       0.2386191860831969,  0.6612093864662645,  0.9324695142031521};
  const double w[6] = {0.1713244923791704, 0.3607615730481386, 0.4679139345726910,
                       0.4679139345726910, 0.3607615730481386, 0.1713244923791704};
  double v = 0.0;
  for (std::int64_t e = 0; e < m.num_elements(); ++e)
    for (int c = 0; c < 6; ++c)
      for (int b = 0; b < 6; ++b)
        for (int a = 0; a < 6; ++a)
          v += w[a] * w[b] * w[c] * mesh::jacobian_determinant(m, e, x[a], x[b], x[c]);
  return v;
}

int tag_of(const mesh::HexMesh& m, const std::string& name) {
  for (std::size_t t = 0; t < m.tag_names.size(); ++t)
    if (m.tag_names[t] == name) return int(t);
  return -1;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// An MSH 2.2 ASCII file of the given nodes and elements ("type tag... nodes..." lines without
/// the element number).
std::string msh22(const std::vector<std::array<double, 3>>& nodes,
                  const std::vector<std::string>& elements, const std::string& names = "") {
  std::ostringstream os;
  os << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n";
  if (!names.empty()) os << "$PhysicalNames\n" << names << "$EndPhysicalNames\n";
  os << "$Nodes\n" << nodes.size() << "\n";
  for (std::size_t i = 0; i < nodes.size(); ++i)
    os << i + 1 << " " << nodes[i][0] << " " << nodes[i][1] << " " << nodes[i][2] << "\n";
  os << "$EndNodes\n$Elements\n" << elements.size() << "\n";
  for (std::size_t i = 0; i < elements.size(); ++i)
    os << i + 1 << " " << elements[i] << "\n";
  os << "$EndElements\n";
  return os.str();
}

/// The 8 corners of the unit cube (Gmsh/VTK order), node tags 1..8.
std::vector<std::array<double, 3>> cube_nodes() {
  std::vector<std::array<double, 3>> n;
  for (int v = 0; v < 8; ++v)
    n.push_back({hex::vertex_sign(v, 0) > 0 ? 1.0 : 0.0, hex::vertex_sign(v, 1) > 0 ? 1.0 : 0.0,
                 hex::vertex_sign(v, 2) > 0 ? 1.0 : 0.0});
  return n;
}

/// "3 2 1 1 a b c d" lines: the 6 faces of hex `h` (node tags) as quads of physical surface 1.
std::vector<std::string> tagged_faces(const int h[8]) {
  std::vector<std::string> out;
  for (int f = 0; f < 6; ++f) {
    std::ostringstream os;
    os << "3 2 1 1";
    const int order[4] = {0, 1, 3, 2}; // face-lexicographic -> around the quad
    for (int c : order)
      os << " " << h[hex::face_vertex(f, c)];
    out.push_back(os.str());
  }
  return out;
}

} // namespace

TEST_CASE("Gmsh annulus: every format and geometric order", "[mesh][gmsh]") {
  struct Case {
    const char* file;
    int order;
    bool periodic;
  };
  const Case cases[] = {{"annulus_q1.msh", 1, true},
                        {"annulus_q2_bin.msh", 2, true},
                        {"annulus_q3.msh", 3, true},
                        {"annulus22_q2.msh", 2, false},
                        {"annulus22_q3_bin.msh", 3, false}};
  const double exact_volume = M_PI * (4.0 - 1.0) * 0.5;
  double volume_error[4] = {0, 0, 0, 0};
  for (const Case& c : cases) {
    INFO(c.file);
    const mesh::HexMesh m = mesh::read_gmsh(mesh_file(c.file));
    CHECK(m.order == c.order);
    CHECK(m.num_elements() == 16);
    const int inner = tag_of(m, "inner"), outer = tag_of(m, "outer");
    REQUIRE(inner >= 0);
    REQUIRE(outer >= 0);
    REQUIRE(m.region_names == std::vector<std::string>{"ring"});
    REQUIRE(m.region.size() == 16);
    if (c.periodic) {
      CHECK(m.tag_names.size() == 2);
      CHECK(m.periodic.size() / 4 == 16);
      CHECK(m.boundary.size() / 3 == 16);
    } else {
      CHECK(tag_of(m, "bottom") >= 0);
      CHECK(tag_of(m, "top") >= 0);
      CHECK(m.periodic.empty());
      CHECK(m.boundary.size() / 3 == 48);
    }
    // Every node of an inner / outer face lies on its cylinder (Gmsh puts high-order nodes on
    // the geometry); map_point at a node's reference point returns the node.
    const int k = m.order;
    for (std::size_t i = 0; i < m.boundary.size(); i += 3) {
      const int t = int(m.boundary[i + 2]), f = int(m.boundary[i + 1]);
      if (t != inner && t != outer) continue;
      for (int b = 0; b <= k; ++b)
        for (int a = 0; a <= k; ++a) {
          const auto xi = test::face_point(f, -1.0 + 2.0 * a / k, -1.0 + 2.0 * b / k);
          const auto x = mesh::map_point(m, m.boundary[i], xi[0], xi[1], xi[2]);
          CHECK(std::fabs(radius(x) - (t == inner ? 1.0 : 2.0)) < 1e-12);
        }
    }
    // Periodic pairs join z = 0 and z = 0.5.
    for (std::size_t i = 0; i < m.periodic.size(); i += 4) {
      const auto xa = test::face_point(int(m.periodic[i + 1]), 0.0, 0.0);
      const auto xb = test::face_point(int(m.periodic[i + 3]), 0.0, 0.0);
      const double za = mesh::map_point(m, m.periodic[i], xa[0], xa[1], xa[2])[2];
      const double zb = mesh::map_point(m, m.periodic[i + 2], xb[0], xb[1], xb[2])[2];
      CHECK(std::fabs(std::fabs(za - zb) - 0.5) < 1e-12);
    }
    REQUIRE_NOTHROW(mesh::build_connectivity(m)); // includes the point-for-point face check
    // The volume approaches pi (2^2 - 1^2) / 2 with the geometric order.
    const double err = std::fabs(volume(m) - exact_volume);
    if (c.periodic) volume_error[k] = err;
    CHECK(err < (k == 1 ? 1e-1 : k == 2 ? 1e-3 : 2e-4) * exact_volume);
  }
  CHECK(volume_error[1] > 10 * volume_error[2]);
  CHECK(volume_error[2] > 5 * volume_error[3]);
}

TEST_CASE("Gmsh node order: on straight boxes of order 2 and 3 every node is at its slot",
          "[mesh][gmsh]") {
  // Any slot of the Gmsh -> lexicographic tables that is wrong puts a node off its trilinear
  // position.
  for (const char* file : {"box22_q2.msh", "box_q3.msh"}) {
    INFO(file);
    const mesh::HexMesh m = mesh::read_gmsh(mesh_file(file));
    CHECK(m.order == (std::string(file) == "box_q3.msh" ? 3 : 2));
    CHECK(m.num_elements() == 8);
    CHECK(m.tag_names == std::vector<std::string>{"walls"});
    CHECK(m.boundary.size() / 3 == 24);
    // Gmsh's nodes carry round-off of about 1e-12 here: the slots are checked to 1e-9.
    const int k = m.order, n1 = k + 1;
    double worst = 0.0;
    for (std::int64_t e = 0; e < m.num_elements(); ++e)
      for (int n = 0; n < n1 * n1 * n1; ++n) {
        const double r[3] = {-1.0 + 2.0 * (n % n1) / k, -1.0 + 2.0 * ((n / n1) % n1) / k,
                             -1.0 + 2.0 * (n / (n1 * n1)) / k};
        for (int d = 0; d < 3; ++d) {
          double x = 0.0;
          for (int v = 0; v < 8; ++v) {
            double N = 0.125;
            for (int i = 0; i < 3; ++i)
              N *= 1.0 + hex::vertex_sign(v, i) * r[i];
            x += N * m.coords[3 * m.hex[8 * e + v] + d];
          }
          worst = std::max(worst, std::fabs(x - m.coords[3 * m.node(e, n) + d]));
        }
      }
    CHECK(worst < 1e-9);
    CHECK(std::fabs(volume(m) - 2.0) < 1e-13);
  }
}

TEST_CASE("mesh file version 2: curved meshes, names and regions round-trip", "[mesh][gmsh]") {
  test::ScratchDir dir("gmsh_roundtrip");
  const mesh::HexMesh m = mesh::read_gmsh(mesh_file("annulus_q3.msh"));
  mesh::write_mesh(m, dir.file("a.h5"));
  const mesh::HexMesh r = mesh::read_mesh(dir.file("a.h5"));
  CHECK(r.order == 3);
  CHECK(r.coords == m.coords);
  CHECK(r.hex == m.hex);
  CHECK(r.nodes == m.nodes);
  CHECK(r.boundary == m.boundary);
  CHECK(r.periodic == m.periodic);
  CHECK(r.tag_names == m.tag_names);
  CHECK(r.region == m.region);
  CHECK(r.region_names == m.region_names);
  // The XDMF shows the 27 linear sub-hexes of each element's node lattice.
  const std::string xdmf = slurp(dir.file("a.xdmf"));
  CHECK(xdmf.find("NumberOfElements=\"432\"") != std::string::npos);
  CHECK(xdmf.find("a.h5:/xdmf_hex") != std::string::npos);
}

TEST_CASE("Gmsh reader: bad files give one line naming the file", "[mesh][gmsh]") {
  test::ScratchDir dir("gmsh_bad");
  const std::string f = dir.file("bad.msh");
  auto check = [&](const std::string& text, const std::string& expect) {
    spit(f, text);
    const std::string msg = error_of([&]() {
      auto m = mesh::read_gmsh(f);
      mesh::build_connectivity(m);
    });
    INFO(msg);
    CHECK(msg.find(expect) != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  };
  const auto cube = cube_nodes();
  SECTION("tetrahedra, prisms, pyramids") {
    check(msh22(cube, {"4 2 1 1 1 2 3 5"}),
          "is a tetrahedron (Gmsh type 4): dgsolve needs all-hex");
    check(msh22(cube, {"6 2 1 1 1 2 3 5 6 7"}), "is a prism (Gmsh type 6)");
    check(msh22(cube, {"7 2 1 1 1 2 3 4 5"}), "is a pyramid (Gmsh type 7)");
    check(msh22(cube, {"4 2 1 1 1 2 3 5"}), "Transfinite Volume");
    // Gmsh writes the boundary triangles before the tetrahedra: the volume element is named.
    check(msh22(cube, {"2 2 1 1 1 2 3", "4 2 1 1 1 2 3 5"}), "is a tetrahedron (Gmsh type 4)");
    check(msh22(cube, {"2 2 1 1 1 2 3"}), "is a triangle (Gmsh type 2)");
  }
  SECTION("mixed geometric orders") {
    auto nodes = cube;
    for (int i = 0; i < 19; ++i)
      nodes.push_back({0.5, 0.5, 0.01 * i});
    std::ostringstream q2;
    q2 << "12 2 1 1";
    for (int i = 1; i <= 27; ++i)
      q2 << " " << i;
    check(msh22(nodes, {"5 2 1 1 1 2 3 4 5 6 7 8", q2.str()}),
          "mixed geometric orders: 1 of order 1 and 1 of order 2 hexahedra");
  }
  SECTION("boundary faces in no physical surface") {
    check(msh22(cube, {"5 2 1 1 1 2 3 4 5 6 7 8"}),
          "6 boundary faces belong to no physical surface");
    const int h[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    auto elements = tagged_faces(h);
    elements.pop_back();
    elements.push_back("5 2 2 1 1 2 3 4 5 6 7 8");
    check(msh22(cube, elements), "1 boundary faces belong to no physical surface");
  }
  SECTION("inverted element") {
    const int h[8] = {5, 6, 7, 8, 1, 2, 3, 4}; // top and bottom swapped
    auto elements = tagged_faces(h);
    elements.push_back("5 2 2 1 5 6 7 8 1 2 3 4");
    check(msh22(cube, elements), "is inverted (det J = ");
  }
  SECTION("faces that do not match") {
    // Two order-2 hexahedra sharing the face x = 1 by its corners and edge nodes, but each with
    // its own face-centre node, 0.02 apart.
    std::vector<std::array<double, 3>> nodes;
    std::map<std::array<int, 3>, int> lattice; // (i, j, l) on the 5 x 3 x 3 lattice -> tag
    for (int l = 0; l < 3; ++l)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 5; ++i) {
          nodes.push_back({0.5 * i, 0.5 * j, 0.5 * l});
          lattice[{i, j, l}] = int(nodes.size());
        }
    nodes.push_back({1.0, 0.52, 0.5}); // the second element's own face-centre node
    const int moved = int(nodes.size());
    // Gmsh order of the 27 nodes: its lexicographic slot (tests/meshes/box.geo checks the table).
    const int slot[27] = {0,  2,  8,  6,  18, 20, 26, 24, 1,  3,  9,  5,  11, 7,
                          17, 15, 19, 21, 23, 25, 4,  10, 12, 14, 16, 22, 13};
    std::vector<std::string> elements;
    for (int e = 0; e < 2; ++e) {
      std::ostringstream os;
      os << "12 2 2 1";
      for (int g = 0; g < 27; ++g) {
        const int n = slot[g], i = n % 3, j = (n / 3) % 3, l = n / 9;
        const bool centre = e == 1 && i == 0 && j == 1 && l == 1;
        os << " " << (centre ? moved : lattice[{2 * e + i, j, l}]);
      }
      elements.push_back(os.str());
      // Its outer faces, tagged (corner tags only matter to the reader).
      for (int f = 0; f < 6; ++f) {
        if ((e == 0 && f == 1) || (e == 1 && f == 0)) continue;
        std::ostringstream q;
        q << "3 2 1 1";
        const int around[4] = {0, 1, 3, 2};
        for (int c : around) {
          const int v = hex::face_vertex(f, c);
          q << " "
            << lattice[{2 * e + (hex::vertex_sign(v, 0) > 0 ? 2 : 0),
                        hex::vertex_sign(v, 1) > 0 ? 2 : 0, hex::vertex_sign(v, 2) > 0 ? 2 : 0}];
        }
        elements.push_back(q.str());
      }
    }
    check(msh22(nodes, elements),
          "non-conforming interface: element 0 face 1 and element 1 face 0");
  }
  SECTION("truncated file") {
    const std::string full = slurp(mesh_file("annulus_q1.msh"));
    for (double frac : {0.3, 0.6, 0.95, 0.999}) {
      INFO("first " << frac << " of the file");
      check(full.substr(0, std::size_t(frac * double(full.size()))), "truncated file");
    }
    const std::string bin = slurp(mesh_file("annulus_q2_bin.msh"));
    check(bin.substr(0, bin.size() / 2), "truncated file");
  }
  SECTION("unknown version, not a mesh, 20-node hexahedra") {
    std::string text = slurp(mesh_file("annulus_q1.msh"));
    text.replace(text.find("4.1 0 8"), 7, "3.0 0 8");
    check(text, "MSH version 3.0 is not supported: write MSH 4.1 or 2.2");
    check("hello\n", "not a Gmsh mesh file");
    std::ostringstream h20;
    h20 << "17 2 1 1";
    for (int i = 1; i <= 20; ++i)
      h20 << " " << (i <= 8 ? i : 1);
    check(msh22(cube, {h20.str()}), "Mesh.SecondOrderIncomplete = 0");
  }
}

TEST_CASE("mesh file version 1 still reads (box tag names, trilinear)", "[mesh][gmsh]") {
  // A version-2 file of a box turned into a version-1 file: version 1, no order, no names.
  test::ScratchDir dir("gmsh_v1");
  mesh::HexMesh m = mesh::read_gmsh(mesh_file("annulus_q1.msh"));
  mesh::write_mesh(m, dir.file("v1.h5"));
  {
    const hid_t f = H5Fopen(dir.file("v1.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Adelete(f, "version") >= 0);
    REQUIRE(H5Adelete(f, "order") >= 0);
    REQUIRE(H5Ldelete(f, "tag_names", H5P_DEFAULT) >= 0);
    REQUIRE(H5Ldelete(f, "region", H5P_DEFAULT) >= 0);
    REQUIRE(H5Ldelete(f, "region_names", H5P_DEFAULT) >= 0);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(f, "version", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    const int one = 1;
    REQUIRE(H5Awrite(a, H5T_NATIVE_INT, &one) >= 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Fclose(f);
  }
  const mesh::HexMesh r = mesh::read_mesh(dir.file("v1.h5"));
  CHECK(r.order == 1);
  CHECK(r.nodes.empty());
  CHECK(r.hex == m.hex);
  CHECK(r.coords == m.coords);
  CHECK(r.tag_names == mesh::box_tag_names());
  CHECK(r.region.empty());
}
