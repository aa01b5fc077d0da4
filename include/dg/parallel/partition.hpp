// Element partitioning: METIS k-way on the face-adjacency dual graph, and each rank's view of
// the result (its elements with global ids, and its rank-boundary faces).
#pragma once

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

/// One rank's share of the mesh.
struct Partition {
  std::vector<std::int64_t> global_ids;          // owned elements, ascending global id
  std::vector<RankBoundaryFace> boundary_faces;  // sorted by (nbr_rank, global id, face)
  std::vector<int> owner;                        // owner rank of every global element
  std::int64_t edge_cut = 0;                     // faces whose two sides are on different ranks
  double imbalance = 1.0;                        // max part size / mean part size
};

/// Rank 0 partitions (METIS), every rank receives the owner array and builds its Partition.
/// The mesh and connectivity must be available on every rank (read by each, or broadcast).
Partition distribute(const mesh::HexMesh& mesh, const mesh::Connectivity& conn, MPI_Comm comm);

} // namespace dg::parallel
