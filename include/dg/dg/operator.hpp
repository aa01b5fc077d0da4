// The DG right-hand side of advection-diffusion on an element block (weak form on element K):
//   M du/dt = int_K grad(phi) . F(u, grad u) - oint_dK phi F*.n
//             + oint_dK (nu/2) [u] grad(phi) . n            (SIPG symmetry term)
// with F = a u - nu grad u, F*.n = upwind(a.n) - nu {grad u . n} + tau [u]. All integrals are
// sum-factorised (one team per element); the mass matrix is |J| I on affine elements and the
// weight-adjusted inverse M^{-1} ~ P (1/J) P^T on curved ones.
#pragma once

#include "dg/dg/element_block.hpp"
#include "dg/physics/exact.hpp"

#include <vector>

namespace dg {

/// What the right-hand-side kernel does with the result R = M^{-1} rhs of element e.
struct Epilogue {
  enum Mode : int { store = 0, lsrk = 1 } mode = store;
  View2 out;      // store: out(e, :) = R
  double a = 0.0; // lsrk: reg = a reg + dt R;  u += b reg (with a = 0 reg is not read)
  double b = 0.0;
  double dt = 0.0;
  /// lsrk: whether a later stage reads the register this stage writes. False on the last stage
  /// of a 2N-storage step, whose register the next step's first stage (a = 0) does not read:
  /// the first stage skips the register's load and the last its store (8 B/DOF each).
  bool keep_reg = true;
  /// lsrk: block.trace already holds the traces of block.u (emitted by the previous stage),
  /// so the stage may skip compute_traces(); see DGOperator::traces_current().
  bool traces_ready = false;
  /// lsrk: also write the traces of the updated state for the next stage (fixed-order kernels).
  bool emit_traces = false;

  /// lsrk: the new register a reg(e, m) + dt r, stored where keep_reg; reg is read only where
  /// a != 0 (the first stage's register holds whatever the last step's last stage left).
  KOKKOS_INLINE_FUNCTION double lsrk_register(const View2& reg, int e, int m, double r) const {
    const double k = (a != 0.0 ? a * reg(e, m) : 0.0) + dt * r;
    if (keep_reg) reg(e, m) = k;
    return k;
  }

