// One source for Kokkos 3.4 (Debian, Serial) and Kokkos 4.x (CUDA): math wrappers, the
// execution/memory spaces and the View aliases used throughout, with their index order.
#pragma once

#include <Kokkos_Core.hpp>

namespace dg {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostSpace = Kokkos::HostSpace;
using TeamPolicy = Kokkos::TeamPolicy<ExecSpace>;
using TeamMember = TeamPolicy::member_type;
using ScratchView1 =
    Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// Device views. The layout is named wherever index order matters: element-major data keep one
// element's entries contiguous on every backend.
using View1 = Kokkos::View<double*, Kokkos::LayoutRight, MemSpace>;
using View2 = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;  // (elem, entry)
using View3 = Kokkos::View<double***, Kokkos::LayoutRight, MemSpace>; // (elem, a, b)
using IView1 = Kokkos::View<int*, Kokkos::LayoutRight, MemSpace>;
using IView2 = Kokkos::View<int**, Kokkos::LayoutRight, MemSpace>;
using LView2 = Kokkos::View<long long**, Kokkos::LayoutRight, MemSpace>;
// Element-wise kernels over these views run one flat RangePolicy with the last index fastest,
// as the views store it: Kokkos' MDRangePolicy runs the first index fastest on CUDA (in tiles of
// two along the others), so that neighbouring threads touch entries a row apart.

namespace math {
#if KOKKOS_VERSION >= 40000
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::floor;
using Kokkos::fmax;
using Kokkos::fmin;
using Kokkos::isfinite;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::fmax;
using Kokkos::Experimental::fmin;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif
constexpr double pi = 3.14159265358979323846;
} // namespace math

} // namespace dg

namespace dg {
/// Initialises Kokkos for the lifetime of the object, handing it only the --kokkos-* arguments
/// (Kokkos 3.4 would also act on a bare --help and print its own help instead of ours).
class KokkosScope {
public:
  KokkosScope(int argc, char** argv);
  ~KokkosScope();
  KokkosScope(const KokkosScope&) = delete;
  KokkosScope& operator=(const KokkosScope&) = delete;
};
} // namespace dg
