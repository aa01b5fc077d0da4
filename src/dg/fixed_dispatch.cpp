// Run-time order -> compile-time kernels (dg/dg/fixed_order.hpp). The kernels of each order are
// instantiated in their own generated source (src/dg/fixed_order.cpp.in), so that the orders
// compile in parallel and a change to one kernel does not rebuild a single huge file.
#include "dg/dg/fixed_order.hpp"

#include "dg/core/error.hpp"
#include "dg/dg/element_map.hpp"
#include "dg/dg/face_flux.hpp"
#include "dg/mesh/hex.hpp"
#include "fixed/modal_records.hpp"

#define DG_FIXED_DECLARE(p)                                                                        \
  void stage_p##p(const StageArgs&);                                                               \
  void traces_p##p(const StageArgs&, const View4&);                                                \
  void transform_p##p(const BasisTables&, const View2&, const View2&, bool, const KernelVariant&);

namespace dg::fixed {

DG_FIXED_DECLARE(1)
DG_FIXED_DECLARE(2)
DG_FIXED_DECLARE(3)
DG_FIXED_DECLARE(4)
DG_FIXED_DECLARE(5)
DG_FIXED_DECLARE(6)
DG_FIXED_DECLARE(7)
DG_FIXED_DECLARE(8)
DG_FIXED_DECLARE(9)
DG_FIXED_DECLARE(10)
DG_FIXED_DECLARE(11)
DG_FIXED_DECLARE(12)
DG_FIXED_DECLARE(13)
DG_FIXED_DECLARE(14)
DG_FIXED_DECLARE(15)

namespace {
struct Entry {
  void (*stage)(const StageArgs&);
  void (*traces)(const StageArgs&, const View4&);
  void (*transform)(const BasisTables&, const View2&, const View2&, bool, const KernelVariant&);
};
#define DG_FIXED_ENTRY(p)                                                                          \
  Entry {                                                                                          \
    stage_p##p, traces_p##p, transform_p##p                                                        \
  }
const Entry table[] = {DG_FIXED_ENTRY(1),  DG_FIXED_ENTRY(2),  DG_FIXED_ENTRY(3),
                       DG_FIXED_ENTRY(4),  DG_FIXED_ENTRY(5),  DG_FIXED_ENTRY(6),
                       DG_FIXED_ENTRY(7),  DG_FIXED_ENTRY(8),  DG_FIXED_ENTRY(9),
                       DG_FIXED_ENTRY(10), DG_FIXED_ENTRY(11), DG_FIXED_ENTRY(12),
                       DG_FIXED_ENTRY(13), DG_FIXED_ENTRY(14), DG_FIXED_ENTRY(15)};
static_assert(sizeof(table) / sizeof(table[0]) == max_order, "one entry per order");

const Entry& entry(int order) {
  DG_VERIFY(order >= min_order && order <= max_order,
            "no compile-time kernels for p = " << order << " (valid: " << min_order << ".."
                                               << max_order << ")");
  return table[order - 1];
}
} // namespace

void stage(int order, const StageArgs& a) {
  entry(order).stage(a);
}
void traces(int order, const StageArgs& a, const View4& out) {
  entry(order).traces(a, out);
}
void backward(int order, const BasisTables& t, const View2& modes, const View2& vals,
              const KernelVariant& v) {
  entry(order).transform(t, modes, vals, false, v);
}
void inner(int order, const BasisTables& t, const View2& vals, const View2& modes,
           const KernelVariant& v) {
  entry(order).transform(t, vals, modes, true, v);
}

void modal_records(const ElementBlock& b, const physics::AdvectionDiffusion& pde, View2& rec,
                   LView2& words) {
  const double* a = pde.advection.a;
  if (pde.diffusion.nu > 0.0)
    build_modal_records<true>(b, a, pde.diffusion.eta * pde.diffusion.nu, rec, words);
  else
    build_modal_records<false>(b, a, 0.0, rec, words);
}

namespace {
using FaceTeam = Kokkos::TeamPolicy<ExecSpace>;
using FaceScratch =
    Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Values at the q^2 points of a face (V(i + Q j), tangential a along i) of its P^2 modal
/// coefficients C(a + P b), sum-factorised by the team (T: Q P doubles; barriers inside).
KOKKOS_INLINE_FUNCTION void face_values(const FaceTeam::member_type& team, const View2& B, int P,
                                        int Q, const FaceScratch& C, const FaceScratch& T,
                                        const FaceScratch& V) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * P), [&](int ib) {
    const int i = ib % Q, b = ib / Q;
    double s = 0.0;
    for (int a = 0; a < P; ++a)
      s += B(i, a) * C(a + P * b);
    T(ib) = s;
  });
  team.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * Q), [&](int pt) {
    const int i = pt % Q, j = pt / Q;
    double s = 0.0;
    for (int b = 0; b < P; ++b)
      s += B(j, b) * T(i + Q * b);
    V(pt) = s;
  });
  team.team_barrier();
}

