// METIS k-way partitioning of the face-adjacency dual graph, and each rank's share of the mesh.
#include "dg/parallel/partition.hpp"

#include "dg/core/error.hpp"

#include <metis.h>

#include <algorithm>
#include <tuple>

namespace dg::parallel {

namespace {

// METIS may miss its balance target (or leave a part empty) on small graphs. Greedy repair:
// move elements out of parts above the cap, preferring an under-full part they touch most, then
// (if none touches) the smallest part. Deterministic, and a no-op when METIS met the target.
void rebalance(std::vector<int>& owner, const std::vector<idx_t>& xadj,
               const std::vector<idx_t>& adjncy, int nparts) {
  const std::int64_t ne = std::int64_t(owner.size());
  const std::int64_t fair = (ne + nparts - 1) / nparts;
  const std::int64_t cap = std::max<std::int64_t>(fair, std::int64_t(1.03 * double(ne) / nparts));
  std::vector<std::int64_t> size(nparts, 0);
  for (int o : owner)
    ++size[o];
  std::vector<int> touch(nparts, 0);
  for (int pass = 0; pass < 64; ++pass) {
    bool moved = false, over = false;
    for (std::int64_t e = 0; e < ne; ++e) {
      const int from = owner[e];
      if (size[from] <= cap) continue;
      over = true;
      std::fill(touch.begin(), touch.end(), 0);
      for (idx_t k = xadj[e]; k < xadj[e + 1]; ++k)
        ++touch[owner[adjncy[k]]];
      int best = -1;
      for (int q = 0; q < nparts; ++q)
        if (q != from && touch[q] > 0 && size[q] < fair && (best < 0 || touch[q] > touch[best]))
          best = q;
      if (best < 0) continue;
      owner[e] = best, --size[from], ++size[best], moved = true;
    }
    if (!over) return;
    if (!moved) {
      // No over-full part touches an under-full one: move one element to the smallest part.
      const int to = int(std::min_element(size.begin(), size.end()) - size.begin());
      for (std::int64_t e = 0; e < ne; ++e)
        if (size[owner[e]] > cap) {
          --size[owner[e]], ++size[to], owner[e] = to;
          break;
        }
    }
  }
}

} // namespace

std::vector<int> partition_elements(const mesh::HexMesh& mesh, const mesh::Connectivity& conn,
                                    int nparts) {
  const std::int64_t ne = mesh.num_elements();
  DG_VERIFY(nparts >= 1, "nparts = " << nparts);
  DG_VERIFY(std::int64_t(conn.links.size()) == 6 * ne, "connectivity does not match the mesh");
  if (nparts == 1) return std::vector<int>(ne, 0);
  if (ne < nparts)
    DG_INPUT_ERROR("cannot partition " << ne << " elements over " << nparts
                                       << " ranks: use at most " << ne << " ranks");
  DG_VERIFY(ne <= INT32_MAX, "METIS idx_t is 32-bit here; " << ne << " elements");

  // Dual graph in CSR form. Two elements may share several faces (periodic boxes of 1 or 2
  // elements across): one edge weighted by the number of faces, so METIS's cut counts faces.
  // Self-loops (an element periodic with itself) are dropped.
  std::vector<idx_t> xadj(ne + 1, 0), adjncy, adjwgt;
  adjncy.reserve(6 * ne);
  adjwgt.reserve(6 * ne);
  for (std::int64_t e = 0; e < ne; ++e) {
    const std::size_t start = adjncy.size();
    for (int f = 0; f < 6; ++f) {
      const auto& l = conn(e, f);
      if (l.kind != mesh::FaceKind::interior || l.nbr_elem == e) continue;
      const idx_t nb = idx_t(l.nbr_elem);
      std::size_t k = start;
      while (k < adjncy.size() && adjncy[k] != nb)
        ++k;
      if (k < adjncy.size()) {
        ++adjwgt[k];
      } else {
        adjncy.push_back(nb);
        adjwgt.push_back(1);
      }
    }
    xadj[e + 1] = idx_t(adjncy.size());
  }

  idx_t nvtxs = idx_t(ne), ncon = 1, np = nparts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_UFACTOR] = 30; // allowed imbalance 1.030
  options[METIS_OPTION_CONTIG] = 0;
  options[METIS_OPTION_SEED] = 12345; // reproducible partitions
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> part(ne, 0);
  const int rc =
      METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr,
                          adjwgt.data(), &np, nullptr, nullptr, options, &objval, part.data());
  DG_VERIFY(rc == METIS_OK, "METIS_PartGraphKway failed with code " << rc);
  std::vector<int> owner(part.begin(), part.end());
  rebalance(owner, xadj, adjncy, nparts);
  return owner;
}

Partition distribute(const mesh::HexMesh& mesh, const mesh::Connectivity& conn, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::int64_t ne = mesh.num_elements();
  Partition p;
  p.owner.assign(ne, 0);
  // Rank 0 partitions; an input error there (too many ranks) must reach every rank.
  int ok = 1;
  std::string err;
  if (rank == 0) {
    try {
      p.owner = partition_elements(mesh, conn, size);
    } catch (const InputError& e) {
      ok = 0;
      err = e.what();
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok) {
    if (rank == 0) throw InputError(err);
    DG_INPUT_ERROR("cannot partition " << ne << " elements over " << size << " ranks: use at most "
                                       << ne << " ranks");
  }
  for (std::int64_t off = 0; off < ne; off += INT32_MAX / 2) {
    const int count = int(std::min<std::int64_t>(ne - off, INT32_MAX / 2));
    MPI_Bcast(p.owner.data() + off, count, MPI_INT, 0, comm);
  }

  std::vector<std::int64_t> count(size, 0);
  for (std::int64_t e = 0; e < ne; ++e) {
    ++count[p.owner[e]];
    if (p.owner[e] == rank) p.global_ids.push_back(e);
  }
  const std::int64_t maxc = *std::max_element(count.begin(), count.end());
  p.imbalance = double(maxc) * double(size) / double(ne);

  std::int64_t cut_sides = 0;
  for (std::int64_t e = 0; e < ne; ++e)
    for (int f = 0; f < 6; ++f) {
      const auto& l = conn(e, f);
      if (l.kind == mesh::FaceKind::interior && p.owner[l.nbr_elem] != p.owner[e]) ++cut_sides;
    }
  p.edge_cut = cut_sides / 2;

  for (std::size_t le = 0; le < p.global_ids.size(); ++le) {
    const std::int64_t e = p.global_ids[le];
    for (int f = 0; f < 6; ++f) {
      const auto& l = conn(e, f);
      if (l.kind != mesh::FaceKind::interior || p.owner[l.nbr_elem] == rank) continue;
      p.boundary_faces.push_back(RankBoundaryFace{std::int64_t(le), f, p.owner[l.nbr_elem],
                                                  l.nbr_elem, l.nbr_face, l.orientation});
    }
  }
  std::sort(p.boundary_faces.begin(), p.boundary_faces.end(),
            [&](const RankBoundaryFace& a, const RankBoundaryFace& b) {
              return std::make_tuple(a.nbr_rank, p.global_ids[a.local_elem], a.face) <
                     std::make_tuple(b.nbr_rank, p.global_ids[b.local_elem], b.face);
            });
  return p;
}

} // namespace dg::parallel
