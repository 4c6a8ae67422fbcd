// The kazeia command line: each bad-input path gives a one-line message naming what is wrong and
// a non-zero exit; the main paths produce the documented output.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support/synthetic.h"
#include "testing/cli_runner.h"
#include "testing/reference_logits.h"

namespace {

using kz::testing::CliResult;
using kz::testing::expect_error;
using kz::testing::kazeia;

std::string temp_file(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

using kz::testing::kTiny;
using kz::testing::kTiny35;

TEST(Cli, MissingModelFile) {
  expect_error(kazeia("run -m /nonexistent/model.gguf -p hi"), "/nonexistent/model.gguf");
}

TEST(Cli, NotAGgufFile) {
  const auto path = temp_file("not_a_model.gguf", "this is plain text, not a model");
  expect_error(kazeia("run -m " + path + " -p hi"), "magic");
}

TEST(Cli, UnsupportedArchitecture) {
  expect_error(
      kazeia("run -m " + kz::testing::fixtures_dir() + "/vocab/ggml-vocab-qwen2.gguf -p hi"),
      "unsupported architecture");
}

TEST(Cli, UnsupportedType) {
  // A tensor type id the format defines but this engine cannot compute (IQ2_XXS = 16).
  std::ifstream in(kTiny, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const std::string name = "token_embd.weight";
  const size_t at = bytes.find(name);
  ASSERT_NE(at, std::string::npos);
  // name, n_dims (u32), ne[0..1] (i64), type (i32)
  const size_t type_at = at + name.size() + 4 + 16;
  bytes[type_at] = 16;
  const auto path = temp_file("unsupported_type.gguf", bytes);
  const CliResult r = kazeia("run -m " + path + " -p hi");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("token_embd.weight"), std::string::npos) << r.err;
}

TEST(Cli, PromptLongerThanContext) {
  expect_error(kazeia("run -m " + kTiny + " -c 8 -p \"" + std::string(100, 'x') + " y z\""),
               "does not fit the context size 8");
}

TEST(Cli, UnknownFlagAndBadValues) {
  expect_error(kazeia("run -m " + kTiny + " --bogus 1"), "unknown flag '--bogus'");
  expect_error(kazeia("run -m " + kTiny + " -n abc"), "invalid value 'abc' for -n");
  expect_error(kazeia("run -m " + kTiny + " --temp -1 -p hi"), "temperature");
  expect_error(kazeia("run -m " + kTiny + " -ctk q3 -p hi"), "--cache-type-k");
  expect_error(kazeia("run -m " + kTiny + " -t 100000 -p hi"), "invalid --threads 100000");
  expect_error(kazeia("run -m " + kTiny + " -t -1 -p hi"), "invalid --threads -1");
  expect_error(kazeia("run -m " + kTiny + " -c 0 -p hi"), "invalid --ctx-size 0");
  expect_error(kazeia("run -m " + kTiny + " -c -1 -p hi"), "invalid --ctx-size -1");
  // Once accepted, zero-filling tens of GB until the OOM killer came.
  expect_error(kazeia("run -m " + kTiny + " -c 2000000000 -p hi"),
               "GiB of state; this machine has");
  expect_error(kazeia("chat -m " + kTiny + " -c 0 < /dev/null"), "invalid --ctx-size 0");
  expect_error(kazeia("logits -m " + kTiny + " --ids 1,x"), "invalid value 'x' for --ids");
  EXPECT_EQ(kazeia("frobnicate").code, 2);
}

TEST(Cli, KvCacheTypes) {
  // Unsupported types, on every model-running command, name the flag in one line.
  expect_error(kazeia("run -m " + kTiny + " -ctk q4_0 -p hi"),
               "invalid value 'q4_0' for --cache-type-k (expected f32, f16 or q8_0)");
  expect_error(kazeia("chat -m " + kTiny + " -ctv q4_0 < /dev/null"),
               "invalid value 'q4_0' for --cache-type-v");
  expect_error(kazeia("bench -m " + kTiny + " -p 0 -n 1 -r 1 --cache-type-k bf16"),
               "--cache-type-k");
  // q8_0 quantizes each head in blocks of 32 values: a 48-wide head is refused naming the flag.
  kz::SyntheticConfig cfg = kz::synthetic_preset("qwen3-tiny");
  cfg.head_dim = 48;
  cfg.n_rot = 0;
  const std::string head48 = ::testing::TempDir() + "/cli_head48.gguf";
  kz::write_synthetic_model(cfg, {}, head48);
  expect_error(
      kazeia("run -m " + head48 + " -ctv q8_0 -p hi"),
      "--cache-type-v q8_0 needs a head size that is a multiple of 32; this model's is 48");
  EXPECT_EQ(kazeia("run -m " + head48 + " -n 2 -p hi").code, 0);
  // q8_0 runs, and bench's kv column shows it.
  const CliResult run = kazeia("run -m " + kTiny35 + " -p hello -n 4 --temp 0 -ctk q8_0 -ctv q8_0");
  EXPECT_EQ(run.code, 0) << run.err;
  const CliResult bench =
      kazeia("bench -m " + kTiny35 + " -p 8 -n 4 -r 1 -d 0,16 -ctk q8_0 -ctv f16");
  ASSERT_EQ(bench.code, 0) << bench.err;
  EXPECT_NE(bench.out.find("| q8_0/f16 | tg4 @ d16 |"), std::string::npos) << bench.out;
  // inspect: per-token KV bytes of the chosen types. qwen3-tiny: 2 layers, 2 KV heads of 32,
  // so K and V rows of 64 values: 2 x 2 x 64 x 2 bytes in F16; 2 x 2 x 2 blocks x 34 in Q8_0.
  const CliResult f16 = kazeia("inspect --no-tensors " + kTiny);
  ASSERT_EQ(f16.code, 0) << f16.err;
  EXPECT_NE(f16.out.find("(f16 K, f16 V cache): 0 bytes fixed (recurrent), 512 bytes per "
                         "context token"),
            std::string::npos)
      << f16.out;
  const CliResult q8 = kazeia("inspect --no-tensors -ctk q8_0 -ctv q8_0 " + kTiny);
  ASSERT_EQ(q8.code, 0) << q8.err;
  EXPECT_NE(q8.out.find("(q8_0 K, q8_0 V cache): 0 bytes fixed (recurrent), 272 bytes per "
                        "context token"),
            std::string::npos)
      << q8.out;
}

TEST(Cli, BenchRooflineProbesEachRunAndLeavesItsBufferOutOfPeakRss) {
  const CliResult r = kazeia("bench -m " + kTiny35 + " -p 0 -n 4 -r 3 --roofline");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("GB/s (median of 3 probes)"), std::string::npos) << r.out;
  // The tg row's "% roofline" column (the one before syncs/tok): the median, positive.
  const size_t row = r.out.find("| tg4 |");
  ASSERT_NE(row, std::string::npos) << r.out;
  const size_t end = r.out.rfind('|', r.out.find('\n', row) - 2);
  const size_t roofline = r.out.rfind('|', end - 1);
  EXPECT_GT(std::stod(r.out.substr(roofline + 1, end - roofline - 1)), 0.0) << r.out;
  // A tiny model's peak RSS is far below the probe's resident 256 MiB, which is left out.
  const size_t peak = r.out.find("peak RSS ");
  ASSERT_NE(peak, std::string::npos) << r.out;
  EXPECT_LT(std::stod(r.out.substr(peak + 9)), 200.0) << r.out;
}

TEST(Cli, BenchChatReusesEachTurnsPrefix) {
  const CliResult r = kazeia("bench -m " + kTiny35 + " -p 0 -n 0 -r 1 --chat 3 --chat-tokens 24");
  ASSERT_EQ(r.code, 0) << r.err;
  // Each turn's row: | turn | prompt tokens | cached | ...; a turn restores more of the history
  // than the one before it (up to the last message boundary it shares), never its whole prompt.
  int64_t previous_cached = -1;
  for (int turn = 1; turn <= 3; ++turn) {
    const size_t row = r.out.find("\n| " + std::to_string(turn) + " | ");
    ASSERT_NE(row, std::string::npos) << r.out;
    const size_t prompt_at = r.out.find('|', row + 2) + 1;
    const size_t cached_at = r.out.find('|', prompt_at) + 1;
    const int64_t prompt = std::stoll(r.out.substr(prompt_at));
    const int64_t cached = std::stoll(r.out.substr(cached_at));
    if (turn == 1) {  // braced: the macro's own if-else would pair with this if
      EXPECT_EQ(cached, 0) << r.out;
    }
    EXPECT_GT(cached, previous_cached) << r.out;
    EXPECT_LT(cached, prompt) << r.out;
    previous_cached = cached;
  }
}

TEST(Cli, HelpOnEveryCommand) {
  for (const char* c :
       {"run", "chat", "inspect", "tokenize", "logits", "mkmodel", "perplexity", "bench"}) {
    const CliResult r = kazeia(std::string(c) + " --help");
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find("usage: kazeia"), std::string::npos) << c;
  }
}

