// Tensor representation of affine element matrices (Kirby-Knepley-Logg; Knepley & Terrel,
// "Finite Element Integration on GPUs"): A_e = A0 : G_e with K reference tensors A0 computed
// once per order and form, and a small geometric tensor G_e per element; the contraction is
// batched over elements on the device. K = tensor_terms(form): mass 1, laplacian / elasticity 9
// (per component block), advection-diffusion 12; K is a template parameter of the kernels so
// that the contraction's inner loop stays unrolled in registers.
#include "dg/integration/element_matrices.hpp"

#include "dg/core/error.hpp"
#include "dg/dg/basis.hpp"
#include "dg/integration/metric.hpp"
#include "dg/integration/point_coefficients.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

namespace dg::integration {

namespace {

/// Test (first) and trial (second) reference derivative direction of reference tensor k of
/// `form`, -1 for the value: A0(k, i, j) = int d^alpha phi_i d^beta phi_j.
std::pair<int, int> term_factors(Form form, int k) {
  if (form == Form::mass) return {-1, -1};
  if (k < 9) return {k / 3, k % 3};
  return {k - 9, -1}; // advection-diffusion: int d_r(d) phi_i phi_j
}

/// Calls fn(std::integral_constant<int, K>{}) for the run-time number of terms K.
template <class Fn>
void with_terms(int K, Fn&& fn) {
  switch (K) {
  case 1:
    fn(std::integral_constant<int, 1>{});
    break;
  case 9:
    fn(std::integral_constant<int, 9>{});
    break;
  case 12:
    fn(std::integral_constant<int, 12>{});
    break;
  default:
    DG_VERIFY(false, "tensor kernels: no instantiation for " << K << " reference tensors");
  }
}

} // namespace

const std::vector<double>& reference_tensor(Form form, int order) {
  static std::map<std::pair<int, int>, std::vector<double>> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const int K = tensor_terms(form);
  // Laplacian and elasticity share theirs (keyed by K).
  auto it = cache.find({K, order});
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
  // A0(k, i, j) = prod over directions x of the 1-D factor, with (d, d') = the test and trial
  // derivative directions of term k: S1 if x = d = d', C1(i_x, j_x) if x = d only, C1(j_x, i_x)
  // if x = d' only, M1 otherwise.
  std::vector<double> A0(size_t(K) * n * n);
  for (int k = 0; k < K; ++k) {
    const auto [d, dp] = term_factors(form, k);
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
        A0[(size_t(k) * n + i) * n + j] = v;
      }
  }
  return cache.emplace(std::make_pair(K, order), std::move(A0)).first->second;
}

const std::vector<double>& reference_tensor(int order) {
  return reference_tensor(Form::laplacian, order);
}

View2 reference_tensor_device(Form form, int order) {
  const std::vector<double>& h = reference_tensor(form, order);
  const int P = order + 1, n = P * P * P, K = tensor_terms(form);
  View2 A0("dg::integration::A0", K, size_t(n) * n);
  auto hA = Kokkos::create_mirror_view(A0);
  for (int k = 0; k < K; ++k)
    for (size_t ij = 0; ij < size_t(n) * n; ++ij)
      hA(k, ij) = h[k * size_t(n) * n + ij];
  Kokkos::deep_copy(A0, hA);
  return A0;
}

View2 reference_tensor_device(int order) {
  return reference_tensor_device(Form::laplacian, order);
}

namespace {

/// Geometric tensors, one team per E elements, in three coalesced steps:
///  1. the team copies the E x 24 vertex coordinates (contiguous in verts) into scratch;
///  2. one thread per element computes the metric at the centre from scratch: m = (adj(J) row-
///     major, 1/|J|), or |J| for mass, 10 doubles per element in scratch;
///  3. the team writes the contiguous block G(e0 .. e0+E-1, 0 .. W-1), consecutive threads on
///     consecutive doubles, each entry computed from its element's m (a few flops).
/// The former one-thread-per-element kernel stored G(e, 0..W-1) with a stride of W doubles
/// across a warp (81 for elasticity): uncoalesced.
template <Form F>
struct GeometricTensorKernel {
  static constexpr int W = tensor_width(F);
  View3 verts;
  View2 G;
  double kappa, lambda, mu, nu, vel[3];
  int nelem, E;

  /// adj(d,:) . adj(d',:)
  KOKKOS_INLINE_FUNCTION static double aat(const double* A, int d, int dp) {
    return A[3 * d] * A[3 * dp] + A[3 * d + 1] * A[3 * dp + 1] + A[3 * d + 2] * A[3 * dp + 2];
  }

