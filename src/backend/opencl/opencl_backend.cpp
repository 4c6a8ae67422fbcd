#include "backend/opencl/opencl_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "backend/opencl/buffers.h"
#include "backend/opencl/device.h"
#include "backend/opencl/kernel_sources.h"
#include "backend/opencl/queue.h"
#include "base/error.h"

namespace kz {

using opencl::KernelCall;
using opencl::Range;

namespace {

// From this many tokens a product runs the tiled kernel (kGemmTokens a tile); below, one gemv
// per token reads the weights n_tok times but wastes no tile slots.
constexpr int64_t kGemmMinTokens = 4;
// Limits of the kernels' private and local arrays (kernels_*.cpp).
constexpr int kMaxHeadDim = 256;
constexpr int kMaxConvState = 16;
constexpr int kMaxKeyDim = 256;
// Work-items per group for the kernels that keep kilobytes in private memory (attention, the
// delta rule): a CPU driver such as PoCL runs a group's work-items as a loop over their private
// arrays on one thread's stack, and the group size it picks for itself (a whole prompt's worth,
// e.g. 16 heads x 256 tokens of 2 KiB each) overflowed the 8 MiB stack on the 4B shape.
constexpr size_t kMaxPrivateGroup = 16;

// A group size of up to kMaxPrivateGroup that divides n (OpenCL 1.2 has no partial groups).
size_t small_group(size_t n) {
  for (size_t g = std::min(n, kMaxPrivateGroup); g > 1; --g)
    if (n % g == 0) return g;
  return 1;
}

// Scratch slots (device-only temporaries).
enum Slot { kRopeAngles, kNormalizedQk, kDeltaRuleChunks };

constexpr uint64_t kF32 = sizeof(float);

bool has_matrix_kernels(DType t) {
  for (const char* name : opencl::kMatrixTypes)
    if (dtype_name(t) == name) return true;
  return false;
}

std::string kernel_for(const char* op, DType t) {
  return std::string(op) + "_" + std::string(dtype_name(t));
}

void check_matrix(const char* op, const Matrix& w) {
  if (!has_matrix_kernels(w.type))
    fail("opencl: ", op, ": weight type ", dtype_name(w.type), " of '", w.name,
         "' has no OpenCL kernel (f32, f16, bf16, q4_0, q8_0, q4_k, q5_k, q6_k)");
}

int32_t cache_type_code(DType t) {
  if (t != DType::F32 && t != DType::F16 && t != DType::Q8_0)
    fail("opencl: K/V cache type ", dtype_name(t), " has no OpenCL kernel (f32, f16, q8_0)");
  return int32_t(t);
}

}  // namespace

OpenclBackend::OpenclBackend(int device_index, opencl::MemoryMode mode)
    : device_(std::make_unique<opencl::Device>(device_index)) {
  zero_copy_ = mode == opencl::MemoryMode::kAuto && device_->info().host_unified_memory;
  weights_ = std::make_unique<opencl::WeightCache>(*device_, zero_copy_, counters_);
  scratch_ = std::make_unique<opencl::ScratchBuffers>(*device_);
  queue_ = std::make_unique<opencl::Queue>(*device_, zero_copy_, counters_);
  if (const char* env = std::getenv("KAZEIA_OPENCL_DELTA_RULE"); env && *env) {
    const std::string form = env;
    if (form == "recurrent")
      delta_rule_form_ = opencl::DeltaRuleForm::kRecurrent;
    else if (form == "chunked")
      delta_rule_form_ = opencl::DeltaRuleForm::kChunked;
    else if (form != "auto")  // auto: the default
      fail("invalid KAZEIA_OPENCL_DELTA_RULE '", form, "' (expected auto, recurrent or chunked)");
  }
}

opencl::DeltaRuleForm OpenclBackend::delta_rule_form(int64_t n_tok) const {
  return n_tok == 1 ? opencl::DeltaRuleForm::kRecurrent : delta_rule_form_;
}

OpenclBackend::~OpenclBackend() = default;

std::string OpenclBackend::device_key() const {
  const opencl::DeviceInfo& d = device_->info();
  return "opencl " + d.name + " | " + d.version + " | driver " + d.driver_version;
}

Backend::Traffic OpenclBackend::traffic() const {
  return {int64_t(counters_.syncs - traffic_base_.syncs),
          counters_.bytes_to_device + counters_.bytes_to_host - traffic_base_.bytes_to_device -
              traffic_base_.bytes_to_host};
}

void OpenclBackend::reset_traffic() {
  traffic_base_ = counters_;
}

void OpenclBackend::sync() {
  queue_->sync();
}

void OpenclBackend::forget_weights() {
  weights_->clear();
}

const opencl::DeviceInfo& OpenclBackend::device() const {
  return device_->info();
}

void OpenclBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  check_matrix("matmul", w);
  if (n_tok == 0 || w.rows == 0) return;
  KernelCall call(*queue_);
  cl_mem wm = weights_->get(w.data, w.rows * w.row_bytes);
  cl_mem xm = call.in(x, n_tok * w.cols * kF32);
  cl_mem ym = call.out(y, n_tok * w.rows * kF32);
  const int32_t rows = int32_t(w.rows), cols = int32_t(w.cols);
  if (n_tok >= kGemmMinTokens) {
    using opencl::kGemmGroup, opencl::kGemmRows, opencl::kGemmTokens;
    device_->launch(kernel_for("gemm", w.type),
                    Range{size_t(w.rows + kGemmRows - 1) / kGemmRows * kGemmGroup,
                          size_t(n_tok + kGemmTokens - 1) / kGemmTokens},
                    Range{kGemmGroup, 1}, wm, w.row_bytes, rows, cols, xm, int32_t(n_tok), ym);
  } else {
    for (int64_t t = 0; t < n_tok; ++t)
      device_->launch(
          kernel_for("gemv", w.type),
          Range{size_t(w.rows + opencl::kGemvRows - 1) / opencl::kGemvRows * 4 * opencl::kGemvRows},
          Range{4 * opencl::kGemvRows}, wm, w.row_bytes, rows, cols, xm, uint64_t(t * w.cols), ym,
          uint64_t(t * w.rows));
  }
  call.finish();
}

