// Sum-factorised DG kernels on an element block: face traces, the right-hand side with the
// mass-matrix inverse and an optional fused low-storage RK update, projection, diagnostics and
// output sampling. One team per element; scratch memory holds the intermediate tensors.
#include "dg/dg/operator.hpp"

#include "dg/core/error.hpp"
#include "dg/dg/element_map.hpp"
#include "dg/dg/face_flux.hpp"
#include "dg/dg/fixed_order.hpp"
#include "dg/dg/sum_factorization.hpp"
#include "dg/dg/transforms.hpp"
#include "dg/dg/trilinear.hpp"
#include "dg/mesh/hex.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

namespace dg {

namespace {

int cube(int n) {
  return n * n * n;
}
KOKKOS_INLINE_FUNCTION int max_pq(int P, int Q) {
  return P > Q ? P : Q;
}

/// Scratch level 0 (shared memory) while it fits in 48 KB, level 1 (device memory) beyond.
TeamPolicy team_policy(int n, size_t scratch_bytes, const ExecSpace& space = ExecSpace()) {
  TeamPolicy policy(space, n, Kokkos::AUTO);
  const int level = scratch_bytes <= 48 * 1024 ? 0 : 1;
  return policy.set_scratch_size(level, Kokkos::PerTeam(scratch_bytes));
}

// ------------------------------------------------------------------------------------------
struct TraceKernel {
  View2 u, B, D, E, dE;
  View4 fgeo, trace;
  int P, Q;
  bool affine, diffusion;
  size_t bytes;

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int e = team.league_rank();
    const int M = max_pq(P, Q), P3 = P * P * P, Q2 = Q * Q;
    const int level = bytes <= 48 * 1024 ? 0 : 1;
    double* U = static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * P3));
    double* T1 = static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * M * M));
    double* T2 = static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * M * M));
    double* F = static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * 4 * Q2));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) { U[m] = u(e, m); });
    team.team_barrier();
    for (int f = 0; f < 6; ++f) {
      const int s = f % 2;
      sf::face_backward(team, U, F, T1, T2, P, Q, f, &E(s, 0), B.data(), B.data());
      if (diffusion) {
        sf::face_backward(team, U, F + Q2, T1, T2, P, Q, f, &dE(s, 0), B.data(), B.data());
        sf::face_backward(team, U, F + 2 * Q2, T1, T2, P, Q, f, &E(s, 0), D.data(), B.data());
        sf::face_backward(team, U, F + 3 * Q2, T1, T2, P, Q, f, &E(s, 0), B.data(), D.data());
      }
      const int d = f / 2;
      int ta, tb;
      sf::face_tangents(f, ta, tb);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q2), [&](int pt) {
        trace(e, f, pt, 0) = F[pt];
        if (diffusion) {
          const int gp = affine ? 0 : pt;
          trace(e, f, pt, 1) = fgeo(e, f, gp, 4 + d) * F[Q2 + pt] +
                               fgeo(e, f, gp, 4 + ta) * F[2 * Q2 + pt] +
                               fgeo(e, f, gp, 4 + tb) * F[3 * Q2 + pt];
        }
      });
      team.team_barrier();
    }
  }
};