/// out(a + P b) = sum_ij B(i, a) B(j, b) G(i + Q j): the face modes of weighted point values G,
/// sum-factorised by the team (T: Q P doubles; a barrier inside).
template <class Out>
KOKKOS_INLINE_FUNCTION void face_modes(const FaceTeam::member_type& team, const View2& B, int P,
                                       int Q, const FaceScratch& G, const FaceScratch& T,
                                       const Out& out) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * P), [&](int ib) {
    const int i = ib % Q, b = ib / Q;
    double s = 0.0;
    for (int j = 0; j < Q; ++j)
      s += B(j, b) * G(i + Q * j);
    T(ib) = s;
  });
  team.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P * P), [&](int ab) {
    const int a = ab % P, b = ab / P;
    double s = 0.0;
    for (int i = 0; i < Q; ++i)
      s += B(i, a) * T(i + Q * b);
    out(ab, s);
  });
}
} // namespace

void modal_boundary_data(const ElementBlock& b, View2& out, const View2& an, int extra) {
  const int ns = static_cast<int>(b.bdata.extent(0)), P = b.P, Q = b.Q;
  if (out.extent(0) != static_cast<size_t>(ns + extra) ||
      out.extent(1) != static_cast<size_t>(P * P))
    out = View2("dg::modal::boundary_data", ns + extra, P * P);
  if (ns == 0) return;
  const View2 o = out, g = b.bdata, B = b.tables.B;
  const View1 w = b.tables.w;
  const bool flux = an.extent(0) > 0;
  DG_VERIFY(!flux || an.extent(0) == static_cast<size_t>(ns),
            "modal boundary data: " << an.extent(0) << " rows of (a . n) dS for " << ns
                                    << " boundary slots");
  const size_t bytes = FaceScratch::shmem_size(Q * Q) + FaceScratch::shmem_size(Q * P);
  Kokkos::parallel_for(
      "dg::modal::boundary_data",
      FaceTeam(ns, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const FaceTeam::member_type& team) {
        const int sl = team.league_rank();
        const FaceScratch G(team.team_scratch(0), Q * Q), T(team.team_scratch(0), Q * P);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * Q), [&](int pt) {
          G(pt) = w(pt % Q) * w(pt / Q) * g(sl, pt) * (flux ? an(sl, pt) : 1.0);
        });
        team.team_barrier();
        face_modes(team, B, P, Q, G, T, [&](int ab, double v) { o(sl, ab) = v; });
      });
}

