// A model's weights cost most on first use: the mapping's pages fault in from storage and the
// CPU repacks them into its kernels' layouts (a 4B Q4_0 model: ~5 s of its first prompt on a
// 2-core x86 VM). warm_up pays that now, one token through a backend on a scratch state, and
// reports each layer as it passes, so that loading can show progress and the first answer's
// time to first token is the prompt's own.
#pragma once

#include <cstdint>
#include <functional>

#include "backend/backend.h"
#include "model/model.h"

namespace kz {

// on_layer(done, total) after each of the model's layers (total: trunk layers + 1 for the
// embedding and head); the caller's sequence state is untouched.
using WarmUpProgress = std::function<void(int64_t done, int64_t total)>;
void warm_up(const Model& model, Backend& be, DType k_type, DType v_type,
             const WarmUpProgress& on_layer);

}  // namespace kz
