// The fixed-order kernels of one order (P = p + 1 modes and Q = p + 2 quadrature points per
// direction as compile-time constants, dg/dg/fixed_order.hpp): which kernel family runs a stage
// and its traces, and the per-order entry points (stage, traces, batched transforms). Included
// only by the generated per-order sources (src/dg/fixed_order.cpp.in), which instantiate one
// order each (DG_FIXED_INSTANTIATE).
//   contract.hpp            contractions and Tensor<P, Q> (tables, 3-D and face transforms)
//   device.hpp              unrolling, shared-memory pointers, asynchronous copies, team policy
//   quadrature_stage.hpp    the quadrature path (any element, any velocity, Dirichlet faces)
//   quadrature_pencil_stage.hpp  the quadrature path in pencil form (advection, SIPG diffusion)
//   modal_records.hpp       records, neighbour words and fields of the modal kernels
//   modal_pencil_stage.hpp  the modal path in pencil form (the solver's kernel on affine blocks)
//   modal_entry_stage.hpp   the modal path entry-wise (a measured baseline)
//   transforms.hpp          batched transforms (dgbench transforms and the tests)
// Traces are not a kernel of their own: each stage kernel with traces_only writes the traces of
// block.u, and with the lsrk epilogue (Epilogue, dg/dg/operator.hpp) it applies the update in its
// last pass and then emits the traces of the updated state for the next stage.
#pragma once

#include "fixed/modal_entry_stage.hpp"
#include "fixed/modal_pencil_stage.hpp"
#include "fixed/quadrature_pencil_stage.hpp"
#include "fixed/quadrature_stage.hpp"
#include "fixed/transforms.hpp"

namespace dg::fixed {

template <int P, int Q>
struct Kernels {
  using Quadrature = QuadraturePath<P, Q>;
  using ModalEntry = ModalEntryPath<P, Q>;
  using ModalPencil = ModalPencilPath<P, Q>;
  using QuadPencil = QuadraturePencilPath<P, Q>;

  /// The modal path: the pencil kernel (KernelVariant::modal_pencil, the default) or the
  /// entry-wise one.
  static void modal(const StageArgs& a, bool traces_only, const View4& out) {
    const int n = static_cast<int>(a.elems.extent(0));
    if (n == 0) return;
    const int ne = ModalEntry::modal_elems(a.variant);
    const bool diffusion = a.pde.diffusion.nu > 0.0;
    if (a.modal_linear) {
      DG_VERIFY(a.variant.modal_pencil && !diffusion,
                "modal path with a linear velocity: the pencil kernel, advection");
      ModalPencil::launch_linear(a, traces_only, out);
    } else if (a.variant.modal_pencil) {
      if (diffusion)
        ModalPencil::template launch_pencil<true>(a, traces_only, out);
      else
        ModalPencil::template launch_pencil<false>(a, traces_only, out);
    } else if (diffusion) {
      ModalEntry::template launch_modal<true>(a, traces_only, out, ne);
    } else {
      ModalEntry::template launch_modal<false>(a, traces_only, out, ne);
    }
  }

  static void stage(const StageArgs& a) {
    if (a.modal) return modal(a, false, a.trace_out);
    if (a.qpencil) return QuadPencil::launch(a, false, a.trace_out);
    Quadrature::launch(a, false, a.trace_out);
  }

  static void traces(const StageArgs& a, const View4& out) {
    if (a.modal) return modal(a, true, out);
    if (a.qpencil) return QuadPencil::launch(a, true, out);
    Quadrature::launch(a, true, out);
  }

  /// Blocks with Q = P points (q = p + 1): the quadrature pencil path alone.
  static void collocated(const StageArgs& a, bool traces_only, const View4& out) {
    DG_VERIFY(a.qpencil && !a.modal, "q = p + 1 points: compile-time kernels of the quadrature "
                                     "pencil path only");
    QuadraturePencilPath<P, P>::launch(a, traces_only, out);
  }
  static void stage_any(const StageArgs& a) {
    if (a.block->Q == P) return collocated(a, false, a.trace_out);
    stage(a);
  }
  static void traces_any(const StageArgs& a, const View4& out) {
    if (a.block->Q == P) return collocated(a, true, out);
    traces(a, out);
  }
};

} // namespace dg::fixed

/// Explicit instantiation of one order (used by the generated per-order sources). The order of
/// the instantiations steers GCC's inlining and vectorisation of the host quadrature stage: with
/// the modal kernels and Kernels before QuadraturePath its loops are vectorised (p = 4: 4420
/// instructions), with QuadraturePath first they are not (3103); keep it.
#define DG_FIXED_INSTANTIATE(p)                                                                    \
  namespace dg::fixed {                                                                            \
  template struct Tensor<(p) + 1, (p) + 2>;                                                        \
  template struct ModalEntryPath<(p) + 1, (p) + 2>;                                                \
  template struct ModalPencilPath<(p) + 1, (p) + 2>;                                               \
  template struct Kernels<(p) + 1, (p) + 2>;                                                       \
  template struct QuadraturePath<(p) + 1, (p) + 2>;                                                \
  template struct QuadraturePencilPath<(p) + 1, (p) + 2>;                                          \
  template struct QuadraturePencilPath<(p) + 1, (p) + 1>;                                          \
  template struct Transforms<(p) + 1, (p) + 2>;                                                    \
  void stage_p##p(const StageArgs& a) {                                                            \
    Kernels<(p) + 1, (p) + 2>::stage_any(a);                                                       \
  }                                                                                                \
  void traces_p##p(const StageArgs& a, const View4& o) {                                           \
    Kernels<(p) + 1, (p) + 2>::traces_any(a, o);                                                   \
  }                                                                                                \
  void transform_p##p(const BasisTables& t, const View2& i, const View2& o, bool inner,            \
                      const KernelVariant& v) {                                                    \
    Transforms<(p) + 1, (p) + 2>::transform(t, i, o, inner, v);                                    \
  }                                                                                                \
  }
