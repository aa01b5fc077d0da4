// Halo exchange of face traces.
#include "dg/parallel/halo.hpp"

#include "dg/core/error.hpp"

#include <algorithm>
#include <tuple>

namespace dg::parallel {

namespace {
/// The exchange's execution space instance: on CUDA a new non-blocking stream of the highest
/// priority (owned by the instance), elsewhere the default instance.
ExecSpace exchange_space() {
#ifdef KOKKOS_ENABLE_CUDA
  int least = 0, greatest = 0;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  cudaStream_t stream = nullptr;
  const cudaError_t err = cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest);
  DG_VERIFY(err == cudaSuccess,
            "halo exchange: cannot create a CUDA stream: " << cudaGetErrorString(err));
  return Kokkos::Cuda(stream, Kokkos::Impl::ManageStream::yes);
#else
  return ExecSpace();
#endif
}
} // namespace

std::vector<GhostFace> ghost_faces(const Partition& part) {
  std::vector<GhostFace> g;
  g.reserve(part.boundary_faces.size());
  for (const auto& f : part.boundary_faces)
    g.push_back(GhostFace{static_cast<int>(f.local_elem), f.face, f.nbr_rank, f.nbr_global_elem,
                          f.nbr_face, f.orientation});
  auto key = [&](const GhostFace& f) {
    const std::int64_t own = part.global_ids[f.local_elem];
    const bool low = part.rank < f.nbr_rank; // this side is the lower rank
    return std::make_tuple(f.nbr_rank, low ? own : f.nbr_global, low ? f.face : f.nbr_face,
                           low ? f.nbr_global : own, low ? f.nbr_face : f.face);
  };
  std::sort(g.begin(), g.end(),
            [&](const GhostFace& a, const GhostFace& b) { return key(a) < key(b); });
  return g;
}

HaloExchange::HaloExchange(MPI_Comm comm, ElementBlock& block, const std::vector<GhostFace>& ghosts,
                           bool gpu_aware, const std::vector<char>& reads, bool fence)
    : comm_(comm), block_(&block), gpu_aware_(gpu_aware), space_(exchange_space()) {
  const int G = static_cast<int>(ghosts.size());
  DG_VERIFY(reads.empty() || static_cast<int>(reads.size()) == G,
            "halo exchange: " << reads.size() << " read flags for " << G << " ghost faces");
  std::vector<int> first; // first ghost slot of each neighbour, plus G
  for (int s = 0; s < G; ++s) {
    if (ranks_.empty() || ranks_.back() != ghosts[s].nbr_rank) {
      ranks_.push_back(ghosts[s].nbr_rank);
      first.push_back(s);
    }
  }
  first.push_back(G);
  const int n = static_cast<int>(ranks_.size());
  // Which faces each side reads, told to the other side: both enumerate their shared faces in
  // the same order (ghost_faces), so that slot s of one is slot s of the other.
  std::vector<char> mine(G, 1), theirs(G, 1);
  if (!reads.empty()) mine = reads;
  {
    std::vector<MPI_Request> req(2 * n, MPI_REQUEST_NULL);
    constexpr int flags_tag = trace_tag + 1;
    for (int i = 0; i < n; ++i) {
      const int cnt = first[i + 1] - first[i];
      MPI_Irecv(theirs.data() + first[i], cnt, MPI_CHAR, ranks_[i], flags_tag, comm_, &req[i]);
      MPI_Isend(mine.data() + first[i], cnt, MPI_CHAR, ranks_[i], flags_tag, comm_, &req[n + i]);
    }
    MPI_Waitall(2 * n, req.data(), MPI_STATUSES_IGNORE);
  }
  std::vector<int> sent, received;
  send_offsets_.assign(1, 0);
  recv_offsets_.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    for (int s = first[i]; s < first[i + 1]; ++s) {
      if (theirs[s]) sent.push_back(s);
      if (mine[s]) received.push_back(s);
    }
    send_offsets_.push_back(static_cast<int>(sent.size()));
    recv_offsets_.push_back(static_cast<int>(received.size()));
  }
  const int Gs = static_cast<int>(sent.size()), Gr = static_cast<int>(received.size());
  pack_elem_ = IView1("dg::halo::pack_elem", Gs);
  pack_face_ = IView1("dg::halo::pack_face", Gs);
  auto he = Kokkos::create_mirror_view(pack_elem_);
  auto hf = Kokkos::create_mirror_view(pack_face_);
  for (int k = 0; k < Gs; ++k) {
    he(k) = ghosts[sent[k]].local_elem;
    hf(k) = ghosts[sent[k]].face;
  }
  Kokkos::deep_copy(pack_elem_, he);
  Kokkos::deep_copy(pack_face_, hf);
  const int nf = block.nface, nc = static_cast<int>(block.ghost.extent(2));
  send_ = View3("dg::halo::send", std::max(1, Gs), nf, nc);
  if (Gr < G) { // packed: unpacked into the ghost slots read (the others are never read)
    unpack_slot_ = IView1("dg::halo::unpack_slot", Gr);
    auto hu = Kokkos::create_mirror_view(unpack_slot_);
    for (int k = 0; k < Gr; ++k)
      hu(k) = received[k];
    Kokkos::deep_copy(unpack_slot_, hu);
    recv_ = View3("dg::halo::recv", std::max(1, Gr), nf, nc);
  }
#ifdef KOKKOS_ENABLE_CUDA
  device_ordered_ = !fence && !gpu_aware_;
  if (device_ordered_)
    for (cudaEvent_t& ev : events_) {
      const cudaError_t err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
      DG_VERIFY(err == cudaSuccess,
                "halo exchange: cannot create a CUDA event: " << cudaGetErrorString(err));
    }
