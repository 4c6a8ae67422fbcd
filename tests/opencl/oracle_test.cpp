// The oracle on the accelerator: every op of the opencl backend, on every fixture model's own
// shapes, within the tolerances of backend/op_tolerance.cpp (no op for `auto` to filter), and
// bisect finds no divergence. A wrong kernel would show here as a failing shape.
#include "runtime/oracle.h"

#include <gtest/gtest.h>

#include "opencl_device.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

class OpenclOracle : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { testing::open_opencl(cl_); }
  std::unique_ptr<OpenclBackend> cl_;
};

TEST_P(OpenclOracle, EveryOpPasses) {
  auto model = Model::load(testing::model_path(GetParam()));
  for (DType cache : {DType::F16, DType::Q8_0}) {
    OracleOptions o;
    o.prompt_tokens = 24;
    o.k_type = o.v_type = cache;
    const OracleReport r = run_oracle(*model, *cl_, o);
    EXPECT_TRUE(r.pass()) << dtype_name(cache) << ": " << r.failing_filter().to_string();
    EXPECT_GT(r.rows.size(), 10u);
    const BisectReport b = bisect(*model, *cl_, o);
    EXPECT_FALSE(b.first) << b.first->shape.to_string() << " " << b.first->error.rel_rms;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, OpenclOracle,
                         ::testing::Values("qwen3-tiny-f32", "qwen3-small-q8_0",
                                           "qwen3-small-q4_k_m", "qwen35-tiny-q4_0",
                                           "qwen35-small-q4_0", "qwen35-small-q4_k_m"),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
