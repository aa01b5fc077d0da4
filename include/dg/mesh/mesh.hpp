// Host-side hexahedral mesh: what a mesh file holds, how it is read and written, and the face
// connectivity (neighbour, neighbour face, orientation) built from it for any vertex ordering.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dg::mesh {

/// Boundary tags of dgmesh boxes: face of the box the element face lies on.
enum BoxTag : int { xmin = 0, xmax = 1, ymin = 2, ymax = 3, zmin = 4, zmax = 5 };

/// A hexahedral mesh as stored in the HDF5 mesh file (format in docs/mesh-format.md). The
/// element map is the isoparametric Q_k map of the element's nodes (k = `order`, 1..3,
/// dg/mesh/qk_map.hpp); for k = 1 the nodes are the 8 corners and the map is trilinear.
struct HexMesh {
  std::vector<double> coords;    // (nvert, 3) coordinates of every vertex and node
  std::vector<std::int64_t> hex; // (nelem, 8) corner vertex ids, VTK/XDMF order
  int order = 1;                 // geometric order k of every element
  /// (nelem, (k+1)^3) node ids, lexicographic (r fastest) at the equispaced reference points
  /// -1 + 2 i / k; empty when order == 1 (the nodes are then the corners of `hex`).
  std::vector<std::int64_t> nodes;
  /// (nelem) region of each element (Gmsh physical volume, index into region_names), or empty.
  std::vector<std::int64_t> region;
  std::vector<std::string> region_names;
  /// Boundary faces: (nbface, 3) = element, local face (0..5), tag (>= 0). Periodic faces are
  /// not boundary faces.
  std::vector<std::int64_t> boundary;
  /// Periodic face pairs: (nperiodic, 4) = element A, face A, element B, face B. The two faces
  /// coincide after a translation (the box's period).
  std::vector<std::int64_t> periodic;
  /// Name of each boundary tag: tag_names[t] names tag t (dgmesh boxes: xmin .. zmax; Gmsh
  /// meshes: the physical surface names). Input files refer to tags by these names.
  std::vector<std::string> tag_names;
  std::string command; // the command that generated the mesh (attribute), may be empty

  std::int64_t num_vertices() const { return static_cast<std::int64_t>(coords.size() / 3); }
  std::int64_t num_elements() const { return static_cast<std::int64_t>(hex.size() / 8); }
  int nodes_per_element() const { return (order + 1) * (order + 1) * (order + 1); }
  /// Vertex id of lexicographic node n (0 .. (k+1)^3 - 1) of element e.
  std::int64_t node(std::int64_t e, int n) const;
};

/// The names of the six box tags, in BoxTag order: xmin, xmax, ymin, ymax, zmin, zmax.
std::vector<std::string> box_tag_names();

/// Name of tag t in `names`, or "tag<t>" where `names` has none.
std::string tag_name(const std::vector<std::string>& names, int t);

/// Writes `mesh` to an HDF5 file and an XDMF file beside it (same stem, .xdmf).
/// Serial (one process). Throws InternalError on I/O failure.
void write_mesh(const HexMesh& mesh, const std::string& h5_path);

/// Reads an HDF5 mesh file. Throws InputError naming the file for a missing or foreign file,
/// a missing or malformed dataset, out-of-range vertex ids or inverted (non-positive Jacobian)
/// elements.
HexMesh read_mesh(const std::string& h5_path);

/// Where a face's neighbour lives.
enum class FaceKind : int { interior = 0, boundary = 1 };

/// Connectivity of one element face.
struct FaceLink {
  FaceKind kind = FaceKind::boundary;
  std::int64_t nbr_elem = -1; // global element id of the neighbour (interior / periodic)
  int nbr_face = -1;          // the neighbour's local face
  int orientation = 0;        // code 0..7 (dg/mesh/hex.hpp) mapping this face onto nbr_face
  int tag = -1;               // boundary tag for boundary faces
  bool periodic = false;      // true when the neighbour is reached through a periodic pair
};

