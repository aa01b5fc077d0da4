// Face connectivity of a hex mesh for any local vertex ordering: interior faces matched by their
// vertex sets (open-addressing hash, O(n)), periodic faces oriented by coordinates, boundary
// faces tagged from the mesh file.
#include "dg/core/error.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/mesh.hpp"

#include <algorithm>
#include <cmath>

namespace dg::mesh {

namespace {

using Key = std::array<std::int64_t, 4>;

Key face_ids(const HexMesh& m, std::int64_t e, int f) {
  Key k;
  for (int c = 0; c < 4; ++c)
    k[c] = m.hex[8 * e + hex::face_vertex(f, c)];
  return k;
}

Key sorted_key(const HexMesh& m, std::int64_t fid) {
  Key k = face_ids(m, fid / 6, int(fid % 6));
  std::sort(k.begin(), k.end());
  return k;
}

std::uint64_t hash_key(const Key& k) {
  std::uint64_t h = 0x243f6a8885a308d3ULL;
  for (std::int64_t v : k) {
    h ^= std::uint64_t(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
  }
  return h ^ (h >> 29);
}

// Corner c of a face sits at (a, b) = (c&1 ? +1 : -1, c&2 ? +1 : -1) in face-lexicographic order.
int corner_after(int o, int c) {
  double ap, bp;
  hex::map_coords(o, (c & 1) ? 1.0 : -1.0, (c & 2) ? 1.0 : -1.0, ap, bp);
  return (ap > 0 ? 1 : 0) + (bp > 0 ? 2 : 0);
}

std::string face_name(std::int64_t e, int f) {
  return "element " + std::to_string(e) + " face " + std::to_string(f);
}

} // namespace

Connectivity build_connectivity(const HexMesh& mesh) {
  const std::int64_t ne = mesh.num_elements(), nf = 6 * ne;
  Connectivity conn;
  conn.links.assign(nf, FaceLink{});
  std::vector<char> periodic(nf, 0);
  std::vector<int> tag(nf, -1);

  for (std::size_t i = 0; i + 2 < mesh.boundary.size(); i += 3) {
    const std::int64_t e = mesh.boundary[i], f = mesh.boundary[i + 1], t = mesh.boundary[i + 2];
    if (e < 0 || e >= ne || f < 0 || f > 5 || t < 0 || t > INT32_MAX)
      DG_INPUT_ERROR("boundary entry " << i / 3 << " = (" << e << ", " << f << ", " << t
                                       << "): element, face or tag out of range");
    if (tag[6 * e + f] >= 0)
      DG_INPUT_ERROR("boundary: " << face_name(e, int(f)) << " is listed twice");
    tag[6 * e + f] = int(t);
  }

  // Periodic pairs: the translation is the difference of the face centroids; the orientation is
  // the one code that maps each corner of A onto the translated corner of B.
  for (std::size_t i = 0; i < mesh.periodic.size(); i += 4) {
    const std::int64_t ea = mesh.periodic[i], fa = mesh.periodic[i + 1];
    const std::int64_t eb = mesh.periodic[i + 2], fb = mesh.periodic[i + 3];
    if (ea < 0 || ea >= ne || eb < 0 || eb >= ne || fa < 0 || fa > 5 || fb < 0 || fb > 5)
      DG_INPUT_ERROR("periodic entry " << i / 4 << " = (" << ea << ", " << fa << ", " << eb << ", "
                                       << fb << "): element or face out of range");
    const std::int64_t ida = 6 * ea + fa, idb = 6 * eb + fb;
    if (ida == idb || periodic[ida] || periodic[idb])
      DG_INPUT_ERROR("periodic entry " << i / 4 << ": " << face_name(ea, int(fa)) << " / "
                                       << face_name(eb, int(fb)) << " is paired more than once");
    if (tag[ida] >= 0 || tag[idb] >= 0)
      DG_INPUT_ERROR("periodic entry " << i / 4 << ": face also has a boundary tag");
    const Key va = face_ids(mesh, ea, int(fa)), vb = face_ids(mesh, eb, int(fb));
    double xa[4][3], xb[4][3], t[3] = {0, 0, 0}, diam = 0.0;
    for (int c = 0; c < 4; ++c)
      for (int d = 0; d < 3; ++d) {
        xa[c][d] = mesh.coords[3 * va[c] + d];
        xb[c][d] = mesh.coords[3 * vb[c] + d];
        t[d] += 0.25 * (xb[c][d] - xa[c][d]);
      }
    for (int d = 0; d < 3; ++d)
      diam = std::max(diam, std::fabs(xa[3][d] - xa[0][d]));
    int best = -1;
    double best_err = 1e300;
    for (int o = 0; o < 8; ++o) {
      double err = 0.0;
      for (int c = 0; c < 4; ++c) {
        const int cb = corner_after(o, c);
        for (int d = 0; d < 3; ++d)
          err = std::max(err, std::fabs(xa[c][d] + t[d] - xb[cb][d]));
      }
      if (err < best_err) best_err = err, best = o;
    }
    if (!(best_err <= 1e-8 * diam))
      DG_INPUT_ERROR("periodic entry "
                     << i / 4 << ": " << face_name(ea, int(fa)) << " and " << face_name(eb, int(fb))
                     << " do not match after a translation (mismatch " << best_err << ")");
    periodic[ida] = periodic[idb] = 1;
    FaceLink& la = conn.links[ida];
    FaceLink& lb = conn.links[idb];
    la.kind = lb.kind = FaceKind::interior;
    la.periodic = lb.periodic = true;
    la.nbr_elem = eb, la.nbr_face = int(fb), la.orientation = best;
    lb.nbr_elem = ea, lb.nbr_face = int(fa), lb.orientation = hex::inverse_orientation(best);
  }

  // Hash every face on its sorted vertex ids: slot = (first face, second face).
  std::size_t cap = 16;
  while (3 * cap < 4 * std::size_t(nf) + 48)
    cap <<= 1; // load factor <= 3/4
  std::vector<std::int64_t> first(cap, -1), second(cap, -1);
  std::vector<std::uint64_t> hashes(cap, 0); // full hash per slot: keys compared only on a hit
  const std::size_t mask = cap - 1;
  for (std::int64_t fid = 0; fid < nf; ++fid) {
    const Key k = sorted_key(mesh, fid);
    const std::uint64_t h = hash_key(k);
    std::size_t s = h & mask;
    while (first[s] >= 0 && (hashes[s] != h || sorted_key(mesh, first[s]) != k))
      s = (s + 1) & mask;
    if (first[s] < 0) {
      first[s] = fid;
      hashes[s] = h;
    } else if (second[s] < 0) {
      second[s] = fid;
    } else {
      DG_INPUT_ERROR("non-conforming mesh: the face with vertices "
                     << k[0] << " " << k[1] << " " << k[2] << " " << k[3]
                     << " is shared by more than two elements (" << first[s] / 6 << ", "
                     << second[s] / 6 << ", " << fid / 6 << ")");
    }
  }

  for (std::size_t s = 0; s < cap; ++s) {
    const std::int64_t a = first[s], b = second[s];
    if (a < 0) continue;
    if (b < 0) {
      if (periodic[a]) continue;
      if (tag[a] < 0)
        DG_INPUT_ERROR("non-conforming mesh: " << face_name(a / 6, int(a % 6))
                                               << " has no neighbour and no boundary tag");
      FaceLink& l = conn.links[a];
      l.kind = FaceKind::boundary;
      l.tag = tag[a];
      continue;
    }
    if (periodic[a] || periodic[b] || tag[a] >= 0 || tag[b] >= 0)
      DG_INPUT_ERROR("inconsistent mesh: " << face_name(a / 6, int(a % 6)) << " is shared with "
                                           << face_name(b / 6, int(b % 6))
                                           << " but is also listed as boundary or periodic");
    const Key va = face_ids(mesh, a / 6, int(a % 6)), vb = face_ids(mesh, b / 6, int(b % 6));
    int orient = -1;
    for (int o = 0; o < 8 && orient < 0; ++o) {
      bool ok = true;
      for (int c = 0; c < 4 && ok; ++c)
        ok = vb[corner_after(o, c)] == va[c];
      if (ok) orient = o;
    }
    if (orient < 0)
      DG_INPUT_ERROR("non-conforming mesh: " << face_name(a / 6, int(a % 6)) << " and "
                                             << face_name(b / 6, int(b % 6))
                                             << " share vertices but not as quadrilaterals");
    FaceLink& la = conn.links[a];
    FaceLink& lb = conn.links[b];
    la.kind = lb.kind = FaceKind::interior;
    la.nbr_elem = b / 6, la.nbr_face = int(b % 6), la.orientation = orient;
    lb.nbr_elem = a / 6, lb.nbr_face = int(a % 6),
    lb.orientation = hex::inverse_orientation(orient);
  }
  check_conforming_faces(mesh, conn);
  return conn;
}

} // namespace dg::mesh
