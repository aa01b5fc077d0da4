// Batched dense linear algebra on element matrices with Kokkos-Kernels' batched team kernels:
// inverses of SPD mass matrices (LU without pivoting + triangular solves; neither Kokkos-Kernels
// 3.4 nor 4.x offers a batched Cholesky) and matrix-vector products.
#include "dg/integration/element_matrices.hpp"

#include "dg/core/error.hpp"

// Kokkos-Kernels 3.4's *_Decl.hpp do not pull in their implementations (4.x's do; including
// them again is harmless).
#include <KokkosBatched_Gemv_Decl.hpp>
#include <KokkosBatched_Gemv_Team_Impl.hpp>
#include <KokkosBatched_LU_Decl.hpp>
#include <KokkosBatched_LU_Team_Impl.hpp>
#include <KokkosBatched_Trsm_Decl.hpp>
#include <KokkosBatched_Trsm_Team_Impl.hpp>

namespace dg::integration {

void batched_inverse(const View3& M, View3& minv) {
  const int nelem = static_cast<int>(M.extent(0)), n = static_cast<int>(M.extent(1));
  DG_VERIFY(M.extent(2) == size_t(n), "batched_inverse: matrices are not square");
  if (minv.extent(0) != size_t(nelem) || minv.extent(1) != size_t(n) || minv.extent(2) != size_t(n))
    minv = View3(Kokkos::ViewAllocateWithoutInitializing("dg::integration::minv"), nelem, n, n);
  View3 lu(Kokkos::ViewAllocateWithoutInitializing("dg::integration::lu"), nelem, n, n);
  Kokkos::deep_copy(lu, M);
  const View3 X = minv;
  using namespace KokkosBatched;
  Kokkos::parallel_for(
      "dg::integration::batched_inverse", TeamPolicy(nelem, Kokkos::AUTO),
      KOKKOS_LAMBDA(const TeamMember& team) {
        const int e = team.league_rank();
        auto A = Kokkos::subview(lu, e, Kokkos::ALL, Kokkos::ALL);
        auto B = Kokkos::subview(X, e, Kokkos::ALL, Kokkos::ALL);
        TeamLU<TeamMember, Algo::LU::Unblocked>::invoke(team, A);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * n),
                             [&](int k) { B(k / n, k % n) = (k / n == k % n) ? 1.0 : 0.0; });
        team.team_barrier();
        TeamTrsm<TeamMember, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::Unit,
                 Algo::Trsm::Unblocked>::invoke(team, 1.0, A, B);
        team.team_barrier();
        TeamTrsm<TeamMember, Side::Left, Uplo::Upper, Trans::NoTranspose, Diag::NonUnit,
                 Algo::Trsm::Unblocked>::invoke(team, 1.0, A, B);
      });
}

void batched_gemv(const View3& K, const View2& x, const View2& y) {
  const int nelem = static_cast<int>(K.extent(0));
  DG_VERIFY(x.extent(0) == size_t(nelem) && y.extent(0) == size_t(nelem) &&
                x.extent(1) == K.extent(2) && y.extent(1) == K.extent(1),
            "batched_gemv: shapes K " << K.extent(0) << "x" << K.extent(1) << "x" << K.extent(2)
                                      << ", x " << x.extent(0) << "x" << x.extent(1) << ", y "
                                      << y.extent(0) << "x" << y.extent(1));
  using namespace KokkosBatched;
  Kokkos::parallel_for(
      "dg::integration::batched_gemv", TeamPolicy(nelem, Kokkos::AUTO),
      KOKKOS_LAMBDA(const TeamMember& team) {
        const int e = team.league_rank();
#if KOKKOS_VERSION >= 40000
        // Kokkos-Kernels 4.x: the batched TeamGemv takes a rank-3 batch (it hands a batch of one
        // to KokkosBlas::TeamGemv); 3.4 takes one rank-2 matrix.
        const Kokkos::pair<int, int> one(e, e + 1);
        auto A = Kokkos::subview(K, one, Kokkos::ALL, Kokkos::ALL);
        auto xe = Kokkos::subview(x, one, Kokkos::ALL);
        auto ye = Kokkos::subview(y, one, Kokkos::ALL);
#else
        auto A = Kokkos::subview(K, e, Kokkos::ALL, Kokkos::ALL);
        auto xe = Kokkos::subview(x, e, Kokkos::ALL);
        auto ye = Kokkos::subview(y, e, Kokkos::ALL);
#endif
        TeamGemv<TeamMember, Trans::NoTranspose, Algo::Gemv::Unblocked>::invoke(team, 1.0, A, xe,
                                                                                0.0, ye);
      });
}

} // namespace dg::integration
