// Halo exchange of face traces between ranks, once per RK stage (Cabana-style): post all
// receives, pack on the device, send without blocking; finish() waits and unpacks. Device
// buffers go straight to MPI when it is GPU-aware, otherwise they are staged through host
// mirrors.
#pragma once

#include "dg/dg/element_block.hpp"
#include "dg/parallel/partition.hpp"

#include <mpi.h>

#include <vector>

namespace dg::parallel {

/// Ghost faces of this rank in the canonical exchange order: grouped by neighbour rank
/// (ascending), and within a group sorted by the (global element, face) of the side on the
/// lower rank, so that both sides enumerate their shared faces identically.
std::vector<GhostFace> ghost_faces(const Partition& part);

class HaloExchange {
public:
  static constexpr int trace_tag = 7301; // MPI tag of trace messages

  HaloExchange(MPI_Comm comm, ElementBlock& block, const std::vector<GhostFace>& ghosts,
               bool gpu_aware);
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;
  ~HaloExchange();

  /// Posts receives, packs the traces of rank-boundary faces and starts the sends.
  void start();
  /// Waits for all messages and fills block.ghost.
  void finish();

  /// Bytes sent by this rank per exchange.
  long bytes_per_exchange() const;
  /// Seconds spent waiting in finish() since construction.
  double wait_seconds() const { return wait_seconds_; }

private:
  MPI_Comm comm_;
  ElementBlock* block_;
  bool gpu_aware_;
  std::vector<int> ranks_;   // neighbour ranks
  std::vector<int> offsets_; // first ghost slot of each neighbour, plus the total
  IView1 pack_elem_, pack_face_;
  View3 send_;
  View3::HostMirror send_host_, recv_host_;
  std::vector<MPI_Request> requests_;
  double wait_seconds_ = 0.0;
};

} // namespace dg::parallel
