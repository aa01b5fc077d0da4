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
                           bool gpu_aware)
    : comm_(comm), block_(&block), gpu_aware_(gpu_aware), space_(exchange_space()) {
  const int G = static_cast<int>(ghosts.size());
  for (int s = 0; s < G; ++s) {
    if (ranks_.empty() || ranks_.back() != ghosts[s].nbr_rank) {
      ranks_.push_back(ghosts[s].nbr_rank);
      offsets_.push_back(s);
    }
  }
  offsets_.push_back(G);
  pack_elem_ = IView1("dg::halo::pack_elem", G);
  pack_face_ = IView1("dg::halo::pack_face", G);
  auto he = Kokkos::create_mirror_view(pack_elem_);
  auto hf = Kokkos::create_mirror_view(pack_face_);
  for (int s = 0; s < G; ++s) {
    he(s) = ghosts[s].local_elem;
    hf(s) = ghosts[s].face;
  }
  Kokkos::deep_copy(pack_elem_, he);
  Kokkos::deep_copy(pack_face_, hf);
  send_ = View3("dg::halo::send", std::max(1, G), block.nface, block.ghost.extent(2));
  if (!gpu_aware_) {
    send_host_ = Kokkos::create_mirror_view(StagingSpace(), send_);
    recv_host_ = Kokkos::create_mirror_view(StagingSpace(), block.ghost);
  }
}

HaloExchange::~HaloExchange() {
  if (!requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

long HaloExchange::bytes_per_exchange() const {
  return static_cast<long>(offsets_.back()) * doubles_per_face() * sizeof(double);
}

void HaloExchange::start() {
  if (ranks_.empty()) return;
  const int n = static_cast<int>(ranks_.size());
  const int nc = static_cast<int>(block_->ghost.extent(2)); // trace components
  const int per_face = doubles_per_face();
  requests_.assign(2 * n, MPI_REQUEST_NULL);
  double* recv_base = gpu_aware_ ? block_->ghost.data() : recv_host_.data();
  for (int i = 0; i < n; ++i)
    MPI_Irecv(recv_base + static_cast<long>(offsets_[i]) * per_face,
              (offsets_[i + 1] - offsets_[i]) * per_face, MPI_DOUBLE, ranks_[i], trace_tag, comm_,
              &requests_[i]);
  // Pack on the device.
  const View3 send = send_;
  const auto trace = block_->trace;
  const IView1 pe = pack_elem_, pf = pack_face_;
  const int G = offsets_.back(), nf = block_->nface;
  Kokkos::parallel_for(
      "dg::halo::pack", Kokkos::RangePolicy<ExecSpace>(space_, 0, static_cast<long>(G) * nf),
      KOKKOS_LAMBDA(const long i) {
        const int s = static_cast<int>(i / nf), pt = static_cast<int>(i % nf);
        for (int c = 0; c < nc; ++c)
          send(s, pt, c) = trace(pe(s), pf(s), pt, c);
      });
  if (!gpu_aware_) Kokkos::deep_copy(space_, send_host_, send_);
}

void HaloExchange::finish() {
  if (ranks_.empty()) return;
  const int n = static_cast<int>(ranks_.size());
  const int per_face = doubles_per_face();
  space_.fence(); // the packed (and staged) traces
  const double* send_base = gpu_aware_ ? send_.data() : send_host_.data();
  for (int i = 0; i < n; ++i)
    MPI_Isend(send_base + static_cast<long>(offsets_[i]) * per_face,
              (offsets_[i + 1] - offsets_[i]) * per_face, MPI_DOUBLE, ranks_[i], trace_tag, comm_,
              &requests_[n + i]);
  const double t0 = MPI_Wtime();
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  wait_seconds_ += MPI_Wtime() - t0;
  requests_.clear();
  if (!gpu_aware_) Kokkos::deep_copy(space_, block_->ghost, recv_host_);
}

} // namespace dg::parallel
