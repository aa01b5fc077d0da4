// A part's share of a mesh: extraction from the global mesh (on the rank that holds it), the
// flat form it travels in, and the mesh's global facts (bounding box, periodic directions).
#include "dg/mesh/local_mesh.hpp"

#include "dg/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace dg::mesh {

BoxInfo box_info(const HexMesh& mesh) {
  BoxInfo b;
  for (int d = 0; d < 3; ++d) {
    b.lo[d] = 1e300;
    b.hi[d] = -1e300;
  }
  for (std::int64_t v = 0; v < mesh.num_vertices(); ++v)
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = std::min(b.lo[d], mesh.coords[3 * v + d]);
      b.hi[d] = std::max(b.hi[d], mesh.coords[3 * v + d]);
    }
  const std::int64_t np = static_cast<std::int64_t>(mesh.periodic.size() / 4);
  for (std::int64_t i = 0; i < np; ++i) {
    std::array<double, 3> c[2];
    for (int side = 0; side < 2; ++side) {
      const std::int64_t e = mesh.periodic[4 * i + 2 * side];
      const int f = static_cast<int>(mesh.periodic[4 * i + 2 * side + 1]);
      const double s = f % 2 ? 1.0 : -1.0;
      c[side] =
          map_point(mesh, e, f / 2 == 0 ? s : 0.0, f / 2 == 1 ? s : 0.0, f / 2 == 2 ? s : 0.0);
    }
    for (int d = 0; d < 3; ++d) {
      const double len = b.hi[d] - b.lo[d];
      if (std::fabs(std::fabs(c[0][d] - c[1][d]) - len) < 1e-8 * len) b.periodic[d] = true;
    }
  }
  return b;
}

LocalMesh extract_local_mesh(const HexMesh& mesh, const Connectivity& conn,
                             const std::vector<int>& owner, int part, const BoxInfo& box) {
  const std::int64_t ne = mesh.num_elements();
  DG_VERIFY(std::int64_t(owner.size()) == ne, "owner array does not match the mesh");
  LocalMesh m;
  m.nelem_global = ne;
  m.box = box;
  m.tag_names = mesh.tag_names;
  // Own elements whose faces all stay in the part first, then those with a face on another
  // part, each in ascending global id: two contiguous ranges, so that the stage's interior and
  // rank-boundary kernels address their elements without an index list.
  std::vector<std::int64_t> rim;
  for (std::int64_t e = 0; e < ne; ++e) {
    if (owner[e] != part) continue;
    bool inner = true;
    for (int f = 0; f < 6; ++f) {
      const FaceLink& l = conn(e, f);
      if (l.kind == FaceKind::interior && owner[l.nbr_elem] != part) inner = false;
    }
    (inner ? m.global_ids : rim).push_back(e);
  }
  m.global_ids.insert(m.global_ids.end(), rim.begin(), rim.end());
  m.num_owned = static_cast<int>(m.global_ids.size());
  std::vector<std::int64_t> halo;
  for (int le = 0; le < m.num_owned; ++le) {
    const std::int64_t g = m.global_ids[le];
    for (int f = 0; f < 6; ++f) {
      const FaceLink& l = conn(g, f);
      m.links.push_back(l);
      const bool interior = l.kind == FaceKind::interior;
      m.nbr_part.push_back(interior ? owner[l.nbr_elem] : -1);
      if (interior && owner[l.nbr_elem] != part) halo.push_back(l.nbr_elem);
    }
  }
  std::sort(halo.begin(), halo.end());
  halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
  m.global_ids.insert(m.global_ids.end(), halo.begin(), halo.end());

  // Vertices in order of first use.
  std::unordered_map<std::int64_t, std::int64_t> vmap;
  m.hexes.hex.reserve(8 * m.global_ids.size());
  for (std::int64_t g : m.global_ids)
    for (int v = 0; v < 8; ++v) {
      const std::int64_t gv = mesh.hex[8 * g + v];
      auto [it, fresh] = vmap.emplace(gv, static_cast<std::int64_t>(vmap.size()));
      if (fresh)
        for (int d = 0; d < 3; ++d)
          m.hexes.coords.push_back(mesh.coords[3 * gv + d]);
      m.hexes.hex.push_back(it->second);
    }
  // Curved elements: their nodes (the corners keep the ids given above).
  m.hexes.order = mesh.order;
  if (mesh.order > 1) {
    const int nn = mesh.nodes_per_element();
    m.hexes.nodes.reserve(std::size_t(nn) * m.global_ids.size());
    for (std::int64_t g : m.global_ids)
      for (int n = 0; n < nn; ++n) {
        const std::int64_t gv = mesh.node(g, n);
        auto [it, fresh] = vmap.emplace(gv, static_cast<std::int64_t>(vmap.size()));
        if (fresh)
          for (int d = 0; d < 3; ++d)
            m.hexes.coords.push_back(mesh.coords[3 * gv + d]);
        m.hexes.nodes.push_back(it->second);
      }
  }
  return m;
}