  /// Applies the epilogue to mode m of element e, whose state is u_old and whose M^{-1} rhs is
  /// r; returns the new state (u_old in store mode). u, reg: the block's state and register.
  KOKKOS_INLINE_FUNCTION double apply(const View2& u, const View2& reg, int e, int m, double r,
                                      double u_old) const {
    if (mode == store) {
      out(e, m) = r;
      return u_old;
    }
    const double k = lsrk_register(reg, e, m, r);
    const double un = u_old + b * k;
    u(e, m) = un;
    return un;
  }
};

namespace fixed {
struct StageArgs;
enum class PencilGeometry : int;
} // namespace fixed

/// Variant switches of the fixed-order kernels, compared side by side by dgbench.
struct KernelVariant {
  /// true: register-blocked contractions (one thread per 1-D pencil, its values in registers);
  /// false: one thread per output entry, every operand read from team scratch.
  /// Default: register-blocked on CPUs, entry-wise on GPUs (measured faster on the H100).
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  bool register_blocked = false;
#else
  bool register_blocked = true;
#endif
  /// Curved elements: metric terms recomputed from the 8 vertices at every point instead of
  /// read from the stored per-point records (affine blocks always read their one record).
  bool recompute_metric = false;
  /// Elements per team (transform kernels; with concurrent_transform, 0 or less: the per-order
  /// default).
  int team_elems = 1;
  /// Transform kernels: a team takes its team_elems elements through each contraction together
  /// instead of one after another (dgbench transforms --variants conc, conc2, conc-entry).
  bool concurrent_transform = false;
  /// ... register-blocked: 1-D pencils per thread in each contraction (1 or 2; 2 loads each
  /// table entry once for two pencils, dgbench --variants conc2).
  int pencils_per_thread = 1;
  /// Threads per team on GPUs (0: 32 for p <= 5, else 64; on the modal path 128, the pencil
  /// kernel about 128 pencils per team rounded up to whole warps).
  int team_size = 0;
  /// Elements per team on the modal path, processed concurrently (0: by order on GPUs, 1 on
  /// CPUs).
  int modal_elems = 0;
  /// Pencil kernel: batches of modal_elems elements per team, the next batch's loads in
  /// flight while one is computed (0: 1, measured fastest on the H100).
  int modal_batches = 0;
  /// Pencil kernel on GPUs, p <= 8: launch bounds of 128 threads and this many teams per SM,
  /// which caps the registers (3, 4, 5, 6, 8: 168, 128, 96, 80, 64); 0: none; -1: the order's
  /// default (dgbench stage --pencil-bounds).
  int pencil_min_blocks = -1;
  /// Affine blocks with constant velocity (inflow and Dirichlet faces: see
  /// modal_boundary_data; diffusion: see modal_diffusion): the quadrature-free modal path
  /// (fixed-order kernels only).
  bool modal_affine = true;
  /// The modal stage in pencil form (ModalPencil: face and volume passes one thread per
  /// pencil, structural zeros skipped); false: one thread per mode and face coefficient
  /// (dgbench stage --variants modal-entry).
  bool modal_pencil = true;
  /// ... also with a velocity affine in space (the rotation, a linear expression field;
  /// advection, the pencil kernel): on the elements where (a . n) keeps its sign on every face
  /// (fixed::modal_linear_records); the other elements of the block take the quadrature pencil
  /// path. false: the whole block takes the quadrature pencil path.
  bool modal_linear = true;
  /// ... with faces where (a . n) changes sign too (interior, inflow and Dirichlet faces not on
  /// a rank boundary): their upwind flux at the face's quadrature points, projected onto the
  /// face modes each stage (fixed::modal_mixed_fluxes). false: elements with such faces take
  /// the quadrature pencil path (dgbench stage --variants modal-linear-unmixed).
  bool modal_linear_mixed = true;
  /// ... on GPUs: 1, each thread keeps its pencil of the flux F_0 in registers and the upwind
  /// side's face coefficients share the neighbours' slots (less team scratch per element, one
  /// more barrier); 0, both in team scratch, as on CPUs; -1, the order's default
  /// (ModalPencilPath::linear_registers_default, with linear_min_blocks_default teams per SM
  /// unless pencil_min_blocks says otherwise; dgbench stage --variants
  /// modal-linear-registers, modal-linear-scratch).
  int modal_linear_registers = -1;
  /// ... also with diffusion (SIPG in modal form; equal to the quadrature path to round-off) up
  /// to order modal_diffusion_max_order. With the pencil kernel it is faster than the
  /// quadrature path at every measured order: on the H100 1.3 to 2.9x over the entry-wise modal
  /// kernel (modal_pencil = false; itself 3 to 9.5x over quadrature), on one CPU core 1.4 to
  /// 2.7x over quadrature for p = 2..8 (docs/performance.md). The entry-wise modal kernel is
  /// slower than quadrature on CPUs from p = 5, hence the option.
  bool modal_diffusion = true;
  int modal_diffusion_max_order = 15;
  /// ... on blocks of axis-aligned elements (every element's diffusion metric diagonal, every
  /// face's J^{-1} n along its normal; DGOperator::modal_cartesian): the pencil kernel without
  /// the metric's cross terms and the faces' tangential gradient terms, as deal.II's matrix-free
  /// code treats Cartesian cells apart from affine ones. false: the general affine kernel
  /// (dgbench stage --variants modal-affine-general).
  bool modal_cartesian = true;
  /// Whether advection-diffusion of order p takes the modal path (given an affine block).
  bool modal_with_diffusion(int order) const {
    return modal_diffusion && order <= modal_diffusion_max_order;
  }
  /// Blocks the modal path does not take (non-affine and curved elements, velocity fields,
  /// Dirichlet and inflow faces): the quadrature path in pencil form (QuadraturePencilPath;
  /// advection and advection-diffusion, q = p + 2 or p + 1); false: the quadrature path one
  /// element per team.
  bool quadrature_pencil = true;
  /// ... its elements per team (0: by order on GPUs, 1 on CPUs).
  int qpencil_elems = 0;
  /// ... on GPUs, p <= 8: launch bounds of 128 threads and this many teams per SM (0: none,
  /// 4, 5, 6, 8; -1: the default, QuadraturePencilPath::min_blocks_default).
  int qpencil_min_blocks = -1;
  /// ... on trilinear elements with a constant velocity: the metric recomputed from the 8
  /// vertices at each point (2.3x fewer bytes) instead of read from per-point tables. Off by
  /// default: the tables are faster at p = 3, 4, 5, 7 on the H100 (the kernel is not
  /// bandwidth-bound) and at every order on a CPU core (docs/performance.md). With a constant
  /// diffusivity as well, the same for advection-diffusion: C, G = nu adj(J) adj(J)^T / |J| at
  /// each volume point and a . n, dS, J^-1 n at each face point from the map instead of 16
  /// doubles per point (p = 5, q = p + 1: 62 instead of 189 B/DOF). On one CPU core 0.62 to
  /// 0.68x of the tables (p = 3..5, both q). With diffusion on CPUs, and on GPUs on the nodal
  /// state (fixed::diffusion_map, qpencil_diffusion_map).
  bool qpencil_recompute = false;
  /// Advection-diffusion with a constant velocity and diffusivity on non-affine trilinear
  /// elements: the geometry from the map at each point (1) or the per-point tables (0); -1:
  /// the map where qpencil_recompute asks for it, else on the nodal state the backend's
  /// default (fixed::nodal_diffusion_map). GPU builds compile the map with diffusion into the
  /// nodal kernel alone (Stage's MAP = 3).
  int qpencil_diffusion_map = -1;
  /// ... with the map on the nodal state: each face point's a . n dS, dS, J^-1 n and nu read
  /// from the per-point face tables (1) instead of formed from the map twice a stage (0); -1:
  /// fixed::nodal_face_tables, by order (GPUs; off on CPUs; dgbench --variants
  /// qpencil-face-tables, qpencil-face-map).
  int qpencil_face_tables = -1;
  /// The per-point tables on the nodal state (advection and advection-diffusion): each
  /// element's tables staged into team scratch before the passes (as asynchronous copies on
  /// GPUs, in flight with the state's; QuadraturePencilPath::Stage's MAP = 4) instead of read
  /// where the passes use them; where they fit into shared memory beside the rest. 1: staged,
  /// 0: not; -1: fixed::nodal_stage_tables, by order and physics (dgbench --variants
  /// qpencil-staged-tables).
  int qpencil_stage_tables = -1;
  /// ... on trilinear elements with a constant velocity: adj(J) a and |J| along each pencil and
  /// (a . n) dS along each face row from the trilinear map (PencilGeometry::trilinear_pencil:
  /// polynomials of degree 2 and 1 in the pencil's coordinate, about 150 flops per pencil; no
  /// per-point tables) instead of the tables. On GPUs by default (H100, p = 3..7: one stage 1.11
  /// to 1.26x over the tables, whole runs 1.00 to 1.16x at q = p + 1), not on CPUs (one core,
  /// p = 3..5: 0.74 to 0.88x); dgbench --variants qpencil-tables, qpencil-trilinear-pencil.
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  bool qpencil_trilinear_pencil = true;
#else
  bool qpencil_trilinear_pencil = false;
#endif
  /// ... with a constant velocity in a kernel of its own, the geometry known at compile time
  /// (QuadraturePencilPath::Stage's MAP: fewer registers and spills); false: in the kernel of
  /// every geometry, chosen at run time (dgbench --variants qpencil-map-shared).
  bool qpencil_map_kernel = true;
  /// The collocated passes (q = p + 1, non-affine elements) in a kernel of their own
  /// (QuadraturePencilPath::Stage's COLL: 1) or chosen at run time in the kernel that holds the
  /// modal right-hand side as well (0; dgbench --variants qpencil-coll-own, qpencil-coll-shared);
  /// -1: fixed::collocated_own_kernel, by physics.
  int qpencil_collocated_kernel = -1;
  /// ... the same geometry for the rotation on non-affine trilinear elements: a(x) is linear in
  /// x, so along each pencil it is linear in the pencil's coordinate, adj(J) a a cubic (C_0) and
  /// two quadratics, (a . n) dS quadratic along each face row. On GPUs by default (H100, one
  /// stage with Dirichlet faces, p = 3, 5, 7: 1.04, 1.10, 1.22x over the tables at q = p + 1,
  /// 1.00, 1.06, 1.24x at q = p + 2), not on CPUs (one core, p = 3..5: 0.66 to 0.79x);
  /// dgbench --variants qpencil-tables, qpencil-trilinear-rotation.
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  bool qpencil_trilinear_rotation = true;
#else
  bool qpencil_trilinear_rotation = false;
#endif
  /// ... at q = p + 1 on non-affine elements: the collocated passes, with B square
  /// the weight-adjusted inverse mass applied at the points without the inner products before
  /// it (QuadraturePencilPath::Stage::collocated_passes; false: the modal right-hand side
  /// first, dgbench --variants qpencil-modal-rhs).
  bool qpencil_collocated = true;
  /// ... (non-affine elements, no source; advection in their own kernel): the state at the
  /// Q^3 = P^3 Gauss points instead of its modes while the solver steps (ElementBlock::nodal,
  /// DGOperator::nodal_capable): the collocated passes without the transforms between the modes
  /// and the points (advection: four passes instead of eight; advection-diffusion: the gradient
  /// by the nodal derivative, six sets of contractions in the volume instead of fifteen), the
  /// RK update at the points, the traces at the face points (advection the values, with
  /// diffusion u and grad u . n as in the modal form). The same answer to round-off; false: the
  /// modal state (dgbench --variants qpencil-modal-state).
  bool qpencil_nodal = true;
  /// ... on GPUs: a team's loads (the state, the own and the neighbours' modal face
  /// coefficients) as asynchronous copies into team scratch, all in flight at once, the
  /// neighbours' located through one word per face (false: plain loads, each coefficient's
  /// type, neighbour and value one after another; dgbench --variants qpencil-sync-loads).
  bool qpencil_async_loads = true;
  /// ... advection with per-point tables, CPU builds (fixed::face_side_selection): each face's
  /// passes take only the sides its upwind flux uses (the signs of (a . n) tabulated,
  /// StageArgs::qsides; false: both sides on every interior face, dgbench --variants
  /// qpencil-both-sides).
  bool qpencil_upwind_sides = true;
  /// Advection on affine blocks with a constant velocity and inflow or Dirichlet faces: the
  /// modal pencil kernel with the boundary data projected onto the face modes each stage
  /// (false: the quadrature pencil path).
  bool modal_boundary_data = true;
  /// ... and the boundary data taken ahead of the stages (DGOperator::project_boundary_data):
  /// data that do not depend on time projected once; data that do (with no t-dependent source)
  /// evaluated and projected at all the step's stage times at once by Solver::step
  /// (Problem::stage_boundary_data): one evaluation and one projection a step instead of one of
  /// each per stage (false: per stage, dgbench --variants boundary-per-stage).
  bool boundary_data_ahead = true;
  /// false: the run-time-sized kernels even where compile-time ones exist (reference path).
  bool fixed_order = true;
};

/// A ghost-trace exchange between ranks, driven by DGOperator::apply_overlapped. Its device
/// work (packing, staging copies) runs on its own execution space instance, space(), so that
/// it overlaps with the interior elements' stage on the default one.
class GhostExchange {
public:
  virtual ~GhostExchange() = default;
  /// Starts sending this rank's traces of rank-boundary faces (reads block.trace).
  virtual void start() = 0;
  /// Returns once the neighbours' traces have arrived; work on space() enqueued after the
  /// call sees them in block.ghost.
  virtual void finish() = 0;
  /// The instance the rank-boundary elements' stage runs on (after finish()).
  virtual ExecSpace space() const = 0;
  /// Work enqueued on space() from now on runs after the work enqueued on `other` so far.
  virtual void follow(const ExecSpace& other) = 0;
  /// Work enqueued on `other` from now on runs after the work enqueued on space() so far.
  virtual void precede(const ExecSpace& other) = 0;
  /// Whether apply_overlapped may order the stages by follow() and precede() on the device
  /// instead of waiting on the host for each stage's kernels.
  virtual bool device_ordered() const = 0;
};

class DGOperator {
public:
  /// Boundary data, fields and sources are read from the block (ElementBlock::bdata, avol, ...).
  DGOperator(ElementBlock& block, const physics::AdvectionDiffusion& pde);

