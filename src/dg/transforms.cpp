// Batched backward_transform / inner_product kernels.
#include "dg/dg/transforms.hpp"

#include "dg/dg/sum_factorization.hpp"

namespace dg {

namespace {
struct TransformKernel {
  View2 in, out;
  View2 B, D;
  int P, Q, deriv;
  bool inverse; // false: backward (modes -> points), true: inner product
  int level;    // scratch level: 0 (shared memory) up to 48 KB, else 1

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int e = team.league_rank();
    const int m = P > Q ? P : Q;
    ScratchView1 t1(team.team_scratch(level), m * m * m);
    ScratchView1 t2(team.team_scratch(level), m * m * m);
    const double* Mx = deriv == 0 ? D.data() : B.data();
    const double* My = deriv == 1 ? D.data() : B.data();
    const double* Mz = deriv == 2 ? D.data() : B.data();
    if (!inverse)
      sf::backward(team, &in(e, 0), &out(e, 0), t1.data(), t2.data(), P, Q, Mx, My, Mz);
    else
      sf::inner(team, &in(e, 0), &out(e, 0), t1.data(), t2.data(), P, Q, Mx, My, Mz);
  }
};

void launch(TransformKernel k, const char* label) {
  const int E = static_cast<int>(k.in.extent(0));
  const int m = k.P > k.Q ? k.P : k.Q;
  const size_t bytes = ScratchView1::shmem_size(m * m * m) * 2;
  // Beyond 48 KB (p >= 12) shared memory cannot hold a team's tensors: device scratch instead.
  k.level = bytes <= 48 * 1024 ? 0 : 1;
  TeamPolicy policy(E, Kokkos::AUTO);
  Kokkos::parallel_for(label, policy.set_scratch_size(k.level, Kokkos::PerTeam(bytes)), k);
}
} // namespace

void backward_transform(const BasisTables& t, const View2& modes, const View2& vals, int deriv) {
  launch(TransformKernel{modes, vals, t.B, t.D, t.P, t.Q, deriv, false, 0},
         "dg::transforms::backward");
}

void inner_product(const BasisTables& t, const View2& vals, const View2& modes, int deriv) {
  launch(TransformKernel{vals, modes, t.B, t.D, t.P, t.Q, deriv, true, 0}, "dg::transforms::inner");
}

} // namespace dg
