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

/// A hexahedral mesh as stored in the HDF5 mesh file (format in docs/mesh-format.md).
struct HexMesh {
  std::vector<double> coords;            // (nvert, 3) vertex coordinates
  std::vector<std::int64_t> hex;         // (nelem, 8) vertex ids, VTK/XDMF order
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

/// Physical position of reference point (r,s,t) in element e (trilinear map).
std::array<double, 3> map_point(const HexMesh& mesh, std::int64_t e, double r, double s, double t);

/// Jacobian matrix dx_i/dr_j of the trilinear map of element e at (r,s,t).
std::array<std::array<double, 3>, 3> jacobian(const HexMesh& mesh, std::int64_t e, double r,
                                             double s, double t);

/// det J of element e at reference point (r,s,t).
double jacobian_determinant(const HexMesh& mesh, std::int64_t e, double r, double s, double t);

/// Smallest det J of element e over its 8 corners and its centre (the inversion test).
double min_corner_jacobian(const HexMesh& mesh, std::int64_t e);

/// First element with det J <= 0 at a corner or the centre, or -1 when there is none.
std::int64_t first_inverted_element(const HexMesh& mesh);

} // namespace dg::mesh