void OpenclBackend::get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) {
  check_matrix("get_rows", w);
  if (ids.empty()) return;
  for (int32_t id : ids)
    if (id < 0 || id >= w.rows)
      fail("opencl: get_rows: row ", id, " out of range for '", w.name, "' (", w.rows, " rows)");
  KernelCall call(*queue_);
  cl_mem wm = weights_->get(w.data, w.rows * w.row_bytes);
  cl_mem idm = call.in(ids.data(), ids.size_bytes());
  cl_mem ym = call.out(y, ids.size() * w.cols * kF32);
  device_->launch(kernel_for("get_rows", w.type), Range{size_t(w.cols + 7) / 8, ids.size()},
                  Range{0}, wm, w.row_bytes, int32_t(w.cols), idm, int32_t(ids.size()), ym);
  call.finish();
}

void OpenclBackend::rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                             float* y) {
  if (n == 0 || rows == 0) return;
  KernelCall call(*queue_);
  cl_mem wm = w ? weights_->get(w, n * kF32) : nullptr;
  cl_mem xm = call.in(x, n * rows * kF32);
  cl_mem ym = call.out(y, n * rows * kF32);
  device_->launch("rms_norm", Range{size_t(rows)}, Range{0}, xm, wm, int32_t(n), eps, int32_t(rows),
                  ym);
  call.finish();
}

void OpenclBackend::gated_rms_norm(const float* x, const float* z, const float* w, int64_t n,
                                   int64_t rows, float eps, float* y) {
  if (n == 0 || rows == 0) return;
  KernelCall call(*queue_);
  cl_mem wm = weights_->get(w, n * kF32);
  cl_mem xm = call.in(x, n * rows * kF32);
  cl_mem zm = call.in(z, n * rows * kF32);
  cl_mem ym = call.out(y, n * rows * kF32);
  device_->launch("gated_rms_norm", Range{size_t(rows)}, Range{0}, xm, zm, wm, int32_t(n), eps,
                  int32_t(rows), ym);
  call.finish();
}

void OpenclBackend::rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                              const int32_t* pos, float freq_base) {
  const int half = n_rot / 2;
  if (n_tok == 0 || half == 0) return;
  KernelCall call(*queue_);
  cl_mem xm = call.inout(x, n_tok * n_head * head_dim * kF32);
  cl_mem pm = call.in(pos, n_tok * sizeof(int32_t));
  cl_mem cs = scratch_->get(kRopeAngles, n_tok * half * 2 * kF32);
  const float theta_scale = std::pow(freq_base, -2.0f / float(n_rot));  // as ref::rope_neox
  device_->launch("rope_angles", Range{size_t(n_tok)}, Range{0}, pm, int32_t(half), theta_scale,
                  int32_t(n_tok), cs);
  device_->launch("rope_neox", Range{size_t(half), size_t(n_head), size_t(n_tok)}, Range{0}, xm, cs,
                  int32_t(n_head), int32_t(head_dim), int32_t(half));
  call.finish();
}

void OpenclBackend::swiglu(const float* gate, const float* up, int64_t n, float* y) {
  if (n == 0) return;
  KernelCall call(*queue_);
  cl_mem gm = call.in(gate, n * kF32);
  cl_mem um = call.in(up, n * kF32);
  cl_mem ym = call.out(y, n * kF32);
  device_->launch("swiglu", Range{size_t(n)}, Range{0}, gm, um, uint64_t(n), ym);
  call.finish();
}