// ------------------------------------------------------------------------------------------
struct RhsKernel {
  View2 u, reg; // the epilogue (ep) carries the store-mode output
  View1 w;
  View2 B, D, E, dE;
  View3 verts, vgeo, ghost;
  View4 fgeo, trace;
  IView2 ftype, nbr, nbr_face, orient;
  View2 tau;
  View2 vol;  // precomputed volume term (element-matrix mode) or empty
  View3 minv; // dense mass inverse or empty
  IView1 elems;
  View1 x;                    // quadrature points
  View2 bdata, nuvol, source; // boundary data, diffusivity field, source (ElementBlock)
  View3 avol, aface, nuface;  // velocity and diffusivity fields (empty: constant / rotation)
  physics::AdvectionDiffusion pde;
  Epilogue ep;
  int P, Q;
  bool affine;
  size_t bytes;
  View3 nodes; // curved blocks: the Q_k nodes of the point coordinates
  int gorder;
  FacePoints points; // a . n at the face points

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int e = elems(team.league_rank());
    const int M = max_pq(P, Q), P3 = P * P * P, Q3 = Q * Q * Q, Q2 = Q * Q;
    const int level = bytes <= 48 * 1024 ? 0 : 1;
    auto alloc = [&](int n) {
      return static_cast<double*>(team.team_scratch(level).get_shmem(sizeof(double) * n));
    };
    double* U = alloc(P3);
    double* R = alloc(P3);
    double* V = alloc(4 * Q3);
    double* T1 = alloc(M * M * M);
    double* T2 = alloc(M * M * M);
    double* F = alloc(4 * Q2);
    const double nu = pde.diffusion.nu;
    const bool diffusion = nu > 0.0;

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) { U[m] = u(e, m); });
    team.team_barrier();

    if (vol.extent(0) > 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) { R[m] = vol(e, m); });
      team.team_barrier();
    } else {
      volume_term(team, e, U, R, V, T1, T2, diffusion, nu);
    }
    faces(team, e, R, T1, T2, F, diffusion, nu);
    inverse_mass(team, e, R, V, T1, T2);
    if (source.extent(0) > 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) { R[m] += source(e, m); });
      team.team_barrier();
    }
    epilogue(team, e, R);
  }

  KOKKOS_INLINE_FUNCTION void volume_term(const TeamMember& team, int e, double* U, double* R,
                                          double* V, double* T1, double* T2, bool diffusion,
                                          double nu) const {
    const int Q3 = Q * Q * Q, Q2 = Q * Q;
    const double* Bp = B.data();
    const double* Dp = D.data();
    // Values and reference gradients at the quadrature points.
    sf::backward(team, U, V, T1, T2, P, Q, Bp, Bp, Bp);
    if (diffusion) {
      sf::backward(team, U, V + Q3, T1, T2, P, Q, Dp, Bp, Bp);
      sf::backward(team, U, V + 2 * Q3, T1, T2, P, Q, Bp, Dp, Bp);
      sf::backward(team, U, V + 3 * Q3, T1, T2, P, Q, Bp, Bp, Dp);
    }
    // Contravariant flux G_d = w |J| (J^{-1} F)_d = w adj(J)[d] . F.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
      const int a = pt % Q, b = (pt / Q) % Q, c = pt / Q2;
      const int gp = affine ? 0 : pt;
      double A[9];
      for (int k = 0; k < 9; ++k)
        A[k] = vgeo(e, gp, k);
      const double det = vgeo(e, gp, 9);
      const double uq = V[pt];
      double Fp[3] = {0.0, 0.0, 0.0}, C[3]; // diffusive flux, contravariant velocity adj(J) a
      contravariant_velocity(
          pde, avol, e, pt, A,
          [&](double xp[3]) {
            const double r[3] = {x(a), x(b), x(c)};
            element_map(verts, nodes, gorder, e, r, xp);
          },
          C);
      if (diffusion) {
        const double nq = nuvol.extent(0) > 0 ? nuvol(e, pt) : nu;
        const double g0 = V[Q3 + pt], g1 = V[2 * Q3 + pt], g2 = V[3 * Q3 + pt];
        for (int i = 0; i < 3; ++i)
          Fp[i] = -nq * (A[i] * g0 + A[3 + i] * g1 + A[6 + i] * g2) / det;
      }
      const double wq = w(a) * w(b) * w(c);
      for (int d = 0; d < 3; ++d)
        V[(d + 1) * Q3 + pt] =
            wq * (C[d] * uq + A[3 * d] * Fp[0] + A[3 * d + 1] * Fp[1] + A[3 * d + 2] * Fp[2]);
    });
    team.team_barrier();
    sf::inner(team, V + Q3, R, T1, T2, P, Q, Dp, Bp, Bp);
    sf::inner(team, V + 2 * Q3, R, T1, T2, P, Q, Bp, Dp, Bp, true);
    sf::inner(team, V + 3 * Q3, R, T1, T2, P, Q, Bp, Bp, Dp, true);
  }

  KOKKOS_INLINE_FUNCTION void faces(const TeamMember& team, int e, double* R, double* T1,
                                    double* T2, double* F, bool diffusion, double nu) const {
    const int Q2 = Q * Q;
    const double* Bp = B.data();
    const double* Dp = D.data();
    for (int f = 0; f < 6; ++f) {
      const int s = f % 2, d = f / 2;
      int ta, tb;
      sf::face_tangents(f, ta, tb);
      const int type = ftype(e, f), nb = nbr(e, f), nf = nbr_face(e, f), o = orient(e, f);
      const double tau_e = pde.diffusion.eta * tau(e, f);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q2), [&](int pt) {
        const int i = pt % Q, j = pt / Q;
        const int gp = affine ? 0 : pt;
        const double uin = trace(e, f, pt, 0), gin = diffusion ? trace(e, f, pt, 1) : 0.0;
        double uout = 0.0, gout = 0.0;
        int ip, jp;
        hex::map_index(o, Q, i, j, ip, jp);
        neighbour_trace(type, trace, ghost, nb, nf, ip + Q * jp, diffusion, uout, gout);
        double geo[7], out[4] = {0.0, 0.0, 0.0, 0.0};
        for (int k = 0; k < 7; ++k)
          geo[k] = fgeo(e, f, gp, k);
        const double an = points.normal_velocity(pde, aface, e, f, pt);
        const double nf_pt = nuface.extent(0) > 0 ? nuface(e, f, pt) : nu;
        face_flux(type, an, nf_pt, geo, w(i) * w(j), tau_e * nf_pt, d, ta, tb, uin, gin, uout, gout,
                  is_boundary_face(type) ? bdata(nb, pt) : 0.0, out);
        F[pt] = out[0];
        if (diffusion) {
          F[Q2 + pt] = out[1];
          F[2 * Q2 + pt] = out[2];
          F[3 * Q2 + pt] = out[3];
        }
      });
      team.team_barrier();
      sf::face_inner(team, F, R, T1, T2, P, Q, f, &E(s, 0), Bp, Bp, true);
      if (diffusion) {
        sf::face_inner(team, F + Q2, R, T1, T2, P, Q, f, &dE(s, 0), Bp, Bp, true);
        sf::face_inner(team, F + 2 * Q2, R, T1, T2, P, Q, f, &E(s, 0), Dp, Bp, true);
        sf::face_inner(team, F + 3 * Q2, R, T1, T2, P, Q, f, &E(s, 0), Bp, Dp, true);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void inverse_mass(const TeamMember& team, int e, double* R, double* V,
                                           double* T1, double* T2) const {
    const int P3 = P * P * P, Q2 = Q * Q, Q3 = Q * Q * Q;
    const double* Bp = B.data();
    if (minv.extent(0) > 0) {
      // V holds a copy of the right-hand side while R receives minv(e) * rhs.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) { V[m] = R[m]; });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int i) {
        double s = 0.0;
        for (int j = 0; j < P3; ++j)
          s += minv(e, i, j) * V[j];
        R[i] = s;
      });
      team.team_barrier();
    } else if (affine) {
      const double inv = 1.0 / vgeo(e, 0, 9);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3), [&](int m) { R[m] *= inv; });
      team.team_barrier();
    } else {
      sf::backward(team, R, V, T1, T2, P, Q, Bp, Bp, Bp);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q3), [&](int pt) {
        const int a = pt % Q, b = (pt / Q) % Q, c = pt / Q2;
        V[pt] *= w(a) * w(b) * w(c) / vgeo(e, pt, 9);
      });
      team.team_barrier();
      sf::inner(team, V, R, T1, T2, P, Q, Bp, Bp, Bp);
    }
  }

  KOKKOS_INLINE_FUNCTION void epilogue(const TeamMember& team, int e, const double* R) const {
    const int P3 = P * P * P;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P3),
                         [&](int m) { ep.apply(u, reg, e, m, R[m], u(e, m)); });
  }
};

