// Qwen3.5's multi-token-prediction (MTP) layer against the reference implementation's own MTP
// drafting path (fixtures/models/qwen35-tiny-mtp-f32.ref-mtp.json, spec/qwen35.md §4.6): the
// trunk's final-normed hidden states, the MTP layer over the prompt, and a 3-step greedy draft.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backend/factory.h"
#include "base/error.h"
#include "model/model.h"
#include "testing/metrics.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::compare_logits;
using testing::kMaxRelRms;
using Rows = std::vector<std::vector<float>>;

nlohmann::json load_mtp_reference() {
  const std::string path = testing::fixtures_dir() + "/models/qwen35-tiny-mtp-f32.ref-mtp.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

// Row i of a [n][width] buffer against want[i], for every row: the fixtures' tolerance, and the
// same arg-max where the rows are logits.
void expect_rows(const std::vector<float>& got, const Rows& want, bool logits,
                 const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    const auto e = compare_logits(got.data() + i * want[i].size(), want[i]);
    EXPECT_LE(e.rel_rms, kMaxRelRms) << what << " row " << i;
    if (logits) {  // braced: the macro's own if-else would pair with this if
      EXPECT_TRUE(e.same_argmax) << what << " row " << i;
    }
  }
}

using testing::argmax;

class MtpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MtpTest, MatchesTheReferenceDraftingPath) {
  const auto model = Model::load(testing::model_path("qwen35-tiny-mtp-f32"));
  ASSERT_TRUE(model->has_mtp());
  const int64_t E = model->info().n_embd;
  const auto backend = make_backend(GetParam(), 2);
  const nlohmann::json ref = load_mtp_reference();
  for (const auto& c : ref.at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const auto prompt = c.at("prompt").get<std::vector<int32_t>>();
    const int64_t N = int64_t(prompt.size());
    Scratch scratch;
    std::vector<float> logits, hidden;

    // The trunk: every row's logits and final-normed hidden state.
    SequenceState trunk = model->new_state(256, DType::F32, DType::F32);
    model->eval(*backend, trunk, scratch, prompt, true, logits, &hidden);
    expect_rows(logits, c.at("target_logits").get<Rows>(), true, "target logits");
    expect_rows(hidden, c.at("target_h_nextn").get<Rows>(), false, "target hidden");

    // The MTP layer over the prompt: token i with the trunk's hidden state of i-1 (zeros at 0).
    std::vector<float> shifted(N * E, 0.0f);
    std::copy(hidden.begin(), hidden.end() - E, shifted.begin() + E);
    SequenceState mtp = model->new_mtp_state(256, DType::F32, DType::F32);
    model->mtp_eval(*backend, mtp, scratch, prompt, shifted, true, logits);
    expect_rows(logits, c.at("mtp_prefill_logits").get<Rows>(), true, "mtp prefill logits");

    // The draft: step 0 feeds the trunk's next token with its last hidden state, each later step
    // the previous draft token with the MTP's own hidden state.
    const auto want_logits = c.at("draft_logits").get<Rows>();
    const auto want_hidden = c.at("draft_h_nextn").get<Rows>();
    const auto want_tokens = c.at("draft_tokens").get<std::vector<int32_t>>();
    ASSERT_EQ(c.at("n_past").get<int64_t>(), N);
    int32_t token = c.at("id_last").get<int32_t>();
    std::vector<float> h(hidden.end() - E, hidden.end()), own_hidden;
    for (size_t j = 0; j < want_tokens.size(); ++j) {
      ASSERT_EQ(mtp.n_past, c.at("draft_positions")[j].get<int64_t>());
      ASSERT_EQ(token, c.at("draft_input_tokens")[j].get<int32_t>());
      model->mtp_eval(*backend, mtp, scratch, std::span(&token, 1), h, false, logits, &own_hidden);
      expect_rows(logits, {want_logits[j]}, true, "draft logits " + std::to_string(j));
      expect_rows(own_hidden, {want_hidden[j]}, false, "draft hidden " + std::to_string(j));
      token = argmax(logits);
      EXPECT_EQ(token, want_tokens[j]) << "draft step " << j;
      h = own_hidden;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MtpTest, ::testing::Values("ref", "cpu"));

TEST(Mtp, ModelsWithoutItSayWhich) {
  const auto model = Model::load(testing::model_path("qwen35-tiny-f32"));
  EXPECT_FALSE(model->has_mtp());
  try {
    model->new_mtp_state(16, DType::F32, DType::F32);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("qwen35-tiny-f32.gguf: the model has no multi-token"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kz
