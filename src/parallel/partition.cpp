// METIS k-way partitioning of the face-adjacency dual graph, and each rank's share of the mesh.
#include "dg/parallel/partition.hpp"

#include "dg/core/error.hpp"

#include <metis.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

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

Partition partition_from_local(mesh::LocalMesh local, int rank) {
  Partition p;
  p.rank = rank;
  p.global_ids.assign(local.global_ids.begin(), local.global_ids.begin() + local.num_owned);
  for (int le = 0; le < local.num_owned; ++le)
    for (int f = 0; f < 6; ++f) {
      const auto& l = local.link(le, f);
      const int nr = local.neighbour_part(le, f);
      if (l.kind != mesh::FaceKind::interior || nr == rank) continue;
      p.boundary_faces.push_back(
          RankBoundaryFace{std::int64_t(le), f, nr, l.nbr_elem, l.nbr_face, l.orientation});
    }
  std::sort(p.boundary_faces.begin(), p.boundary_faces.end(),
            [&](const RankBoundaryFace& a, const RankBoundaryFace& b) {
              return std::make_tuple(a.nbr_rank, p.global_ids[a.local_elem], a.face) <
                     std::make_tuple(b.nbr_rank, p.global_ids[b.local_elem], b.face);
            });
  p.local = std::move(local);
  return p;
}

Partition distribute(const mesh::HexMesh& mesh, const mesh::Connectivity& conn, MPI_Comm comm) {
  constexpr int tag_sizes = 7311, tag_ints = 7312, tag_reals = 7313; // rank 0 -> each rank
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::int64_t ne = mesh.num_elements();
  MPI_Bcast(&ne, 1, MPI_INT64_T, 0, comm);
  // Rank 0 partitions; an input error there (too many ranks) must reach every rank.
  std::vector<int> owner;
  int ok = 1;
  std::string err;
  if (rank == 0) {
    try {
      owner = partition_elements(mesh, conn, size);
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

  // Global facts, computed where the mesh is.
  double facts[2] = {0.0, 1.0}; // edge cut, imbalance
  mesh::BoxInfo box;
  if (rank == 0) {
    std::vector<std::int64_t> count(size, 0);
    for (int o : owner)
      ++count[o];
    const std::int64_t maxc = *std::max_element(count.begin(), count.end());
    std::int64_t cut_sides = 0;
    for (std::int64_t e = 0; e < ne; ++e)
      for (int f = 0; f < 6; ++f) {
        const auto& l = conn(e, f);
        if (l.kind == mesh::FaceKind::interior && owner[l.nbr_elem] != owner[e]) ++cut_sides;
      }
    facts[0] = double(cut_sides / 2);
    facts[1] = double(maxc) * double(size) / double(ne);
    box = mesh::box_info(mesh);
  }
  MPI_Bcast(facts, 2, MPI_DOUBLE, 0, comm);
  double box_reals[6];
  int box_periodic[3];
  for (int d = 0; d < 3; ++d) {
    box_reals[d] = box.lo[d];
    box_reals[3 + d] = box.hi[d];
    box_periodic[d] = box.periodic[d];
  }
  MPI_Bcast(box_reals, 6, MPI_DOUBLE, 0, comm);
  MPI_Bcast(box_periodic, 3, MPI_INT, 0, comm);
  for (int d = 0; d < 3; ++d) {
    box.lo[d] = box_reals[d];
    box.hi[d] = box_reals[3 + d];
    box.periodic[d] = box_periodic[d] != 0;
  }
  // Boundary tag names, '\n'-separated.
  std::string names;
  if (rank == 0)
    for (const std::string& n : mesh.tag_names)
      names += n + '\n';
  std::int64_t names_len = std::int64_t(names.size());
  MPI_Bcast(&names_len, 1, MPI_INT64_T, 0, comm);
  names.resize(std::size_t(names_len));
  MPI_Bcast(names.data(), int(names_len), MPI_CHAR, 0, comm);
  std::vector<std::string> tag_names;
  for (std::size_t a = 0, b; (b = names.find('\n', a)) != std::string::npos; a = b + 1)
    tag_names.push_back(names.substr(a, b - a));

  // Each rank's share, one at a time (rank 0 never holds more than one extra share).
  mesh::LocalMesh mine;
  if (rank == 0) {
    std::vector<std::int64_t> ints;
    std::vector<double> reals;
    for (int r = 1; r < size; ++r) {
      mesh::pack_local_mesh(mesh::extract_local_mesh(mesh, conn, owner, r, box), ints, reals);
      DG_VERIFY(ints.size() < std::size_t(INT32_MAX) && reals.size() < std::size_t(INT32_MAX),
                "share of rank " << r << " too large for one message");
      std::int64_t sizes[2] = {std::int64_t(ints.size()), std::int64_t(reals.size())};
      MPI_Send(sizes, 2, MPI_INT64_T, r, tag_sizes, comm);
      MPI_Send(ints.data(), int(ints.size()), MPI_INT64_T, r, tag_ints, comm);
      MPI_Send(reals.data(), int(reals.size()), MPI_DOUBLE, r, tag_reals, comm);
    }
    mine = mesh::extract_local_mesh(mesh, conn, owner, 0, box);
  } else {
    std::int64_t sizes[2] = {0, 0};
    MPI_Recv(sizes, 2, MPI_INT64_T, 0, tag_sizes, comm, MPI_STATUS_IGNORE);
    std::vector<std::int64_t> ints(static_cast<std::size_t>(sizes[0]));
    std::vector<double> reals(static_cast<std::size_t>(sizes[1]));
    MPI_Recv(ints.data(), int(ints.size()), MPI_INT64_T, 0, tag_ints, comm, MPI_STATUS_IGNORE);
    MPI_Recv(reals.data(), int(reals.size()), MPI_DOUBLE, 0, tag_reals, comm, MPI_STATUS_IGNORE);
    mine = mesh::unpack_local_mesh(ints, reals);
    mine.box = box;
    mine.tag_names = tag_names;
  }
  Partition p = partition_from_local(std::move(mine), rank);
  p.edge_cut = std::int64_t(facts[0]);
  p.imbalance = facts[1];
  return p;
}

} // namespace dg::parallel
