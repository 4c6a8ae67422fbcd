// State images keep the KV cache in its own element type: a state with Q8_0 (or mixed) caches
// saved and restored holds the same bytes, and continues with the same logits.
#include <gtest/gtest.h>

#include <random>

#include "backend/factory.h"
#include "runtime/state_image.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

struct Param {
  std::string model;
  DType k_type, v_type;
};

class StateImageKvTypes : public ::testing::TestWithParam<Param> {};

TEST_P(StateImageKvTypes, RoundTripKeepsTheCacheBytes) {
  const Param& p = GetParam();
  const auto model = Model::load(testing::model_path(p.model));
  const auto backend = make_backend("cpu", 1);
  std::mt19937 rng(3);
  std::vector<int32_t> tokens(37);
  for (auto& t : tokens) t = int32_t(rng() % 1019);
  const int64_t n_ctx = 64;
  SequenceState st = model->new_state(n_ctx, p.k_type, p.v_type);
  Scratch scratch;
  std::vector<float> logits;
  model->eval(*backend, st, scratch, std::span(tokens).first(36), false, logits);

  const auto image = save_state_image(*model, st, std::span(tokens).first(36), {});
  RestoredState back = load_state_image(*model, image, n_ctx);
  EXPECT_EQ(back.state.k_type, p.k_type);
  EXPECT_EQ(back.state.v_type, p.v_type);
  EXPECT_EQ(back.state.n_past, 36);
  EXPECT_EQ(back.state.bytes_per_token(), st.bytes_per_token());
  ASSERT_EQ(back.state.attn.size(), st.attn.size());
  ASSERT_FALSE(st.attn.empty());
  for (size_t l = 0; l < st.attn.size(); ++l) {
    EXPECT_EQ(back.state.attn[l].k, st.attn[l].k) << "K cache of attention layer " << l;
    EXPECT_EQ(back.state.attn[l].v, st.attn[l].v) << "V cache of attention layer " << l;
  }
  // The image holds exactly the evaluated rows: n_past x bytes per token of KV.
  const auto empty = save_state_image(*model, model->new_state(n_ctx, p.k_type, p.v_type), {}, {});
  EXPECT_EQ(image.size() - empty.size(), 36 * (st.bytes_per_token() + sizeof(int32_t)));

  std::vector<float> want, got;
  model->eval(*backend, st, scratch, std::span(tokens).subspan(36, 1), false, want);
  model->eval(*backend, back.state, scratch, std::span(tokens).subspan(36, 1), false, got);
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Types, StateImageKvTypes,
                         ::testing::Values(Param{"qwen3-tiny-f32", DType::Q8_0, DType::Q8_0},
                                           Param{"qwen35-tiny-f32", DType::Q8_0, DType::Q8_0},
                                           Param{"qwen3-tiny-q8_0", DType::Q8_0, DType::F16},
                                           Param{"qwen35-tiny-q4_0", DType::F32, DType::Q8_0}),
                         [](const auto& info) {
                           return testing::test_name(
                               info.param.model + "_" + std::string(dtype_name(info.param.k_type)) +
                               "_" + std::string(dtype_name(info.param.v_type)));
                         });

}  // namespace
}  // namespace kz