size_t rhs_scratch_bytes(int P, int Q) {
  const int M = max_pq(P, Q);
  // each get_shmem chunk may be padded to 8 bytes; doubles already are
  return sizeof(double) * (2 * cube(P) + 4 * cube(Q) + 2 * cube(M) + 4 * Q * Q) + 256;
}
size_t trace_scratch_bytes(int P, int Q) {
  const int M = max_pq(P, Q);
  return sizeof(double) * (cube(P) + 2 * M * M + 4 * Q * Q) + 256;
}

View1 device_points(const BasisTables&, const HostTables& h) {
  View1 x("dg::operator::x", h.Q);
  auto hx = Kokkos::create_mirror_view(x);
  for (int a = 0; a < h.Q; ++a)
    hx(a) = h.x[a];
  Kokkos::deep_copy(x, hx);
  return x;
}

/// Faces of the block whose type is in `types` (a bit per face type).
int count_faces(const ElementBlock& block, unsigned types) {
  const IView2 ftype = block.ftype;
  int n = 0;
  Kokkos::parallel_reduce(
      "dg::operator::count_faces", Kokkos::RangePolicy<ExecSpace>(0, block.nelem),
      KOKKOS_LAMBDA(const int e, int& c) {
        for (int f = 0; f < 6; ++f)
          c += static_cast<int>((types >> ftype(e, f)) & 1u);
      },
      n);
  return n;
}

constexpr unsigned face_bit(int type) {
  return 1u << type;
}

} // namespace

DGOperator::DGOperator(ElementBlock& block, const physics::AdvectionDiffusion& pde)
    : block_(&block), pde_(pde) {
  all_elems_ = IView1("dg::operator::all_elems", block.nelem);
  auto h = Kokkos::create_mirror_view(all_elems_);
  for (int e = 0; e < block.nelem; ++e)
    h(e) = e;
  Kokkos::deep_copy(all_elems_, h);
  points_ = device_points(block.tables, make_tables(block.order, block.Q));
  // Pure advection needs only u on the faces: one trace component instead of two halves the
  // trace traffic. The ghost array follows (the halo exchange sends what the trace holds).
  // Faces that take boundary data (Dirichlet, inflow, Neumann), and Neumann faces alone.
  has_dirichlet_ = count_faces(block, face_bit(face_dirichlet) | face_bit(face_inflow) |
                                          face_bit(face_neumann)) > 0;
  has_neumann_ = count_faces(block, face_bit(face_neumann)) > 0;
  const int ncomp = pde_.diffusion.nu > 0.0 ? 2 : 1;
  if (static_cast<int>(block.trace.extent(3)) != ncomp) {
    block.trace = View4("dg::block::trace", block.nelem, 6, block.nface, ncomp);
    block.ghost = View3("dg::block::ghost", block.ghost.extent(0), block.nface, ncomp);
  }
  linear_records();
}

