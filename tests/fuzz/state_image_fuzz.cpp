// libFuzzer entry for state images (runtime/state_image.h), which an app reads back from its
// files: any bytes either restore a state for the fixture model or throw kz::Error, never crash
// or read past the image. No seed files: half the inputs are mutations of a valid image the
// target makes on its first call. Built with -DKAZEIA_FUZZ=ON (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/factory.h"
#include "base/error.h"
#include "model/model.h"
#include "runtime/sequence.h"
#include "runtime/state_image.h"

namespace {

const kz::Model& model() {
  static const auto m = kz::Model::load(KAZEIA_FIXTURES_DIR "/models/qwen35-tiny-q4_0.gguf");
  return *m;
}

// A valid image of a few evaluated tokens with a checkpoint, the mutations' starting point.
std::vector<uint8_t> valid_image() {
  kz::Sequence seq(model(), 64, kz::DType::F16, kz::DType::Q8_0, {});
  const auto backend = kz::make_backend("ref", 1);
  kz::Scratch scratch;
  std::vector<float> logits;
  const std::vector<int32_t> tokens{1, 2, 3, 4, 5, 6};
  const std::vector<int64_t> marks{3};
  seq.append(*backend, scratch, tokens, marks, logits);
  return kz::save_state_image(model(), seq.state(), seq.tokens(), seq.checkpoints());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint8_t> seed = valid_image();
  // Half the inputs mutate the valid image (XOR at the fuzzer's positions), so that checks
  // past the header get exercised; the others are raw bytes.
  std::vector<uint8_t> image(data, data + size);
  if (size > 0 && data[0] % 2 == 0) {
    image = seed;
    for (size_t i = 1; i + 2 < size; i += 3)
      image[(data[i] << 8 | data[i + 1]) % image.size()] ^= data[i + 2];
  }
  try {
    (void)kz::load_state_image(model(), image, 64);
  } catch (const kz::Error&) {
  }
  return 0;
}