/// Face connectivity of the whole mesh: links[6*e + f].
struct Connectivity {
  std::vector<FaceLink> links;
  const FaceLink& operator()(std::int64_t e, int f) const { return links[6 * e + f]; }
};

/// Builds face connectivity for any hex vertex ordering (faces matched by vertex sets; periodic
/// faces from mesh.periodic, oriented by coordinates). Throws InputError for a non-conforming
/// mesh (a face shared by more than two elements, an unmatched face without a boundary tag).
Connectivity build_connectivity(const HexMesh& mesh);

/// Physical position of reference point (r,s,t) in element e (its Q_k map).
std::array<double, 3> map_point(const HexMesh& mesh, std::int64_t e, double r, double s, double t);

/// Jacobian matrix dx_i/dr_j of the Q_k map of element e at (r,s,t).
std::array<std::array<double, 3>, 3> jacobian(const HexMesh& mesh, std::int64_t e, double r,
                                              double s, double t);

/// The 1-D Lagrange tables of the Q_k map's nodes at the points x: L[a (k+1) + i] = l_i(x_a),
/// D the derivatives (the tables of jacobian_grid and of the kernels' grids).
void lagrange_tables(int k, const std::vector<double>& x, std::vector<double>& L,
                     std::vector<double>& D);

/// The Jacobian of element e's Q_k map at every point of the tensor grid x_a x x_b x x_c of the
/// 1-D points x (a fastest): J[9 pt + 3 i + j] = dx_i/dr_j at pt = a + n (b + n c), n = x.size(),
/// by sum factorisation (about 12 (k+1) n^3 flops instead of jacobian's 12 (k+1)^3 a point).
void jacobian_grid(const HexMesh& mesh, std::int64_t e, const std::vector<double>& x,
                   std::vector<double>& J);
/// ... on the grid xr x xs x xt of its own points per direction: pt = a + nr (b + ns c) (a face
/// grid: one point, -1 or +1, in the normal direction).
void jacobian_grid(const HexMesh& mesh, std::int64_t e, const std::vector<double>& xr,
                   const std::vector<double>& xs, const std::vector<double>& xt,
                   std::vector<double>& J);

/// det J of element e at reference point (r,s,t).
double jacobian_determinant(const HexMesh& mesh, std::int64_t e, double r, double s, double t);

/// Smallest det J of element e over its 8 corners and its centre; for curved elements (order
/// > 1) also over a (2k+3)^3 lattice and the (k+2)^3 Gauss points (the inversion test).
double min_corner_jacobian(const HexMesh& mesh, std::int64_t e);

/// First element with det J <= 0 at one of those points, or -1 when there is none.
std::int64_t first_inverted_element(const HexMesh& mesh);

/// True when the Q_k map of element e is affine (a parallelepiped whose nodes sit at their
/// trilinear positions), to a tolerance relative to the element size.
bool element_is_affine(const HexMesh& mesh, std::int64_t e);

/// Checks that the nodes of every face shared by two elements (and of every periodic pair, up
/// to its translation) coincide point for point, within 1e-8 of the element size. Throws
/// InputError naming the two faces and the mismatch (a non-conforming interface). Order 1
/// meshes share corner vertices by construction and pass.
void check_conforming_faces(const HexMesh& mesh, const Connectivity& conn);

/// Reads a Gmsh mesh (MSH 2.2 or 4.1, ASCII or binary; docs/mesh-format.md): hexahedra of order
/// 1, 2 or 3, physical surfaces as named boundary tags, physical volumes as regions, periodic
/// surfaces as periodic pairs. Throws InputError with a one-line message for anything else.
HexMesh read_gmsh(const std::string& path);

/// read_gmsh for a `.msh` path, read_mesh otherwise; then the face check above.
HexMesh read_any_mesh(const std::string& path);

} // namespace dg::mesh
