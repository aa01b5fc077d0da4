// Element partitioning: METIS k-way on the face-adjacency dual graph, and each rank's view of
// the result (its share of the mesh with global ids, and its rank-boundary faces).
#pragma once

#include "dg/mesh/local_mesh.hpp"
#include "dg/mesh/mesh.hpp"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace dg::parallel {

/// Owner rank of every element (size nelem), from METIS_PartGraphKway on the dual graph whose
/// edges are interior and periodic faces. nparts == 1 gives all zeros without calling METIS.
std::vector<int> partition_elements(const mesh::HexMesh& mesh, const mesh::Connectivity& conn,
                                    int nparts);

/// A face on this rank whose neighbour element lives on another rank.
struct RankBoundaryFace {
  std::int64_t local_elem; // index into Partition::global_ids
  int face;                // local face of local_elem
  int nbr_rank;
  std::int64_t nbr_global_elem;
  int nbr_face;
  int orientation;
};

/// One rank's share of the mesh. Nothing here grows with the global mesh.
struct Partition {
  int rank = 0;                                 // this rank in the communicator
  mesh::LocalMesh local;                        // owned elements, halo elements, face links
  std::vector<std::int64_t> global_ids;         // owned elements, as LocalMesh orders them
  std::vector<RankBoundaryFace> boundary_faces; // sorted by (nbr_rank, global id, face)
  std::int64_t edge_cut = 0;                    // faces whose two sides are on different ranks
  double imbalance = 1.0;                       // max part size / mean part size
};

/// Rank 0 alone reads `mesh` and `conn` (other ranks pass empty objects): it partitions them
/// (METIS), then sends every rank its LocalMesh (vertex coordinates of its elements and of their
/// face neighbours, face links with neighbour ranks, global ids) and broadcasts the global facts
/// (element count, bounding box, periodic directions, edge cut, imbalance). Collective; an input
/// error on rank 0 (more ranks than elements) is thrown on every rank.
Partition distribute(const mesh::HexMesh& mesh, const mesh::Connectivity& conn, MPI_Comm comm);

/// A Partition built from a LocalMesh (what distribute does on each rank once it has its share).
Partition partition_from_local(mesh::LocalMesh local, int rank);

} // namespace dg::parallel
