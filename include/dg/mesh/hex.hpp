// Reference hexahedron conventions shared by the mesh, the geometry and the DG kernels:
// vertex order (VTK/XDMF), face numbering, face-local coordinates and the 8 face orientations.
#pragma once

#include <Kokkos_Core.hpp>

namespace dg::hex {

// Reference element [-1,1]^3 with coordinates (r, s, t). Vertex v sits at
//   r = (v&1) ^ ((v>>1)&1) ? +1 : -1  (VTK order: 0 (-,-,-), 1 (+,-,-), 2 (+,+,-), 3 (-,+,-),
//   4..7 the same with t = +1).
KOKKOS_INLINE_FUNCTION constexpr int vertex_sign(int v, int d) {
  constexpr int table[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                               {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  return table[v][d];
}

// Faces: f = 2*d + side, d the normal reference direction (0 r, 1 s, 2 t), side 0 at -1 and
// side 1 at +1. Face-local coordinates (a, b) are the two other reference coordinates in
// increasing direction order: face d=0 -> (s, t), d=1 -> (r, t), d=2 -> (r, s).
KOKKOS_INLINE_FUNCTION constexpr int face_dir(int f) {
  return f / 2;
}
KOKKOS_INLINE_FUNCTION constexpr int face_side(int f) {
  return f % 2;
}
KOKKOS_INLINE_FUNCTION constexpr int face_tangent(int f, int k) {
  // k = 0 -> direction of a, k = 1 -> direction of b
  return (f / 2 == 0) ? 1 + k : (f / 2 == 1 ? 2 * k : k);
}

// The 4 vertices of each face in face-local lexicographic order: (a,b) = (-,-), (+,-), (-,+),
// (+,+).
KOKKOS_INLINE_FUNCTION constexpr int face_vertex(int f, int k) {
  constexpr int table[6][4] = {{0, 3, 4, 7}, {1, 2, 5, 6}, {0, 1, 4, 5},
                               {3, 2, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  return table[f][k];
}

/// Reference coordinates of the point (a, b) of face f: the normal direction f / 2 at -1 (even
/// f) or +1 (odd f), a and b along the two tangential directions (the lower one first).
KOKKOS_INLINE_FUNCTION void face_point(int f, double a, double b, double r[3]) {
  // Written without stores through a variable index: GCC 13.3 (the GPU machine's host
  // compiler) hit an internal compiler error in its range propagation on that form.
  const int d = f / 2;
  const double s = f % 2 ? 1.0 : -1.0;
  r[0] = d == 0 ? s : a;
  r[1] = d == 1 ? s : (d == 0 ? a : b);
  r[2] = d == 2 ? s : b;
}

// Orientation code o in 0..7 maps a point (a, b) of a face to the local coordinates (a', b') of
// the same physical point on the neighbour's face:
//   (u, v) = (o & 1) ? (b, a) : (a, b);   a' = (o & 2) ? -u : u;   b' = (o & 4) ? -v : v.
// On a tensor grid of n points per direction (symmetric about 0, like Gauss points) the point
// (i, j) maps to the neighbour's point (i', j') given by map_index.
KOKKOS_INLINE_FUNCTION void map_index(int o, int n, int i, int j, int& ip, int& jp) {
  int u = (o & 1) ? j : i;
  int v = (o & 1) ? i : j;
  ip = (o & 2) ? n - 1 - u : u;
  jp = (o & 4) ? n - 1 - v : v;
}
KOKKOS_INLINE_FUNCTION void map_coords(int o, double a, double b, double& ap, double& bp) {
  double u = (o & 1) ? b : a;
  double v = (o & 1) ? a : b;
  ap = (o & 2) ? -u : u;
  bp = (o & 4) ? -v : v;
}
// The inverse map (neighbour -> this side) has code inverse_orientation(o).
KOKKOS_INLINE_FUNCTION constexpr int inverse_orientation(int o) {
  // Swapping commutes with the flips only after exchanging the two flip bits.
  return (o & 1) ? (1 | ((o & 2) << 1) | ((o & 4) >> 1)) : o;
}

} // namespace dg::hex
