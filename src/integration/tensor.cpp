// Tensor representation of affine element matrices (Kirby-Knepley-Logg; Knepley & Terrel,
// "Finite Element Integration on GPUs"): A_e = A0 : G_e with the reference tensor A0 computed
// once per order and a small geometric tensor G_e per element; the contraction is batched over
// elements on the device.
#include "dg/integration/element_matrices.hpp"

#include "dg/core/error.hpp"
#include "dg/dg/basis.hpp"
#include "dg/integration/metric.hpp"

#include <algorithm>
#include <map>
#include <mutex>

namespace dg::integration {

const std::vector<double>& reference_tensor(int order) {
  static std::map<int, std::vector<double>> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(order);
  if (it != cache.end()) return it->second;
  DG_VERIFY(order >= 1, "reference_tensor: order " << order);
  // Exact 1-D integrals (P+1 Gauss points): M1 = int phi_i phi_j, S1 = int phi_i' phi_j',
  // C1 = int phi_i' phi_j.
  const int P = order + 1, n = P * P * P;
  const HostTables t = make_tables(order, P + 1);
  std::vector<double> M1(P * P, 0.0), S1(P * P, 0.0), C1(P * P, 0.0);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j)
      for (int a = 0; a < t.Q; ++a) {
        const double w = t.w[a];
        M1[i * P + j] += w * t.B[a * P + i] * t.B[a * P + j];
        S1[i * P + j] += w * t.D[a * P + i] * t.D[a * P + j];
        C1[i * P + j] += w * t.D[a * P + i] * t.B[a * P + j];
      }
  // A0(3 d + d', i, j) = prod over directions x of the 1-D factor: S1 if x = d = d',
  // C1(i_x, j_x) if x = d only, C1(j_x, i_x) if x = d' only, M1 otherwise.
  std::vector<double> A0(size_t(9) * n * n);
  for (int d = 0; d < 3; ++d)
    for (int dp = 0; dp < 3; ++dp)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const int ii[3] = {i % P, (i / P) % P, i / (P * P)};
          const int jj[3] = {j % P, (j / P) % P, j / (P * P)};
          double v = 1.0;
          for (int x = 0; x < 3; ++x) {
            if (x == d && x == dp)
              v *= S1[ii[x] * P + jj[x]];
            else if (x == d)
              v *= C1[ii[x] * P + jj[x]];
            else if (x == dp)
              v *= C1[jj[x] * P + ii[x]];
            else
              v *= M1[ii[x] * P + jj[x]];
          }
          A0[(size_t(3 * d + dp) * n + i) * n + j] = v;
        }
  return cache.emplace(order, std::move(A0)).first->second;
}

View2 reference_tensor_device(int order) {
  const std::vector<double>& h = reference_tensor(order);
  const int P = order + 1, n = P * P * P;
  View2 A0("dg::integration::A0", 9, size_t(n) * n);
  auto hA = Kokkos::create_mirror_view(A0);
  for (int k = 0; k < 9; ++k)
    for (size_t ij = 0; ij < size_t(n) * n; ++ij)
      hA(k, ij) = h[k * size_t(n) * n + ij];
  Kokkos::deep_copy(A0, hA);
  return A0;
}

void geometric_tensor(Form form, const Coefficients& coef, const View3& verts, View2& G) {
  DG_VERIFY(form == Form::laplacian || form == Form::elasticity,
            "geometric_tensor: the tensor path covers laplacian and elasticity, not "
                << form_name(form));
  const int nelem = static_cast<int>(verts.extent(0));
  const bool elast = form == Form::elasticity;
  const int ng = elast ? 81 : 9;
  if (G.extent(0) != size_t(nelem) || G.extent(1) != size_t(ng))
    G = View2(Kokkos::ViewAllocateWithoutInitializing("dg::integration::G"), nelem, ng);
  const View2 Gv = G;
  const double kappa = coef.kappa0, lambda = coef.lambda, mu = coef.mu;
  Kokkos::parallel_for(
      "dg::integration::tensor::geometry", Kokkos::RangePolicy<ExecSpace>(0, nelem),
      KOKKOS_LAMBDA(int e) {
        const double r0[3] = {0.0, 0.0, 0.0};
        double A[9], det;
        metric_at(verts, e, r0, A, det);
        double AAt[9];
        for (int d = 0; d < 3; ++d)
          for (int dp = 0; dp < 3; ++dp)
            AAt[3 * d + dp] =
                A[3 * d] * A[3 * dp] + A[3 * d + 1] * A[3 * dp + 1] + A[3 * d + 2] * A[3 * dp + 2];
        if (!elast) {
          for (int k = 0; k < 9; ++k)
            Gv(e, k) = kappa * AAt[k] / det;
          return;
        }
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b)
            for (int d = 0; d < 3; ++d)
              for (int dp = 0; dp < 3; ++dp)
                Gv(e, (3 * a + b) * 9 + 3 * d + dp) =
                    (lambda * A[3 * d + a] * A[3 * dp + b] +
                     mu * ((a == b ? AAt[3 * d + dp] : 0.0) + A[3 * d + b] * A[3 * dp + a])) /
                    det;
      });
}