int modal_linear_records(const ElementBlock& b, const physics::AdvectionDiffusion& pde,
                         const View1& points, bool mixed, View2& records, LView2& words,
                         IView1& linear, View2& an, LView2& mixed_faces) {
  const int n = b.nelem, Q = b.Q, nv = b.nvol, gorder = b.gorder;
  DG_VERIFY(b.affine && !b.curved && pde.diffusion.nu == 0.0,
            "modal path with a linear velocity: affine blocks, advection only");
  const bool field = pde.advection.kind == physics::Advection::field;
  DG_VERIFY(!field || b.avol.extent(0) == static_cast<size_t>(n),
            "modal path with a linear velocity: a velocity field without its tables");
  records = View2("dg::modal::linear_records", n, linear_record_doubles);
  words = LView2("dg::modal::linear_words", n, 6);
  linear = IView1("dg::modal::linear", n);
  an = View2("dg::modal::boundary_an", b.bdata.extent(0), b.nface);
  const View2 rec = records, bn = an;
  const LView2 wd = words;
  const IView1 lin = linear;
  const View3 vgeo = b.vgeo, avol = b.avol, verts = b.verts, nodes = b.nodes;
  const IView2 ftype = b.ftype, nbr = b.nbr, nbr_face = b.nbr_face, orient = b.orient;
  const View1 x = points, w = b.tables.w;
  const physics::AdvectionDiffusion q = pde;
  // c = adj(J) a at the volume points, fitted by c0 + C xi (weighted least squares: the tensor
  // Gauss points are symmetric, so the fit decouples); linear where it reproduces every point.
  Kokkos::parallel_for(
      "dg::modal::linear_records", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int e) {
        double A[9];
        for (int k = 0; k < 9; ++k)
          A[k] = vgeo(e, 0, k);
        auto velocity = [&](int pt, double xi[3], double c[3]) {
          xi[0] = x(pt % Q);
          xi[1] = x((pt / Q) % Q);
          xi[2] = x(pt / (Q * Q));
          contravariant_velocity(
              q, avol, e, pt, A,
              [&](double xp[3]) { element_map(verts, nodes, gorder, e, xi, xp); }, c);
        };
        double r[linear_record_doubles] = {}, sw = 0.0, sx = 0.0;
        for (int pt = 0; pt < nv; ++pt) {
          double xi[3], c[3];
          velocity(pt, xi, c);
          const double wt = w(pt % Q) * w((pt / Q) % Q) * w(pt / (Q * Q));
          sw += wt;
          sx += wt * xi[0] * xi[0];
          for (int d = 0; d < 3; ++d) {
            r[d] += wt * c[d];
            for (int k = 0; k < 3; ++k)
              r[4 + 3 * d + k] += wt * xi[k] * c[d];
          }
        }
        for (int d = 0; d < 3; ++d) {
          r[d] /= sw;
          for (int k = 0; k < 3; ++k)
            r[4 + 3 * d + k] /= sx; // sum of wt xi_k^2: the same for every k
        }
        r[3] = 1.0 / vgeo(e, 0, 9);
        const double tol = 10.0 * linear_tolerance(r);
        bool ok = true;
        for (int pt = 0; pt < nv; ++pt) {
          double xi[3], c[3];
          velocity(pt, xi, c);
          for (int d = 0; d < 3; ++d) {
            const double* C = r + 4 + 3 * d;
            ok = ok && math::fabs(c[d] - r[d] - C[0] * xi[0] - C[1] * xi[1] - C[2] * xi[2]) <= tol;
          }
        }
        // A face where (a . n) changes sign: a mixed face (modal_mixed_fluxes) where allowed
        // and not on a rank boundary (its other side arrives with the halo).
        for (int f = 0; f < 6; ++f)
          ok = ok && (linear_face_side(r, f) != 0 || (mixed && ftype(e, f) != face_ghost));
        for (int g = 0; g < linear_record_doubles; ++g)
          rec(e, g) = r[g];
        lin(e) = ok ? 1 : 0;
      });
  const long long per_face = static_cast<long long>(b.nface) * b.trace.extent(3);
  const long long bface = static_cast<long long>(b.P) * b.P;
  // Mixed faces of linear elements (interior and data faces; elsewhere the kernel takes this
  // side's trace on the whole face, which is the flux there): their slots, in element order.
  const int ns = static_cast<int>(b.bdata.extent(0));
  auto is_mixed = KOKKOS_LAMBDA(const double* r, int e, int f) {
    const int type = ftype(e, f);
    return lin(e) == 1 && linear_face_side(r, f) == 0 &&
           (type == face_local || type == face_dirichlet || type == face_inflow);
  };
  IView1 first("dg::modal::mixed_first", n);
  int nm = 0;
  Kokkos::parallel_scan(
      "dg::modal::mixed_scan", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int e, int& sum, const bool final) {
        double r[linear_record_doubles];
        for (int g = 0; g < linear_record_doubles; ++g)
          r[g] = rec(e, g);
        if (final) first(e) = sum;
        for (int f = 0; f < 6; ++f)
          sum += is_mixed(r, e, f) ? 1 : 0;
      },
      nm);
  mixed_faces = LView2("dg::modal::mixed_faces", nm, 2);
  const LView2 mf = mixed_faces;
  // Words: the neighbour's trace read where this side is inflow; this side's emitted where the
  // neighbour reads it (inflow or mixed there), on rank boundaries, on mixed faces and next to
  // the elements the quadrature pencil path takes (they read both sides). Mixed faces read
  // their flux (boundary data row ns + m). (a . n) dS at boundary data points.
  Kokkos::parallel_for(
      "dg::modal::linear_words", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const int e) {
        double r[linear_record_doubles];
        for (int g = 0; g < linear_record_doubles; ++g)
          r[g] = rec(e, g);
        int m = first(e);
        for (int f = 0; f < 6; ++f) {
          const int type = ftype(e, f), nb = nbr(e, f);
          const long long read = linear_face_side(r, f) < 0 ? 1LL << word_read : 0;
          long long wf = 0;
          if (is_mixed(r, e, f)) {
            mf(m, 0) = 6 * e + f;
            mf(m, 1) = type == face_local
                           ? neighbour_word(type, nb, nbr_face(e, f), orient(e, f), per_face)
                           : data_word(nb, bface);
            wf = data_word(ns + m, bface) | (1LL << word_read) | (1LL << word_emit);
            ++m;
          } else if (type == face_local || type == face_ghost) {
            bool emit = type == face_ghost || lin(nb) == 0;
            if (!emit) {
              double rn[linear_record_doubles];
              for (int g = 0; g < linear_record_doubles; ++g)
                rn[g] = rec(nb, g);
              emit = linear_face_side(rn, nbr_face(e, f)) <= 0;
            }
            wf = neighbour_word(type, nb, nbr_face(e, f), orient(e, f), per_face) | read |
                 (emit ? 1LL << word_emit : 0);
          } else if (type == face_dirichlet || type == face_inflow) {
            wf = data_word(nb, bface) | read;
            double al, be, ga;
            linear_face_flux(r, f, al, be, ga);
            for (int pt = 0; pt < Q * Q; ++pt)
              bn(nb, pt) = al + be * x(pt % Q) + ga * x(pt / Q);
          }
          wd(e, f) = wf;
        }
      });
  int count = 0;
  Kokkos::parallel_reduce(
      "dg::modal::linear_count", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int e, int& c) { c += lin(e); }, count);
  return count;
}