  /// Face traces (u and grad u . n) of every element into block.trace (reads block.u).
  void compute_traces();
  /// Right-hand side for the elements listed in `elems` at time t (reads block.u,
  /// block.trace, block.ghost) followed by the epilogue.
  void apply(double t, const IView1& elems, const Epilogue& ep);
  /// apply() for the interior elements (block.inner_elems) on the default execution space
  /// while `ex` exchanges the ghost traces, then for the rank-boundary elements
  /// (block.halo_elems) on ex.space() (the traces are read as apply() reads them:
  /// compute_traces() first where they are not current). With ex.device_ordered() it returns
  /// with the work enqueued: the exchange's instance follows what the default instance held at
  /// the call, and the default instance follows the rank-boundary stage, so that the next
  /// stage's interior kernels queue behind this stage's; otherwise it returns with both done.
  void apply_overlapped(double t, const Epilogue& ep, GhostExchange& ex);
  /// Both steps for every element of a block without ghosts (single rank).
  void apply_all(double t, const Epilogue& ep);
  /// For each face (elems[i], faces[i]): whether a stage may read the neighbour's trace there.
  /// With diffusion every face; with advection alone only where the upwind flux may take the
  /// neighbour's side: false where a . n > 1e-10 s at every face point (s: the largest |a . n|
  /// on the element's faces), a margin far above the round-off by which the kernels' own
  /// a . n (from records, tables or the map) differ. The halo sends only what the neighbour
  /// reads (HaloExchange).
  std::vector<char> reads_neighbour_traces(const std::vector<int>& elems,
                                           const std::vector<int>& faces) const;
  /// After every element of a stage went through apply(): the traces emitted for the next
  /// stage (if any) become block.trace.
  void finish_stage(const Epilogue& ep);
  /// True when block.trace holds the traces of the current block.u because the last stage
  /// emitted them; compute_traces() is then unnecessary for a stage with ep.traces_ready.
  bool traces_current() const { return traces_current_; }
  /// Builds what the stages keep from one to the next (per-element records and neighbour
  /// words, per-point tables, the element lists of a partly linear velocity and, with
  /// emit_traces, the buffer the emitted traces go to), which the stages otherwise build on
  /// first use: Solver::run calls it before its timed loop, so that the first step does no
  /// set-up work (allocations, host copies).
  void prepare(bool emit_traces);
  /// To be called whenever block.u changes other than through the stages (projection,
  /// restart): the held traces are then stale.
  void invalidate_traces() { traces_current_ = false; }
  /// Whether a stage runs the compile-time-order kernels (else the run-time-sized ones).
  bool uses_fixed_kernels() const;
  /// Whether the stages may take the state at the points (ElementBlock::nodal): q = p + 1 on a
  /// block whose every stage and trace runs the collocated passes (non-affine elements, the
  /// quadrature pencil path, no source, no element-matrix mode; advection in the collocated
  /// passes' own kernel) and KernelVariant::qpencil_nodal.
  bool nodal_capable() const;
  /// block.u from the modal coefficients to the values at the P^3 Gauss points (block.nodal),
  /// and back: B along each direction, B^T W back (B is square and B^T W B = I at q = p + 1),
  /// sum-factorised; the held traces become stale. The register is not converted: a step's
  /// first stage does not read it.
  void to_nodal_state();
  void to_modal_state();
  /// Whether the stages take their boundary data projected ahead (project_boundary_data):
  /// inflow or Dirichlet faces on a block that takes the modal pencil path on every element
  /// (KernelVariant::boundary_data_ahead), the only path here that reads them in modal form.
  bool boundary_data_ahead() const;
  /// The boundary data g(k, slot, point) at the times ts (Problem::stage_boundary_data)
  /// projected onto the face modes in one launch; a stage at time ts[k] then reads row k
  /// instead of projecting block.bdata (which is then not updated for it). With ts empty, g
  /// holds one row of data constant in time, which every stage reads until the variant
  /// changes (holds_constant_boundary_data).
  /// Time-dependent data (ts not empty) are projected on data_slots() only.
  void project_boundary_data(const View3& g, const std::vector<double>& ts);
  bool holds_constant_boundary_data() const { return ahead_constant_; }
  /// The boundary slots whose data the stages read (fixed::modal_data_slots: with advection the
  /// faces the flow enters), ascending; built on first use for the current variant. A step
  /// evaluates and projects time-dependent data on these alone.
  const std::vector<int>& data_slots();
  /// Whether the stage and its traces take the quadrature-free affine path (with a velocity
  /// affine in space, modal_linear(): its linear elements).
  bool modal_path() const;
  /// Whether advection-diffusion on the modal path takes the pencil kernel for axis-aligned
  /// elements (KernelVariant::modal_cartesian and every element of the block axis-aligned,
  /// fixed::modal_records).
  bool modal_cartesian();
  /// Whether the block has a velocity affine in space and takes the modal path on its linear
  /// elements (KernelVariant::modal_linear); the rest take the quadrature pencil path.
  bool modal_linear() const;
  /// ... and how many of its elements are linear (fixed::modal_linear_records; 0 where the block
  /// does not qualify).
  int linear_elements() const { return linear_count_; }
  /// Whether they take the quadrature path in pencil form (a constant velocity, the rotation
  /// or a velocity field, on blocks the modal path does not take; advection without Neumann
  /// faces, advection-diffusion with any boundary; q = p + 2 or p + 1).
  bool quadrature_pencil_path() const;
  /// ... and its geometry there (dg/dg/fixed_order.hpp).
  fixed::PencilGeometry quadrature_pencil_geometry() const;
  /// Advection-diffusion on the trilinear map with the nodal state: whether the face passes
  /// read the per-point face tables (KernelVariant::qpencil_face_tables) while the volume takes
  /// the map.
  bool nodal_face_tables() const;
  /// ... whose face passes take only the sides each face's upwind flux uses (advection with
  /// per-point tables on CPU builds, KernelVariant::qpencil_upwind_sides).
  bool quadrature_pencil_upwind_sides() const;
  /// (Rebuilds the records of a velocity affine in space where modal_linear_mixed changes; a
  /// nodal state becomes modal first.)
  void set_variant(const KernelVariant& v);
  const KernelVariant& variant() const { return variant_; }