TEST(Cli, RunGeneratesAndReportsTimings) {
  const CliResult r = kazeia("run -m " + kTiny35 +
                             " -p \"<|im_start|>user\\nHello<|im_end|>\" -n 8 --temp 0 --special");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("prefill:"), std::string::npos);
  EXPECT_NE(r.err.find("decode:"), std::string::npos);
  EXPECT_EQ(kazeia("run -m " + kTiny35 +
                   " -p \"<|im_start|>user\\nHello<|im_end|>\" -n 8 --temp 0 --special")
                .out,
            r.out);  // greedy is deterministic
}

// The prompt is plain text unless --special: "<|im_start|>" is one control token only then.
TEST(Cli, RunTakesControlTokensOnlyWithSpecial) {
  auto prefill_tokens = [](const CliResult& r) {
    const size_t at = r.err.find("prefill: ");
    EXPECT_NE(at, std::string::npos) << r.err;
    return at == std::string::npos ? -1 : std::atoi(r.err.c_str() + at + 9);
  };
  const std::string cmd = "run -m " + kTiny35 + " -p \"<|im_start|>\" -n 1 --temp 0";
  EXPECT_EQ(prefill_tokens(kazeia(cmd + " --special")), 1);
  EXPECT_GT(prefill_tokens(kazeia(cmd)), 1);
  const std::string bad = temp_file("bad_utf8_prompt.txt", "caf\xc3");
  expect_error(kazeia("run -m " + kTiny35 + " -f " + bad + " -n 1"), "not valid UTF-8");
  std::remove(bad.c_str());
}

