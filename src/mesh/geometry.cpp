// Geometry of a hex: the reference-to-physical map (trilinear from the 8 corners, or the Q_k map
// of the element's nodes), its Jacobian, the inversion and affinity tests, and the point-for-point
// check of the faces two curved elements share.
#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"
#include "dg/mesh/qk_map.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dg::mesh {

namespace {

/// The node coordinates of element e gathered for qk::map, which is a host-device function: its
/// accessor reads a plain array (no host-only calls, so nvcc sees nothing to warn about).
struct MeshNodes {
  double X[3 * (qk::max_order + 1) * (qk::max_order + 1) * (qk::max_order + 1)];
  MeshNodes(const HexMesh& m, std::int64_t e) {
    const int nn = (m.order + 1) * (m.order + 1) * (m.order + 1);
    for (int n = 0; n < nn; ++n)
      for (int i = 0; i < 3; ++i)
        X[3 * n + i] = m.coords[3 * m.node(e, n) + i];
  }
  KOKKOS_INLINE_FUNCTION double operator()(int n, int i) const { return X[3 * n + i]; }
};

/// Gauss-Legendre points of n points on [-1, 1] (Newton on the Legendre polynomial).
std::vector<double> gauss_points(int n) {
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) {
    double z = std::cos(M_PI * (i + 0.75) / (n + 0.5));
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = z;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      const double dp = n * (z * p1 - p0) / (z * z - 1.0);
      const double dz = p1 / dp;
      z -= dz;
      if (std::fabs(dz) < 1e-16) break;
    }
    x[i] = -z;
  }
  return x;
}

/// Largest coordinate extent of element e's corners: the length scale of the tolerances.
double element_size(const HexMesh& m, std::int64_t e) {
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (int v = 0; v < 8; ++v)
    for (int d = 0; d < 3; ++d) {
      const double x = m.coords[3 * m.hex[8 * e + v] + d];
      lo[d] = std::min(lo[d], x);
      hi[d] = std::max(hi[d], x);
    }
  return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
}

/// Lexicographic node index of the face-grid point (i, j) of face f (order k).
int face_node(int k, int f, int i, int j) {
  int idx[3];
  idx[f / 2] = f % 2 ? k : 0;
  idx[hex::face_tangent(f, 0)] = i;
  idx[hex::face_tangent(f, 1)] = j;
  return idx[0] + (k + 1) * (idx[1] + (k + 1) * idx[2]);
}

} // namespace

std::int64_t HexMesh::node(std::int64_t e, int n) const {
  if (order == 1) {
    // Lexicographic (a, b, c) -> VTK corner: b selects 0..1 vs 3..2.
    constexpr int vtk[8] = {0, 1, 3, 2, 4, 5, 7, 6};
    return hex[8 * e + vtk[n]];
  }
  return nodes[static_cast<std::size_t>(e) * nodes_per_element() + n];
}

std::array<double, 3> map_point(const HexMesh& mesh, std::int64_t e, double r, double s, double t) {
  const double xi[3] = {r, s, t};
  std::array<double, 3> x{0.0, 0.0, 0.0};
  if (mesh.order > 1) {
    qk::map(MeshNodes(mesh, e), mesh.order, xi, x.data());
    return x;
  }
  for (int v = 0; v < 8; ++v) {
    double n = 0.125;
    for (int d = 0; d < 3; ++d)
      n *= 1.0 + hex::vertex_sign(v, d) * xi[d];
    const double* X = &mesh.coords[3 * mesh.hex[8 * e + v]];
    for (int i = 0; i < 3; ++i)
      x[i] += n * X[i];
  }
  return x;
}

std::array<std::array<double, 3>, 3> jacobian(const HexMesh& mesh, std::int64_t e, double r,
                                              double s, double t) {
  const double xi[3] = {r, s, t};
  std::array<std::array<double, 3>, 3> J{};
  if (mesh.order > 1) {
    double x[3], Jm[3][3];
    qk::map(MeshNodes(mesh, e), mesh.order, xi, x, Jm);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        J[i][j] = Jm[i][j];
    return J;
  }
  for (int v = 0; v < 8; ++v) {
    double f[3], dn[3];
    for (int d = 0; d < 3; ++d)
      f[d] = 1.0 + hex::vertex_sign(v, d) * xi[d];
    dn[0] = 0.125 * hex::vertex_sign(v, 0) * f[1] * f[2];
    dn[1] = 0.125 * hex::vertex_sign(v, 1) * f[0] * f[2];
    dn[2] = 0.125 * hex::vertex_sign(v, 2) * f[0] * f[1];
    const double* X = &mesh.coords[3 * mesh.hex[8 * e + v]];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        J[i][j] += X[i] * dn[j];
  }
  return J;
}

