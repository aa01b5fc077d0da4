// Partitioning at 1-4 ranks: every element owned exactly once, rank-boundary face lists agree
// pairwise between ranks (with inverse orientations), imbalance within 5%, reproducible cuts.
#include "catch.hpp"

#include "dg/core/error.hpp"
#include "dg/mesh/generate.hpp"
#include "dg/mesh/hex.hpp"
#include "dg/mesh/local_mesh.hpp"
#include "dg/parallel/partition.hpp"

#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <tuple>

using namespace dg;

namespace {

void check_partition(const std::string& flags) {
  INFO("mesh flags: " << flags);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank generates the same mesh (deterministic) for the checks; only rank 0 hands it to
  // distribute, as the solver does.
  const auto m = mesh::generate_box(mesh::parse_box_flags(flags));
  const auto conn = mesh::build_connectivity(m);
  const auto p = rank == 0
                     ? parallel::distribute(m, conn, MPI_COMM_WORLD)
                     : parallel::distribute(mesh::HexMesh{}, mesh::Connectivity{}, MPI_COMM_WORLD);
  const std::int64_t ne = m.num_elements();
  // The owners METIS gives on rank 0 (reproducible, so a second run gives the same).
  std::vector<int> owner(ne, 0);
  if (rank == 0) owner = parallel::partition_elements(m, conn, size);
  MPI_Bcast(owner.data(), int(ne), MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(p.rank == rank);
  CHECK(p.local.nelem_global == ne);
  // Tag names are a global fact: every rank has the mesh's names, in tag order.
  CHECK(p.local.tag_names == m.tag_names);
  CHECK(p.local.tag_names == mesh::box_tag_names());

  // Owned elements: those with no face on another rank, then those with one (the rank-boundary
  // elements), each range ascending; consistent with owner[], and covering the mesh exactly once.
  auto on_rim = [&](std::int64_t g) {
    for (int f = 0; f < 6; ++f)
      if (conn(g, f).kind == mesh::FaceKind::interior && owner[conn(g, f).nbr_elem] != rank)
        return true;
    return false;
  };
  const auto rim = std::partition_point(p.global_ids.begin(), p.global_ids.end(),
                                        [&](std::int64_t g) { return !on_rim(g); });
  CHECK(std::all_of(rim, p.global_ids.end(), on_rim));
  CHECK(std::is_sorted(p.global_ids.begin(), rim));
  CHECK(std::is_sorted(rim, p.global_ids.end()));
  std::vector<int> mine(ne, 0);
  for (auto g : p.global_ids) {
    CHECK(owner[g] == rank);
    mine[g] += 1;
  }
  std::int64_t expected_owned = std::count(owner.begin(), owner.end(), rank);
  CHECK(std::int64_t(p.global_ids.size()) == expected_owned);

  // The local mesh: owned elements then exactly the off-rank face neighbours, each with the
  // global mesh's vertex coordinates, links and neighbour ranks; no other vertex.
  const auto& L = p.local;
  REQUIRE(L.num_owned == int(p.global_ids.size()));
  std::set<std::int64_t> halo;
  for (auto g : p.global_ids)
    for (int f = 0; f < 6; ++f)
      if (conn(g, f).kind == mesh::FaceKind::interior && owner[conn(g, f).nbr_elem] != rank)
        halo.insert(conn(g, f).nbr_elem);
  CHECK(std::vector<std::int64_t>(L.global_ids.begin() + L.num_owned, L.global_ids.end()) ==
        std::vector<std::int64_t>(halo.begin(), halo.end()));
  std::set<std::int64_t> verts;
  bool same_coords = true, same_links = true;
  for (int e = 0; e < L.num_elements(); ++e) {
    const std::int64_t g = L.global_ids[e];
    for (int v = 0; v < 8; ++v) {
      verts.insert(m.hex[8 * g + v]);
      for (int d = 0; d < 3; ++d)
        same_coords = same_coords && L.hexes.coords[3 * L.hexes.hex[8 * e + v] + d] ==
                                         m.coords[3 * m.hex[8 * g + v] + d];
    }
    if (e >= L.num_owned) continue;
    for (int f = 0; f < 6; ++f) {
      const auto &a = L.link(e, f), &b = conn(g, f);
      const bool interior = b.kind == mesh::FaceKind::interior;
      same_links = same_links && a.kind == b.kind && a.nbr_elem == b.nbr_elem &&
                   a.nbr_face == b.nbr_face && a.orientation == b.orientation && a.tag == b.tag &&
                   L.neighbour_part(e, f) == (interior ? owner[b.nbr_elem] : -1);
    }
  }
  CHECK(same_coords);
  CHECK(same_links);
  CHECK(L.hexes.num_vertices() == std::int64_t(verts.size()));
  const auto box = mesh::box_info(m);
  for (int d = 0; d < 3; ++d) {
    CHECK(L.box.lo[d] == box.lo[d]);
    CHECK(L.box.hi[d] == box.hi[d]);
    CHECK(L.box.periodic[d] == box.periodic[d]);
  }
  std::vector<int> total(ne, 0);
  MPI_Allreduce(mine.data(), total.data(), int(ne), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(std::count(total.begin(), total.end(), 1) == ne);
  std::int64_t nlocal = std::int64_t(p.global_ids.size()), nsum = 0;
  MPI_Allreduce(&nlocal, &nsum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(nsum == ne);
  // Within 5%, or the best possible when elements do not split evenly (4 elements, 3 ranks).
  const double best = double((ne + size - 1) / size) * size / double(ne);
  CHECK(p.imbalance <= std::max(1.05, best));
  CHECK(p.imbalance >= 1.0);
  if (size == 1) CHECK(p.edge_cut == 0);

  // Rank-boundary faces: gather all ranks' lists and match each face with its partner entry.
  using Row = std::array<std::int64_t, 7>; // rank, elem, face, nbr rank, nbr elem, nbr face, orient
  std::vector<std::int64_t> flat;
  for (const auto& f : p.boundary_faces) {
    CHECK(f.nbr_rank != rank);
    CHECK(owner[f.nbr_global_elem] == f.nbr_rank);
    const Row r = {rank,         p.global_ids[f.local_elem], f.face,
                   f.nbr_rank,   f.nbr_global_elem,          f.nbr_face,
                   f.orientation};
    flat.insert(flat.end(), r.begin(), r.end());
  }
  CHECK(std::is_sorted(p.boundary_faces.begin(), p.boundary_faces.end(),
                       [&](const auto& a, const auto& b) {
                         return std::make_tuple(a.nbr_rank, p.global_ids[a.local_elem], a.face) <
                                std::make_tuple(b.nbr_rank, p.global_ids[b.local_elem], b.face);
                       }));
  int n = int(flat.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r)
    displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<std::int64_t> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(flat.data(), n, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T,
                 MPI_COMM_WORLD);
  std::set<Row> rows;
  for (std::size_t i = 0; i < all.size(); i += 7)
    rows.insert(
        Row{all[i], all[i + 1], all[i + 2], all[i + 3], all[i + 4], all[i + 5], all[i + 6]});
  CHECK(rows.size() == all.size() / 7);
  CHECK(std::int64_t(rows.size()) == 2 * p.edge_cut);
  for (const auto& f : p.boundary_faces) {
    const Row partner = {f.nbr_rank,
                         f.nbr_global_elem,
                         f.nbr_face,
                         rank,
                         p.global_ids[f.local_elem],
                         f.face,
                         hex::inverse_orientation(f.orientation)};
    CHECK(rows.count(partner) == 1);
  }

  if (rank == 0)
    std::cout << "partition [" << flags << "] on " << size << " ranks: " << ne
              << " elements, edge cut " << p.edge_cut << " faces, imbalance " << p.imbalance
              << "\n";
}

} // namespace

TEST_CASE("partition: shuffled periodic box 6x5x4", "[mpi][partition]") {
  check_partition("-nx 6 -ny 5 -nz 4 -periodic xyz -warp 0.05 -shuffle 4");
}

TEST_CASE("partition: non-periodic box 8^3", "[mpi][partition]") {
  check_partition("-nx 8 -perturb 0.2 -shuffle 8");
}

TEST_CASE("partition: 16^3 periodic box (figures)", "[mpi][partition]") {
  check_partition("-nx 16 -periodic xyz");
}

TEST_CASE("partition: tiny periodic box with repeated neighbours", "[mpi][partition]") {
  check_partition("-nx 2 -ny 2 -nz 1 -periodic xyz");
}
