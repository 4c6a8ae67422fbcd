// A sequence's state as bytes: KV rows of the evaluated positions, recurrent states, position
// and tokens, behind a versioned header with the model's fingerprint and followed by a checksum.
// Reading validates everything before anything is handed back, so a bad image changes nothing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/model.h"
#include "runtime/sequence.h"

namespace kz {

// What a session needs to continue: the state, its tokens, and the prefix-reuse checkpoints
// (without them a restored hybrid model could only resume from the exact saved end).
struct RestoredState {
  SequenceState state;
  std::vector<int32_t> tokens;
  std::vector<Checkpoint> checkpoints;
};

std::vector<uint8_t> save_state_image(const Model& model, const SequenceState& state,
                                      std::span<const int32_t> tokens,
                                      std::span<const Checkpoint> checkpoints);

// Builds a state of context n_ctx from the image; throws kz::Error "state image: <what>" if the
// image is truncated, corrupted, from another model or larger than n_ctx.
RestoredState load_state_image(const Model& model, std::span<const uint8_t> image, int64_t n_ctx);

}  // namespace kz
