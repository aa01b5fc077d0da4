// An element block: all elements of one order on this rank, resident on the device for the
// whole run: modal coefficients, RK register, geometry (metric terms) and face connectivity.
#pragma once

#include "dg/core/kokkos.hpp"
#include "dg/dg/basis.hpp"
#include "dg/mesh/local_mesh.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dg {

using View4 = Kokkos::View<double****, Kokkos::LayoutRight, MemSpace>;

/// What lies across an element face: a neighbour (local or ghost), or a boundary condition
/// (face_dirichlet and above; docs/design.md, "Boundary conditions").
enum FaceType : int {
  face_local = 0,
  face_ghost = 1,
  face_dirichlet = 2, // u+ = g (upwind and SIPG)
  face_outflow = 3,   // u+ = u-, no diffusive flux
  face_inflow = 4,    // u+ = g where a.n < 0 (SIPG with g there), u+ = u- where a.n >= 0
  face_neumann = 5    // advective part upwind with u+ = u-; diffusive flux nu grad u . n = h
};
KOKKOS_INLINE_FUNCTION bool is_boundary_face(int type) {
  return type >= face_dirichlet;
}

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

  View2 u;   // (elem, mode) modal coefficients (nodal: the values at the points)
  View2 reg; // (elem, mode) low-storage RK register (nodal: at the points)
  /// The nodal state (DGOperator::to_nodal_state, q = p + 1 on the collocated passes'
  /// kernels): u and reg hold the values at the P^3 Gauss points (x fastest) instead of the
  /// modal coefficients, and trace the values at each face's P^2 points (with diffusion u and
  /// grad u . n there, as for the modal state). Whatever reads the solution (diagnostics,
  /// output, checkpoints) takes the modal state.
  bool nodal = false;
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

  /// Boundary faces: nbr(e, f) of a face of a boundary type is its slot s here. Host: the
  /// element, face and condition (row of the problem's table) of each slot; device: the data.
  int nbound = 0;
  std::vector<int> bound_elem, bound_face, bound_cond;
  View2 bdata; // (slot, point) g (dirichlet, inflow) or h (neumann) at the face's q^2 points
  /// Some boundary face needs data other than the built-in exact solution (inflow, neumann, or
  /// dirichlet from an expression): only the kernels that read bdata handle the block.
  bool boundary_data = false;

  /// Fields tabulated at set-up, empty where the physics is a constant (or the rotation
  /// shorthand, computed in the kernels):
  View3 avol;   // (elem, volume point, 3) contravariant velocity adj(J) a = |J| J^{-1} a
  View3 aface;  // (elem, face, point) a . n at the face points
  View1 amax;   // (elem) max |a| over the element's points (time-step rule)
  View2 nuvol;  // (elem, volume point) nu
  View3 nuface; // (elem, face, point) nu
  View1 numax;  // (elem) max nu over the element's points
  View2 source; // (elem, mode) M^{-1} (phi, s): the source's share of the right-hand side

  View4 trace; // (elem, face, point, 2): u and grad u . n on each face, this element's side
  View3 ghost; // (slot, point, 2): traces received from other ranks (neighbour's ordering)
  int nghost = 0;

  /// Interior elements (no ghost face) and rank-boundary elements, for overlap.
  IView1 inner_elems, halo_elems;
  /// Their first element where the list is the contiguous range first, first + 1, ... (-1 if
  /// not): kernels then compute the element ids instead of loading them.
  int inner_first = -1, halo_first = -1;
};

/// Boundary condition of each mesh tag (index = tag id): its FaceType and its row in the
/// problem's table of conditions. Tags beyond the vectors take default_kind, row 0.
struct BoundaryKinds {
  std::vector<int> kind;
  std::vector<int> condition;
  int default_kind = face_dirichlet;
  int kind_of(int tag) const {
    return tag >= 0 && tag < static_cast<int>(kind.size()) ? kind[tag] : default_kind;
  }
  int condition_of(int tag) const {
    return tag >= 0 && tag < static_cast<int>(condition.size()) ? condition[tag] : 0;
  }
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

/// A device list of element ids (or any ints) copied from v.
IView1 device_list(const std::string& label, const std::vector<int>& v);

/// Physical coordinates of the block's volume quadrature points, (elem, point, xyz) with point
/// a + q (b + q c), from the element map of `local` (the mesh geometry), for set-up evaluation.
std::vector<double> volume_points(const mesh::LocalMesh& local, const ElementBlock& b);
/// ... of the q^2 points of face f of element e, (point, xyz) with point i + q j; x: the block's
/// 1-D quadrature points (make_tables(order, q).x).
std::vector<double> face_points(const mesh::LocalMesh& local, const ElementBlock& b, int e, int f,
                                const std::vector<double>& x);
/// ... of an n^3 grid of 1-D points `x` in every element (diagnostics grids).
std::vector<double> grid_points(const mesh::LocalMesh& local, const ElementBlock& b,
                                const std::vector<double>& x);

} // namespace dg