void DGOperator::linear_records() {
  // A velocity that may be affine in space on an affine advection block: which elements the
  // modal path can take (the rest keep the quadrature pencil path).
  const ElementBlock& block = *block_;
  const auto kind = pde_.advection.kind;
  linear_count_ = 0;
  linear_mixed_with_ = variant_.modal_linear_mixed;
  ahead_times_.clear(); // their rows for mixed faces follow the records
  ahead_constant_ = false;
  splits_.clear();
  if (block.affine && !block.curved && pde_.diffusion.nu == 0.0 && !has_neumann_ &&
      fixed::available(block.order, block.Q) && block.nuvol.extent(0) == 0 &&
      block.source.extent(0) == 0 &&
      (kind == physics::Advection::rotation ||
       (kind == physics::Advection::field && block.avol.extent(0) > 0)))
    linear_count_ =
        fixed::modal_linear_records(block, pde_, points_, linear_mixed_with_, linear_rec_,
                                    linear_words_, linear_, linear_an_, linear_mixed_);
}

void DGOperator::set_variant(const KernelVariant& v) {
  to_modal_state(); // the new variant's stages may take modes
  variant_ = v;
  traces_current_ = false; // the trace layout may change with the path
  ahead_times_.clear();    // ... and which path reads the boundary data
  ahead_constant_ = false;
  data_slots_current_ = false; // ... and which slots they read
  if (linear_rec_.extent(0) > 0 && v.modal_linear_mixed != linear_mixed_with_) linear_records();
}

bool DGOperator::fixed_allowed() const {
  return variant_.fixed_order && block_->order >= fixed::min_order &&
         block_->order <= fixed::max_order && vol_.extent(0) == 0 && minv_.extent(0) == 0;
}

bool DGOperator::fixed_capable() const {
  const ElementBlock& b = *block_;
  return fixed_allowed() && (fixed::available(b.order, b.Q) || quadrature_pencil_path());
}

bool DGOperator::uses_fixed_kernels() const {
  // Curved blocks: the quadrature pencil path (per-point tables) or the generic kernel, whose
  // points follow the Q_k map.
  return fixed_capable() && (!block_->curved || quadrature_pencil_path());
}

namespace {
/// Advection-diffusion: whether the geometry can come from the trilinear map at each point (a
/// constant velocity and diffusivity on non-affine trilinear elements).
bool diffusion_map_applies(const ElementBlock& b, const physics::AdvectionDiffusion& pde) {
  return !b.affine && !b.curved && pde.advection.kind == physics::Advection::constant &&
         b.nuvol.extent(0) == 0;
}

/// Advection-diffusion: whether the nodal kernel takes the trilinear map by default at this
/// order (fixed::nodal_diffusion_map), the variant asking for neither the map nor the tables.
bool diffusion_map_by_default(const KernelVariant& v, int order) {
  return v.qpencil_diffusion_map < 0 && !v.qpencil_recompute && fixed::nodal_diffusion_map(order);
}
} // namespace

bool DGOperator::nodal_capable() const {
  const ElementBlock& b = *block_;
  const int own = variant_.qpencil_collocated_kernel;
  // Advection takes the collocated passes' own kernel (its nodal form); advection-diffusion
  // has its nodal kernel whatever kernel holds its modal form's collocated passes.
  const bool diffusion = pde_.diffusion.nu > 0.0;
  const bool capable = variant_.qpencil_nodal && b.Q == b.P && !b.affine &&
                       b.source.extent(0) == 0 && variant_.qpencil_collocated &&
                       (diffusion || own > 0 || (own < 0 && fixed::collocated_own_kernel(false))) &&
                       uses_fixed_kernels() && quadrature_pencil_path() && !modal_path();
  if (!capable || !diffusion) return capable;
  // Where the map is the nodal diffusion kernel's default (fixed::nodal_diffusion_map) but
  // does not apply, the nodal state takes the tables, which at some orders run slower than the
  // modal state (fixed::nodal_diffusion_tables; H200, p = 5: 0.97x): the state stays modal there.
  return !diffusion_map_by_default(variant_, b.order) || diffusion_map_applies(b, pde_) ||
         fixed::nodal_diffusion_tables(b.order);
}

void DGOperator::to_nodal_state() {
  ElementBlock& b = *block_;
  if (b.nodal) return;
  DG_VERIFY(nodal_capable(), "DGOperator::to_nodal_state: this block's stages take modes");
  const View2 vals("dg::operator::nodal_values", b.nelem, b.nvol);
  backward_transform(b.tables, b.u, vals); // u(a) = sum_i B(a, i) U(i) along each direction
  Kokkos::deep_copy(b.u, vals);
  b.nodal = true;
  traces_current_ = false;
}