void OpenclBackend::silu(float* x, int64_t n) {
  if (n == 0) return;
  KernelCall call(*queue_);
  cl_mem xm = call.inout(x, n * kF32);
  device_->launch("silu", Range{size_t(n)}, Range{0}, xm, uint64_t(n));
  call.finish();
}

void OpenclBackend::add(float* x, const float* y, int64_t n) {
  if (n == 0) return;
  KernelCall call(*queue_);
  cl_mem xm = call.inout(x, n * kF32);
  cl_mem ym = call.in(y, n * kF32);
  device_->launch("add", Range{size_t(n)}, Range{0}, xm, ym, uint64_t(n));
  call.finish();
}

void OpenclBackend::mul_sigmoid(float* x, const float* gate, int64_t n) {
  if (n == 0) return;
  KernelCall call(*queue_);
  cl_mem xm = call.inout(x, n * kF32);
  cl_mem gm = call.in(gate, n * kF32);
  device_->launch("mul_sigmoid", Range{size_t(n)}, Range{0}, xm, gm, uint64_t(n));
  call.finish();
}

void OpenclBackend::split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) {
  if (rows == 0 || n == 0) return;
  KernelCall call(*queue_);
  cl_mem xm = call.in(x, rows * 2 * n * kF32);
  cl_mem am = call.out(a, rows * n * kF32);
  cl_mem bm = call.out(b, rows * n * kF32);
  device_->launch("split_halves", Range{size_t(n), size_t(rows)}, Range{0}, xm, int32_t(n), am, bm);
  call.finish();
}

void OpenclBackend::join_halves(const float* a, const float* b, int64_t rows, int64_t n,
                                float* out) {
  if (rows == 0 || n == 0) return;
  KernelCall call(*queue_);
  cl_mem am = call.in(a, rows * n * kF32);
  cl_mem bm = call.in(b, rows * n * kF32);
  cl_mem om = call.out(out, rows * 2 * n * kF32);
  device_->launch("join_halves", Range{size_t(n), size_t(rows)}, Range{0}, am, bm, int32_t(n), om);
  call.finish();
}

void OpenclBackend::store_cache(DType type, void* cache, const KvCacheView& kv, int64_t pos0,
                                int64_t n_tok, const float* src) {
  cache_type_code(type);
  if (type == DType::Q8_0 && kv.head_dim % 32 != 0)
    fail("opencl: kv_store: a q8_0 cache needs a head size multiple of 32, not ", kv.head_dim);
  KernelCall call(*queue_);
  const uint64_t head_bytes = row_bytes(type, kv.head_dim);
  cl_mem sm = call.in(src, n_tok * kv.n_kv_head * kv.head_dim * kF32);
  cl_mem cm = call.inout(cache, kv.n_kv_head * kv.n_ctx * head_bytes);
  const size_t per_head = type == DType::Q8_0 ? size_t(kv.head_dim / 32) : size_t(kv.head_dim);
  device_->launch("kv_store_" + std::string(dtype_name(type)),
                  Range{per_head, size_t(kv.n_kv_head), size_t(n_tok)}, Range{0}, sm, cm,
                  int32_t(kv.n_kv_head), int32_t(kv.head_dim), int64_t(kv.n_ctx), int64_t(pos0));
  call.finish();
}

void OpenclBackend::kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                             const float* v) {
  if (n_tok == 0) return;
  store_cache(kv.k_type, kv.k, kv, pos0, n_tok, k);
  store_cache(kv.v_type, kv.v, kv, pos0, n_tok, v);
}

void OpenclBackend::attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                              int n_head, float scale, float* out) {
  if (n_tok == 0) return;
  if (kv.head_dim > kMaxHeadDim || kv.head_dim % 16 != 0)
    fail("opencl: attention: head size ", kv.head_dim, " is not a multiple of 16 up to ",
         kMaxHeadDim);
  const int32_t k_code = cache_type_code(kv.k_type), v_code = cache_type_code(kv.v_type);
  KernelCall call(*queue_);
  const uint64_t q_bytes = n_tok * n_head * kv.head_dim * kF32;
  cl_mem qm = call.in(q, q_bytes);
  cl_mem km = call.in(kv.k, kv.n_kv_head * kv.n_ctx * kv.k_head_bytes());
  cl_mem vm = call.in(kv.v, kv.n_kv_head * kv.n_ctx * kv.v_head_bytes());
  cl_mem om = call.out(out, q_bytes);
  device_->launch("attention", Range{size_t(n_head), size_t(n_tok)},
                  Range{small_group(size_t(n_head)), 1}, qm, km, vm, k_code, v_code,
                  kv.k_head_bytes(), kv.v_head_bytes(), int64_t(kv.n_ctx), int32_t(kv.n_kv_head),
                  int32_t(kv.head_dim), int64_t(pos0), int32_t(n_head), scale, om);
  call.finish();
}