#else
  (void)fence;
#endif
  if (!gpu_aware_) {
    send_host_ = Kokkos::create_mirror_view(StagingSpace(), send_);
    for (int k = 0; k < (device_ordered_ ? 2 : 1); ++k)
      recv_host_[k] = Kokkos::create_mirror_view(StagingSpace(), Gr < G ? recv_ : block.ghost);
  }
}

HaloExchange::~HaloExchange() {
  if (!requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
#ifdef KOKKOS_ENABLE_CUDA
  if (device_ordered_) {
    space_.fence();
    for (cudaEvent_t ev : events_)
      cudaEventDestroy(ev);
  }
#endif
}

namespace {
/// Work enqueued on `waiter` from now on runs after the work enqueued on `waited` so far: with
/// a CUDA event ev through it, else a host fence.
void order(const ExecSpace& waiter, const ExecSpace& waited, [[maybe_unused]] void* ev) {
#ifdef KOKKOS_ENABLE_CUDA
  if (ev) {
    const auto e = static_cast<cudaEvent_t>(ev);
    cudaError_t err = cudaEventRecord(e, waited.cuda_stream());
    if (err == cudaSuccess) err = cudaStreamWaitEvent(waiter.cuda_stream(), e, 0);
    DG_VERIFY(err == cudaSuccess,
              "halo exchange: cannot order two CUDA streams: " << cudaGetErrorString(err));
    return;
  }
#endif
  (void)waiter;
  waited.fence();
}
} // namespace

void* HaloExchange::event(int k) const {
#ifdef KOKKOS_ENABLE_CUDA
  if (device_ordered_) return events_[k];
#endif
  (void)k;
  return nullptr;
}

void HaloExchange::follow(const ExecSpace& other) {
  order(space_, other, event(0));
}

void HaloExchange::precede(const ExecSpace& other) {
  order(other, space_, event(1));
}

long HaloExchange::bytes_per_exchange() const {
  return static_cast<long>(send_offsets_.back()) * doubles_per_face() * sizeof(double);
}

void HaloExchange::start() {
  if (ranks_.empty()) return;
  const int n = static_cast<int>(ranks_.size());
  const int nc = static_cast<int>(block_->ghost.extent(2)); // trace components
  const int per_face = doubles_per_face();
  requests_.assign(2 * n, MPI_REQUEST_NULL);
  double* recv_base =
      gpu_aware_ ? (packed() ? recv_.data() : block_->ghost.data()) : recv_host_[parity_].data();
  for (int i = 0; i < n; ++i) {
    const int cnt = recv_offsets_[i + 1] - recv_offsets_[i];
    if (cnt > 0)
      MPI_Irecv(recv_base + static_cast<long>(recv_offsets_[i]) * per_face, cnt * per_face,
                MPI_DOUBLE, ranks_[i], trace_tag, comm_, &requests_[i]);
  }
  // Pack on the device.
  const View3 send = send_;
  const auto trace = block_->trace;
  const IView1 pe = pack_elem_, pf = pack_face_;
  const int Gs = send_offsets_.back(), nf = block_->nface;
  if (Gs > 0)
    Kokkos::parallel_for(
        "dg::halo::pack", Kokkos::RangePolicy<ExecSpace>(space_, 0, static_cast<long>(Gs) * nf),
        KOKKOS_LAMBDA(const long i) {
          const int s = static_cast<int>(i / nf), pt = static_cast<int>(i % nf);
          for (int c = 0; c < nc; ++c)
            send(s, pt, c) = trace(pe(s), pf(s), pt, c);
        });
  if (!gpu_aware_ && Gs > 0) Kokkos::deep_copy(space_, send_host_, send_);
}

void HaloExchange::finish() {
  if (ranks_.empty()) return;
  const int n = static_cast<int>(ranks_.size());
  const int per_face = doubles_per_face();
  const double t0 = MPI_Wtime();
  space_.fence(); // the packed (and staged) traces
  const double t1 = MPI_Wtime();
  staging_seconds_ += t1 - t0;
  const double* send_base = gpu_aware_ ? send_.data() : send_host_.data();
  for (int i = 0; i < n; ++i) {
    const int cnt = send_offsets_[i + 1] - send_offsets_[i];
    if (cnt > 0)
      MPI_Isend(send_base + static_cast<long>(send_offsets_[i]) * per_face, cnt * per_face,
                MPI_DOUBLE, ranks_[i], trace_tag, comm_, &requests_[n + i]);
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  wait_seconds_ += MPI_Wtime() - t1;
  requests_.clear();
  const auto& recv_host = recv_host_[parity_];
  if (device_ordered_) parity_ ^= 1;
  if (!packed()) {
    if (!gpu_aware_) Kokkos::deep_copy(space_, block_->ghost, recv_host);
    return;
  }
  const int Gr = recv_offsets_.back();
  if (Gr == 0) return;
  if (!gpu_aware_) Kokkos::deep_copy(space_, recv_, recv_host);
  const View3 recv = recv_, ghost = block_->ghost;
  const IView1 slot = unpack_slot_;
  const int nc = static_cast<int>(ghost.extent(2)), m = block_->nface * nc;
  Kokkos::parallel_for(
      "dg::halo::unpack", Kokkos::RangePolicy<ExecSpace>(space_, 0, static_cast<long>(Gr) * m),
      KOKKOS_LAMBDA(const long i) {
        const int k = static_cast<int>(i / m), r = static_cast<int>(i % m);
        ghost(slot(k), r / nc, r % nc) = recv(k, r / nc, r % nc);
      });
}

} // namespace dg::parallel