void lagrange_tables(int k, const std::vector<double>& x, std::vector<double>& L,
                     std::vector<double>& D) {
  const int n1 = k + 1;
  L.resize(x.size() * n1);
  D.resize(x.size() * n1);
  for (std::size_t a = 0; a < x.size(); ++a) {
    double l[qk::max_order + 1], dl[qk::max_order + 1];
    qk::lagrange(k, x[a], l, dl);
    for (int i = 0; i < n1; ++i) {
      L[a * n1 + i] = l[i];
      D[a * n1 + i] = dl[i];
    }
  }
}

void jacobian_grid(const HexMesh& mesh, std::int64_t e, const std::vector<double>& xr,
                   const std::vector<double>& xs, const std::vector<double>& xt,
                   std::vector<double>& J) {
  const int k = mesh.order, n1 = k + 1;
  const int nr = static_cast<int>(xr.size()), ns = static_cast<int>(xs.size()),
            nt = static_cast<int>(xt.size());
  // 1-D tables per direction.
  std::vector<double> Lr, Dr, Ls, Ds, Lt, Dt;
  lagrange_tables(k, xr, Lr, Dr);
  lagrange_tables(k, xs, Ls, Ds);
  lagrange_tables(k, xt, Lt, Dt);
  // Along r: A0 = L X, A1 = D X at (a, nb, nc); along s: B00 = L A0, B01 = D A0, B10 = L A1 at
  // (a, b, nc); along t: J_r = L B10, J_s = L B01, J_t = D B00. Component by component.
  std::vector<double> A0(nr * n1 * n1), A1(nr * n1 * n1), B00(nr * ns * n1), B01(nr * ns * n1),
      B10(nr * ns * n1);
  J.assign(9 * static_cast<std::size_t>(nr) * ns * nt, 0.0);
  for (int i = 0; i < 3; ++i) {
    for (int nc = 0; nc < n1; ++nc)
      for (int nb = 0; nb < n1; ++nb)
        for (int a = 0; a < nr; ++a) {
          double v0 = 0.0, v1 = 0.0;
          for (int na = 0; na < n1; ++na) {
            const double X = mesh.coords[3 * mesh.node(e, na + n1 * (nb + n1 * nc)) + i];
            v0 += Lr[a * n1 + na] * X;
            v1 += Dr[a * n1 + na] * X;
          }
          A0[a + nr * (nb + n1 * nc)] = v0;
          A1[a + nr * (nb + n1 * nc)] = v1;
        }
    for (int nc = 0; nc < n1; ++nc)
      for (int b = 0; b < ns; ++b)
        for (int a = 0; a < nr; ++a) {
          double v00 = 0.0, v01 = 0.0, v10 = 0.0;
          for (int nb = 0; nb < n1; ++nb) {
            const int src = a + nr * (nb + n1 * nc);
            v00 += Ls[b * n1 + nb] * A0[src];
            v01 += Ds[b * n1 + nb] * A0[src];
            v10 += Ls[b * n1 + nb] * A1[src];
          }
          const int dst = a + nr * (b + ns * nc);
          B00[dst] = v00;
          B01[dst] = v01;
          B10[dst] = v10;
        }
    for (int c = 0; c < nt; ++c)
      for (int b = 0; b < ns; ++b)
        for (int a = 0; a < nr; ++a) {
          double jr = 0.0, js = 0.0, jt = 0.0;
          for (int nc = 0; nc < n1; ++nc) {
            const int src = a + nr * (b + ns * nc);
            jr += Lt[c * n1 + nc] * B10[src];
            js += Lt[c * n1 + nc] * B01[src];
            jt += Dt[c * n1 + nc] * B00[src];
          }
          double* Jp = &J[9 * (a + nr * (b + static_cast<std::size_t>(ns) * c)) + 3 * i];
          Jp[0] = jr;
          Jp[1] = js;
          Jp[2] = jt;
        }
  }
}

void jacobian_grid(const HexMesh& mesh, std::int64_t e, const std::vector<double>& x,
                   std::vector<double>& J) {
  jacobian_grid(mesh, e, x, x, x, J);
}

