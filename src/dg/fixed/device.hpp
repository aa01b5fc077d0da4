// Device plumbing shared by the fixed-order kernels: loop-unrolling pragmas, level-0 scratch
// pointers the compiler sees as shared memory (shared_space), asynchronous global-to-shared copies
// (copy_async, copy_wait), the launch check and the team policy with its scratch level and team
// size. No kernel of its own, no bytes per DOF.
#pragma once

#include "dg/core/error.hpp"
#include "dg/dg/fixed_order.hpp"

#include <algorithm>

namespace dg::fixed {

#if defined(__CUDA_ARCH__)
extern __shared__ double dg_fixed_dynamic_shared[];
#endif

/// Full unrolling of a loop with a compile-time trip count (index arithmetic and the structural
/// zeros of the tables folded at compile time).
#if defined(__CUDA_ARCH__)
#define DG_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define DG_UNROLL _Pragma("GCC unroll 16")
#else
#define DG_UNROLL
#endif
#if defined(__CUDA_ARCH__)
#define DG_NO_UNROLL _Pragma("unroll 1")
#else
#define DG_NO_UNROLL
#endif

/// A pointer into a team's level-0 scratch (CUDA dynamic shared memory) re-derived from a
/// __shared__ array, so that the compiler emits shared-memory loads and stores (LDS/STS with
/// 32-bit offsets) instead of generic ones with 64-bit address arithmetic: measured on the
/// modal kernel, the generic form made about 60% of its instructions integer address
/// arithmetic (docs/performance.md). Identity elsewhere. Only for level-0 scratch.
KOKKOS_INLINE_FUNCTION double* shared_space(double* p) {
#if defined(__CUDA_ARCH__)
  const size_t off =
      __cvta_generic_to_shared(p) - __cvta_generic_to_shared(dg_fixed_dynamic_shared);
  return dg_fixed_dynamic_shared + off / sizeof(double);
#else
  return p;
#endif
}

/// Asynchronous global-to-shared copy of one 8-byte value (cp.async, sm_80 and later) where
/// dst is in level-0 scratch (SHARED), so that a team has all its loads in flight at once
/// instead of one load per thread and loop trip: the copies bypass the registers and are not
/// ordered behind the shared-memory stores. A plain copy elsewhere. copy_wait() completes the
/// calling thread's copies; a team barrier after it makes them visible to the team.
template <bool SHARED, class T>
KOKKOS_FORCEINLINE_FUNCTION void copy_async(T* dst, const T* src) {
  static_assert(sizeof(T) == 8, "8-byte copies");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (SHARED) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
    return;
  }
#endif
  *dst = *src;
}
KOKKOS_FORCEINLINE_FUNCTION void copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/// On CUDA: fails with the runtime's message if the last kernel launch did not start (a
/// release build of Kokkos does not check; such a kernel would silently not run).
inline void check_launch(const char* label) {
#if defined(KOKKOS_ENABLE_CUDA)
  const cudaError_t err = cudaGetLastError();
  DG_VERIFY(err == cudaSuccess, label << ": kernel launch failed: " << cudaGetErrorString(err));
#else
  (void)label;
#endif
}

/// Launches a kernel functor f with policy pol (then check_launch). On CUDA, Kokkos passes a
/// functor of 512 bytes or more (every stage kernel's) through its one constant-memory buffer,
/// and each such launch first waits on the host for the previous one to finish with it: the
/// host cannot queue a stage ahead, and the GPU idles between stages while the host wakes,
/// copies the functor and launches (docs/performance.md). With Kokkos' HintLightWeight a
/// functor under the 4 KB kernel-parameter limit travels as the kernel's parameters instead
/// (also a constant bank: table reads with compile-time indices stay LDC), and launches queue
/// without waiting. Larger functors keep the constant-memory launch (the global-memory one
/// would read the tables through L1).
template <class Pol, class F>
inline void launch_kernel(const char* label, const Pol& pol, const F& f) {
#if defined(KOKKOS_ENABLE_CUDA)
  // The launched driver holds the functor, the policy and a few sizes and pointers.
  if constexpr (sizeof(F) + sizeof(Pol) + 256 <= 4096) {
    Kokkos::parallel_for(
        label,
        Kokkos::Experimental::require(pol, Kokkos::Experimental::WorkItemProperty::HintLightWeight),
        f);
    check_launch(label);
    return;
  }
#endif
  Kokkos::parallel_for(label, pol, f);
  check_launch(label);
}

/// Kernels that carry their 1-D tables by value on GPUs (QuadraturePencilPath::ConstTables), so
/// that they live where the functor goes, a constant bank (launch_kernel): a contraction with
/// compile-time indices reads its table entries through the constant cache (LDC, a broadcast)
/// instead of a shared-memory load each. Entries indexed by a thread's own pencil stay in team
/// scratch, where different addresses cost no replay.
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
inline constexpr bool constant_tables = true;
#else
inline constexpr bool constant_tables = false;
#endif

/// Level-0 team scratch on GPUs: a CUDA block gets 48 KB of shared memory without opting in,
/// of which Kokkos keeps (team size + 2) doubles for team reductions. Kokkos'
/// scratch_size_max(0) assumes 1024 threads (40 KB left); with at most level0_max_threads per
/// team 46 KB are left (policy's level0_bytes, the quadrature pencil path).
inline constexpr int level0_max_threads = 256;
inline constexpr size_t level0_max_bytes = 48 * 1024 - sizeof(double) * (level0_max_threads + 2);

/// Team policy on `space`: `team_size` threads (0: 32 up to p = 5, else 64), fewer where the
/// kernel's registers allow fewer (high orders), scratch at level 0 where it fits. Pol: a
/// TeamPolicy of ExecSpace, with launch bounds or without; Q the kernel's points per
/// direction.
template <int Q, class F, class Pol = TeamPolicy>
inline Pol policy(const ExecSpace& space, int n, size_t bytes, F& f, int team_size,
                  size_t level0_bytes = 0) {
  // Level 0 (shared memory) up to the 48 KB every CUDA block gets without opting in, less
  // Kokkos' reserve; on GPUs up to level0_bytes (level0_max_bytes) with at most
  // level0_max_threads per team.
  const size_t max0 = std::min<size_t>(48 * 1024, Pol::scratch_size_max(0));
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  f.level = bytes <= std::max(max0, level0_bytes) ? 0 : 1;
  // Defaults measured fastest on the H100 (docs/performance.md): 32 threads up to p = 5.
  int threads = team_size > 0 ? team_size : (Q <= 7 ? 32 : 64);
  if (f.level == 0 && bytes > max0) threads = std::min(threads, level0_max_threads);
  Pol probe(space, n, 1);
  probe.set_scratch_size(f.level, Kokkos::PerTeam(bytes));
  const int tmax = probe.team_size_max(f, Kokkos::ParallelForTag());
  if (threads > tmax) threads = tmax >= 32 ? tmax / 32 * 32 : tmax;
  Pol pol(space, n, threads);
#else
  f.level = bytes <= max0 ? 0 : 1;
  (void)team_size;
  (void)level0_bytes;
  Pol pol(space, n, 1);
#endif
  return pol.set_scratch_size(f.level, Kokkos::PerTeam(bytes));
}

} // namespace dg::fixed