  /// Entry k of G_e from the element's metric record m (adj, then 1/|J| or |J|).
  KOKKOS_INLINE_FUNCTION double entry(int k, const double* m) const {
    if constexpr (F == Form::mass) {
      return m[9];
    } else if constexpr (F == Form::laplacian) {
      return kappa * aat(m, k / 3, k % 3) * m[9];
    } else if constexpr (F == Form::elasticity) {
      const int a = k / 27, b = (k / 9) % 3, d = (k / 3) % 3, dp = k % 3;
      const double* A = m;
      return (lambda * A[3 * d + a] * A[3 * dp + b] +
              mu * ((a == b ? aat(A, d, dp) : 0.0) + A[3 * d + b] * A[3 * dp + a])) *
             m[9];
    } else { // advection-diffusion
      if (k < 9) return -nu * aat(m, k / 3, k % 3) * m[9];
      const int d = k - 9;
      return m[3 * d] * vel[0] + m[3 * d + 1] * vel[1] + m[3 * d + 2] * vel[2];
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& tm) const {
    const int e0 = tm.league_rank() * E;
    const int ne = e0 + E <= nelem ? E : nelem - e0;
    ScratchView1 xs(tm.team_scratch(0), size_t(E) * 24);
    ScratchView1 ms(tm.team_scratch(0), size_t(E) * 10);
    const double* vsrc = &verts(e0, 0, 0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, ne * 24), [&](int k) { xs(k) = vsrc[k]; });
    tm.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, ne), [&](int el) {
      const double r0[3] = {0.0, 0.0, 0.0};
      double A[9], det;
      trilinear_metric(ArrayVertices{&xs(el * 24)}, r0, A, det);
      double* m = &ms(el * 10);
      for (int k = 0; k < 9; ++k)
        m[k] = A[k];
      m[9] = F == Form::mass ? det : 1.0 / det;
    });
    tm.team_barrier();
    double* gdst = &G(e0, 0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, ne * W), [&](int f) {
      const int el = f / W; // W is a compile-time constant
      gdst[f] = entry(f - el * W, &ms(el * 10));
    });
  }
};

template <Form F>
void launch_geometric_tensor(const Coefficients& coef, const View3& verts, const View2& G,
                             int nelem, int ept) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  // One thread per element in step 2; 34 doubles of scratch per element, within 40 KB.
  const int E = ept > 0 ? std::min(ept, 150) : 128;
  TeamPolicy policy((nelem + E - 1) / E, std::min(E, 256));
#else
  const int E = ept > 0 ? ept : 32;
  TeamPolicy policy((nelem + E - 1) / E, 1);
#endif
  policy.set_scratch_size(0, Kokkos::PerTeam(ScratchView1::shmem_size(size_t(E) * 24) +
                                             ScratchView1::shmem_size(size_t(E) * 10)));
  GeometricTensorKernel<F> k{verts,
                             G,
                             coef.kappa0,
                             coef.lambda,
                             coef.mu,
                             coef.nu,
                             {coef.velocity[0], coef.velocity[1], coef.velocity[2]},
                             nelem,
                             E};
  Kokkos::parallel_for("dg::integration::tensor::geometry", policy, k);
}

} // namespace

void geometric_tensor(Form form, const Coefficients& coef, const View3& verts, View2& G,
                      int elems_per_team) {
  DG_VERIFY(form != Form::laplacian || (coef.kappa_amp == 0.0 && coef.kappa_field.extent(0) == 0),
            "geometric_tensor: the tensor path needs a constant kappa (kappa_amp = "
                << coef.kappa_amp << ", kappa_field with " << coef.kappa_field.extent(0)
                << " elements); use the quadrature path for kappa(x)");
  DG_VERIFY(elems_per_team >= 0, "geometric_tensor: elems_per_team = " << elems_per_team);
  const int nelem = static_cast<int>(verts.extent(0)), W = tensor_width(form);
  DG_VERIFY(nelem == 0 || (verts.extent(1) == 8 && verts.extent(2) == 3),
            "geometric_tensor: verts must be (elem, 8, 3)");
  if (G.extent(0) != size_t(nelem) || G.extent(1) != size_t(W))
    G = View2(Kokkos::ViewAllocateWithoutInitializing("dg::integration::G"), nelem, W);
  if (nelem == 0) return;
  with_form(form, [&](auto f) {
    launch_geometric_tensor<decltype(f)::value>(coef, verts, G, nelem, elems_per_team);
  });
}