void modal_mixed_fluxes(const ElementBlock& b, const View2& records, const LView2& mixed_faces,
                        const View1& points, View2& out) {
  const int nm = static_cast<int>(mixed_faces.extent(0)), P = b.P, Q = b.Q, P2 = P * P;
  const int ns = static_cast<int>(b.bdata.extent(0));
  if (nm == 0) return;
  DG_VERIFY(out.extent(0) == static_cast<size_t>(ns + nm) &&
                out.extent(1) == static_cast<size_t>(P2),
            "modal mixed fluxes: " << out.extent(0) << " rows for " << ns << " boundary slots and "
                                   << nm << " mixed faces");
  const View2 o = out, g = b.bdata, B = b.tables.B, rec = records;
  const View1 w = b.tables.w, x = points;
  const View4 trace = b.trace;
  const LView2 mf = mixed_faces;
  const long long bface = P2;
  const size_t bytes = 3 * FaceScratch::shmem_size(Q * Q) + 2 * FaceScratch::shmem_size(P2) +
                       FaceScratch::shmem_size(Q * P);
  Kokkos::parallel_for(
      "dg::modal::mixed_fluxes",
      FaceTeam(nm, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const FaceTeam::member_type& team) {
        const int m = team.league_rank();
        const int e = static_cast<int>(mf(m, 0) / 6), f = static_cast<int>(mf(m, 0) % 6);
        const long long w0 = mf(m, 1);
        const bool data = (w0 >> word_data) & 1;
        const auto& sp = team.team_scratch(0);
        const FaceScratch own(sp, P2), other(sp, P2), T(sp, Q * P), uin(sp, Q * Q), uout(sp, Q * Q),
            G(sp, Q * Q);
        // This side's trace and the neighbour's, re-oriented to this side's (a, b).
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, P2), [&](int ab) {
          own(ab) = trace(e, f, ab, 0);
          if (data) return;
          const int a = ab % P, bb = ab / P;
          const double* src = trace.data() + (w0 & word_offset_mask) +
                              neighbour_coefficient(w0, a, bb, P) * trace.extent(3);
          other(ab) = neighbour_flip(w0, a, bb) ? -src[0] : src[0];
        });
        team.team_barrier();
        face_values(team, B, P, Q, own, T, uin);
        if (!data) face_values(team, B, P, Q, other, T, uout);
        double r[linear_record_doubles];
        for (int k = 0; k < linear_record_doubles; ++k)
          r[k] = rec(e, k);
        double al, be, ga;
        linear_face_flux(r, f, al, be, ga);
        // The upwind flux at each face point, times the weights.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, Q * Q), [&](int pt) {
          const int i = pt % Q, j = pt / Q;
          const double ext = data ? g((w0 & word_offset_mask) / bface, pt) : uout(pt);
          const double an = al + be * x(i) + ga * x(j);
          G(pt) = w(i) * w(j) * physics::upwind_flux(an, uin(pt), ext);
        });
        team.team_barrier();
        face_modes(team, B, P, Q, G, T, [&](int ab, double v) { o(ns + m, ab) = v; });
      });
}

