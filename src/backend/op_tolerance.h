// How far a fast or accelerated op may be from the reference backend (`ref`, f32 throughout) on
// the same inputs: what the oracle allows. The bound on an output's relative RMS error is
//   rel_rms + rounding_factor x (how far rounding the activations as the reference
//                                implementation does moves ref's own output, on this input),
// so f32 arithmetic in another order is allowed everywhere, and activation rounding where a
// kernel may round (matrix products) by exactly as much as it matters for the data at hand. No
// bound allows a bug: a wrong head, lane, scale or off-by-one moves an output by tens of per
// cent, the faulty device's corruption by 25 %.
#pragma once

#include "backend/op_call.h"

namespace kz {

struct OpTolerance {
  double rel_rms = 0;
  double rounding_factor = 0;  // 0: no activation rounding allowed
  const char* reason = "";     // what the bound allows, one line
};

OpTolerance op_tolerance(const OpShape& shape);

}  // namespace kz