void tensor_contract(Form form, int order, const View2& A0, const View2& G, View3& out) {
  const int P = order + 1, n = P * P * P;
  const int nc = components(form), N = nc * n;
  const int nelem = static_cast<int>(G.extent(0));
  DG_VERIFY(A0.extent(0) == 9 && A0.extent(1) == size_t(n) * n,
            "tensor_contract: A0 is not the order-" << order << " reference tensor");
  DG_VERIFY(G.extent(1) == size_t(9 * nc * nc), "tensor_contract: G has the wrong width");
  if (out.extent(0) != size_t(nelem) || out.extent(1) != size_t(N) || out.extent(2) != size_t(N))
    out = View3(Kokkos::ViewAllocateWithoutInitializing("dg::integration::matrices"), nelem, N, N);
  const View3 o = out;
  const int n2 = n * n, nb = nc * nc;
  // One team per (element, component block): G_e's 9 entries are loaded once into registers,
  // the threads run over the n^2 entries with j fastest, so the writes of neighbouring threads
  // are contiguous and A0(k, ij) is read coalesced (and shared across elements in the cache).
  Kokkos::parallel_for(
      "dg::integration::tensor::contract", TeamPolicy(nelem * nb, Kokkos::AUTO),
      KOKKOS_LAMBDA(const TeamMember& team) {
        const int e = team.league_rank() / nb, ab = team.league_rank() % nb;
        const int ro = (ab / nc) * n, co = (ab % nc) * n;
        double g[9];
        for (int k = 0; k < 9; ++k)
          g[k] = G(e, 9 * ab + k);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n2), [&](int ij) {
          const int i = ij / n, j = ij - i * n;
          double s = 0.0;
          for (int k = 0; k < 9; ++k)
            s += A0(k, ij) * g[k];
          o(e, ro + i, co + j) = s;
        });
      });
}