void OpenclBackend::ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv,
                             const float* w, float* state, float* out) {
  if (d_conv - 1 > kMaxConvState)
    fail("opencl: ssm_conv: ", d_conv, " taps exceed the kernel's ", kMaxConvState + 1);
  if (channels == 0) return;
  KernelCall call(*queue_);
  cl_mem wm = weights_->get(w, channels * d_conv * kF32);
  cl_mem xm = call.in(x, n_tok * channels * kF32);
  cl_mem sm = call.inout(state, channels * (d_conv - 1) * kF32);
  cl_mem om = n_tok ? call.out(out, n_tok * channels * kF32) : nullptr;
  device_->launch("ssm_conv", Range{size_t(channels + 15) / 16}, Range{0}, xm, int32_t(n_tok),
                  int32_t(channels), int32_t(d_conv), wm, sm, om);
  call.finish();
}

void OpenclBackend::delta_net_gates(const float* alpha, const float* b, const float* dt_bias,
                                    const float* a, int64_t n_tok, int n_v, float* g, float* beta) {
  const int64_t n = n_tok * n_v;
  if (n == 0) return;
  KernelCall call(*queue_);
  cl_mem dm = weights_->get(dt_bias, n_v * kF32);
  cl_mem am = weights_->get(a, n_v * kF32);
  cl_mem alm = call.in(alpha, n * kF32);
  cl_mem bm = call.in(b, n * kF32);
  cl_mem gm = call.out(g, n * kF32);
  cl_mem betam = call.out(beta, n * kF32);
  device_->launch("delta_net_gates", Range{size_t(n)}, Range{0}, alm, bm, dm, am, int32_t(n_v),
                  int32_t(n), gm, betam);
  call.finish();
}

void OpenclBackend::gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                     const float* g, const float* beta, float eps, float* state,
                                     float* out) {
  if (dims.d_k > kMaxKeyDim)
    fail("opencl: gated_delta_rule: key head size ", dims.d_k, " exceeds the kernel's ",
         kMaxKeyDim);
  if (n_tok == 0) return;
  KernelCall call(*queue_);
  const int64_t conv_dim = dims.conv_dim(), key_dim = dims.key_dim();
  cl_mem qkvm = call.in(qkv, n_tok * conv_dim * kF32);
  cl_mem gm = call.in(g, n_tok * dims.n_v * kF32);
  cl_mem bm = call.in(beta, n_tok * dims.n_v * kF32);
  cl_mem sm = call.inout(state, dims.state_floats() * kF32);
  cl_mem om = call.out(out, n_tok * dims.value_dim() * kF32);
  cl_mem qk = scratch_->get(kNormalizedQk, n_tok * 2 * key_dim * kF32);
  const int32_t qk_rows = int32_t(n_tok * 2 * dims.n_k);
  device_->launch("l2_norm_qk", Range{size_t(qk_rows)}, Range{0}, qkvm, conv_dim, int32_t(dims.n_k),
                  int32_t(dims.d_k), eps, qk_rows, qk);
  const float scale = 1.0f / std::sqrt(float(dims.d_k));  // as the reference
  if (delta_rule_form(n_tok) == opencl::DeltaRuleForm::kChunked) {
    cl_mem chunks = scratch_->get(kDeltaRuleChunks, uint64_t(dims.n_v) * opencl::kDeltaRuleChunk *
                                                        (dims.d_v + dims.d_k) * kF32);
    using opencl::kDeltaRuleGroup;
    device_->launch("gated_delta_rule_chunked", Range{size_t(dims.n_v) * kDeltaRuleGroup},
                    Range{size_t(kDeltaRuleGroup)}, qk, qkvm, conv_dim, gm, bm, int32_t(n_tok),
                    int32_t(dims.n_k), int32_t(dims.d_k), int32_t(dims.n_v), int32_t(dims.d_v),
                    scale, sm, om, chunks);
    return call.finish();
  }
  const size_t row_groups = size_t(dims.d_v + 15) / 16;
  device_->launch("gated_delta_rule", Range{row_groups, size_t(dims.n_v)},
                  Range{small_group(row_groups), 1}, qk, qkvm, conv_dim, gm, bm, int32_t(n_tok),
                  int32_t(dims.n_k), int32_t(dims.d_k), int32_t(dims.n_v), int32_t(dims.d_v), scale,
                  sm, om);
  call.finish();
}

std::unique_ptr<Backend> make_opencl_backend(int device_index) {
  return std::make_unique<OpenclBackend>(device_index);
}

}  // namespace kz