namespace {
constexpr int link_ints = 7; // kind, nbr_elem, nbr_face, orientation, tag, periodic, nbr_part
}

void pack_local_mesh(const LocalMesh& m, std::vector<std::int64_t>& ints,
                     std::vector<double>& reals) {
  const std::size_t n = m.global_ids.size();
  ints.clear();
  ints.reserve(3 + n + 8 * n + link_ints * m.links.size());
  ints.push_back(m.nelem_global);
  ints.push_back(m.num_owned);
  ints.push_back(static_cast<std::int64_t>(n));
  ints.push_back(m.hexes.order);
  ints.insert(ints.end(), m.global_ids.begin(), m.global_ids.end());
  ints.insert(ints.end(), m.hexes.hex.begin(), m.hexes.hex.end());
  ints.insert(ints.end(), m.hexes.nodes.begin(), m.hexes.nodes.end());
  for (std::size_t k = 0; k < m.links.size(); ++k) {
    const FaceLink& l = m.links[k];
    ints.insert(ints.end(), {std::int64_t(l.kind), l.nbr_elem, std::int64_t(l.nbr_face),
                             std::int64_t(l.orientation), std::int64_t(l.tag),
                             std::int64_t(l.periodic), std::int64_t(m.nbr_part[k])});
  }
  reals = m.hexes.coords;
}

LocalMesh unpack_local_mesh(const std::vector<std::int64_t>& ints,
                            const std::vector<double>& reals) {
  DG_VERIFY(ints.size() >= 4, "local mesh message of " << ints.size() << " integers");
  LocalMesh m;
  m.nelem_global = ints[0];
  m.num_owned = static_cast<int>(ints[1]);
  const std::size_t n = static_cast<std::size_t>(ints[2]);
  m.hexes.order = static_cast<int>(ints[3]);
  const std::size_t nn = m.hexes.order > 1 ? std::size_t(m.hexes.nodes_per_element()) : 0;
  const std::size_t nl = 6 * static_cast<std::size_t>(m.num_owned);
  DG_VERIFY(ints.size() == 4 + (9 + nn) * n + link_ints * nl,
            "local mesh message of " << ints.size() << " integers for " << n << " elements");
  auto it = ints.begin() + 4;
  m.global_ids.assign(it, it + std::ptrdiff_t(n));
  it += std::ptrdiff_t(n);
  m.hexes.hex.assign(it, it + std::ptrdiff_t(8 * n));
  it += std::ptrdiff_t(8 * n);
  m.hexes.nodes.assign(it, it + std::ptrdiff_t(nn * n));
  it += std::ptrdiff_t(nn * n);
  m.links.resize(nl);
  m.nbr_part.resize(nl);
  for (std::size_t k = 0; k < nl; ++k, it += link_ints) {
    FaceLink& l = m.links[k];
    l.kind = static_cast<FaceKind>(it[0]);
    l.nbr_elem = it[1];
    l.nbr_face = static_cast<int>(it[2]);
    l.orientation = static_cast<int>(it[3]);
    l.tag = static_cast<int>(it[4]);
    l.periodic = it[5] != 0;
    m.nbr_part[k] = static_cast<int>(it[6]);
  }
  m.hexes.coords = reals;
  return m;
}

} // namespace dg::mesh