void DGOperator::to_modal_state() {
  ElementBlock& b = *block_;
  if (!b.nodal) return;
  // U(i) = sum_a w_a B(a, i) u(a) along each direction (B^T W, the inverse of B at q = p + 1):
  // the inner products of the values weighted at the points.
  const View2 wu("dg::operator::weighted_values", b.nelem, b.nvol);
  const View2 u = b.u;
  const View1 w = b.tables.w;
  const int Q = b.Q, nv = b.nvol;
  Kokkos::parallel_for(
      "dg::operator::weight_values",
      Kokkos::RangePolicy<ExecSpace>(0, static_cast<long>(b.nelem) * nv),
      KOKKOS_LAMBDA(const long idx) {
        const int e = static_cast<int>(idx / nv), pt = static_cast<int>(idx % nv);
        wu(e, pt) = u(e, pt) * w(pt % Q) * w((pt / Q) % Q) * w(pt / (Q * Q));
      });
  inner_product(b.tables, wu, b.u);
  b.nodal = false;
  traces_current_ = false;
}

bool DGOperator::quadrature_pencil_path() const {
  // A constant velocity, the rotation or a velocity field; advection without Neumann faces,
  // advection-diffusion with any boundary (q = p + 2 or p + 1): everything else the modal path
  // does not take.
  const ElementBlock& b = *block_;
  const auto kind = pde_.advection.kind;
  const bool diffusion = pde_.diffusion.nu > 0.0;
  const bool points = fixed::available(b.order, b.Q) || fixed::available_pencil_only(b.order, b.Q);
  return fixed_allowed() && points && variant_.quadrature_pencil &&
         (!modal_path() || (modal_linear() && linear_count_ < b.nelem)) &&
         (diffusion || !has_neumann_) &&
         (kind == physics::Advection::constant || kind == physics::Advection::rotation ||
          (kind == physics::Advection::field && b.avol.extent(0) > 0));
}

bool DGOperator::quadrature_pencil_upwind_sides() const {
  return variant_.qpencil_upwind_sides && fixed::face_side_selection;
}

fixed::PencilGeometry DGOperator::quadrature_pencil_geometry() const {
  // Constant velocity: one record per affine element, the trilinear map at each point or along
  // each pencil; the rotation on non-affine trilinear elements: optionally the map along each
  // pencil; diffusion on non-affine trilinear elements with a constant velocity and
  // diffusivity: optionally the map at each point (CPU builds, and the nodal state on GPUs:
  // fixed::diffusion_map, KernelVariant::qpencil_diffusion_map); velocity
  // fields, curved elements and everything else: per-point tables.
  const ElementBlock& b = *block_;
  const auto kind = pde_.advection.kind;
  if (b.curved) return fixed::PencilGeometry::stored;
  if (pde_.diffusion.nu > 0.0) {
    // The map with diffusion: every kernel on CPUs, the nodal one on GPUs.
    const bool nodal = nodal_capable();
    const int m = variant_.qpencil_diffusion_map;
    const bool wanted = m > 0 || (m < 0 && variant_.qpencil_recompute) ||
                        (nodal && diffusion_map_by_default(variant_, b.order));
    return diffusion_map_applies(b, pde_) && wanted && (fixed::diffusion_map || nodal)
               ? fixed::PencilGeometry::trilinear
               : fixed::PencilGeometry::stored;
  }
  if (kind == physics::Advection::rotation && !b.affine && variant_.qpencil_trilinear_rotation)
    return fixed::PencilGeometry::trilinear_pencil;
  if (kind != physics::Advection::constant) return fixed::PencilGeometry::stored;
  if (b.affine) return fixed::PencilGeometry::record;
  if (variant_.qpencil_recompute) return fixed::PencilGeometry::trilinear;
  return variant_.qpencil_trilinear_pencil ? fixed::PencilGeometry::trilinear_pencil
                                           : fixed::PencilGeometry::stored;
}

bool DGOperator::modal_path() const {
  // Constant velocity and diffusivity, no source, no boundary face that takes data.
  const ElementBlock& b = *block_;
  // Inflow and Dirichlet faces: advection on the pencil kernel (their data projected onto the
  // face modes each stage).
  const bool data_ok = !has_dirichlet_ || (pde_.diffusion.nu == 0.0 && !has_neumann_ &&
                                           variant_.modal_pencil && variant_.modal_boundary_data);
  if (!(fixed_allowed() && fixed::available(b.order, b.Q) && !b.curved && variant_.modal_affine &&
        b.affine && b.nuvol.extent(0) == 0 && b.source.extent(0) == 0 && data_ok))
    return false;
  if (pde_.advection.kind != physics::Advection::constant) return modal_linear();
  return pde_.diffusion.nu == 0.0 || variant_.modal_with_diffusion(block_->order);
}

bool DGOperator::modal_linear() const {
  return linear_count_ > 0 && variant_.modal_linear && variant_.modal_pencil &&
         variant_.modal_affine && fixed_allowed();
}

namespace {
fixed::StageArgs stage_args(const ElementBlock& b, const physics::AdvectionDiffusion& pde, double t,
                            const Epilogue& ep, const IView1& elems, const View1& points,
                            const KernelVariant& v, bool has_dirichlet, bool modal) {
  fixed::StageArgs a;
  a.has_dirichlet = has_dirichlet;
  a.modal = modal;
  a.block = &b;
  a.pde = pde;
  a.time = t;
  a.ep = ep;
  a.elems = elems;
  a.points = points;
  a.variant = v;
  return a;
}
} // namespace