TEST(Cli, RunEchoesThePromptUnlessAskedNotTo) {
  const std::string model = std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-kjv-q8_0.gguf";
  const CliResult shown = kazeia("run -m " + model + " -p \"And it came to pass\" -n 8 --temp 0");
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(shown.out.rfind("And it came to pass", 0), 0u) << shown.out;
  const CliResult hidden =
      kazeia("run -m " + model + " -p \"And it came to pass\" -n 8 --temp 0 --no-display-prompt");
  EXPECT_EQ("And it came to pass" + hidden.out, shown.out);
}

// --spec changes the speed, never the greedy output; bad values are one-line errors.
TEST(Cli, SpeculativeDecodingKeepsTheOutput) {
  const std::string model = std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-kjv-q8_0.gguf";
  const std::string cmd = "run -m " + model + " -p \"And it came to pass\" -n 40 --temp 0";
  const CliResult plain = kazeia(cmd);
  ASSERT_EQ(plain.code, 0) << plain.err;
  for (const std::string source : {"ngram", "mtp"}) {  // the bundled model has an MTP layer
    for (const char* k : {"1", "4", "8"}) {
      const CliResult spec = kazeia(cmd + " --spec " + source + " --draft " + k);
      EXPECT_EQ(spec.code, 0) << spec.err;
      EXPECT_EQ(spec.out, plain.out) << "--spec " << source << " --draft " << k;
      EXPECT_NE(spec.err.find("speculative: " + source + ","), std::string::npos) << spec.err;
    }
  }
  expect_error(kazeia(cmd + " --spec eagle"), "--spec: unknown draft source 'eagle'");
  expect_error(kazeia(cmd + " --spec ngram --draft 0"), "--draft: drafted tokens per step");
  expect_error(kazeia(cmd + " --spec replay"), "'replay' is for kazeia bench only");
  expect_error(kazeia("run -m " + kTiny35 + " -p x -n 4 --spec mtp"),
               "has no multi-token-prediction (MTP) layer");
  const CliResult bench = kazeia("bench -m " + model + " -p 0 -n 16 -r 1 --spec replay -t 1");
  EXPECT_EQ(bench.code, 0) << bench.err;
  EXPECT_NE(bench.out.find("| 100.0% |"), std::string::npos) << bench.out;
}

