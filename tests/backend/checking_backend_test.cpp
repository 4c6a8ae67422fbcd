// The checking backend against hand-made faults, op by op: a healthy backend passes every op, a
// fault is flagged for exactly the kind, phase and shape it was given and nothing else, the
// bounds can fail, and the op filter sends what it lists to the CPU.
#include "backend/checking_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "backend/cpu_backend.h"
#include "backend/filtered_backend.h"
#include "quant/quant.h"
#include "test_support/faulty_backend.h"

namespace kz {
namespace {

std::vector<float> random_floats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// A weight matrix of `type` from random values; owns its bytes.
struct TestMatrix {
  std::vector<uint8_t> bytes;
  Matrix m;
  TestMatrix(DType type, int64_t rows, int64_t cols, uint32_t seed) {
    const std::vector<float> w = random_floats(rows * cols, seed);
    m.type = type;
    m.rows = rows;
    m.cols = cols;
    m.row_bytes = row_bytes(type, cols);
    bytes.resize(m.row_bytes * rows);
    for (int64_t r = 0; r < rows; ++r)
      quantize_row(type, w.data() + r * cols, bytes.data() + r * m.row_bytes, cols);
    m.data = bytes.data();
    m.name = "blk.0.ffn_up.weight";
  }
};

// Runs a small set of ops of several shapes in both phases through `be`.
void run_ops(Backend& be) {
  for (int64_t n_tok : {1, 9}) {
    be.begin_batch(n_tok);
    for (int channels : {1024, 1536}) {
      const std::vector<float> x = random_floats(n_tok * channels, 1),
                               w = random_floats(channels * 4, 2);
      std::vector<float> state = random_floats(channels * 3, 3), out(n_tok * channels);
      be.ssm_conv(x.data(), n_tok, channels, 4, w.data(), state.data(), out.data());
    }
    for (DType type : {DType::Q4_0, DType::Q8_0, DType::Q4_K, DType::F16, DType::F32}) {
      const TestMatrix w(type, 96, 512, 4);
      const std::vector<float> x = random_floats(n_tok * 512, 5);
      std::vector<float> y(n_tok * 96);
      be.matmul(w.m, x.data(), n_tok, y.data());
    }
    for (int head_dim : {64, 128}) {
      const int n_head = 4, n_kv = 2, n_ctx = 16;
      KvCacheView kv;
      kv.k_type = kv.v_type = DType::F16;
      kv.n_ctx = n_ctx;
      kv.n_kv_head = n_kv;
      kv.head_dim = head_dim;
      std::vector<uint8_t> k(n_kv * n_ctx * row_bytes(DType::F16, head_dim)), v(k.size());
      kv.k = k.data();
      kv.v = v.data();
      const int64_t pos0 = n_tok == 1 ? 5 : 0;
      const std::vector<float> q = random_floats(n_tok * n_head * head_dim, 6),
                               kn = random_floats(n_tok * n_kv * head_dim, 7),
                               vn = random_floats(n_tok * n_kv * head_dim, 8);
      std::vector<float> out(q.size());
      be.kv_store(kv, pos0, n_tok, kn.data(), vn.data());
      be.attention(q.data(), kv, pos0, n_tok, n_head, 0.125f, out.data());
    }
    std::vector<float> x = random_floats(n_tok * 256, 9);
    be.silu(x.data(), int64_t(x.size()));
  }
}

// The failing entries of a checking run.
std::set<std::string> failing(const CheckingBackend& c) {
  std::set<std::string> out;
  for (const auto& [shape, check] : c.results())
    if (!check.pass()) out.insert(shape.to_string());
  return out;
}

TEST(CheckingBackend, HealthyCpuPassesEveryOp) {
  CpuBackend cpu(2);
  CheckingBackend checking(cpu);
  run_ops(checking);
  EXPECT_EQ(checking.results().size(), 2u * (2 + 5 + 2 * 2 + 1));
  EXPECT_TRUE(failing(checking).empty());
  for (const auto& [shape, check] : checking.results()) {
    EXPECT_GT(check.count, 0);
    EXPECT_LT(check.worst_ratio, 0.7) << shape.to_string();  // cpu: 1/1.5 of the bound at most
  }
}

TEST(CheckingBackend, FlagsExactlyTheFaultyShape) {
  const std::pair<const char*, std::set<std::string>> cases[] = {
      {"ssm_conv@prompt",
       {"ssm_conv@prompt:channels=1024:taps=4", "ssm_conv@prompt:channels=1536:taps=4"}},
      {"ssm_conv@prompt:channels=1024", {"ssm_conv@prompt:channels=1024:taps=4"}},
      {"matmul:type=q4_k",
       {"matmul@prompt:type=q4_k:rows=96:cols=512", "matmul@token:type=q4_k:rows=96:cols=512"}},
      {"attention:head_dim=64",
       {"attention@prompt:heads=4:kv_heads=2:head_dim=64:k_type=f16:v_type=f16",
        "attention@token:heads=4:kv_heads=2:head_dim=64:k_type=f16:v_type=f16"}},
  };
  for (const auto& [fault, want] : cases) {
    FaultyBackend faulty(std::make_unique<CpuBackend>(2), OpFilter::parse(fault));
    CheckingBackend checking(faulty);
    run_ops(checking);
    EXPECT_EQ(failing(checking), want) << fault;
  }
}

// The healthy CPU with written[0] of every op scaled by (1 + relative).
class ScaledBackend final : public InterceptingBackend {
 public:
  explicit ScaledBackend(double relative) : InterceptingBackend({&cpu_}), relative_(relative) {}
  std::string_view name() const override { return "scaled"; }