bool DGOperator::nodal_face_tables() const {
  const int v = variant_.qpencil_face_tables;
  return pde_.diffusion.nu > 0.0 && nodal_capable() &&
         quadrature_pencil_geometry() == fixed::PencilGeometry::trilinear &&
         (v > 0 || (v < 0 && fixed::nodal_face_tables(block_->order)));
}

void DGOperator::qpencil_args(fixed::StageArgs& a) {
  const ElementBlock& b = *block_;
  a.qpencil = true;
  a.qgeometry = quadrature_pencil_geometry();
  const bool stored = a.qgeometry == fixed::PencilGeometry::stored;
  if (stored || nodal_face_tables()) {
    const size_t ne = static_cast<size_t>(b.nelem);
    if (qface_.extent(0) != ne || (stored && qvol_.extent(0) != ne))
      fixed::quadrature_pencil_tables(b, pde_, points_, qvol_, qface_, qsides_, stored);
    a.qface = qface_;
    if (!stored) return; // the face tables beside the map: the volume from the map
    a.qvol = qvol_;
    if (quadrature_pencil_upwind_sides()) a.qsides = qsides_;
    if (a.variant.qpencil_stage_tables < 0)
      a.variant.qpencil_stage_tables = fixed::nodal_stage_tables(b.order, pde_.diffusion.nu > 0.0);
  } else if (qface_.extent(0) > 0) { // a variant moved the block off the tables: free them
    qvol_ = View3();
    qface_ = View4();
    qsides_ = IView1();
  }
}

bool DGOperator::boundary_data_ahead() const {
  return variant_.boundary_data_ahead && has_dirichlet_ && uses_fixed_kernels() && modal_path() &&
         variant_.modal_pencil && (!modal_linear() || linear_count_ == block_->nelem);
}

void DGOperator::project_boundary_data(const View3& g, const std::vector<double>& ts) {
  DG_VERIFY(boundary_data_ahead(), "boundary data projected ahead on a block that does not "
                                   "take them so (DGOperator::boundary_data_ahead)");
  // Time-dependent data on the slots the stages read.
  if (!ts.empty()) data_slots();
  const IView1* slots = ts.empty() ? nullptr : &data_slots_;
  if (modal_linear())
    fixed::modal_boundary_data(*block_, g, modal_ahead_, linear_an_,
                               static_cast<int>(linear_mixed_.extent(0)), slots);
  else
    fixed::modal_boundary_data(*block_, g, modal_ahead_, View2(), 0, slots);
  ahead_data_ = g;
  ahead_times_ = ts;
  ahead_constant_ = ts.empty();
}

const std::vector<int>& DGOperator::data_slots() {
  if (!data_slots_current_) {
    const ElementBlock& b = *block_;
    const bool linear = modal_linear();
    if (!linear) modal_records();
    hdata_slots_ =
        fixed::modal_data_slots(b, linear ? linear_words_ : modal_words_, pde_.diffusion.nu > 0.0);
    data_slots_ = device_list("dg::operator::data_slots", hdata_slots_);
    data_slots_current_ = true;
  }
  return hdata_slots_;
}

void DGOperator::modal_records() {
  if (modal_rec_.extent(0) != static_cast<size_t>(block_->nelem))
    cartesian_ = fixed::modal_records(*block_, pde_, modal_rec_, modal_words_);
}

bool DGOperator::modal_cartesian() {
  if (!modal_path() || !variant_.modal_pencil || modal_linear() || !variant_.modal_cartesian)
    return false;
  modal_records();
  return cartesian_;
}

int DGOperator::ahead_index(double t) const {
  if (ahead_constant_) return 0;
  const auto k = std::find(ahead_times_.begin(), ahead_times_.end(), t);
  return k == ahead_times_.end() ? -1 : static_cast<int>(k - ahead_times_.begin());
}

void DGOperator::pencil_args(fixed::StageArgs& a) {
  const ElementBlock& b = *block_;
  if (!a.modal && quadrature_pencil_path()) {
    qpencil_args(a);
  } else if (!a.modal || !variant_.modal_pencil) {
    return;
  } else if (modal_linear()) {
    a.modal_linear = true;
    a.modal_rec = linear_rec_;
    a.modal_words = linear_words_;
    const int nm = static_cast<int>(linear_mixed_.extent(0));
    if (has_dirichlet_ || nm > 0) {
      // The stage's boundary data times (a . n) dS and the mixed faces' upwind fluxes, in
      // modal form: the data projected ahead for this stage's time (project_boundary_data), or
      // now from block.bdata.
      const int k = ahead_index(a.time);
      View2 data = b.bdata; // the data at the face points, read by mixed boundary faces
      if (k >= 0) {
        a.modal_bdata = Kokkos::subview(modal_ahead_, k, Kokkos::ALL, Kokkos::ALL);
        data = Kokkos::subview(ahead_data_, k, Kokkos::ALL, Kokkos::ALL);
      } else {
        fixed::modal_boundary_data(b, modal_bdata_, linear_an_, nm);
        a.modal_bdata = modal_bdata_;
      }
      fixed::modal_mixed_fluxes(b, linear_rec_, linear_mixed_, points_, a.modal_bdata, data);
    }
  } else {
    modal_records();
    a.modal_rec = modal_rec_;
    a.modal_words = modal_words_;
    a.modal_cartesian = cartesian_ && variant_.modal_cartesian;
    if (has_dirichlet_) { // the stage's boundary data in modal form, projected ahead or now
      const int k = ahead_index(a.time);
      if (k < 0) fixed::modal_boundary_data(b, modal_bdata_);
      a.modal_bdata =
          k < 0 ? modal_bdata_ : View2(Kokkos::subview(modal_ahead_, k, Kokkos::ALL, Kokkos::ALL));
    }
  }
  const int* d = a.elems.data();
  a.elems_first = d == all_elems_.data() ? 0
                                         : (d == b.inner_elems.data()
                                                ? b.inner_first
                                                : (d == b.halo_elems.data() ? b.halo_first : -1));
}