void quadrature_pencil_tables(const ElementBlock& b, const physics::AdvectionDiffusion& pde,
                              const View1& points, View3& qvol, View4& qface, IView1& qsides) {
  const int nv = b.nvol, nf = b.nface, Q = b.Q, gorder = b.gorder;
  const bool diffusion = pde.diffusion.nu > 0.0;
  qvol = View3("dg::qpencil::qvol", b.nelem, nv, diffusion ? 10 : 4);
  qface = View4("dg::qpencil::qface", b.nelem, 6, nf, diffusion ? 6 : 1);
  qsides = diffusion ? IView1() : IView1("dg::qpencil::qsides", b.nelem);
  const IView1 qs = qsides;
  const View3 vgeo = b.vgeo, avol = b.avol, aface = b.aface, nuface = b.nuface;
  const View3 verts = b.verts, nodes = b.nodes;
  const View2 nuvol = b.nuvol;
  const View3 qv = qvol;
  const View4 fgeo = b.fgeo, qf = qface;
  const View1 x = points;
  const bool field = pde.advection.kind == physics::Advection::field, affine = b.affine;
  DG_VERIFY(!field || (avol.extent(0) == static_cast<size_t>(b.nelem) &&
                       aface.extent(0) == static_cast<size_t>(b.nelem)),
            "quadrature pencil path: a velocity field without its tables");
  DG_VERIFY(x.extent(0) == static_cast<size_t>(Q),
            "quadrature pencil path: " << x.extent(0) << " points for q = " << Q);
  const physics::AdvectionDiffusion q = pde;
  const double nu = pde.diffusion.nu;
  const bool nu_field = nuvol.extent(0) > 0;
  // Rotation: the velocity at each point's position (the block's map: trilinear or Q_k).
  Kokkos::parallel_for(
      "dg::qpencil::tables", Kokkos::RangePolicy<ExecSpace>(0, b.nelem),
      KOKKOS_LAMBDA(const int e) {
        for (int pt = 0; pt < nv; ++pt) {
          const int gp = affine ? 0 : pt;
          double A[9], C[3];
          for (int k = 0; k < 9; ++k)
            A[k] = vgeo(e, gp, k);
          contravariant_velocity(
              q, avol, e, pt, A,
              [&](double xp[3]) {
                const double r[3] = {x(pt % Q), x((pt / Q) % Q), x(pt / (Q * Q))};
                element_map(verts, nodes, gorder, e, r, xp);
              },
              C);
          for (int d = 0; d < 3; ++d)
            qv(e, pt, d) = C[d];
          const double det = vgeo(e, gp, 9);
          qv(e, pt, 3) = 1.0 / det;
          if (diffusion) { // G = nu adj(J) adj(J)^T / |J| (G00, G01, G02, G11, G12, G22)
            const double s = (nu_field ? nuvol(e, pt) : nu) / det;
            int m = 4;
            for (int d = 0; d < 3; ++d)
              for (int d2 = d; d2 < 3; ++d2)
                qv(e, pt, m++) = s * adjugate_gram(A, d, d2);
          }
        }
        int sides = 0;
        for (int f = 0; f < 6; ++f)
          for (int pt = 0; pt < nf; ++pt) {
            const int gp = affine ? 0 : pt;
            const double n[3] = {fgeo(e, f, gp, 0), fgeo(e, f, gp, 1), fgeo(e, f, gp, 2)};
            const double an = normal_velocity(q, aface, e, f, pt, n, [&](double xp[3]) {
              double r[3];
              hex::face_point(f, x(pt % Q), x(pt / Q), r);
              element_map(verts, nodes, gorder, e, r, xp);
            });
            if (!diffusion) {
              const double c = an * fgeo(e, f, gp, 3);
              qf(e, f, pt, 0) = c;
              sides |= ((c > 0.0 ? 1 : 0) | (c < 0.0 ? 2 : 0)) << (2 * f);
              continue;
            }
            qf(e, f, pt, 0) = an;
            for (int k = 1; k < 5; ++k) // dS, J^-1 n
              qf(e, f, pt, k) = fgeo(e, f, gp, k + 2);
            qf(e, f, pt, 5) = nuface.extent(0) > 0 ? nuface(e, f, pt) : nu;
          }
        if (!diffusion) qs(e) = sides;
      });
}