namespace {

/// One team per (element, component block): G_e's K entries are loaded once into registers,
/// the threads run over the n^2 entries with j fastest, so the writes of neighbouring threads
/// are contiguous and A0(k, ij) is read coalesced (and shared across elements in the cache).
template <int K>
struct ContractKernel {
  View2 A0, G;
  View3 out;
  int n, nc;

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int nb = nc * nc, n2 = n * n;
    const int e = team.league_rank() / nb, ab = team.league_rank() % nb;
    const int ro = (ab / nc) * n, co = (ab % nc) * n;
    double g[K];
    for (int k = 0; k < K; ++k)
      g[k] = G(e, K * ab + k);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n2), [&](int ij) {
      const int i = ij / n, j = ij - i * n;
      double s = 0.0;
      for (int k = 0; k < K; ++k)
        s += A0(k, ij) * g[k];
      out(e, ro + i, co + j) = s;
    });
  }
};

/// Bandwidth-oriented contraction. A team owns a tile of T consecutive entries of the flattened
/// N x N element matrix (rc = row * N + col) for a batch of E elements:
///  * the block rows a0..a1 of the batch's geometric tensors that the tile touches (E x w
///    doubles, w = K nc (a1 - a0 + 1): for elasticity 27 of the 81 entries when a tile stays in
///    one block row, e.g. every 192-entry tile at p = 1) are staged once in team scratch;
///  * each thread owns one entry of the tile, loads its K A0 values into registers once and
///    reuses them for every element of the batch it covers (A0 traffic / E);
///  * consecutive threads write consecutive rc of the same element: out.data()[e N^2 + rc], one
///    contiguous, coalesced run of T doubles per element (for every form, elasticity included);
///  * small matrices (N^2 < team size, p = 1 scalar forms) put S = team/T element slots side by
///    side, so a team still has `team` threads writing.
template <int K>
struct ContractBatchedKernel {
  View2 A0, G;
  double* out;
  int n, nc, N, N2, T, S, E, ntile, nelem, wmax;

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& tm) const {
    const int t0 = (tm.league_rank() % ntile) * T;
    const int e0 = (tm.league_rank() / ntile) * E;
    const int ne = e0 + E <= nelem ? E : nelem - e0;
    const int tlast = (t0 + T <= N2 ? t0 + T : N2) - 1;
    const int a0 = (t0 / N) / n, a1 = (tlast / N) / n;
    const int w = K * nc * (a1 - a0 + 1), goff = K * nc * a0, ng = K * nc * nc;
    ScratchView1 gs(tm.team_scratch(0), size_t(E) * wmax);
    const double* gsrc = &G(e0, goff);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, ne * w), [&](int f) {
      const int el = f / w;
      gs(f) = gsrc[el * ng + (f - el * w)];
    });
    tm.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(tm, T * S), [&](int t) {
      const int rc = t0 + t % T, slot = t / T;
      if (rc >= N2) return;
      const int r = rc / N, c = rc - r * N;
      const int a = r / n, i = r - a * n, b = c / n, j = c - b * n;
      const int ij = i * n + j, go = K * ((a - a0) * nc + b);
      double a0v[K];
      for (int k = 0; k < K; ++k)
        a0v[k] = A0(k, ij);
      for (int el = slot; el < ne; el += S) {
        const double* g = &gs(el * w + go);
        double s = 0.0;
        for (int k = 0; k < K; ++k)
          s += a0v[k] * g[k];
        out[size_t(e0 + el) * N2 + rc] = s;
      }
    });
  }
};

/// Checks shared by both contractions; allocates out when it has the wrong shape.
void check_contract_args(const char* who, Form form, int order, const View2& A0, const View2& G,
                         View3& out) {
  const int P = order + 1, n = P * P * P, N = components(form) * n;
  DG_VERIFY(A0.extent(0) == size_t(tensor_terms(form)) && A0.extent(1) == size_t(n) * n,
            who << ": A0 is not the order-" << order << " reference tensor of " << form_name(form)
                << " (" << tensor_terms(form) << " x " << n * n << ")");
  DG_VERIFY(G.extent(1) == size_t(tensor_width(form)), who << ": G has width " << G.extent(1)
                                                           << ", " << form_name(form) << " needs "
                                                           << tensor_width(form));
  const size_t nelem = G.extent(0);
  if (out.extent(0) != nelem || out.extent(1) != size_t(N) || out.extent(2) != size_t(N))
    out = View3(Kokkos::ViewAllocateWithoutInitializing("dg::integration::matrices"), nelem, N, N);
}

} // namespace