 protected:
  void dispatch(OpCall& call) override {
    call.run(cpu_);
    float* y = static_cast<float*>(call.written[0].data);
    for (int64_t i = 0; i < call.written[0].n; ++i) y[i] *= float(1 + relative_);
  }

 private:
  CpuBackend cpu_{1};
  double relative_;
};

TEST(CheckingBackend, BoundsCanFail) {
  const std::vector<float> x0 = random_floats(4 * 256, 11);
  for (const auto& [relative, pass] : {std::pair{5e-5, true}, std::pair{3e-4, false}}) {
    ScaledBackend scaled(relative);
    CheckingBackend checking(scaled);
    std::vector<float> x = x0;
    checking.begin_batch(4);
    checking.silu(x.data(), int64_t(x.size()));
    EXPECT_EQ(checking.results().begin()->second.pass(), pass) << relative;
  }
  // A matrix product may differ by 1.5x what rounding its activations changes (about 1 % with
  // 8-bit blocks), not more: the cpu's own product scaled to land at 0.9x, then 1.1x the bound.
  const TestMatrix w(DType::Q8_0, 64, 256, 12);
  ScaledBackend exact_scale(0.0);
  CheckingBackend healthy(exact_scale);
  std::vector<float> y(4 * 64);
  healthy.begin_batch(4);
  healthy.matmul(w.m, x0.data(), 4, y.data());
  const OpCheck& h = healthy.results().begin()->second;
  ASSERT_TRUE(h.pass());
  // The bound itself stays what the comment above says, so the scaled cases below measure it.
  EXPECT_GT(h.bound, 1e-3);
  EXPECT_LT(h.bound, 0.03);
  for (const auto& [at, pass] : {std::pair{0.9, true}, std::pair{1.1, false}}) {
    // Scaling by (1 + s) adds s x RMS(output) to an error of rounding's size, nearly orthogonal:
    // the relative error becomes about sqrt(e^2 + s^2).
    const double s =
        std::sqrt(std::max(0.0, std::pow(at * h.bound, 2) - std::pow(h.worst_rel_rms, 2)));
    ScaledBackend scaled(s);
    CheckingBackend checking(scaled);
    checking.begin_batch(4);
    checking.matmul(w.m, x0.data(), 4, y.data());
    const OpCheck& c = checking.results().begin()->second;
    EXPECT_EQ(c.pass(), pass) << at << ": error " << c.worst_rel_rms << ", bound " << c.bound;
  }
}

TEST(CheckingBackend, FloatActivationsPassTheMatmulBound) {
  // An accelerator that keeps f32 activations computes what ref computes.
  RefBackend exact;
  CheckingBackend checking(exact);
  const TestMatrix w(DType::Q4_K, 32, 512, 13);
  const std::vector<float> x = random_floats(3 * 512, 14);
  std::vector<float> y(3 * 32);
  checking.matmul(w.m, x.data(), 3, y.data());
  const OpCheck& c = checking.results().begin()->second;
  EXPECT_TRUE(c.pass());
  EXPECT_EQ(c.worst_rel_rms, 0.0);
  EXPECT_GT(c.bound, 1e-3);  // the rounding a cpu kernel would do was measured and allowed
}

TEST(FilteredBackend, RoutesListedOpsToTheCpu) {
  FaultyBackend device(std::make_unique<CpuBackend>(1), OpFilter::parse("silu"));
  CpuBackend cpu(1);
  FilteredBackend filtered(device, cpu, OpFilter::parse("silu@prompt"));
  const std::vector<float> x0 = random_floats(4 * 64, 15);
  std::vector<float> want = x0, got = x0, other = x0;
  cpu.silu(want.data(), 256);

  filtered.begin_batch(4);
  filtered.silu(got.data(), 256);               // filtered: cpu, after nothing on the device
  filtered.add(other.data(), got.data(), 256);  // device
  filtered.silu(other.data(), 256);             // cpu again
  EXPECT_EQ(got, want);
  filtered.begin_batch(1);
  std::vector<float> token = x0;
  filtered.silu(token.data(), 64);  // a decode token: not filtered, so the faulty device ran it
  EXPECT_NE(std::vector<float>(token.begin(), token.begin() + 64),
            std::vector<float>(want.begin(), want.begin() + 64));
  EXPECT_EQ(filtered.counts().cpu_ops, 2);
  EXPECT_EQ(filtered.counts().device_ops, 2);
  EXPECT_EQ(filtered.traffic().syncs, 0);  // a device that computes on the host never waits
  filtered.reset_traffic();
  EXPECT_EQ(filtered.counts().cpu_ops, 0);
}

}  // namespace
}  // namespace kz
