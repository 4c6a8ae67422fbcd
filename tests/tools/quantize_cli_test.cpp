// kazeia quantize from the command line: bad arguments are one-line errors with a non-zero exit,
// --dry-run's table and size agree with the written file, the input is never overwritten, and
// the lmq4 preset makes every matrix Q4_0.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gguf/gguf.h"
#include "testing/cli_runner.h"
#include "testing/files.h"
#include "testing/reference_logits.h"

namespace {

namespace fs = std::filesystem;

using kz::testing::CliResult;
using kz::testing::expect_error;

// `kazeia quantize ARGS`.
CliResult quantize(const std::string& args) {
  return kz::testing::kazeia("quantize " + args);
}

using kz::testing::temp_path;

const std::string kF32 = kz::testing::model_path("qwen35-tiny-f32");
const std::string kQ4_0 = kz::testing::model_path("qwen35-tiny-q4_0");

TEST(QuantizeCli, HelpListsEveryMixAndFlag) {
  const CliResult r = quantize("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* s : {"IN", "OUT", "TYPE", "Q4_K_M", "Q5_K_S", "Q6_K", "Q8_0", "IQ4_XS", "lmq4",
                        "-t, --threads", "--token-embedding-type", "--output-tensor-type",
                        "--tensor-type", "--pure", "--allow-requantize", "--dry-run"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(QuantizeCli, BadArgumentsAreOneLineErrors) {
  const std::string out = temp_path("never.gguf");
  expect_error(quantize(kF32 + " " + out + " Q4_X"), "unknown quantization type 'Q4_X'");
  expect_error(quantize(kF32 + " " + out + " iq2_xxs"), "unknown quantization type 'iq2_xxs'");
  expect_error(quantize(kF32 + " " + out), "missing TYPE");
  expect_error(quantize(""), "missing IN");
  expect_error(quantize(kF32 + " " + out + " q4_0 --bogus"), "unknown flag '--bogus'");
  expect_error(quantize(kF32 + " " + out + " q4_0 extra"), "unexpected argument 'extra'");
  expect_error(quantize(kF32 + " " + out + " q4_0 --token-embedding-type q9"),
               "unknown tensor type 'q9' for --token-embedding-type");
  expect_error(quantize(kF32 + " " + out + " q4_0 --output-tensor-type q8_k"),
               "unknown tensor type 'q8_k' for --output-tensor-type");
  expect_error(quantize(kF32 + " " + out + " q4_0 --tensor-type attn_v"), "expected REGEX=TYPE");
  expect_error(quantize(kF32 + " " + out + " q4_0 --tensor-type '(attn=q8_0'"),
               "invalid regular expression '(attn'");
  expect_error(quantize(kF32 + " " + out + " q4_0 --tensor-type attn=q3"),
               "unknown tensor type 'q3'");
  expect_error(quantize(kF32 + " " + out + " f16 --tensor-type attn=q8_0"), "quantized mixes only");
  expect_error(quantize(kF32 + " " + out + " q4_0 -t 0x"), "invalid value '0x' for -t");
  expect_error(quantize(kF32 + " " + out + " q4_0 -t 100000"), "--threads");
  expect_error(quantize("/nonexistent.gguf " + out + " q4_0"), "/nonexistent.gguf");
  expect_error(quantize(kQ4_0 + " " + out + " q8_0"), "--allow-requantize");
  EXPECT_FALSE(fs::exists(out));
}

TEST(QuantizeCli, RefusesToOverwriteTheInput) {
  const std::string in = temp_path("in.gguf"), link = temp_path("link.gguf");
  fs::copy_file(kF32, in, fs::copy_options::overwrite_existing);
  fs::remove(link);
  fs::create_symlink(in, link);
  expect_error(quantize(in + " " + in + " q4_0"), "is the input file");
  expect_error(quantize(in + " " + link + " q4_0"), "is the input file");
  EXPECT_EQ(fs::file_size(in), fs::file_size(kF32));
  fs::remove(link);
  fs::remove(in);
}

TEST(QuantizeCli, DryRunTableMatchesTheWrittenFile) {
  const std::string out = temp_path("q4_k_m.gguf");
  const std::string flags = " Q4_K_M --tensor-type 'blk\\.3\\.attn_q=q8_0' -t 2";
  const CliResult dry = quantize("--dry-run " + kF32 + flags);
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_FALSE(fs::exists(out));
  const CliResult real = quantize(kF32 + " " + out + flags);
  ASSERT_EQ(real.code, 0) << real.err;
  EXPECT_NE(real.err.find("validated"), std::string::npos) << real.err;
  const kz::gguf::File f = kz::gguf::File::open(out);
  for (const kz::gguf::TensorInfo& t : f.tensors()) {
    const std::string row = t.name + " ";
    const size_t at = dry.out.find("\n" + row);
    ASSERT_NE(at, std::string::npos) << t.name;
    const std::string line = dry.out.substr(at + 1, dry.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find("-> " + std::string(kz::dtype_name(t.type)) + " "), std::string::npos)
        << line;
    EXPECT_NE(line.find(" " + std::to_string(t.nbytes)), std::string::npos) << line;
  }
  EXPECT_EQ(f.find_tensor("blk.3.attn_q.weight")->type, kz::DType::Q8_0);
  EXPECT_NE(dry.out.find("file size " + std::to_string(fs::file_size(out)) + " bytes"),
            std::string::npos)
      << dry.out;
  fs::remove(out);
}

TEST(QuantizeCli, Lmq4MakesEveryMatrixQ4_0) {
  const std::string out = temp_path("lmq4.gguf");
  const CliResult r = quantize(kF32 + " " + out + " lmq4");
  ASSERT_EQ(r.code, 0) << r.err;
  const kz::gguf::File f = kz::gguf::File::open(out);
  for (const kz::gguf::TensorInfo& t : f.tensors()) {
    const bool matrix = t.n_dims >= 2 && t.name.find("ssm_conv1d") == std::string::npos;
    EXPECT_EQ(t.type, matrix ? kz::DType::Q4_0 : kz::DType::F32) << t.name;
  }
  EXPECT_EQ(f.get_u32("general.file_type"), 2u);  // LLAMA_FTYPE_MOSTLY_Q4_0
  fs::remove(out);
}

}  // namespace