void tensor_contract(Form form, int order, const View2& A0, const View2& G, View3& out) {
  check_contract_args("tensor_contract", form, order, A0, G, out);
  const int P = order + 1, n = P * P * P, nc = components(form);
  const int nelem = static_cast<int>(G.extent(0));
  if (nelem == 0) return;
  with_terms(tensor_terms(form), [&](auto kc) {
    constexpr int K = decltype(kc)::value;
    Kokkos::parallel_for("dg::integration::tensor::contract",
                         TeamPolicy(nelem * nc * nc, Kokkos::AUTO),
                         ContractKernel<K>{A0, G, out, n, nc});
  });
}

void tensor_contract_batched(Form form, int order, const View2& A0, const View2& G, View3& out,
                             int elems_per_team, int tile) {
  check_contract_args("tensor_contract_batched", form, order, A0, G, out);
  const int P = order + 1, n = P * P * P;
  const int nc = components(form), N = nc * n, K = tensor_terms(form);
  const int nelem = static_cast<int>(G.extent(0));
  if (nelem == 0) return;
  const int N2 = N * N;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  const int team = 256;
  // Tile: the largest multiple of 32 up to the team size that divides N^2 (no idle threads in
  // the last tile; elasticity p = 1: 576 = 3 x 192, one block row per tile), else
  // min(N^2, team).
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
  // E: the A0 registers serve E / S elements.
  int E = elems_per_team > 0 ? elems_per_team : std::max(S, (nc == 1 ? 32 : 16));
#else
  // One thread per team on the host: T entries x E elements as plain loops (A0 tile in cache).
  const int T = tile > 0 ? std::min(tile, N2) : std::min(N2, 4096);
  const int S = 1;
  int E = elems_per_team > 0 ? elems_per_team : 8;
#endif
  const int ntile = (N2 + T - 1) / T;
  // Widest G slice of a tile (block rows touched x K nc doubles per element).
  int wmax = 0;
  for (int t = 0; t < ntile; ++t) {
    const int a0 = (t * T / N) / n, a1 = ((std::min(t * T + T, N2) - 1) / N) / n;
    wmax = std::max(wmax, K * nc * (a1 - a0 + 1));
  }
  // The G stage stays within 40 KB of team scratch (CUDA's 48 KB without opt-in).
  E = std::min({E, nelem, std::max(1, 5120 / wmax)});
  const int nbatch = (nelem + E - 1) / E;
  const size_t bytes = ScratchView1::shmem_size(size_t(E) * wmax);
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  TeamPolicy policy(ntile * nbatch, std::min(T * S, team));
#else
  TeamPolicy policy(ntile * nbatch, 1);
#endif
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  with_terms(K, [&](auto kc) {
    constexpr int KK = decltype(kc)::value;
    Kokkos::parallel_for(
        "dg::integration::tensor::contract_batched", policy,
        ContractBatchedKernel<KK>{A0, G, out.data(), n, nc, N, N2, T, S, E, ntile, nelem, wmax});
  });
}

void tensor_integrate(Form form, const Coefficients& coef, const View3& verts, int order,
                      View3& out) {
  View2 G;
  geometric_tensor(form, coef, verts, G);
  tensor_contract(form, order, reference_tensor_device(form, order), G, out);
}

// Flops per element (multiply and add one each):
//  * contraction: 2K - 1 per entry (K multiplies, K - 1 adds) over N^2 entries: mass 1,
//    laplacian and elasticity 17, advection-diffusion 23;
//  * geometric tensor: the metric at the centre 250, 1 for 1/|J| (not mass), then per entry
//    of G: laplacian 9 x (5 for adj(d,:).adj(d',:), 2 scalings) = 63; elasticity 81 x 7 (two
//    products, lambda, mu, 2 adds, 1/|J|) + 27 x 6 (adj.adj and its add on the diagonal blocks)
//    = 729; advection-diffusion 9 x 7 (adj.adj, -nu, 1/|J|) + 3 x 5 (adj(d,:).a) = 78; mass 0.
// Bytes (minimum traffic): the 8 vertices in, G written and read back once (W doubles), the
// N^2 matrix out; A0 is shared by all elements and counted once per launch, not per element.
Cost tensor_cost(Form form, int order) {
  const double P = order + 1, n = P * P * P;
  const double N = components(form) * n, K = tensor_terms(form), W = tensor_width(form);
  double geo = 250;
  switch (form) {
  case Form::mass:
    break;
  case Form::laplacian:
    geo += 1 + 63;
    break;
  case Form::elasticity:
    geo += 1 + 729;
    break;
  case Form::advection_diffusion:
    geo += 1 + 78;
    break;
  }
  Cost c;
  c.flops = (2 * K - 1) * N * N + geo;
  c.bytes = 24 * 8 + 2 * W * 8 + N * N * 8;
  return c;
}

} // namespace dg::integration