void DGOperator::compute_traces() {
  const ElementBlock& b = *block_;
  traces_current_ = false;
  if (uses_fixed_kernels()) {
    fixed::traces(b.order, fixed_stage_args(0.0, all_elems_, Epilogue()), b.trace);
  } else {
    const size_t bytes = trace_scratch_bytes(b.P, b.Q);
    TraceKernel k{b.u,
                  b.tables.B,
                  b.tables.D,
                  b.tables.E,
                  b.tables.dE,
                  b.fgeo,
                  b.trace,
                  b.P,
                  b.Q,
                  b.affine,
                  pde_.diffusion.nu > 0.0,
                  bytes};
    Kokkos::parallel_for("dg::operator::traces", team_policy(b.nelem, bytes), k);
  }
}

fixed::StageArgs DGOperator::fixed_stage_args(double t, const IView1& elems, const Epilogue& ep) {
  const ElementBlock& b = *block_;
  fixed::StageArgs a =
      stage_args(b, pde_, t, ep, elems, points_, variant_, has_dirichlet_, modal_path());
  pencil_args(a);
  a.ep.emit_traces = ep.mode == Epilogue::lsrk && ep.emit_traces;
  if (a.ep.emit_traces) {
    allocate_trace_next();
    a.trace_out = trace_next_;
    emitted_ = true;
  }
  return a;
}

void DGOperator::allocate_trace_next() {
  const ElementBlock& b = *block_;
  if (trace_next_.extent(0) != b.trace.extent(0) || trace_next_.extent(3) != b.trace.extent(3))
    trace_next_ =
        View4("dg::operator::trace_next", b.trace.extent(0), 6, b.nface, b.trace.extent(3));
}

void DGOperator::prepare(bool emit_traces) {
  const ElementBlock& b = *block_;
  if (!uses_fixed_kernels()) return;
  // Records and per-point tables (pencil_args); no traces emitted (a store epilogue).
  const fixed::StageArgs a = fixed_stage_args(0.0, all_elems_, Epilogue());
  if (a.modal_linear && linear_count_ != b.nelem) {
    // The lists of linear and other elements (fixed_stages) and the others' tables.
    for (const IView1& l : {b.inner_elems, b.halo_elems, all_elems_})
      if (l.extent(0) > 0) split(l);
    rest_args(a);
  }
  if (emit_traces) allocate_trace_next();
}

void DGOperator::generic_stage(const IView1& elems, const Epilogue& ep, const ExecSpace& space) {
  const ElementBlock& b = *block_;
  const int n = static_cast<int>(elems.extent(0));
  if (n == 0) return;
  const size_t bytes = rhs_scratch_bytes(b.P, b.Q);
  RhsKernel k{b.u,         b.reg,    b.tables.w, b.tables.B, b.tables.D, b.tables.E,
              b.tables.dE, b.verts,  b.vgeo,     b.ghost,    b.fgeo,     b.trace,
              b.ftype,     b.nbr,    b.nbr_face, b.orient,   b.tau,      vol_,
              minv_,       elems,    points_,    b.bdata,    b.nuvol,    b.source,
              b.avol,      b.aface,  b.nuface,   pde_,       ep,         b.P,
              b.Q,         b.affine, bytes,      b.nodes,    b.gorder,   FacePoints(b, points_)};
  Kokkos::parallel_for("dg::operator::rhs", team_policy(n, bytes, space), k);
}

DGOperator::Split DGOperator::split(const IView1& elems) {
  const ElementBlock& b = *block_;
  const bool own = elems.data() == all_elems_.data() || elems.data() == b.inner_elems.data() ||
                   elems.data() == b.halo_elems.data();
  if (own)
    for (const Split& s : splits_)
      if (s.list.data() == elems.data() && s.list.extent(0) == elems.extent(0)) return s;
  const auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), elems);
  const auto lin = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), linear_);
  std::vector<int> l, r;
  for (size_t i = 0; i < ids.extent(0); ++i)
    (lin(ids(i)) ? l : r).push_back(ids(i));
  const Split s{elems, device_list("dg::operator::linear_elems", l),
                device_list("dg::operator::rest_elems", r)};
  if (own) splits_.push_back(s);
  return s;
}

