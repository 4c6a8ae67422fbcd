// `opencl`: every Backend op as OpenCL C 1.2 kernels (kernel_sources.h), loaded at run time
// (cl_api.h). Activations stay f32 (no rounding): results match `ref` (exact weights, f32
// activations) up to float summation order. Ops on shared memory (the model's activations and
// state) are enqueued without waiting; sync() waits (queue.h, docs/opencl.md). One thread at a
// time: the kernels hold their arguments between calls.
#pragma once

#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "backend/backend.h"
#include "backend/opencl/devices.h"
#include "base/error.h"

namespace kz {

namespace opencl {
class Device;
class WeightCache;
class ScratchBuffers;
class Queue;

// Host <-> device traffic since the backend was made, for `bench --profile`.
struct TransferCounters {
  uint64_t syncs = 0;                  // times the host waited for queued work
  uint64_t bytes_to_device = 0;        // copied host -> device (0 with zero copy)
  uint64_t bytes_to_host = 0;          // copied device -> host (0 with zero copy)
  uint64_t weight_bytes_wrapped = 0;   // weights used in place (CL_MEM_USE_HOST_PTR), once each
  uint64_t weight_bytes_uploaded = 0;  // weights copied to device memory, once each
};

// kAuto: zero copy where the device reports host-unified memory, else copies. kCopy forces the
// copying path (tests run it on unified devices too).
enum class MemoryMode { kAuto, kCopy };

// How prompts run the gated delta rule: the recurrence (16 state rows per work-item, the tokens
// one after another) or the chunked form (a work-group per head, parallel within chunks of 32
// tokens, the form GPUs are built for). The default is the recurrence, 3.6x faster than the chunked
// form on PoCL (docs/benchmarks.md), until the chunked form is measured on a GPU;
// KAZEIA_OPENCL_DELTA_RULE=recurrent|chunked chooses one.
enum class DeltaRuleForm { kRecurrent, kChunked };
}  // namespace opencl

class OpenclBackend : public Backend {
 public:
  // Opens opencl:device_index; throws kz::Error (one line) when there is no OpenCL library, no
  // such device, or the kernels do not build.
  explicit OpenclBackend(int device_index, opencl::MemoryMode mode = opencl::MemoryMode::kAuto);
  ~OpenclBackend() override;

  std::string_view name() const override { return "opencl"; }
  // The device, its driver and OpenCL version: results cached per device must not outlive them.
  std::string device_key() const override;
  const opencl::DeviceInfo& device() const;
  bool zero_copy() const { return zero_copy_; }
  const opencl::TransferCounters& counters() const { return counters_; }
  void set_delta_rule_form(opencl::DeltaRuleForm form) { delta_rule_form_ = form; }
  // The form a prompt of n_tok tokens runs (decode steps always take the recurrence).
  opencl::DeltaRuleForm delta_rule_form(int64_t n_tok) const;
  Traffic traffic() const override;
  void reset_traffic() override;
  void sync() override;
  // Weights are wrapped or uploaded once and found again by host address, so they must not
  // change while cached: call this when weights this backend has used are freed (a model
  // unloaded) before it may meet new weights at the same addresses.
  void forget_weights();

  void matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) override;
  void get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) override;
  void rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                float* y) override;
  void rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot, const int32_t* pos,
                 float freq_base) override;
  void swiglu(const float* gate, const float* up, int64_t n, float* y) override;
  void silu(float* x, int64_t n) override;
  void add(float* x, const float* y, int64_t n) override;
  void mul_sigmoid(float* x, const float* gate, int64_t n) override;
  void split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) override;
  void join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out) override;
  void kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                const float* v) override;
  void attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                 float scale, float* out) override;
  void ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
                float* state, float* out) override;
  void delta_net_gates(const float* alpha, const float* b, const float* dt_bias, const float* a,
                       int64_t n_tok, int n_v, float* g, float* beta) override;
  void gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out) override;
  void gated_rms_norm(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                      float eps, float* y) override;

 private:
  void store_cache(DType type, void* cache, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                   const float* src);

  std::unique_ptr<opencl::Device> device_;
  bool zero_copy_ = false;
  opencl::TransferCounters counters_;
  opencl::TransferCounters traffic_base_;  // counters_ at the last reset_traffic()
  std::unique_ptr<opencl::WeightCache> weights_;
  std::unique_ptr<opencl::ScratchBuffers> scratch_;
  std::unique_ptr<opencl::Queue> queue_;  // destroyed first: it waits for the device
  opencl::DeltaRuleForm delta_rule_form_ = opencl::DeltaRuleForm::kRecurrent;
};

std::unique_ptr<Backend> make_opencl_backend(int device_index);

// The device index of a device name: "opencl" is opencl:0, "opencl:N" is N; nullopt for names
// that are not OpenCL devices. Throws kz::Error naming the device for "opencl:" without a
// valid N.
inline std::optional<int> opencl_device_index(std::string_view name) {
  if (name == "opencl") return 0;
  if (name.rfind("opencl:", 0) != 0) return std::nullopt;
  const std::string_view digits = name.substr(7);
  int index = -1;
  const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (err != std::errc() || end != digits.data() + digits.size() || index < 0)
    fail("invalid device '", name, "' (expected opencl or opencl:N, N from kazeia devices)");
  return index;
}

}  // namespace kz
