// The ggml driver as a user meets it through the CLI (each case its own process: ggml is loaded
// once per process): without the libraries, or with a ggml of another version, a one-line error
// and a non-zero exit; `kazeia devices` lists the ggml devices; an op the device refuses runs on
// the CPU with the same output; an op the device gets wrong is caught by the oracle and filtered.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ggml_device.h"
#include "testing/cli_runner.h"

namespace kz {
namespace {

const std::string kModel = std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-kjv-q8_0.gguf";
const std::string kRun = "run -m " + kModel + " -p 'And it came to pass' -n 12 --temp 0 -t 1 ";

// `kazeia args` with the environment variable `name` set (the child inherits it).
testing::CliResult kazeia_with(const char* name, const char* value, const std::string& args) {
  setenv(name, value, 1);
  testing::CliResult r = testing::kazeia(args);
  unsetenv(name);
  return r;
}

std::string ggml_dir() {
  const char* d = std::getenv("KAZEIA_GGML_DIR");
  return d ? d : "";
}

TEST(GgmlLoader, MissingLibrariesAreOneLineErrors) {
  const auto r = testing::kazeia(kRun + "--device ggml:CPU --ggml-dir /nonexistent");
  testing::expect_error(r, "/nonexistent/libggml-base.so");
  const auto devices = testing::kazeia("devices --ggml-dir /nonexistent");
  EXPECT_EQ(devices.code, 0);  // no library is information, not an error
  EXPECT_NE(devices.out.find("cannot load /nonexistent/libggml-base.so"), std::string::npos)
      << devices.out;
}

TEST(GgmlLoader, AnotherVersionIsRefused) {
  const auto r = testing::kazeia(kRun + "--device ggml:CPU --ggml-dir " KAZEIA_FAKE_GGML_DIR);
  testing::expect_error(r, "is ggml 0.22.0 (0000000); kazeia needs ggml 0.23.0 (5b4ebc5)");
}

TEST(GgmlLoader, UnknownDeviceNamesTheDevices) {
  if (ggml_dir().empty()) GTEST_SKIP() << "no KAZEIA_GGML_DIR";
  const auto r = testing::kazeia(kRun + "--device ggml:NPU7");
  testing::expect_error(r, "no device 'NPU7' (ggml devices: CPU");
}

TEST(GgmlLoader, DevicesAreListed) {
  if (ggml_dir().empty()) GTEST_SKIP() << "no KAZEIA_GGML_DIR";
  const auto r = testing::kazeia("devices");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("ggml 0.23.0 (5b4ebc5)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ggml:CPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host pointers    yes (weights used in place)"), std::string::npos) << r.out;
}

// The same greedy text on the CPU backend, on ggml:CPU, and on ggml:CPU refusing the attention
// and the delta rule (they run on our CPU backend, the graph split around them).
TEST(GgmlLoader, RefusedOpsRunOnTheCpuWithTheSameOutput) {
  if (ggml_dir().empty()) GTEST_SKIP() << "no KAZEIA_GGML_DIR";
  const auto cpu = testing::kazeia(kRun + "--device cpu");
  const auto ggml = testing::kazeia(kRun + "--device ggml:CPU");
  const auto refused =
      kazeia_with("KAZEIA_GGML_REFUSE", "attention,gated_delta_rule", kRun + "--device ggml:CPU");
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  ASSERT_EQ(ggml.code, 0) << ggml.err;
  ASSERT_EQ(refused.code, 0) << refused.err;
  EXPECT_EQ(ggml.out, cpu.out);
  EXPECT_EQ(refused.out, cpu.out);
  EXPECT_NE(cpu.out.find("And it came to pass"), std::string::npos);
}

// A device whose matrix products are wrong (KAZEIA_GGML_FAULT doubles them) fails the oracle on
// those ops only; the oracle's filter routes them to the CPU, and the output is the CPU's again.
TEST(GgmlLoader, TheOracleCatchesAWrongKernelAndTheFilterRoutesIt) {
  if (ggml_dir().empty()) GTEST_SKIP() << "no KAZEIA_GGML_DIR";
  const std::string filter = ::testing::TempDir() + "/ggml_fault_filter.txt";
  const std::string oracle = "oracle -m " + kModel + " --device ggml:CPU -t 1 --quiet";
  const auto healthy = testing::kazeia(oracle);
  EXPECT_EQ(healthy.code, 0) << healthy.out;  // the device as it is passes
  const auto caught =
      kazeia_with("KAZEIA_GGML_FAULT", "swiglu", oracle + " --write-filter " + filter);
  EXPECT_EQ(caught.code, 1) << caught.out;
  EXPECT_NE(caught.out.find("FAIL: "), std::string::npos) << caught.out;
  EXPECT_NE(caught.out.find("swiglu@prompt"), std::string::npos) << caught.out;
  EXPECT_EQ(caught.out.find("| matmul | prompt | type=q8_0"), caught.out.find("| matmul |"))
      << caught.out;
  const auto cpu = testing::kazeia(kRun + "--device cpu");
  const auto wrong = kazeia_with("KAZEIA_GGML_FAULT", "swiglu", kRun + "--device ggml:CPU");
  const auto filtered =
      kazeia_with("KAZEIA_GGML_FAULT", "swiglu", kRun + "--device ggml:CPU --op-filter " + filter);
  EXPECT_NE(wrong.out, cpu.out);
  EXPECT_EQ(filtered.out, cpu.out) << filtered.err;
}

}  // namespace
}  // namespace kz
