// The oracle, bisect and the op filter on the fixture models: no false alarm on the healthy cpu
// backend; a fault injected for one op kind, phase or shape (the faulty device) is flagged for
// exactly that and nothing else, bisect names it, and with `--op-filter auto` the model gives the
// healthy logits again while without it they are wrong.
#include "runtime/oracle.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "backend/cpu_backend.h"
#include "base/error.h"
#include "base/progress.h"
#include "runtime/devices.h"
#include "test_support/faulty_backend.h"
#include "testing/memory_stream.h"
#include "testing/reference_logits.h"
#include "testing/teacher_forced.h"

namespace kz {
namespace {

using testing::compare_logits;
using testing::kMaxRelRms;

const char* const kModels[] = {"qwen3-tiny-f32",      "qwen3-tiny-q8_0",   "qwen3-small-q8_0",
                               "qwen3-small-q4_k_m",  "qwen35-tiny-f32",   "qwen35-tiny-q4_0",
                               "qwen35-tiny-mtp-f32", "qwen35-small-q4_0", "qwen35-small-q8_0",
                               "qwen35-small-q4_k_m"};

std::set<std::string> failing(const OracleReport& r) {
  const OpFilter f = r.failing_filter();
  std::set<std::string> out;
  for (const OpFilterEntry& e : f.entries()) out.insert(e.to_string());
  return out;
}

// Every shape of the healthy run whose entry matches `fault`.
std::set<std::string> matching(const OracleReport& healthy, const std::string& fault) {
  const OpFilter f = OpFilter::parse(fault);
  std::set<std::string> out;
  for (const OracleRow& row : healthy.rows)
    if (f.matches(row.shape)) out.insert(row.shape.to_string());
  return out;
}

class HealthyOracle : public ::testing::TestWithParam<const char*> {};

TEST_P(HealthyOracle, NoFalseAlarms) {
  auto model = Model::load(testing::model_path(GetParam()));
  CpuBackend cpu(2);
  for (DType cache : {DType::F16, DType::Q8_0}) {
    OracleOptions o;
    o.prompt_tokens = 24;
    o.decode_steps = 3;
    o.k_type = o.v_type = cache;
    const OracleReport r = run_oracle(*model, cpu, o);
    EXPECT_TRUE(r.pass()) << dtype_name(cache) << ": " << r.failing_filter().to_string();
    EXPECT_GT(r.rows.size(), 10u);
    const BisectReport b = bisect(*model, cpu, o);
    EXPECT_FALSE(b.first) << b.first->shape.to_string() << " " << b.first->error.rel_rms;
    EXPECT_GT(b.ops, 100);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HealthyOracle, ::testing::ValuesIn(kModels),
                         [](const auto& info) { return testing::test_name(info.param); });

struct FaultCase {
  const char* model;
  std::string fault;  // the faulty device's entries
  const char* kind;   // the op kind bisect must name
};

// The logits of the fixture's `short` case (prefill, then its continuation one token at a time).
std::vector<std::vector<float>> case_logits(const std::string& name, const Model& model,
                                            Backend& be) {
  const auto cases =
      testing::load_reference(testing::fixtures_dir() + "/models/" + name + ".ref.json");
  return testing::teacher_forced_logits(model, cases[0].prompt, cases[0].continuation, be, be,
                                        DType::F16);
}

// Largest relative RMS over the vectors, and whether any arg-max differs.
std::pair<double, bool> distance(const std::vector<std::vector<float>>& got,
                                 const std::vector<std::vector<float>>& want) {
  double worst = 0;
  bool argmax_differs = false;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto e = compare_logits(got[i].data(), want[i]);
    worst = std::max(worst, e.rel_rms);
    argmax_differs |= !e.same_argmax;
  }
  return {worst, argmax_differs};
}

class InjectedFault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(InjectedFault, IsFlaggedBisectedAndFiltered) {
  const FaultCase& p = GetParam();
  auto model = Model::load(testing::model_path(p.model));
  CpuBackend cpu(2);
  OracleOptions o;
  const OracleReport healthy = run_oracle(*model, cpu, o);
  const std::set<std::string> want = matching(healthy, p.fault);
  ASSERT_FALSE(want.empty()) << p.fault << " matches no op of " << p.model;

  FaultyBackend faulty(std::make_unique<CpuBackend>(2), OpFilter::parse(p.fault));
  EXPECT_EQ(failing(run_oracle(*model, faulty, o)), want);
  const BisectReport b = bisect(*model, faulty, o);
  ASSERT_TRUE(b.first);
  EXPECT_EQ(b.first->shape.kind, p.kind);
  EXPECT_TRUE(OpFilter::parse(p.fault).matches(b.first->shape)) << b.first->shape.to_string();

