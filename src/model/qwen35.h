// Architecture `qwen35` (hybrid Gated DeltaNet + gated attention): spec/qwen35.md.
#pragma once

#include <memory>

#include "model/model.h"

namespace kz {

std::unique_ptr<Model> load_qwen35(gguf::File file);

}  // namespace kz
