// Whole models on the AVX-512 VNNI packed kernels (groups of 16 rows), where the CPU has them:
// every quantized fixture model's logits, prompt and continuation, are the same bits as with the
// AVX2 table (groups of 8 rows).
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "backend/cpu_backend.h"
#include "kernels/x86_test_util.h"
#include "model/model.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::Variant;

// The logits of the first reference case's prompt and each continuation token, one after another.
std::vector<float> logits_on(const KernelTable& table, const std::string& model_name) {
  const auto cases =
      testing::load_reference(testing::fixtures_dir() + "/models/" + model_name + ".ref.json");
  const testing::ReferenceCase& rc = cases.at(0);
  auto model = Model::load(testing::model_path(model_name));
  CpuBackend backend(2, &table);
  SequenceState state =
      model->new_state(rc.prompt.size() + rc.continuation.size(), DType::F16, DType::F16);
  Scratch scratch;
  std::vector<float> all, logits;
  model->eval(backend, state, scratch, rc.prompt, false, logits);
  all.insert(all.end(), logits.begin(), logits.end());
  for (int32_t token : rc.continuation) {
    model->eval(backend, state, scratch, std::span(&token, 1), false, logits);
    all.insert(all.end(), logits.begin(), logits.end());
  }
  return all;
}

TEST(PackedVariants, Avx512VnniGivesTheAvx2LogitsBitForBit) {
  KZ_TABLE_OR_SKIP(Variant::kAvx512Vnni, table);
  const auto avx2 = testing::table_for(Variant::kAvx2);
  for (const char* m :
       {"qwen3-tiny-q8_0", "qwen3-small-q8_0", "qwen3-small-q4_k_m", "qwen35-tiny-q4_0",
        "qwen35-small-q4_0", "qwen35-small-q8_0", "qwen35-small-q4_k_m"}) {
    const auto ours = logits_on(table, m), expected = logits_on(*avx2, m);
    ASSERT_EQ(ours.size(), expected.size()) << m;
    for (size_t i = 0; i < ours.size(); ++i) ASSERT_EQ(ours[i], expected[i]) << m << " logit " << i;
  }
}

}  // namespace
}  // namespace kz