  // Through Devices as an app would: the faulty device with and without `auto`. The app's
  // library has no such device; the tests add it to the registry, as the CLI does.
  register_faulty_device();
  const std::string cache = ::testing::TempDir() + "/oracle_test_cache_" +
                            testing::test_name(p.model) + "_" + testing::test_name(p.fault);
  std::filesystem::remove_all(cache);
  DeviceOptions d;
  d.device = "faulty:" + p.fault;
  d.n_threads = 2;
  d.cache_dir = cache;
  const auto healthy_logits = case_logits(p.model, *model, cpu);
  {
    ::unsetenv("KAZEIA_OPFILTER");
    Devices broken(*model, d);
    EXPECT_EQ(broken.filter_source(), "none");
    const auto [rel, argmax_differs] =
        distance(case_logits(p.model, *model, broken.backend()), healthy_logits);
    EXPECT_TRUE(rel > kMaxRelRms || argmax_differs) << "the fault does not show: " << rel;
  }
  d.op_filter = "auto";
  Devices first(*model, d);
  EXPECT_EQ(first.filter_source().rfind("auto (oracle run, saved to " + cache, 0), 0u)
      << first.filter_source();
  {
    std::set<std::string> got;
    for (const OpFilterEntry& e : first.filter().entries()) got.insert(e.to_string());
    EXPECT_EQ(got, want);
  }
  Devices again(*model, d);
  EXPECT_EQ(again.filter_source().rfind("auto (cached: " + cache, 0), 0u) << again.filter_source();
  EXPECT_EQ(again.filter().to_string(), first.filter().to_string());
  const auto [rel, argmax_differs] =
      distance(case_logits(p.model, *model, again.backend()), healthy_logits);
  EXPECT_LE(rel, kMaxRelRms);
  EXPECT_FALSE(argmax_differs);
  EXPECT_GT(again.filtered()->counts().cpu_ops, 0);
}

// The bug of the system we replace (ssm_conv wrong for prompts, and only for some channel
// counts), a wrong matrix product of one weight type, a wrong attention at one head size.
// qwen35-small has conv channels 512, qwen3-small head size 64 (kazeia inspect).
const FaultCase kFaults[] = {
    {"qwen35-small-q4_0", "ssm_conv@prompt", "ssm_conv"},
    {"qwen35-small-q4_0", "ssm_conv@prompt:channels=512", "ssm_conv"},
    {"qwen35-small-q4_k_m", "matmul:type=q6_k", "matmul"},
    {"qwen35-tiny-q4_0", "attention@prompt", "attention"},
    {"qwen3-small-q8_0", "attention:head_dim=64", "attention"},
};

INSTANTIATE_TEST_SUITE_P(Fixtures, InjectedFault, ::testing::ValuesIn(kFaults),
                         [](const auto& info) {
                           return testing::test_name(std::string(info.param.model) + "_" +
                                                     info.param.fault);
                         });

// The oracle advances a progress line by tokens evaluated, to its end: 4 prompt tokens as one
// batch, then 2 single ones, of 6; bisect's three runs, to 1 as well.
TEST(Oracle, AdvancesProgressByTokens) {
  auto model = Model::load(testing::model_path("qwen35-tiny-q4_0"));
  CpuBackend cpu(2);
  testing::MemoryStream out;
  double now = 0;  // a second per reading: every update is drawn
  Progress progress("oracle", 1, {out.file(), true, 0}, [&] { return now += 1; });
  OracleOptions o;
  o.prompt_tokens = 4;
  o.decode_steps = 2;
  o.progress = &progress;
  run_oracle(*model, cpu, o);
  const std::string text = out.text();
  std::string percents;
  for (size_t at = text.find('%'); at != std::string::npos; at = text.find('%', at + 1))
    percents += text.substr(at - 3, 4);
  EXPECT_EQ(percents, "  0% 66% 83%100%");
  // Erased before run_oracle returns: the last thing written is "\r", spaces, "\r".
  ASSERT_EQ(text.back(), '\r');
  const std::string last = text.substr(text.rfind('\r', text.size() - 2) + 1);
  EXPECT_EQ(last, std::string(last.size() - 1, ' ') + "\r");
  EXPECT_GT(last.size(), 20u);
  EXPECT_EQ(progress.done(), 1);
  progress.update(0);
  bisect(*model, cpu, o);
  EXPECT_EQ(progress.done(), 1);
}

TEST(InjectedFault, AnotherChannelCountIsNotFlagged) {
  auto model = Model::load(testing::model_path("qwen35-small-q4_0"));
  FaultyBackend faulty(std::make_unique<CpuBackend>(2),
                       OpFilter::parse("ssm_conv@prompt:channels=1024"));
  EXPECT_TRUE(run_oracle(*model, faulty, {}).pass());
  EXPECT_FALSE(bisect(*model, faulty, {}).first);
}

TEST(Devices, FilterFromTheEnvironmentAndErrors) {
  auto model = Model::load(testing::model_path("qwen35-tiny-f32"));
  DeviceOptions d;
  ::setenv("KAZEIA_OPFILTER", "ssm_conv@prompt", 1);
  {
    Devices devices(*model, d);
    EXPECT_EQ(devices.filter().to_string(), "ssm_conv@prompt");
    EXPECT_EQ(devices.filter_source(), "KAZEIA_OPFILTER");
    EXPECT_NE(devices.describe().find("op filter ssm_conv@prompt"), std::string::npos);
  }
  d.op_filter = "silu";  // the explicit option wins over the environment
  EXPECT_EQ(Devices(*model, d).filter().to_string(), "silu");
  ::unsetenv("KAZEIA_OPFILTER");
  d.op_filter = "ssm_conv@never";
  EXPECT_THROW(Devices(*model, d), Error);
  d.op_filter.clear();
  d.device = "gpu";
  EXPECT_THROW(Devices(*model, d), Error);
}

}  // namespace
}  // namespace kz
