// Halo exchange of face traces between ranks, once per RK stage (Cabana-style), driven by
// DGOperator::apply_overlapped: start() posts all receives and packs the rank-boundary traces
// on the exchange's own execution space instance, while the interior elements' stage runs on
// the default one; finish() sends, waits and unpacks. Only the faces whose trace the neighbour
// reads travel (DGOperator::reads_neighbour_traces: with advection alone the faces where its
// upwind flux may take this side; each rank tells its neighbours once, at construction). Device
// buffers go straight to MPI when it is GPU-aware; otherwise they are staged through host mirrors,
// in page-locked memory on CUDA (copies from a pageable buffer go through the driver's bounce
// buffer and cannot overlap with a kernel). On CUDA the instance is a stream of the highest
// priority, so that the rank-boundary elements' stage starts as soon as the interior stage frees an
// SM.
#pragma once

#include "dg/dg/element_block.hpp"
#include "dg/dg/operator.hpp"
#include "dg/parallel/partition.hpp"

#include <mpi.h>

#include <vector>

namespace dg::parallel {

#ifdef KOKKOS_ENABLE_CUDA
using StagingSpace = Kokkos::CudaHostPinnedSpace;
#else
using StagingSpace = Kokkos::HostSpace; // the device views are host views: no staging copies
#endif

/// Ghost faces of this rank in the canonical exchange order: grouped by neighbour rank
/// (ascending), and within a group sorted by the (global element, face) of the side on the
/// lower rank, so that both sides enumerate their shared faces identically.
std::vector<GhostFace> ghost_faces(const Partition& part);

class HaloExchange final : public GhostExchange {
public:
  static constexpr int trace_tag = 7301; // MPI tag of trace messages

  /// reads[s]: whether this rank's stages read ghost slot s (ghosts' order; empty: every slot).
  /// fence: the stages wait on the host for each other (device_ordered() false). Collective
  /// over comm.
  HaloExchange(MPI_Comm comm, ElementBlock& block, const std::vector<GhostFace>& ghosts,
               bool gpu_aware, const std::vector<char>& reads = {}, bool fence = false);
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;
  ~HaloExchange();

  /// Posts receives, packs the traces of rank-boundary faces and starts copying them to the
  /// host (on space()).
  void start() override;
  /// Sends, waits for all messages and fills block.ghost (on space()).
  void finish() override;
  ExecSpace space() const override { return space_; }
  void follow(const ExecSpace& other) override;
  void precede(const ExecSpace& other) override;
  /// Host-staged messages on CUDA, unless constructed with fence: the receive buffers alternate
  /// between stages, so that a message never lands in the host buffer whose copy to the
  /// device the last stage queued. Device buffers handed to MPI and host backends fence.
  bool device_ordered() const override { return device_ordered_; }

  /// Bytes sent by this rank per exchange.
  long bytes_per_exchange() const;
  /// Seconds spent waiting for messages in finish() since construction.
  double wait_seconds() const { return wait_seconds_; }
  /// Seconds spent in finish() waiting for the packed traces (and their copy to the host).
  double staging_seconds() const { return staging_seconds_; }

private:
  MPI_Comm comm_;
  ElementBlock* block_;
  bool gpu_aware_;
  ExecSpace space_;        // packing, staging copies, the rank-boundary elements' stage
  std::vector<int> ranks_; // neighbour ranks
  // Per neighbour the first face sent and the first received in the packed buffers, plus the
  // totals; faces go in ghost slot order.
  std::vector<int> send_offsets_, recv_offsets_;
  IView1 pack_elem_, pack_face_; // the faces sent: this rank's element and face
  IView1 unpack_slot_;           // the faces received: their ghost slots (empty: every slot)
  View3 send_, recv_;            // recv_: the packed faces received (empty: block.ghost)
  using StagingView3 = decltype(Kokkos::create_mirror_view(StagingSpace(), View3()));
  StagingView3 send_host_, recv_host_[2];
  int parity_ = 0; // the receive buffer of this stage (device_ordered: alternating)
  bool device_ordered_ = false;
#ifdef KOKKOS_ENABLE_CUDA
  cudaEvent_t events_[2] = {nullptr, nullptr}; // follow, precede
#endif
  std::vector<MPI_Request> requests_;
  /// The CUDA event of follow (k = 0) or precede (1) where device_ordered, else null.
  void* event(int k) const;
  /// Whether the messages carry only some of the ghost slots (received into recv_, then
  /// unpacked), or every slot (received into block.ghost).
  bool packed() const {
    return recv_.extent(0) > 0;
  }
  /// Doubles of one ghost face: its points times the trace components.
  int doubles_per_face() const {
    return block_->nface * static_cast<int>(block_->ghost.extent(2));
  }
  double wait_seconds_ = 0.0, staging_seconds_ = 0.0;
};

} // namespace dg::parallel