  /// Element-matrix mode (dg/integration): when set, the kernel takes the volume term
  /// int_K grad(phi) . F of element e from vol(e, :) (computed beforehand, e.g. K_e u_e by a
  /// batched GEMV) instead of evaluating it by quadrature. An empty view switches back.
  void set_volume_term(const View2& vol) { vol_ = vol; }
  /// Exact mass matrices (dg/integration): when set, R = minv(e) rhs with the dense inverse
  /// minv (elem, P^3, P^3) replaces |J|^{-1} / the weight-adjusted inverse. Empty: default.
  void set_mass_inverse(const View3& minv) { minv_ = minv; }

  const physics::AdvectionDiffusion& pde() const { return pde_; }
  ElementBlock& block() const { return *block_; }

private:
  ElementBlock* block_;
  physics::AdvectionDiffusion pde_;
  IView1 all_elems_;
  View1 points_; // 1-D quadrature points (device)
  View2 vol_;    // optional precomputed volume term
  View3 minv_;   // optional dense mass inverse
  KernelVariant variant_;
  bool has_dirichlet_ = true;   // some face of the block is a Dirichlet boundary
  View4 trace_next_;            // traces emitted by a stage for the next one
  bool emitted_ = false;        // the stages since the last finish_stage emitted traces
  bool traces_current_ = false; // block.trace holds the traces of block.u
  // The pencil kernel's per-element records and neighbour words, built on first use
  // (modal_records).
  View2 modal_rec_;
  LView2 modal_words_;
  bool cartesian_ = false; // every element axis-aligned (with diffusion; modal_records)
  void modal_records();
  View2 modal_bdata_; // the boundary data's modal coefficients (modal_boundary_data)
  View3 modal_ahead_; // ... at the times ahead_times_ (project_boundary_data)
  View3 ahead_data_;  // the data at the face points at those times
  std::vector<double> ahead_times_;
  bool ahead_constant_ = false;  // ... or one row for every time
  std::vector<int> hdata_slots_; // data_slots(), and on the device
  IView1 data_slots_;
  bool data_slots_current_ = false;
  /// The index of time t in ahead_times_ (0 for constant data), or -1.
  int ahead_index(double t) const;
  // The quadrature pencil path's per-point tables (stored geometry), built on first use.
  View3 qvol_;
  View4 qface_;
  IView1 qsides_;
  bool has_neumann_ = false;
  // A velocity affine in space on an affine block (fixed::modal_linear_records, built with the
  // operator): records, words, which elements are linear, (a . n) dS at boundary data points;
  // the block's element lists split into linear elements and the rest.
  View2 linear_rec_;
  LView2 linear_words_;
  IView1 linear_;
  View2 linear_an_;
  LView2 linear_mixed_; // the mixed faces (fixed::modal_linear_records)
  bool linear_mixed_with_ = true;
  int linear_count_ = 0;
  struct Split {
    IView1 list; // held, so that its memory is not reused for another list while cached
    IView1 linear, rest;
  };
  std::vector<Split> splits_;
  /// Builds the records, words and mixed faces above for the variant's modal_linear_mixed.
  void linear_records();
  /// The linear elements of `elems` and the rest (cached for the operator's and the block's
  /// element lists, which do not change after set-up).
  Split split(const IView1& elems);
  /// The stage kernels of a over a.elems: on a block with linear and other elements, the modal
  /// kernel on the linear ones and the quadrature pencil path on the rest.
  void fixed_stages(const fixed::StageArgs& a);
  /// The quadrature pencil path's arguments in a (tables built on first use).
  void qpencil_args(fixed::StageArgs& a);
  /// The arguments of the elements of a partly linear velocity that the modal kernel does not
  /// take, from the modal stage's a: the quadrature pencil path's, without the modal records.
  fixed::StageArgs rest_args(const fixed::StageArgs& a);
  /// Compile-time kernels exist for the block's order and points (q = p + 2; q = p + 1 on the
  /// quadrature pencil path), and no element-matrix mode.
  bool fixed_capable() const;
  /// fixed_capable() short of the points: the variant, the order, no element-matrix mode.
  bool fixed_allowed() const;
  /// The pencil kernel's arguments in a: the records and words (built on first use), and
  /// elems_first where a.elems is one of the block's lists known to be a contiguous range.
  void pencil_args(fixed::StageArgs& a);
  /// trace_next_ sized as block.trace.
  void allocate_trace_next();
  /// The fixed-order kernels' arguments of a stage over `elems` (pencil_args included; with
  /// traces emitted, their target).
  fixed::StageArgs fixed_stage_args(double t, const IView1& elems, const Epilogue& ep);
  /// The run-time-sized stage kernel over `elems` on `space`.
  void generic_stage(const IView1& elems, const Epilogue& ep, const ExecSpace& space);
};

/// Per-element diagnostics with a quadrature of `qerr` points per direction.
struct Diagnostics {
  double l2_error = 0.0, max_error = 0.0; // against the exact solution (if any)
  double integral = 0.0, energy = 0.0;    // int u, int u^2
  double umin = 0.0, umax = 0.0;          // at the quadrature points
  bool finite = true;
};
/// Local (this rank's) sums / extrema; the solver reduces them over ranks.
Diagnostics local_diagnostics(const ElementBlock& block, const physics::ExactSolution& exact,
                              double t, bool with_error, int qerr);

/// Error norms against tabulated exact values (elem, qerr^3) at the diagnostics grid (the
/// Gauss points of qerr per direction, x fastest).
Diagnostics local_diagnostics(const ElementBlock& block, const View2& exact_values, int qerr);

/// out (elem, mode) <- the projection of the values (elem, q^3) given at the block's volume
/// quadrature points: `iterations` weight-adjusted corrections from zero (1: W b, the operator's
/// own inverse mass applied to the load vector b_m = (phi_m, f); exact on affine blocks).
void project_values(const ElementBlock& block, const View2& values, const View2& out,
                    int iterations);

/// Sets the modes to the L2 projection of exact(x, t) (quadrature of qproj points, mass
/// matrix inverted exactly per element through the weight-adjusted form on affine elements and
/// a few fixed-point corrections on curved ones).
void project(ElementBlock& block, const physics::ExactSolution& exact, double t);

/// Weight-adjusted sweeps of a projection onto `block`: 1 on affine blocks (exact), 6 on
/// trilinear ones, 12 on curved ones (a constant then projects to round-off).
int projection_iterations(const ElementBlock& block);

/// Values of the solution (elem, n^3) and coordinates (elem, n^3, 3) on an equispaced n^3 grid
/// per element (n = subdivisions + 1), for output.
void sample(const ElementBlock& block, int n, View2& values, View3& coords);

} // namespace dg
