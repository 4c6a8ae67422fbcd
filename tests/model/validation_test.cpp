// A model whose configuration is unknown or inconsistent is rejected with one line naming the
// key or tensor at fault. Each case rewrites a valid fixture with one defect.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "base/error.h"
#include "gguf/gguf.h"
#include "model/model.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

struct Edit {
  std::function<bool(gguf::KeyValue&)> key = [](gguf::KeyValue&) { return true; };
  // Returns false to drop the tensor; may change its shape.
  std::function<bool(const std::string&, std::vector<int64_t>&)> tensor =
      [](const std::string&, std::vector<int64_t>&) { return true; };
  std::vector<std::pair<std::string, gguf::Value>> extra_keys;
  bool extra_tensor = false;
};

// Writes `model` with the edit applied and returns the error Model::load gives ("" if none).
std::string load_error(const std::string& model, const Edit& edit) {
  const gguf::File f = gguf::File::open(testing::model_path(model));
  gguf::Writer w;
  for (gguf::KeyValue kv : f.metadata())
    if (edit.key(kv)) w.set(kv.key, kv.value);
  for (const auto& [k, v] : edit.extra_keys) w.set(k, v);
  for (const auto& t : f.tensors()) {
    std::vector<int64_t> ne(t.ne, t.ne + std::max(1u, t.n_dims));
    const int64_t before = t.n_elements();
    if (!edit.tensor(t.name, ne)) continue;
    int64_t after = 1;
    for (int64_t d : ne) after *= d;
    std::vector<uint8_t> data(t.data, t.data + t.nbytes);
    data.resize(data.size() / before * after);
    w.add_tensor(t.name, t.type, ne, std::move(data));
  }
  if (edit.extra_tensor)
    w.add_tensor("blk.0.bogus.weight", DType::F32, {4}, std::vector<uint8_t>(16));
  // One file per test: CTest runs the tests of this file in parallel processes.
  const std::string path = ::testing::TempDir() + "/invalid_" + model + "_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           ".gguf";
  w.write(path);
  std::string error;
  try {
    Model::load(path);
  } catch (const Error& e) {
    error = e.what();
  }
  std::remove(path.c_str());
  return error;
}

void expect_rejected(const std::string& error, const std::string& what) {
  EXPECT_NE(error.find(what), std::string::npos) << "error: '" << error << "'";
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

const char* kQwen35 = "qwen35-tiny-f32";

TEST(ModelValidation, UnmodifiedFixtureLoads) {
  EXPECT_EQ(load_error(kQwen35, {}), "");
}

TEST(ModelValidation, ValueHeadsNotAMultipleOfKeyHeads) {
  Edit e;
  e.key = [](gguf::KeyValue& kv) {
    if (kv.key == "qwen35.ssm.time_step_rank") kv.value = gguf::val(uint32_t(3));
    return true;
  };
  expect_rejected(load_error(kQwen35, e), "qwen35.ssm.time_step_rank");
}

TEST(ModelValidation, MissingTensor) {
  Edit e;
  e.tensor = [](const std::string& name, std::vector<int64_t>&) { return name != "blk.0.ssm_a"; };
  expect_rejected(load_error(kQwen35, e), "missing tensor 'blk.0.ssm_a'");
}

TEST(ModelValidation, WrongShape) {
  Edit e;
  e.tensor = [](const std::string& name, std::vector<int64_t>& ne) {
    if (name == "blk.3.attn_q.weight") ne[1] /= 2;  // query only, no gate half
    return true;
  };
  const std::string error = load_error(kQwen35, e);
  expect_rejected(error, "blk.3.attn_q.weight");
  expect_rejected(error, "wrong shape");
}

TEST(ModelValidation, UnexpectedTensor) {
  Edit e;
  e.extra_tensor = true;
  expect_rejected(load_error(kQwen35, e), "unexpected tensor 'blk.0.bogus.weight'");
}

TEST(ModelValidation, MissingKey) {
  Edit e;
  e.key = [](gguf::KeyValue& kv) { return kv.key != "qwen35.ssm.conv_kernel"; };
  expect_rejected(load_error(kQwen35, e), "qwen35.ssm.conv_kernel");
}

TEST(ModelValidation, WrongKeyType) {
  Edit e;
  e.key = [](gguf::KeyValue& kv) {
    if (kv.key == "qwen35.embedding_length") kv.value = gguf::val(int32_t(128));
    return true;
  };
  expect_rejected(load_error(kQwen35, e), "qwen35.embedding_length");
}

TEST(ModelValidation, RopeSections) {
  Edit e;
  e.key = [](gguf::KeyValue& kv) {
    if (kv.key == "qwen35.rope.dimension_sections") kv.value = gguf::i32_array({4, 4});
    return true;
  };
  expect_rejected(load_error(kQwen35, e), "qwen35.rope.dimension_sections");
}

TEST(ModelValidation, InnerSizeInconsistentWithHeads) {
  Edit e;
  e.key = [](gguf::KeyValue& kv) {
    if (kv.key == "qwen35.ssm.inner_size") kv.value = gguf::val(uint32_t(100));
    return true;
  };
  expect_rejected(load_error(kQwen35, e), "qwen35.ssm.inner_size");
}

TEST(ModelValidation, Qwen3HeadCountsThatDoNotDivide) {
  Edit e;
  e.key = [](gguf::KeyValue& kv) {
    if (kv.key == "qwen3.attention.head_count_kv") kv.value = gguf::val(uint32_t(3));
    return true;
  };
  expect_rejected(load_error("qwen3-tiny-f32", e), "head_count_kv");
}

TEST(ModelValidation, UnknownArchitecture) {
  Edit e;
  e.key = [](gguf::KeyValue& kv) {
    if (kv.key == "general.architecture") kv.value = gguf::val("mamba9");
    return true;
  };
  expect_rejected(load_error(kQwen35, e), "unsupported architecture 'mamba9'");
}

}  // namespace
}  // namespace kz
