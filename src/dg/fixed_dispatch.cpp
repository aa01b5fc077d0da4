// Run-time order -> compile-time kernels (dg/dg/fixed_order.hpp). The kernels of each order are
// instantiated in their own generated source (src/dg/fixed_order.cpp.in), so that the orders
// compile in parallel and a change to one kernel does not rebuild a single huge file.
#include "dg/dg/fixed_order.hpp"

#include "dg/core/error.hpp"

#define DG_FIXED_DECLARE(p)                                                                       \
  void stage_p##p(const StageArgs&);                                                              \
  void traces_p##p(const StageArgs&, const View4&);                                               \
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
#define DG_FIXED_ENTRY(p) Entry{stage_p##p, traces_p##p, transform_p##p}
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

void stage(int order, const StageArgs& a) { entry(order).stage(a); }
void traces(int order, const StageArgs& a, const View4& out) { entry(order).traces(a, out); }
void backward(int order, const BasisTables& t, const View2& modes, const View2& vals,
              const KernelVariant& v) {
  entry(order).transform(t, modes, vals, false, v);
}
void inner(int order, const BasisTables& t, const View2& vals, const View2& modes,
           const KernelVariant& v) {
  entry(order).transform(t, vals, modes, true, v);
}

} // namespace dg::fixed