// The same for the chat model's MTP layer over a three-turn conversation (`kazeia chat`: the
// history rendered again and its prefix reused at every turn).
TEST(Cli, SpeculativeDecodingKeepsTheChatAnswers) {
  const std::string model = std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-chat-q8_0.gguf";
  const std::string turns = temp_file("spec_chat_turns.txt",
                                      "Bonjour, je m'appelle Juliette et j'ai 34 ans.\n"
                                      "Il fait beau aujourd'hui.\n"
                                      "Tu te rappelles mon prénom et mon âge ?\n");
  const std::string cmd = "chat -m " + model + " -n 48 --temp 0 < " + turns;
  const CliResult plain = kazeia(cmd);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find("Juliette"), std::string::npos) << plain.out;
  for (const char* k : {"1", "4", "8"}) {
    const CliResult spec = kazeia(cmd + " --spec mtp --draft " + k);
    EXPECT_EQ(spec.code, 0) << spec.err;
    EXPECT_EQ(spec.out, plain.out) << "--draft " << k;
  }
  std::remove(turns.c_str());
}

TEST(Cli, LogitsMatchTheFixtureFormatAndValues) {
  const auto cases =
      kz::testing::load_reference(kz::testing::fixtures_dir() + "/models/qwen3-tiny-f32.ref.json");
  const auto& c = cases[0];
  std::string ids, then;
  auto append = [](std::string& list, int32_t id) {
    if (!list.empty()) list += ',';
    list += std::to_string(id);
  };
  for (int32_t t : c.prompt) append(ids, t);
  for (size_t i = 0; i < 3; ++i) append(then, c.continuation[i]);
  const CliResult r = kazeia("logits -m " + kz::testing::model_path("qwen3-tiny-f32") + " --ids " +
                             ids + " --then " + then + " --backend ref -ctk f32 -ctv f32");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto prefill = j.at("prefill_logits_last").get<std::vector<float>>();
  EXPECT_LE(kz::testing::compare_logits(prefill.data(), c.prefill_logits_last).rel_rms,
            kz::testing::kMaxRelRms);
  const auto cont = j.at("continuation_logits").get<std::vector<std::vector<float>>>();
  ASSERT_EQ(cont.size(), 3u);
  EXPECT_LE(kz::testing::compare_logits(cont[2].data(), c.continuation_logits[2]).rel_rms,
            kz::testing::kMaxRelRms);
}

TEST(Cli, MkmodelThenInspectAndTokenize) {
  const std::string path = ::testing::TempDir() + "/cli_mkmodel.gguf";
  const CliResult made = kazeia("mkmodel --preset qwen35-tiny --type q4_0 -o " + path);
  ASSERT_EQ(made.code, 0) << made.err;
  const CliResult info = kazeia("inspect " + path);
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("general.architecture"), std::string::npos);
  EXPECT_NE(info.out.find("\"qwen35\""), std::string::npos);
  EXPECT_NE(info.out.find("blk.0.attn_qkv.weight"), std::string::npos);
  EXPECT_NE(info.out.find("q4_0"), std::string::npos);
  EXPECT_NE(info.out.find("bytes fixed (recurrent)"), std::string::npos);
  const CliResult tok =
      kazeia("tokenize -m " + path + " -p \"<|im_start|>hello world\" --ids-only");
  ASSERT_EQ(tok.code, 0) << tok.err;
  const CliResult back =
      kazeia("tokenize -m " + path + " --ids " + tok.out.substr(0, tok.out.size() - 1));
  EXPECT_EQ(back.out, "<|im_start|>hello world\n");
  std::remove(path.c_str());
}

}  // namespace

namespace {

TEST(Cli, OracleFlagsAFaultyOpAndWritesItsFilter) {
  const CliResult healthy = kazeia("oracle -m " + kTiny35 + " -t 2");
  EXPECT_EQ(healthy.code, 0) << healthy.err;
  EXPECT_NE(healthy.out.find("| ssm_conv | prompt | channels="), std::string::npos);
  EXPECT_EQ(healthy.out.find("FAIL"), std::string::npos) << healthy.out;

  const std::string filter = ::testing::TempDir() + "/cli_oracle_filter.txt";
  const CliResult broken =
      kazeia("oracle -m " + kTiny35 + " -t 2 --device faulty:ssm_conv@prompt --write-filter " +
             filter + " -o json");
  EXPECT_EQ(broken.code, 1) << broken.err;
  const nlohmann::json j = nlohmann::json::parse(broken.out);
  EXPECT_FALSE(j.at("pass").get<bool>());
  int failing = 0;
  for (const auto& op : j.at("ops")) {
    if (op.at("pass").get<bool>()) continue;
    ++failing;
    EXPECT_EQ(op.at("op"), "ssm_conv");
    EXPECT_EQ(op.at("phase"), "prompt");
  }
  EXPECT_EQ(failing, 1);
  std::ifstream in(filter);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("\nssm_conv@prompt:channels="), std::string::npos) << text;

