// One rank's share of a hex mesh (its elements, the face-neighbour elements owned by other parts,
// their face connectivity) and the few global facts about the mesh that code without the global
// mesh needs (element count, bounding box, periodic directions).
#pragma once

#include "dg/mesh/mesh.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dg::mesh {

/// Global facts of a mesh: its bounding box and the box directions in which periodic pairs
/// connect opposite faces (a pair whose face centroids differ by the box length along d).
struct BoxInfo {
  double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.0, 0.0, 0.0};
  bool periodic[3] = {false, false, false};
};

/// Bounding box and periodic directions of `mesh`.
BoxInfo box_info(const HexMesh& mesh);

/// A part of a mesh as one rank holds it. Elements are the part's own elements followed by its
/// halo: the elements of other parts across its faces (ascending global id), held only for their
/// geometry (the penalty scale of a shared face needs both volumes). The own elements come in
/// two ranges, each in ascending global id: those with no face on another part, then those
/// with one (the rank-boundary elements).
struct LocalMesh {
  std::int64_t nelem_global = 0;
  BoxInfo box;
  /// Boundary tag names of the whole mesh (HexMesh::tag_names): a global fact, like the box.
  std::vector<std::string> tag_names;
  int num_owned = 0;
  std::vector<std::int64_t> global_ids; // (num_owned + halo) global id of each element
  /// Vertices renumbered to those the part's elements use; hex rows match global_ids.
  /// `boundary` and `periodic` are empty (the links below carry that information).
  HexMesh hexes;
  /// (num_owned, 6) face links of the owned elements; nbr_elem is a global id.
  std::vector<FaceLink> links;
  /// (num_owned, 6) part owning the neighbour of an interior face, -1 on boundary faces.
  std::vector<int> nbr_part;

  int num_elements() const { return static_cast<int>(global_ids.size()); }
  const FaceLink& link(int e, int f) const { return links[6 * static_cast<std::size_t>(e) + f]; }
  int neighbour_part(int e, int f) const { return nbr_part[6 * static_cast<std::size_t>(e) + f]; }
};

/// The share of part `part` of a partitioned mesh (`owner[e]` the part of element e).
LocalMesh extract_local_mesh(const HexMesh& mesh, const Connectivity& conn,
                             const std::vector<int>& owner, int part, const BoxInfo& box);

/// Flattens a LocalMesh into integers and doubles (for a message) and back. The box is not
/// included (it is the same for every part and travels once).
void pack_local_mesh(const LocalMesh& m, std::vector<std::int64_t>& ints,
                     std::vector<double>& reals);
LocalMesh unpack_local_mesh(const std::vector<std::int64_t>& ints,
                            const std::vector<double>& reals);

} // namespace dg::mesh
