// `ggml:NAME`: the Backend's ops run on one ggml device (ggml's CPU, Vulkan, OpenCL, Hexagon NPU,
// ...), ggml loaded at run time (library.h). Ops are recorded into one ggml graph and computed at
// sync(), not one round trip per op: each op becomes a few ggml nodes whose inputs are the
// nodes that last wrote the host memory they read (found by address), or copies of host memory
// taken when the op is called. At sync() the graph runs and what it wrote reaches host memory
// once: the latest value of every activation range, the new K/V rows, the conv and delta-rule
// states. So the sequence state stays ours, current in host memory for the CPU's decode.
//
// Weights are ggml tensors made once, on first use, and found again by host address: wrapped in
// place where the device takes host pointers (ggml's CPU), else uploaded once and counted.
// supports() answers per op and shape by building the op's nodes without running them and asking
// the device (ggml_backend_dev_supports_op); what it refuses runs on our CPU backend
// (filtered_backend.h). One thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/ggml/recorder.h"
#include "base/shared_memory.h"

namespace kz {

class GgmlBackend final : public Backend, private SharedMemoryListener {
 public:
  // Opens ggml device `device` (e.g. "Vulkan0", "CPU") from the libraries in `ggml_dir` (else
  // $KAZEIA_GGML_DIR, else by name). Throws kz::Error (one line) when ggml or the device is
  // missing. Test settings (never for users): $KAZEIA_GGML_REFUSE=KIND,... makes supports()
  // refuse those op kinds; $KAZEIA_GGML_FAULT=KIND,... doubles those ops' results on the device,
  // a wrong kernel for the oracle to catch.
  GgmlBackend(const std::string& device, int n_threads, const std::string& ggml_dir = "");
  ~GgmlBackend() override;

  std::string_view name() const override { return name_; }
  std::string device_key() const override;
  const ggml::DeviceInfo& device() const { return *info_; }

  // Since the backend was made: graphs, bytes each way, weights wrapped or uploaded.
  const ggml::Traffic& counters() const { return traffic_; }
  Traffic traffic() const override;
  void reset_traffic() override;

  bool supports(const OpCall& call) override;
  // ggml's attention rounds the query to the cache's type (F16 or Q8_0) and a GPU's products
  // round activations through F16: the oracle's bounds say so.
  OpTolerance tolerance(const OpShape& shape) const override;
  // Computes the recorded graph and copies its results to host memory.
  void sync() override;
  // Weights are found again by host address: call when weights this backend used are freed
  // before new ones may take their addresses (tests; a model unloaded).
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
  void on_free(const SharedRegion& region) override;
  // Records an op of `kind` (supports(): only builds it, and notes whether the device runs it).
  void record(std::string_view kind, const std::function<void()>& build);

  std::string name_;
  const ggml::DeviceInfo* info_ = nullptr;
  std::unique_ptr<ggml::Recorder> rec_;
  std::map<std::string, bool> supported_;  // supports() by op shape
  bool probing_ = false, probe_result_ = false;
  std::set<std::string> refused_kinds_, faulty_kinds_;  // test settings, see the constructor
  ggml::Traffic traffic_, traffic_base_;
};

}  // namespace kz