double qpencil_bytes_per_dof(int order, PencilGeometry g, int q, bool diffusion,
                             bool upwind_sides) {
  const double P = order + 1, Q = q > 0 ? q : order + 2, P3 = P * P * P, Q2 = Q * Q, Q3 = Q2 * Q;
  const double d = sizeof(double);
  if (diffusion) // nodal traces (u, grad u . n) read and emitted, tau, qvol (10), qface (6)
    return 4.0 * d + (2.0 * 6.0 * 2.0 * Q2 * d + 6.0 * 4.0 * 4.0 + 6.0 * d) / P3 +
           (10.0 * Q3 + 6.0 * 6.0 * Q2) * d / P3;
  // u and the register read and written; the own and the neighbours' modal traces read and
  // the updated state's emitted (P^2 per face); ftype, nbr, nbr_face, orient; the geometry.
  // With the stored geometry the own traces are read only where the upwind flux takes them
  // (some (a . n) > 0) and the neighbours' only where it takes theirs (qsides): with a constant
  // velocity 3 of 6 faces each (the benchmark meshes), counted so.
  const double traces = 6.0 * P * P * d / P3;
  double b = 4.0 * d + 6.0 * 4.0 * 4.0 / P3;
  if (g == PencilGeometry::record)
    b += 3.0 * traces + (10.0 + 6.0 * 4.0) * d / P3; // vgeo(e, 0, :) and n, dS of each face
  else if (g == PencilGeometry::trilinear)
    b += 3.0 * traces + 24.0 * d / P3;
  else
    b += (upwind_sides ? 2.0 * traces + 4.0 / P3 : 3.0 * traces) + (4.0 * Q3 + 6.0 * Q2) * d / P3;
  return b;
}

double qpencil_flops_per_element(int order, PencilGeometry g, bool affine, int q, bool diffusion,
                                 bool collocated, bool upwind_sides) {
  const double P = order + 1, Q = q > 0 ? q : order + 2, P2 = P * P, P3 = P2 * P, Q2 = Q * Q;
  const double Q3 = Q2 * Q;
  const double inverse_mass =
      affine ? 0.0 : 2.0 * (2.0 * P3 * Q + 2.0 * P2 * Q2) + Q2 * (4.0 * P * Q + 2.0 * Q);
  // Face coefficients to points, own and neighbour's: only the sides the upwind flux takes with
  // the stored geometry (3 of 6 each with a constant velocity).
  const double face_pencils = g == PencilGeometry::stored && upwind_sides ? 6.0 : 12.0;
  if (diffusion) {
    // Volume: z-backward against B, D; y-backward (3); x: value and 3 derivatives; the flux
    // (C u - G grad u, 24 per point); x-, y-inner products (3 each), z-inner (2). Faces:
    // coefficients against E and dE, along b (18 arrays), along a (4 sums), grad u . n and
    // face_flux (about 35 per point), 3 inner products along a and along b; lifting with E
    // and dE (24 per mode); update; the emitted traces (coefficients, along b, along a).
    double f = 4.0 * P3 * Q + 6.0 * P2 * Q2 + 8.0 * P * Q3 + 24.0 * Q3 + 6.0 * P * Q3 +
               6.0 * P2 * Q2 + 4.0 * P3 * Q;
    f += 24.0 * P3 + 36.0 * P2 * Q + 6.0 * Q * (16.0 * P * Q + 35.0 * Q) + 36.0 * P2 * Q;
    f += 24.0 * P3 + 4.0 * P3;
    f += 24.0 * P3 + 36.0 * P2 * Q + 6.0 * Q * (8.0 * P * Q + 5.0 * Q);
    return f + inverse_mass;
  }
  if (collocated && !affine && Q == P) {
    // Volume: z-, y-, x-backward; w C u; DW along x, y, z (2 Q per point each); the face lifts
    // (12 per point) and 1/|J|; z-, y-, x-inner products; update. Faces: to points (own and
    // neighbour's: face_pencils (P Q P + Q Q P)), upwind flux. Emitted coefficients.
    double f = 2.0 * P3 * Q + 2.0 * P2 * Q2 + 2.0 * P * Q3 + 6.0 * Q3 + 6.0 * Q3 * Q + 13.0 * Q3;
    f += 2.0 * Q3 * P + 2.0 * Q2 * P2 + 2.0 * Q * P3 + 4.0 * P3;
    f += face_pencils * 2.0 * (P2 * Q + P * Q2) + 6.0 * Q2 * 4.0 + 12.0 * P3;
    if (g == PencilGeometry::trilinear) f += Q3 * (110.0 + 80.0) + 6.0 * Q2 * 75.0;
    return f;
  }
  // Volume: z-, y-, x-backward; w C u; the three x-inner products; the y- (3 FMAs per entry)
  // and z-inner products (2 FMAs); faces: to points (own and neighbour's: 12 (P Q P + Q Q
  // P)), upwind flux, back (6 (Q Q P + P Q P)); lifting (12 per mode); update; emitted
  // coefficients.
  double f = 2.0 * P3 * Q + 2.0 * P2 * Q2 + Q2 * (2.0 * P * Q + 6.0 * Q + 6.0 * Q * P) +
             6.0 * P2 * Q2 + 4.0 * P3 * Q;
  f += face_pencils * 2.0 * (P2 * Q + P * Q2) + 6.0 * Q2 * 4.0 + 12.0 * (Q2 * P + P2 * Q);
  f += 12.0 * P3 + 4.0 * P3 + 12.0 * P3;
  if (g == PencilGeometry::trilinear) f += Q2 * Q * 110.0 + 6.0 * Q2 * 75.0;
  if (!affine) { // weight-adjusted inverse mass
    f += inverse_mass;
    if (g == PencilGeometry::trilinear) f += Q2 * Q * 80.0;
  }
  return f;
}

