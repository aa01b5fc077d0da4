// An element block: all elements of one order on this rank, resident on the device for the
// whole run: modal coefficients, RK register, geometry (metric terms) and face connectivity.
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/dg/basis.hpp"
#include "dg/mesh/local_mesh.hpp"

#include <cstdint>
#include <vector>

namespace dg {

using View4 = Kokkos::View<double****, Kokkos::LayoutRight, MemSpace>;

/// What lies across an element face.
enum FaceType : int { face_local = 0, face_ghost = 1, face_dirichlet = 2, face_outflow = 3 };

/// Geometry record sizes. Volume (elem, point, 10): [0..8] the adjugate |J| J^{-1} row-major
/// (reference direction d, physical direction i), [9] |J|. Face (elem, face, point, 8):
/// [0..2] outward unit normal n, [3] surface element dS of the reference face, [4..6] J^{-1} n
/// (reference components), [7] unused. Affine blocks keep one record per element / face.
constexpr int vgeo_size = 10;
constexpr int fgeo_size = 8;

struct ElementBlock {
  int order = 0, P = 0, Q = 0;
  int nmodes = 0, nvol = 0, nface = 0; // P^3, Q^3, Q^2
  int nelem = 0;
  bool affine = false;
  /// Curved block: the elements' Q_k maps (k = gorder > 1) give the metric terms (stored per
  /// quadrature point) and the point coordinates (from `nodes`); the trilinear map of `verts`
  /// does not describe them.
  bool curved = false;
  int gorder = 1;
  std::vector<std::int64_t> global_ids; // host: global id of each local element

  BasisTables tables;

  View2 u;     // (elem, mode) modal coefficients
  View2 reg;   // (elem, mode) low-storage RK register
  View3 verts; // (elem, vertex 0..7, xyz)
  View3 nodes; // (elem, node 0..(k+1)^3-1, xyz), curved blocks only (dg/mesh/qk_map.hpp)
  View3 vgeo;  // (elem, point or 0, vgeo_size)
  View4 fgeo;  // (elem, face, point or 0, fgeo_size)

  IView2 ftype;    // (elem, face) FaceType
  IView2 nbr;      // (elem, face) local element (face_local) or ghost slot (face_ghost)
  IView2 nbr_face; // (elem, face)
  IView2 orient;   // (elem, face) orientation code, this face -> neighbour's face
  View2 tau;       // (elem, face) (p+1)^2 max(|F|/|K-|, |F|/|K+|): SIPG penalty / (eta nu)
  View1 volume;    // (elem) |K|
  View1 hmin;      // (elem) |K| / max face area: length scale of the CFL rule

  View4 trace; // (elem, face, point, 2): u and grad u . n on each face, this element's side
  View3 ghost; // (slot, point, 2): traces received from other ranks (neighbour's ordering)
  int nghost = 0;

  /// Interior elements (no ghost face) and rank-boundary elements, for overlap.
  IView1 inner_elems, halo_elems;
  /// Their first element where the list is the contiguous range first, first + 1, ... (-1 if
  /// not): kernels then compute the element ids instead of loading them.
  int inner_first = -1, halo_first = -1;
};

/// Boundary condition per box tag (0..5): face_dirichlet or face_outflow; `other` for the tags
/// of other meshes (Gmsh physical surfaces).
struct BoundaryKinds {
  int kind[6] = {face_dirichlet, face_dirichlet, face_dirichlet,
                 face_dirichlet, face_dirichlet, face_dirichlet};
  int other = face_dirichlet;
};

/// Ghost slot of a rank-boundary face, in the order the halo exchange fills the ghost array.
struct GhostFace {
  int local_elem, face, nbr_rank;
  std::int64_t nbr_global;
  int nbr_face, orientation;
};

/// Builds the block for the owned elements of `local` (one rank's share of the mesh): metric
/// terms at the Gauss points (q per direction), connectivity with ghost slots for `ghosts`
/// (faces whose neighbour is on another rank; their order defines the ghost slots). The halo
/// elements of `local` supply the neighbour volumes of the penalty on rank-boundary faces.
/// `geometry`: "auto" (affine when every element is a parallelepiped), "affine", "curved".
/// Throws InputError when det J <= 0 at a quadrature point of an element.
ElementBlock build_element_block(const mesh::LocalMesh& local, const std::vector<GhostFace>& ghosts,
                                 int order, int q, const BoundaryKinds& bc,
                                 const std::string& geometry);

} // namespace dg
