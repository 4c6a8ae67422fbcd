// Every fixture GGUF (written by llama.cpp / gguf-py) loads, with the values its producer put in.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "gguf/gguf.h"
#include "gguf_test_util.h"

namespace kz::gguf {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> fixtures(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(KAZEIA_FIXTURES_DIR) + "/" + dir))
    if (e.path().extension() == ".gguf") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Each payload lies inside the file, at an aligned offset, with the size its shape implies.
void expect_tensors_in_file(const File& f) {
  const uint8_t* begin = f.bytes().data();
  const uint8_t* end = begin + f.bytes().size();
  for (const TensorInfo& t : f.tensors()) {
    SCOPED_TRACE(t.name);
    EXPECT_GE(t.data, begin + f.data_offset());
    EXPECT_LE(t.data + t.nbytes, end);
    EXPECT_EQ(static_cast<uint64_t>(t.data - begin) % f.alignment(), 0u);
    EXPECT_EQ(t.nbytes, row_bytes(t.type, t.ne[0]) * t.ne[1] * t.ne[2] * t.ne[3]);
  }
}

TEST(GgufFixtures, ModelsLoad) {
  const auto paths = fixtures("models");
  ASSERT_GE(paths.size(), 9u);  // the conformance set (the MTP model came later)
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const File f = File::open(path);
    const std::string arch = f.get_string("general.architecture");
    const std::string base = fs::path(path).filename().string();
    EXPECT_EQ(base.substr(0, base.find('-')), arch);
    EXPECT_EQ(f.version(), 3u);
    EXPECT_EQ(f.alignment(), 32u);
    EXPECT_GT(f.tensors().size(), 0u);
    EXPECT_EQ(f.get_string_array("tokenizer.ggml.tokens").size(), 1024u);
    EXPECT_EQ(f.get_int_array("tokenizer.ggml.token_type").size(), 1024u);
    EXPECT_EQ(f.get_u32("tokenizer.ggml.eos_token_id"), 1021u);
    EXPECT_FALSE(f.get_bool("tokenizer.ggml.add_bos_token"));
    EXPECT_NEAR(f.get_f32(arch + ".attention.layer_norm_rms_epsilon"), 1e-6f, 1e-12f);

    const uint32_t n_embd = f.get_u32(arch + ".embedding_length");
    const TensorInfo* emb = f.find_tensor("token_embd.weight");
    ASSERT_NE(emb, nullptr);
    EXPECT_EQ(emb->n_dims, 2u);
    EXPECT_EQ(emb->ne[0], n_embd);
    EXPECT_EQ(emb->ne[1], 1024);
    const TensorInfo* norm = f.find_tensor("output_norm.weight");
    ASSERT_NE(norm, nullptr);
    EXPECT_EQ(norm->type, DType::F32);
    EXPECT_EQ(norm->n_dims, 1u);
    EXPECT_EQ(norm->ne[0], n_embd);
    EXPECT_EQ(norm->ne[1], 1);
    expect_tensors_in_file(f);
  }
}

TEST(GgufFixtures, KnownTensors) {
  const std::string dir = std::string(KAZEIA_FIXTURES_DIR) + "/models/";
  const File tiny = File::open(dir + "qwen3-tiny-f32.gguf");
  EXPECT_EQ(tiny.tensors().size(), 24u);
  EXPECT_EQ(tiny.get_u32("qwen3.block_count"), 2u);
  const TensorInfo* q = tiny.find_tensor("blk.1.attn_q.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->type, DType::F32);
  EXPECT_EQ(q->ne[0], 128);
  EXPECT_EQ(q->ne[1], 128);
  EXPECT_EQ(q->offset, 1214720u);
  EXPECT_EQ(q->nbytes, 128u * 128 * 4);
  EXPECT_EQ(tiny.find_tensor("nope"), nullptr);

  const File q4 = File::open(dir + "qwen35-small-q4_k_m.gguf");
  EXPECT_EQ(q4.tensors().size(), 108u);
  EXPECT_EQ(q4.find_tensor("token_embd.weight")->type, DType::Q6_K);
  const TensorInfo* gate = q4.find_tensor("blk.0.attn_gate.weight");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->type, DType::Q4_K);
  EXPECT_EQ(gate->ne[0], 256);
  EXPECT_EQ(gate->ne[1], 256);
  EXPECT_EQ(gate->nbytes, 256u * 144);
  EXPECT_EQ(q4.get_int_array("qwen35.rope.dimension_sections"), (std::vector<int64_t>{6, 5, 5, 0}));
}

TEST(GgufFixtures, VocabFilesLoad) {
  for (const std::string& path : fixtures("vocab")) {
    SCOPED_TRACE(path);
    const auto t0 = std::chrono::steady_clock::now();
    const File f = File::open(path);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: opened in %.1f ms\n", path.c_str(), ms);
    EXPECT_EQ(f.get_string("general.architecture"), "qwen2");
    EXPECT_EQ(f.tensors().size(), 0u);
    // gguf-py ends a vocab-only file right after the metadata: the data section is empty.
    EXPECT_EQ(f.data_offset(), f.file_size());
    const auto tokens = f.get_string_array("tokenizer.ggml.tokens");
    ASSERT_EQ(tokens.size(), 151936u);
    EXPECT_EQ(tokens[0], "!");
    EXPECT_EQ(f.get_int_array("tokenizer.ggml.token_type").size(), 151936u);
    EXPECT_EQ(f.get_string_array("tokenizer.ggml.merges").size(), 151387u);
    EXPECT_EQ(f.get_u32("tokenizer.ggml.eos_token_id"), 151643u);
  }
}

// Our writer reproduces llama.cpp's files byte for byte.
TEST(GgufFixtures, RewriteIsByteIdentical) {
  for (const std::string& path : fixtures("models")) {
    SCOPED_TRACE(path);
    const File f = File::open(path);
    const std::vector<uint8_t> out = test::writer_from(f).to_bytes();
    ASSERT_EQ(out.size(), f.file_size());
    EXPECT_TRUE(std::equal(out.begin(), out.end(), f.bytes().begin()));
  }
  // Vocab files end without padding; our writer pads (as llama.cpp's does): same bytes before.
  for (const std::string& path : fixtures("vocab")) {
    SCOPED_TRACE(path);
    const File f = File::open(path);
    const std::vector<uint8_t> out = test::writer_from(f).to_bytes();
    ASSERT_EQ(out.size(), (f.file_size() + 31) / 32 * 32);
    EXPECT_TRUE(std::equal(f.bytes().begin(), f.bytes().end(), out.begin()));
  }
}

TEST(GgufFixtures, OpenMissingFileNamesPath) {
  try {
    File::open("/nonexistent/x.gguf");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.gguf"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kz::gguf