double stage_bytes_per_dof(int order, bool diffusion, bool affine, const KernelVariant& v) {
  const double P = order + 1, Q = order + 2, P3 = P * P * P, Q2 = Q * Q, Q3 = Q2 * Q;
  const double nc = diffusion ? 2.0 : 1.0, d = sizeof(double);
  if (affine && v.modal_affine && (!diffusion || v.modal_with_diffusion(order))) { // P^2 per face
    const double traces = 6.0 * P * P * nc * d / P3;
    const double base = 4.0 * d + 2.0 * traces; // states; traces read and emitted
    if (v.modal_pencil) // one record (ModalRecordLayout) and 6 neighbour words per element;
      // without diffusion the traces of the (at most 3) inflow faces are read and those of
      // the outflow faces emitted (the words' read and emit bits): 3 of 6 on the benchmark
      // meshes, counted so.
      return base - (diffusion ? 0.0 : traces) +
             ((diffusion ? ModalRecordLayout<true>::GR : ModalRecordLayout<false>::GR) * d +
              6.0 * 8.0) /
                 P3;
    return base + (10.0 + 6.0 * 8.0) * d / P3 + (6.0 * 4.0 * 4.0) / P3;
  }
  const double traces = 6.0 * Q2 * nc * d / P3; // one element's traces, per DOF
  double b = 4.0 * d;                           // u, reg: read and written
  b += traces;                                  // neighbours' traces read
  b += traces;                                  // traces of the updated state emitted
  if (affine)
    b += (10.0 + 6.0 * 8.0) * d / P3;
  else if (v.recompute_metric)
    b += 24.0 * d / P3;
  else
    b += (10.0 * Q3 + 6.0 * 8.0 * Q2) * d / P3;
  b += (6.0 * 4.0 * 4.0 + 6.0 * d) / P3; // ftype, nbr, nbr_face, orient; tau
  return b;
}

double modal_linear_bytes_per_dof(int order) {
  // The constant-velocity pencil kernel's bytes (3 of 6 faces' traces read and emitted: a
  // continuous velocity whose sign does not change on the benchmark meshes' faces) with a
  // record of linear_record_doubles instead of ModalRecordLayout<false>::GR.
  const double P = order + 1, P3 = P * P * P;
  return stage_bytes_per_dof(order, false, true, KernelVariant()) +
         (linear_record_doubles - ModalRecordLayout<false>::GR) * sizeof(double) / P3;
}

double modal_linear_flops_per_element(int order) {
  // The constant-velocity pencil kernel's flops, plus F_d per pencil value (X_x u, X_y u, X_z u:
  // 3 each; 3 x (4 products, 3 sums)) and, per face coefficient and face, the linear (a . n) dS
  // times the upwind side's stencil (5 products, 4 sums, 6 for its coefficients: 15 instead of
  // the upwind flux's 4).
  const double P = order + 1, P2 = P * P, P3 = P2 * P;
  return stage_flops_per_element(order, false, true, KernelVariant()) + 30.0 * P3 +
         6.0 * (15.0 - 4.0) * P2;
}

double field_bytes_per_dof(int order, bool velocity_field, bool diffusivity_field, bool source) {
  const double P = order + 1, Q = order + 2, P3 = P * P * P, Q2 = Q * Q, Q3 = Q2 * Q;
  const double d = sizeof(double);
  double b = 0.0;
  if (velocity_field) b += (3.0 * Q3 + 6.0 * Q2) * d / P3;
  if (diffusivity_field) b += (Q3 + 6.0 * Q2) * d / P3;
  if (source) b += d;
  return b;
}