fixed::StageArgs DGOperator::rest_args(const fixed::StageArgs& a) {
  fixed::StageArgs rest = a;
  rest.modal = rest.modal_linear = false;
  rest.modal_rec = View2();
  rest.modal_words = LView2();
  qpencil_args(rest);
  return rest;
}

void DGOperator::fixed_stages(const fixed::StageArgs& a) {
  const ElementBlock& b = *block_;
  if (!a.modal_linear || linear_count_ == b.nelem) return fixed::stage(b.order, a);
  const Split s = split(a.elems);
  fixed::StageArgs lin = a;
  lin.elems = s.linear;
  lin.elems_first = -1;
  if (s.linear.extent(0) > 0) fixed::stage(b.order, lin);
  fixed::StageArgs rest = rest_args(a);
  rest.elems = s.rest;
  rest.elems_first = -1;
  if (s.rest.extent(0) > 0) fixed::stage(b.order, rest);
}

void DGOperator::apply(double t, const IView1& elems, const Epilogue& ep) {
  if (elems.extent(0) == 0) return;
  if (uses_fixed_kernels())
    fixed_stages(fixed_stage_args(t, elems, ep));
  else
    generic_stage(elems, ep, ExecSpace());
}

void DGOperator::apply_overlapped(double t, const Epilogue& ep, GhostExchange& ex) {
  const ElementBlock& b = *block_;
  const bool fixed_kernels = uses_fixed_kernels();
  fixed::StageArgs a;
  if (fixed_kernels) a = fixed_stage_args(t, b.inner_elems, ep); // may launch set-up kernels
  auto stage = [&](const IView1& elems, int first, const ExecSpace& space) {
    if (elems.extent(0) == 0) return;
    if (!fixed_kernels) return generic_stage(elems, ep, space);
    a.elems = elems;
    a.elems_first = first;
    a.space = space;
    fixed_stages(a);
  };
  // The traces and whatever the stage reads are complete before the exchange's instance
  // packs them and before the rank-boundary elements' stage runs there; the next stage (and
  // anything on the default instance) runs after the rank-boundary elements' stage.
  const bool device = ex.device_ordered();
  if (device)
    ex.follow(ExecSpace());
  else
    ExecSpace().fence();
  ex.start();
  stage(b.inner_elems, b.inner_first, ExecSpace());
  ex.finish();
  stage(b.halo_elems, b.halo_first, ex.space());
  if (device)
    ex.precede(ExecSpace());
  else
    Kokkos::fence();
}

std::vector<char> DGOperator::reads_neighbour_traces(const std::vector<int>& elems,
                                                     const std::vector<int>& faces) const {
  DG_VERIFY(elems.size() == faces.size(), "reads_neighbour_traces: " << elems.size()
                                                                     << " elements for "
                                                                     << faces.size() << " faces");
  const int n = static_cast<int>(elems.size());
  std::vector<char> reads(elems.size(), 1);
  if (n == 0 || pde_.diffusion.nu > 0.0) return reads;
  const ElementBlock& b = *block_;
  IView1 de("dg::operator::reads_elems", n), df("dg::operator::reads_faces", n);
  IView1 out("dg::operator::reads", n);
  {
    auto he = Kokkos::create_mirror_view(de);
    auto hf = Kokkos::create_mirror_view(df);
    for (int i = 0; i < n; ++i) {
      he(i) = elems[i];
      hf(i) = faces[i];
    }
    Kokkos::deep_copy(de, he);
    Kokkos::deep_copy(df, hf);
  }
  const physics::AdvectionDiffusion pde = pde_;
  const View3 aface = b.aface;
  const FacePoints points(b, points_);
  const int nf = b.nface;
  constexpr double huge = std::numeric_limits<double>::max();
  Kokkos::parallel_for(
      "dg::operator::reads_neighbour_traces", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int i) {
        const int e = de(i), f0 = df(i);
        double scale = 0.0, lowest = huge;
        for (int f = 0; f < 6; ++f)
          for (int pt = 0; pt < nf; ++pt) {
            const double an = points.normal_velocity(pde, aface, e, f, pt);
            scale = math::fmax(scale, math::fabs(an));
            if (f == f0) lowest = math::fmin(lowest, an);
          }
        out(i) = lowest > 1e-10 * scale ? 0 : 1;
      });
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int i = 0; i < n; ++i)
    reads[i] = static_cast<char>(h(i));
  return reads;
}

void DGOperator::finish_stage(const Epilogue&) {
  if (emitted_) {
    std::swap(block_->trace, trace_next_);
    emitted_ = false;
    traces_current_ = true;
  } else {
    traces_current_ = false;
  }
}

void DGOperator::apply_all(double t, const Epilogue& ep) {
  if (!(ep.traces_ready && traces_current_)) compute_traces();
  apply(t, all_elems_, ep);
  finish_stage(ep);
}

} // namespace dg