// Bandwidth-oriented contraction. A team owns a tile of T consecutive entries of the flattened
// N x N element matrix (rc = row * N + col) for a batch of E elements:
//  * the batch's geometric tensors (E x 9 nb doubles, contiguous in G) are staged once in team
//    scratch by a coalesced copy;
//  * each thread owns one entry of the tile, loads its 9 A0 values into registers once and
//    reuses them for every element of the batch it covers (A0 traffic / E);
//  * consecutive threads write consecutive rc of the same element: out.data()[e N^2 + rc], one
//    contiguous, coalesced run of T doubles per element (for every form, elasticity included);
//  * small matrices (N^2 < team size, p = 1 Laplacian) put S = team/T element slots side by side,
//    so a team still has `team` threads writing.
void tensor_contract_batched(Form form, int order, const View2& A0, const View2& G, View3& out,
                             int elems_per_team, int tile) {
  const int P = order + 1, n = P * P * P;
  const int nc = components(form), N = nc * n;
  const int nelem = static_cast<int>(G.extent(0));
  DG_VERIFY(A0.extent(0) == 9 && A0.extent(1) == size_t(n) * n,
            "tensor_contract_batched: A0 is not the order-" << order << " reference tensor");
  DG_VERIFY(G.extent(1) == size_t(9 * nc * nc), "tensor_contract_batched: G has the wrong width");
  if (out.extent(0) != size_t(nelem) || out.extent(1) != size_t(N) || out.extent(2) != size_t(N))
    out = View3(Kokkos::ViewAllocateWithoutInitializing("dg::integration::matrices"), nelem, N, N);
  if (nelem == 0) return;
  const int N2 = N * N, ng = 9 * nc * nc;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  const int team = 256;
  // Tile: the largest multiple of 32 up to the team size that divides N^2 (no idle threads in
  // the last tile; elasticity p = 1: 576 = 3 x 192), else min(N^2, team).
  int T = std::min(N2, team);
  if (tile > 0) {
    T = std::min(tile, N2);
  } else {
    for (int t = team; t >= 128; t -= 32)
      if (N2 % t == 0) {
        T = t;
        break;
      }
  }
  const int S = std::max(1, team / T);
  // E: the A0 registers serve E / S elements; keep the G stage within ~24 KB of scratch.
  int E = elems_per_team > 0 ? elems_per_team : std::max(S, (nc == 1 ? 32 : 16));
#else
  // One thread per team on the host: T entries x E elements as plain loops (A0 tile in cache).
  const int T = tile > 0 ? std::min(tile, N2) : std::min(N2, 4096);
  const int S = 1;
  int E = elems_per_team > 0 ? elems_per_team : 8;
#endif
  // The G stage stays within 40 KB of team scratch (CUDA's 48 KB without opt-in).
  E = std::min({E, nelem, std::max(1, 5120 / ng)});
  const int ntile = (N2 + T - 1) / T, nbatch = (nelem + E - 1) / E;
  const size_t bytes = ScratchView1::shmem_size(size_t(E) * ng);
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  TeamPolicy policy(ntile * nbatch, std::min(T * S, team));
#else
  TeamPolicy policy(ntile * nbatch, 1);
#endif
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const View3 o = out;
  Kokkos::parallel_for(
      "dg::integration::tensor::contract_batched", policy, KOKKOS_LAMBDA(const TeamMember& tm) {
        const int t0 = (tm.league_rank() % ntile) * T;
        const int e0 = (tm.league_rank() / ntile) * E;
        const int ne = e0 + E <= nelem ? E : nelem - e0;
        ScratchView1 gs(tm.team_scratch(0), size_t(E) * ng);
        const double* gsrc = &G(e0, 0);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, ne * ng), [&](int k) { gs(k) = gsrc[k]; });
        tm.team_barrier();
        double* obase = o.data();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, T * S), [&](int t) {
          const int rc = t0 + t % T, slot = t / T;
          if (rc >= N2) return;
          const int r = rc / N, c = rc - r * N;
          const int a = r / n, i = r - a * n, b = c / n, j = c - b * n;
          const int ij = i * n + j, go = 9 * (a * nc + b);
          double a0[9];
          for (int k = 0; k < 9; ++k)
            a0[k] = A0(k, ij);
          for (int el = slot; el < ne; el += S) {
            const double* g = &gs(el * ng + go);
            double s = 0.0;
            for (int k = 0; k < 9; ++k)
              s += a0[k] * g[k];
            obase[size_t(e0 + el) * N2 + rc] = s;
          }
        });
      });
}

void tensor_integrate(Form form, const Coefficients& coef, const View3& verts, int order,
                      View3& out) {
  View2 G;
  geometric_tensor(form, coef, verts, G);
  tensor_contract(form, order, reference_tensor_device(order), G, out);
}

// Flops per element: the contraction 17 per entry (9 multiplies, 8 adds) over N^2 entries, plus
// the geometric tensor (metric at the centre 250, 45 for adj adj^T, then 9 x 2 (laplacian) or
// 81 x 8 (elasticity)). Bytes: the 8 vertices in, G written and read back, the N^2 matrix out;
// A0 is shared by all elements and counted once per launch, not per element.
Cost tensor_cost(Form form, int order) {
  const double P = order + 1, n = P * P * P;
  const bool elast = form == Form::elasticity;
  const double N = (elast ? 3 : 1) * n, ng = elast ? 81 : 9;
  Cost c;
  c.flops = 17.0 * N * N + 250 + 45 + (elast ? 81 * 8 : 18);
  c.bytes = 24 * 8 + 2 * ng * 8 + N * N * 8;
  return c;
}

} // namespace dg::integration