  const CliResult bisect =
      kazeia("oracle -m " + kTiny35 + " -t 2 --device faulty:ssm_conv --bisect");
  EXPECT_EQ(bisect.code, 1) << bisect.err;
  EXPECT_NE(bisect.out.find("first divergence: op #"), std::string::npos) << bisect.out;
  EXPECT_NE(bisect.out.find(": ssm_conv@prompt:channels="), std::string::npos) << bisect.out;

  // The written filter, given back to run: the broken op goes to the CPU, and run says so. The
  // same broken device without the filter writes something else.
  const std::string args = " -t 2 -p \"In the beginning was the word\" -n 8 --temp 0";
  const CliResult run =
      kazeia("run -m " + kTiny35 + args + " --device faulty:ssm_conv@prompt --op-filter " + filter);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("op filter ssm_conv@prompt:channels="), std::string::npos) << run.err;
  const CliResult plain = kazeia("run -m " + kTiny35 + args);
  EXPECT_EQ(run.out, plain.out);
  const CliResult broken_run =
      kazeia("run -m " + kTiny35 + args + " --device faulty:ssm_conv@prompt");
  EXPECT_NE(broken_run.out, plain.out);
}

TEST(Cli, OpFilterAndDeviceErrors) {
  expect_error(kazeia("run -m " + kTiny35 + " -p hi --op-filter ssm_conv@promt"),
               "op filter entry 'ssm_conv@promt': unknown phase 'promt'");
  expect_error(kazeia("run -m " + kTiny35 + " -p hi --device gpu"), "unknown device 'gpu'");
  expect_error(kazeia("oracle -m " + kTiny35 + " --device faulty:"), "names no op");
  expect_error(kazeia("oracle -m " + kTiny35 + " -p 1"), "at least 2 tokens");
  const CliResult bench = kazeia("bench -m " + kTiny35 + " -p 0 -n 1 -r 1 --op-filter silu");
  EXPECT_EQ(bench.code, 0) << bench.err;
  EXPECT_NE(bench.out.find("op filter: silu"), std::string::npos) << bench.out;
  expect_error(kazeia("bench -m " + kTiny35 + " --configs A,B"), "--configs B runs --device");
}

}  // namespace

namespace {

TEST(Cli, BenchConfigsSideBySide) {
  const std::string cache = ::testing::TempDir() + "/cli_configs_cache_" + std::to_string(getpid());
  std::filesystem::remove_all(cache);
  ::setenv("KAZEIA_CACHE_DIR", cache.c_str(), 1);
  const CliResult r =
      kazeia("bench -m " + kTiny35 + " -t 2 -p 32 -n 2 -r 1 --device ref --configs A,B,C");
  ::unsetenv("KAZEIA_CACHE_DIR");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* row :
       {"| A | cpu | qwen35-tiny-q4_0.gguf | pp32 |", "| A | cpu | qwen35-tiny-q4_0.gguf | tg2 |",
        "| B | ref | qwen35-tiny-q4_0.gguf | pp32 |",
        "| C | ref+cpu | qwen35-tiny-q4_0.gguf | tg2 |"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  // B and C run with the oracle's filter for the device (auto), found empty for ref itself.
  EXPECT_NE(r.err.find("device ref, op filter none [auto (oracle run, saved to " + cache),
            std::string::npos)
      << r.err;
  expect_error(kazeia("bench -m " + kTiny35 + " --configs A,D"), "invalid configuration 'D'");
}

}  // namespace

namespace {

// Without an OpenCL platform (the ICD loader pointed at an empty vendor list), `devices` says so
// and `--device opencl` is a one-line error; the CPU runs as before.
TEST(Cli, NoOpenclDevice) {
  ::setenv("OCL_ICD_VENDORS", "/nonexistent", 1);
  const CliResult devices = kazeia("devices");
  const CliResult run = kazeia("run -m " + kTiny35 + " -p hi -n 2 --device opencl");
  const CliResult cpu = kazeia("run -m " + kTiny35 + " -p hi -n 2");
  ::unsetenv("OCL_ICD_VENDORS");
  EXPECT_EQ(devices.code, 0) << devices.err;
  EXPECT_TRUE(devices.out.find("no OpenCL devices") != std::string::npos ||
              devices.out.find("no OpenCL library found") != std::string::npos)
      << devices.out;
  expect_error(run, "opencl: no OpenCL");
  EXPECT_EQ(cpu.code, 0) << cpu.err;
  expect_error(kazeia("run -m " + kTiny35 + " -p hi --device opencl:x"), "invalid device");
}

}  // namespace