double stage_flops_per_element(int order, bool diffusion, bool affine, const KernelVariant& v) {
  const double P = order + 1, Q = order + 2, P2 = P * P, P3 = P2 * P, Q2 = Q * Q, Q3 = Q2 * Q;
  if (affine && v.modal_affine && (!diffusion || v.modal_with_diffusion(order)) &&
      v.modal_pencil) { // pencil kernel (ModalPencil), counted from its loops
    // Non-zeros of S (q < i, i + q odd) and K (i, q >= 1, i + q even): the x-contractions
    // skip the zeros at compile time.
    double nnzS = 0.0, nnzK = 0.0;
    for (int i = 0; i <= order; ++i)
      for (int q = 0; q <= order; ++q) {
        nnzS += (q < i && (i + q) % 2 == 1) ? 1.0 : 0.0;
        nnzK += (i > 0 && q > 0 && (i + q) % 2 == 0) ? 1.0 : 0.0;
      }
    const double pair = 2.0 * P + 2.0; // two face values of one pencil (even/odd sums)
    const double emit =
        0.8 * P2 * (diffusion ? 3.0 * 2.0 * pair + 6.0 * (4.0 * P + 5.0) : 3.0 * pair);
    if (!diffusion) {
      const double faces = P2 * (3.0 * pair + 6.0 * 4.0);
      const double vol = P2 * (2.0 * nnzS + 4.0 * P2 + 18.0 * P);
      return faces + vol + emit + 2.0 * P3;
    }
    // Face values and normal derivatives; per face gradient (4P + 5), upwind 4, SIPG 6, the
    // symmetry jump 4 and the sum 1.
    const double faces = P2 * (3.0 * 2.0 * pair + 6.0 * (4.0 * P + 20.0));
    // Per x-pencil: x (S and K, advection and face lift), y and z (cross_terms: four FMAs per
    // loaded value, the cross terms with x over the non-zeros of S), y and z face lifts,
    // symmetry terms of the x faces (2 (8P + 4)) and of the y and z faces (4 (2 nnzS + 2P^2 +
    // 8P)), scaling and update. The y-z cross terms (2P + 4 per (q, r)) run only where
    // G_yz != 0 and are not counted (the benchmark's box mesh has a diagonal G).
    const double vol =
        P2 * (2.0 * nnzS + 2.0 * nnzK + 6.0 * P + 2.0 * (8.0 * P2 + 6.0 * nnzS + 4.0 * P) +
              8.0 * P + 2.0 * (8.0 * P + 4.0) + 4.0 * (2.0 * nnzS + 2.0 * P2 + 8.0 * P) + 4.0 * P);
    return faces + vol + emit + 2.0 * P3;
  }
  if (affine && v.modal_affine && (!diffusion || v.modal_with_diffusion(order))) { // modal
    const double faces =
        diffusion ? 6.0 * P2 * (4.0 * P + 4.0 * P + 20.0) : 6.0 * P2 * (2.0 * P + 6.0);
    const double vol = P3 * (3.0 * 2.0 * P + 18.0) +
                       (diffusion ? P3 * (3.0 * 2.0 * P + 6.0 * (4.0 * P + 6.0)) : 0.0);
    const double emit = 0.8 * 6.0 * P2 * (diffusion ? 4.0 * P + 4.0 * P : 2.0 * P);
    return vol + faces + emit + 4.0 * P3;
  }
  const double transform = 2.0 * (P3 * Q + P2 * Q2 + P * Q3); // backward or inner, 3 passes
  const double face = 2.0 * (P3 + P2 * Q + P * Q2);           // one face trace or face inner
  double f = 0.0;
  // values (and gradients: 2 t-, 3 s- and 4 r-contractions shared between the four)
  f += diffusion ? 2.0 * (2.0 * P3 * Q + 3.0 * P2 * Q2 + 4.0 * P * Q3) : transform;
  f += 3.0 * transform;                // three contravariant flux components
  f += Q3 * (diffusion ? 45.0 : 20.0); // point-wise flux
  const double faces_per = diffusion ? 4.0 : 1.0;
  f += 6.0 * faces_per * face * 2.0;             // this side's traces and the face inner products
  f += 6.0 * Q2 * (diffusion ? 30.0 : 10.0);     // numerical fluxes
  f += 0.8 * 6.0 * faces_per * face;             // traces emitted for the next stage
  f += affine ? P3 : 2.0 * transform + Q3 * 3.0; // inverse mass
  f += 4.0 * P3;                                 // LSRK update
  if (!affine && v.recompute_metric) f += (Q3 * 2.0 + 6.0 * Q2) * (8.0 * 9.0 * 2.0 + 40.0);
  return f;
}

} // namespace dg::fixed
