// Architecture `qwen3` (dense): spec/qwen3.md.
#pragma once

#include <memory>

#include "model/model.h"

namespace kz {

std::unique_ptr<Model> load_qwen3(gguf::File file);

}  // namespace kz
