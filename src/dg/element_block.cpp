// Host-side set-up of an element block: metric terms at quadrature points from the element map
// (trilinear, or Q_k for curved elements), face normals and surface elements, connectivity and
// penalty scales, copied to the device.
#include "dg/dg/element_block.hpp"

#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/local_mesh.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unordered_map>

namespace dg {

namespace {

using Mat3 = std::array<std::array<double, 3>, 3>;

/// Adjugate transpose: adj(J) = |J| J^{-1}, returned with rows = reference directions.
Mat3 adjugate(const Mat3& J, double& det) {
  Mat3 A;
  A[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  A[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  A[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  A[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  A[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  A[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  A[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  A[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  A[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  det = J[0][0] * A[0][0] + J[0][1] * A[1][0] + J[0][2] * A[2][0];
  return A; // A[d][i] = d r_d / d x_i * det
}

/// The Jacobian at point pt of a grid from mesh::jacobian_grid.
Mat3 grid_jacobian(const std::vector<double>& J, int pt) {
  Mat3 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      m[i][j] = J[9 * static_cast<std::size_t>(pt) + 3 * i + j];
  return m;
}

/// Volume of an element from its Jacobian on the quadrature grid (mesh::jacobian_grid).
double grid_volume(const std::vector<double>& J, const HostTables& t) {
  double v = 0.0;
  for (int c = 0; c < t.Q; ++c)
    for (int b = 0; b < t.Q; ++b)
      for (int a = 0; a < t.Q; ++a) {
        double det;
        adjugate(grid_jacobian(J, a + t.Q * (b + t.Q * c)), det);
        v += t.w[a] * t.w[b] * t.w[c] * det;
      }
  return v;
}

/// The Jacobian of element e on the q^2 points of face f, point i + q j as in face_metric
/// (mesh::jacobian_grid with the face's coordinate fixed at -1 or +1).
void face_jacobian_grid(const mesh::HexMesh& m, std::int64_t e, int f, const HostTables& t,
                        std::vector<double>& J) {
  const std::vector<double> side{f % 2 ? 1.0 : -1.0};
  const int d = f / 2;
  mesh::jacobian_grid(m, e, d == 0 ? side : t.x, d == 1 ? side : t.x, d == 2 ? side : t.x, J);
}

/// Area of a face (Gauss quadrature of |n dS|) from its Jacobian grid.
double face_area(const std::vector<double>& Jf, int f, const HostTables& t) {
  const int d = f / 2;
  double area = 0.0;
  for (int j = 0; j < t.Q; ++j)
    for (int i = 0; i < t.Q; ++i) {
      double det;
      const Mat3 A = adjugate(grid_jacobian(Jf, i + t.Q * j), det);
      area +=
          t.w[i] * t.w[j] * std::sqrt(A[d][0] * A[d][0] + A[d][1] * A[d][1] + A[d][2] * A[d][2]);
    }
  return area;
}

IView2 device_ints(const std::string& label, const std::vector<int>& v, int n) {
  IView2 d(label, n, 6);
  auto h = Kokkos::create_mirror_view(d);
  for (int e = 0; e < n; ++e)
    for (int f = 0; f < 6; ++f)
      h(e, f) = v[6 * e + f];
  Kokkos::deep_copy(d, h);
  return d;
}

/// Face metric records of face f of element e at its q^2 points (one when affine): unit normal,
/// dS, J^{-1} n. n dS = sign * row d of adj(J) (Nanson), J^{-1} n = adj(J) n / |J|. Jf: the
/// face's Jacobian grid (face_jacobian_grid), used when not affine.
template <class HostFgeo>
void face_metric(const mesh::HexMesh& mesh, int e, int f, bool affine, const HostTables& t,
                 const std::vector<double>& Jf, const HostFgeo& hfgeo) {
  const int d = f / 2, side = f % 2, q = t.Q;
  for (int j = 0; j < (affine ? 1 : q); ++j)
    for (int i = 0; i < (affine ? 1 : q); ++i) {
      double det;
      Mat3 A;
      if (affine) {
        double r[3];
        hex::face_point(f, 0.0, 0.0, r);
        A = adjugate(mesh::jacobian(mesh, e, r[0], r[1], r[2]), det);
      } else {
        A = adjugate(grid_jacobian(Jf, i + q * j), det);
      }
      const double sg = side ? 1.0 : -1.0;
      double n[3] = {sg * A[d][0], sg * A[d][1], sg * A[d][2]};
      const double dS = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      const int pt = i + q * j;
      for (int k = 0; k < 3; ++k)
        hfgeo(e, f, pt, k) = n[k] / dS;
      hfgeo(e, f, pt, 3) = dS;
      for (int k = 0; k < 3; ++k)
        hfgeo(e, f, pt, 4 + k) = (A[k][0] * n[0] + A[k][1] * n[1] + A[k][2] * n[2]) / (dS * det);
      hfgeo(e, f, pt, 7) = 0.0;
    }
}

} // namespace

IView1 device_list(const std::string& label, const std::vector<int>& v) {
  IView1 d(label, v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i)
    h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

ElementBlock build_element_block(const mesh::LocalMesh& local, const std::vector<GhostFace>& ghosts,
                                 int order, int q, const BoundaryKinds& bc,
                                 const std::string& geometry) {
  const mesh::HexMesh& mesh = local.hexes; // element e of the block is element e here
  const std::vector<std::int64_t> local_ids(local.global_ids.begin(),
                                            local.global_ids.begin() + local.num_owned);
  ElementBlock b;
  b.order = order;
  b.P = order + 1;
  b.Q = q;
  b.nmodes = b.P * b.P * b.P;
  b.nvol = q * q * q;
  b.nface = q * q;
  b.nelem = static_cast<int>(local_ids.size());
  b.global_ids = local_ids;
  const HostTables t = make_tables(order, q);
  b.tables = to_device(t);
  const int E = b.nelem;

  bool all_affine = true;
  for (int e = 0; e < E; ++e)
    all_affine = all_affine && mesh::element_is_affine(mesh, e);
  if (geometry == "affine") {
    if (!all_affine)
      DG_INPUT_ERROR("discretization.geometry = affine: the mesh has curved elements");
    b.affine = true;
  } else {
    b.affine = (geometry == "auto") && all_affine;
  }
  b.curved = !b.affine && mesh.order > 1;
  b.gorder = b.curved ? mesh.order : 1;

  b.u = View2("dg::block::u", E, b.nmodes);
  b.reg = View2("dg::block::reg", E, b.nmodes);
  b.verts = View3("dg::block::verts", E, 8, 3);
  const int nnodes = b.curved ? mesh.nodes_per_element() : 0;
  b.nodes = View3("dg::block::nodes", b.curved ? E : 0, nnodes, 3);
  auto hnodes = Kokkos::create_mirror_view(b.nodes);
  const int nvg = b.affine ? 1 : b.nvol, nfg = b.affine ? 1 : b.nface;
  b.vgeo = View3("dg::block::vgeo", E, nvg, vgeo_size);
  b.fgeo = View4("dg::block::fgeo", E, 6, nfg, fgeo_size);
  b.tau = View2("dg::block::tau", E, 6);
  b.volume = View1("dg::block::volume", E);
  b.hmin = View1("dg::block::hmin", E);
  b.trace = View4("dg::block::trace", E, 6, b.nface, 2);

  auto hverts = Kokkos::create_mirror_view(b.verts);
  auto hvgeo = Kokkos::create_mirror_view(b.vgeo);
  auto hfgeo = Kokkos::create_mirror_view(b.fgeo);
  auto htau = Kokkos::create_mirror_view(b.tau);
  auto hvol = Kokkos::create_mirror_view(b.volume);
  auto hh = Kokkos::create_mirror_view(b.hmin);

  // Volumes of the owned and halo elements (the penalty of a face needs both sides').
  // The owned elements' volume metric from the same grid (hvgeo, pt = a + q (b + q c)).
  std::vector<double> volumes(local.global_ids.size());
  std::vector<double> Jg;
  for (std::size_t el = 0; el < volumes.size(); ++el) {
    const auto e = static_cast<int>(el);
    mesh::jacobian_grid(mesh, e, t.x, Jg);
    volumes[el] = grid_volume(Jg, t);
    if (e >= E) continue;
    const std::int64_t g = local_ids[e];
    for (int c = 0; c < (b.affine ? 1 : q); ++c)
      for (int bb = 0; bb < (b.affine ? 1 : q); ++bb)
        for (int a = 0; a < (b.affine ? 1 : q); ++a) {
          const double r = b.affine ? 0.0 : t.x[a], s = b.affine ? 0.0 : t.x[bb],
                       tt = b.affine ? 0.0 : t.x[c];
          double det;
          const Mat3 A = adjugate(b.affine ? mesh::jacobian(mesh, e, r, s, tt)
                                           : grid_jacobian(Jg, a + q * (bb + q * c)),
                                  det);
          if (!(det > 0.0))
            DG_INPUT_ERROR("element " << g << ": det J = " << det
                                      << " <= 0 at the quadrature point (" << r << ", " << s << ", "
                                      << tt << "): the element is inverted or too strongly curved");
          const int pt = a + q * (bb + q * c);
          for (int d = 0; d < 3; ++d)
            for (int i = 0; i < 3; ++i)
              hvgeo(e, pt, 3 * d + i) = A[d][i];
          hvgeo(e, pt, 9) = det;
        }
  }
  std::unordered_map<std::int64_t, int> local_index; // global id -> element of `local`
  for (int e = 0; e < local.num_elements(); ++e)
    local_index.emplace(local.global_ids[e], e);
  std::unordered_map<std::int64_t, int> ghost_slot; // key 6 * local_elem + face
  for (size_t s = 0; s < ghosts.size(); ++s)
    ghost_slot.emplace(6 * static_cast<std::int64_t>(ghosts[s].local_elem) + ghosts[s].face,
                       static_cast<int>(s));
  b.nghost = static_cast<int>(ghosts.size());
  b.ghost = View3("dg::block::ghost", std::max(1, b.nghost), b.nface, 2);

  std::vector<int> ftype(6 * E), nbr(6 * E), nface(6 * E), orient(6 * E);
  const double pp = (order + 1.0) * (order + 1.0);
  std::vector<int> inner, halo;

  std::vector<double> Jf; // the Jacobian on a face's points
  for (int e = 0; e < E; ++e) {
    const std::int64_t g = local_ids[e];
    for (int v = 0; v < 8; ++v)
      for (int d = 0; d < 3; ++d)
        hverts(e, v, d) = mesh.coords[3 * mesh.hex[8 * e + v] + d];
    for (int n = 0; n < nnodes; ++n)
      for (int d = 0; d < 3; ++d)
        hnodes(e, n, d) = mesh.coords[3 * mesh.node(e, n) + d];
    double max_area = 0.0;
    const double vol = volumes[e];
    hvol(e) = vol;
    bool touches_ghost = false;
    for (int f = 0; f < 6; ++f) {
      face_jacobian_grid(mesh, e, f, t, Jf);
      face_metric(mesh, e, f, b.affine, t, Jf, hfgeo);
      const double area = face_area(Jf, f, t);
      max_area = std::max(max_area, area);
      const mesh::FaceLink& L = local.link(e, f);
      double ratio = area / vol;
      const int k = 6 * e + f;
      if (L.kind == mesh::FaceKind::interior) {
        auto it = local_index.find(L.nbr_elem);
        DG_VERIFY(it != local_index.end(), "element " << g << " face " << f << ": neighbour "
                                                      << L.nbr_elem << " is not in the local mesh");
        ratio = std::max(ratio, area / volumes[it->second]);
        if (it->second < E) {
          ftype[k] = face_local;
          nbr[k] = it->second;
        } else {
          auto gs = ghost_slot.find(k);
          DG_VERIFY(gs != ghost_slot.end(), "element " << g << " face " << f << ": neighbour "
                                                       << L.nbr_elem
                                                       << " is neither local nor a ghost");
          ftype[k] = face_ghost;
          nbr[k] = gs->second;
          touches_ghost = true;
        }
        nface[k] = L.nbr_face;
        orient[k] = L.orientation;
      } else {
        DG_VERIFY(L.tag >= 0, "boundary face without a tag (tag " << L.tag << ")");
        ftype[k] = bc.kind_of(L.tag);
        nbr[k] = b.nbound++;
        b.bound_elem.push_back(e);
        b.bound_face.push_back(f);
        b.bound_cond.push_back(bc.condition_of(L.tag));
        nface[k] = -1;
        orient[k] = 0;
      }
      htau(e, f) = pp * ratio;
    }
    hh(e) = vol / max_area;
    (touches_ghost ? halo : inner).push_back(e);
  }

  b.bdata = View2("dg::block::bdata", std::max(1, b.nbound), b.nface);
  Kokkos::deep_copy(b.verts, hverts);
  Kokkos::deep_copy(b.nodes, hnodes);
  Kokkos::deep_copy(b.vgeo, hvgeo);
  Kokkos::deep_copy(b.fgeo, hfgeo);
  Kokkos::deep_copy(b.tau, htau);
  Kokkos::deep_copy(b.volume, hvol);
  Kokkos::deep_copy(b.hmin, hh);
  b.ftype = device_ints("dg::block::ftype", ftype, E);
  b.nbr = device_ints("dg::block::nbr", nbr, E);
  b.nbr_face = device_ints("dg::block::nbr_face", nface, E);
  b.orient = device_ints("dg::block::orient", orient, E);
  b.inner_elems = device_list("dg::block::inner_elems", inner);
  b.halo_elems = device_list("dg::block::halo_elems", halo);
  auto first_of_range = [](const std::vector<int>& v) {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] != v[0] + static_cast<int>(i)) return -1;
    return v.empty() ? 0 : v[0];
  };
  b.inner_first = first_of_range(inner);
  b.halo_first = first_of_range(halo);
  return b;
}

std::vector<double> grid_points(const mesh::LocalMesh& local, const ElementBlock& b,
                                const std::vector<double>& x) {
  const int n = static_cast<int>(x.size()), n3 = n * n * n;
  std::vector<double> xyz(static_cast<std::size_t>(b.nelem) * n3 * 3);
  for (int e = 0; e < b.nelem; ++e)
    for (int c = 0; c < n; ++c)
      for (int bb = 0; bb < n; ++bb)
        for (int a = 0; a < n; ++a) {
          const auto p = mesh::map_point(local.hexes, e, x[a], x[bb], x[c]);
          const std::size_t i = (static_cast<std::size_t>(e) * n3 + a + n * (bb + n * c)) * 3;
          xyz[i] = p[0];
          xyz[i + 1] = p[1];
          xyz[i + 2] = p[2];
        }
  return xyz;
}

std::vector<double> volume_points(const mesh::LocalMesh& local, const ElementBlock& b) {
  return grid_points(local, b, make_tables(b.order, b.Q).x);
}

std::vector<double> face_points(const mesh::LocalMesh& local, const ElementBlock& b, int e, int f,
                                const std::vector<double>& x) {
  const int q = b.Q;
  std::vector<double> xyz(static_cast<std::size_t>(q) * q * 3);
  for (int j = 0; j < q; ++j)
    for (int i = 0; i < q; ++i) {
      double r[3];
      hex::face_point(f, x[i], x[j], r);
      const auto p = mesh::map_point(local.hexes, e, r[0], r[1], r[2]);
      for (int d = 0; d < 3; ++d)
        xyz[3 * (i + q * j) + d] = p[d];
    }
  return xyz;
}

} // namespace dg
