#include "backend/op_tolerance.h"

namespace kz {
namespace {

// f32 arithmetic in another order (vector lanes, FMA, blocked sums), vector exp and the chunked
// form of the delta rule: a few units in the last place per element. Measured worst on every
// fixture model: 4e-7 (docs/architecture.md, "The oracle").
constexpr OpTolerance kReordered{1e-4, 0, "f32 sums in another order, vector exp"};
// Matrix products: the fast kernels round the activations to the weight type's dot-product
// format (8-bit blocks, f16, bf16) as the reference implementation does; an accelerator may keep
// f32 activations. Either lands within the rounding's own distance from the exact product; 1.5x
// leaves room for the summation order on top. Measured on the fixtures: 1.00x.
constexpr OpTolerance kRoundedActivations{1e-4, 1.5,
                                          "f32 sums in another order, activations rounded as "
                                          "the reference does"};

}  // namespace

OpTolerance op_tolerance(const OpShape& shape) {
  return shape.kind == "matmul" ? kRoundedActivations : kReordered;
}

OpTolerance Backend::tolerance(const OpShape& shape) const {
  return op_tolerance(shape);
}

}  // namespace kz