double jacobian_determinant(const HexMesh& mesh, std::int64_t e, double r, double s, double t) {
  const auto J = jacobian(mesh, e, r, s, t);
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
         J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

double min_corner_jacobian(const HexMesh& mesh, std::int64_t e) {
  if (mesh.order == 1) {
    double m = jacobian_determinant(mesh, e, 0.0, 0.0, 0.0);
    for (int v = 0; v < 8; ++v) {
      const double d = jacobian_determinant(mesh, e, hex::vertex_sign(v, 0), hex::vertex_sign(v, 1),
                                            hex::vertex_sign(v, 2));
      if (d < m) m = d;
    }
    return m;
  }
  // Curved: the (k+2)-point Gauss points and a (2k+3)-point lattice per direction (odd, so it
  // holds the corners and the centre), as one tensor grid.
  const int k = mesh.order, n = 2 * k + 3;
  std::vector<double> pts = gauss_points(k + 2);
  for (int i = 0; i < n; ++i)
    pts.push_back(-1.0 + 2.0 * i / (n - 1));
  std::vector<double> J;
  jacobian_grid(mesh, e, pts, J);
  double m = std::numeric_limits<double>::infinity();
  for (std::size_t p = 0; p < J.size(); p += 9) {
    const double* A = &J[p];
    m = std::min(m, A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                        A[2] * (A[3] * A[7] - A[4] * A[6]));
  }
  return m;
}

std::int64_t first_inverted_element(const HexMesh& mesh) {
  const std::int64_t ne = mesh.num_elements();
  for (std::int64_t e = 0; e < ne; ++e)
    if (!(min_corner_jacobian(mesh, e) > 0.0)) return e;
  return -1;
}

bool element_is_affine(const HexMesh& m, std::int64_t e) {
  auto X = [&](int v, int d) { return m.coords[3 * m.hex[8 * e + v] + d]; };
  double scale = 0.0, defect = 0.0;
  for (int d = 0; d < 3; ++d) {
    scale = std::max(scale, std::fabs(X(6, d) - X(0, d)));
    // x0 + x2 = x1 + x3 (bottom face planar parallelogram), same on top, and x4 - x0 = x7 - x3,
    // x5 - x1 = x4 - x0, x6 - x2 = x4 - x0.
    defect = std::max(defect, std::fabs(X(0, d) + X(2, d) - X(1, d) - X(3, d)));
    defect = std::max(defect, std::fabs(X(4, d) + X(6, d) - X(5, d) - X(7, d)));
    defect = std::max(defect, std::fabs((X(4, d) - X(0, d)) - (X(5, d) - X(1, d))));
    defect = std::max(defect, std::fabs((X(4, d) - X(0, d)) - (X(6, d) - X(2, d))));
    defect = std::max(defect, std::fabs((X(4, d) - X(0, d)) - (X(7, d) - X(3, d))));
  }
  if (m.order > 1) {
    // Every node at the trilinear (here affine) image of its reference point.
    const int k = m.order, n1 = k + 1;
    for (int n = 0; n < n1 * n1 * n1; ++n) {
      const double r[3] = {-1.0 + 2.0 * (n % n1) / k, -1.0 + 2.0 * ((n / n1) % n1) / k,
                           -1.0 + 2.0 * (n / (n1 * n1)) / k};
      double x[3] = {0.0, 0.0, 0.0};
      for (int v = 0; v < 8; ++v) {
        double N = 0.125;
        for (int d = 0; d < 3; ++d)
          N *= 1.0 + hex::vertex_sign(v, d) * r[d];
        for (int d = 0; d < 3; ++d)
          x[d] += N * X(v, d);
      }
      for (int d = 0; d < 3; ++d)
        defect = std::max(defect, std::fabs(m.coords[3 * m.node(e, n) + d] - x[d]));
    }
  }
  return defect <= 1e-12 * scale;
}

void check_conforming_faces(const HexMesh& m, const Connectivity& conn) {
  if (m.order == 1) return;
  const int k = m.order;
  const std::int64_t ne = m.num_elements();
  for (std::int64_t e = 0; e < ne; ++e)
    for (int f = 0; f < 6; ++f) {
      const FaceLink& l = conn(e, f);
      if (l.kind != FaceKind::interior || l.nbr_elem < e || (l.nbr_elem == e && l.nbr_face < f))
        continue;
      const double tol = 1e-8 * std::min(element_size(m, e), element_size(m, l.nbr_elem));
      // Periodic pairs: the translation of the first corner.
      double shift[3] = {0.0, 0.0, 0.0};
      double worst = 0.0;
      for (int j = 0; j <= k; ++j)
        for (int i = 0; i <= k; ++i) {
          int ip, jp;
          hex::map_index(l.orientation, k + 1, i, j, ip, jp);
          const double* xa = &m.coords[3 * m.node(e, face_node(k, f, i, j))];
          const double* xb = &m.coords[3 * m.node(l.nbr_elem, face_node(k, l.nbr_face, ip, jp))];
          for (int d = 0; d < 3; ++d) {
            if (i == 0 && j == 0) shift[d] = l.periodic ? xb[d] - xa[d] : 0.0;
            worst = std::max(worst, std::fabs(xa[d] + shift[d] - xb[d]));
          }
        }
      if (!(worst <= tol))
        DG_INPUT_ERROR("non-conforming interface: element "
                       << e << " face " << f << " and element " << l.nbr_elem << " face "
                       << l.nbr_face << " share their corners but their nodes differ by " << worst
                       << " (tolerance " << tol << "): the faces must coincide point for point");
    }
}

} // namespace dg::mesh
