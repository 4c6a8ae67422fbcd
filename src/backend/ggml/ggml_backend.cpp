#include "backend/ggml/ggml_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "backend/ggml/library.h"
#include "backend/ggml/recorder.h"
#include "backend/op_call.h"
#include "backend/op_tolerance.h"
#include "base/half.h"

namespace kz {

using ggml::Recorder;
using ggml::Refused;

namespace {

std::set<std::string> kinds_from_env(const char* name) {
  std::set<std::string> kinds;
  const char* env = std::getenv(name);
  std::string list = env ? env : "";
  for (size_t start = 0; start < list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    if (end > start) kinds.insert(list.substr(start, end - start));
    start = end + 1;
  }
  for (const std::string& k : kinds)
    if (!find_op_kind(k))
      fail("invalid ", name, " entry '", k, "' (expected op kinds, e.g. matmul,ssm_conv)");
  return kinds;
}

// Our block formats are GGUF's, whose type ids are ggml's.
ggml_type type_of(DType t) {
  return static_cast<ggml_type>(static_cast<uint32_t>(t));
}

}  // namespace

GgmlBackend::GgmlBackend(const std::string& device, int n_threads, const std::string& ggml_dir)
    : name_("ggml:" + device) {
  const ggml::Library& lib = ggml::load_library(ggml_dir);
  info_ = &lib.device(device);
  refused_kinds_ = kinds_from_env("KAZEIA_GGML_REFUSE");
  faulty_kinds_ = kinds_from_env("KAZEIA_GGML_FAULT");
  rec_ = std::make_unique<Recorder>(lib, *info_, n_threads, traffic_);
  shared_memory::add_listener(this);
}

GgmlBackend::~GgmlBackend() {
  shared_memory::remove_listener(this);
}

std::string GgmlBackend::device_key() const {
  return "ggml " + info_->name + " | " + info_->description + " | ggml " +
         ggml::load_library().version + (faulty_kinds_.empty() ? "" : " | test faults");
}

Backend::Traffic GgmlBackend::traffic() const {
  return {traffic_.graphs - traffic_base_.graphs,
          traffic_.to_device + traffic_.to_host - traffic_base_.to_device - traffic_base_.to_host};
}

void GgmlBackend::reset_traffic() {
  traffic_base_ = traffic_;
}

bool GgmlBackend::supports(const OpCall& call) {
  if (refused_kinds_.count(call.shape.kind)) return false;
  const std::string key = call.shape.to_string();
  if (auto it = supported_.find(key); it != supported_.end()) return it->second;
  // The op's own code builds its nodes in a scratch context, and the device judges each.
  bool ok = false;
  probing_ = true;
  probe_result_ = true;  // an op with nothing to do records nothing
  try {
    call.run(*this);
    ok = probe_result_;
  } catch (const Refused&) {
    ok = false;
  } catch (...) {
    probing_ = false;
    throw;
  }
  probing_ = false;
  supported_[key] = ok;
  return ok;
}

OpTolerance GgmlBackend::tolerance(const OpShape& shape) const {
  const bool cpu = info_->type == "cpu";
  if (shape.kind == "attention") {
    // Flash attention's query in F16 (F32/F16 caches) or Q8_0 (Q8_0 caches; measured up to 9.3e-3
    // on random inputs, tests/ggml/ops_test.cpp); a GPU's softmax sums in F16 on top.
    const bool q8 =
        std::find(shape.params.begin(), shape.params.end(),
                  std::pair<std::string, std::string>{"k_type", "q8_0"}) != shape.params.end();
    static constexpr OpTolerance kCpu{6e-3, 0, "flash attention: the query rounded to F16"};
    static constexpr OpTolerance kCpuQ8{1.5e-2, 0, "flash attention: the query rounded to Q8_0"};
    static constexpr OpTolerance kGpu{1e-2, 0, "flash attention in F16 on the device"};
    static constexpr OpTolerance kGpuQ8{2e-2, 0, "flash attention in F16, Q8_0 cache"};
    return cpu ? (q8 ? kCpuQ8 : kCpu) : (q8 ? kGpuQ8 : kGpu);
  }
  if (shape.kind == "matmul" && !cpu) {
    // Activations through F16 (ggml-vulkan, the NPU's HMX): measured up to 1.1e-2 on random
    // products (tests/ggml/ops_test.cpp), on top of the reference's own 8-bit rounding.
    static constexpr OpTolerance kF16{1e-2, 1.5, "activations rounded through F16 on the device"};
    return kF16;
  }
  return Backend::tolerance(shape);
}

void GgmlBackend::record(std::string_view kind, const std::function<void()>& build) {
  if (probing_) {
    probe_result_ = rec_->probe(build);
    return;
  }
  if (refused_kinds_.count(std::string(kind)))
    throw Refused(cat("ggml: ", kind, " is refused on ", name_, " (KAZEIA_GGML_REFUSE)"));
  rec_->op(build, faulty_kinds_.count(std::string(kind)) > 0);
}

void GgmlBackend::sync() {
  rec_->flush();
}

void GgmlBackend::forget_weights() {
  rec_->flush();
  rec_->forget_weights();
}

void GgmlBackend::on_free(const SharedRegion& region) {
  // Results still to be copied may land in the region: copy them while it exists.
  try {
    rec_->flush();
  } catch (const Error&) {
  }
}

void GgmlBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  if (n_tok == 0 || w.rows == 0) return;
  record("matmul", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    ggml_tensor* W = rec_->weight(w.data, type_of(w.type), w.cols, w.rows, true);
    ggml_tensor* X = g.ggml_reshape_2d(c, rec_->input_f32(x, n_tok * w.cols), w.cols, n_tok);
    rec_->output(y, g.ggml_mul_mat(c, W, X));
  });
}

void GgmlBackend::get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) {
  if (ids.empty()) return;
  record("get_rows", [&] {
    ggml_tensor* W = rec_->weight(w.data, type_of(w.type), w.cols, w.rows);
    ggml_tensor* I = rec_->copy_in(ids.data(), GGML_TYPE_I32, int64_t(ids.size()));
    rec_->output(y, rec_->api().ggml_get_rows(rec_->ctx(), W, I));
  });
}

// x / rms(x) over rows of n, times w when given.
static ggml_tensor* normed(Recorder& r, const float* x, const float* w, int64_t n, int64_t rows,
                           float eps) {
  const ggml::Api& g = r.api();
  ggml_context* c = r.ctx();
  ggml_tensor* y = g.ggml_rms_norm(c, g.ggml_reshape_2d(c, r.input_f32(x, n * rows), n, rows), eps);
  return w ? g.ggml_mul(c, y, r.weight(w, GGML_TYPE_F32, n, 1)) : y;
}

void GgmlBackend::rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                           float* y) {
  if (rows == 0) return;
  record("rms_norm", [&] { rec_->output(y, normed(*rec_, x, w, n, rows, eps)); });
}

void GgmlBackend::rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                            const int32_t* pos, float freq_base) {
  if (n_tok == 0) return;
  record("rope", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    ggml_tensor* X = g.ggml_reshape_3d(c, rec_->input_f32(x, n_tok * n_head * head_dim), head_dim,
                                       n_head, n_tok);
    ggml_tensor* P = rec_->copy_in(pos, GGML_TYPE_I32, n_tok);
    // Plain NEOX rotation: no context extension (ext_factor 0), unit scales.
    rec_->output(x, g.ggml_rope_ext(c, X, P, nullptr, n_rot, GGML_ROPE_TYPE_NEOX, 0, freq_base,
                                    1.0f, 0.0f, 1.0f, 0.0f, 0.0f));
  });
}

void GgmlBackend::swiglu(const float* gate, const float* up, int64_t n, float* y) {
  if (n == 0) return;
  record("swiglu", [&] {
    rec_->output(y, rec_->api().ggml_swiglu_split(rec_->ctx(), rec_->input_f32(gate, n),
                                                  rec_->input_f32(up, n)));
  });
}

void GgmlBackend::silu(float* x, int64_t n) {
  if (n == 0) return;
  record("silu",
         [&] { rec_->output(x, rec_->api().ggml_silu(rec_->ctx(), rec_->input_f32(x, n))); });
}

void GgmlBackend::add(float* x, const float* y, int64_t n) {
  if (n == 0) return;
  record("add", [&] {
    rec_->output(x,
                 rec_->api().ggml_add(rec_->ctx(), rec_->input_f32(x, n), rec_->input_f32(y, n)));
  });
}

void GgmlBackend::mul_sigmoid(float* x, const float* gate, int64_t n) {
  if (n == 0) return;
  record("mul_sigmoid", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    rec_->output(x,
                 g.ggml_mul(c, rec_->input_f32(x, n), g.ggml_sigmoid(c, rec_->input_f32(gate, n))));
  });
}

void GgmlBackend::split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) {
  if (rows == 0 || n == 0) return;
  record("split_halves", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    ggml_tensor* X = g.ggml_reshape_2d(c, rec_->input_f32(x, 2 * n * rows), 2 * n, rows);
    const uint64_t half = n * sizeof(float);
    rec_->output(a, g.ggml_cont(c, g.ggml_view_2d(c, X, n, rows, X->nb[1], 0)));
    rec_->output(b, g.ggml_cont(c, g.ggml_view_2d(c, X, n, rows, X->nb[1], half)));
  });
}

void GgmlBackend::join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out) {
  if (rows == 0 || n == 0) return;
  record("join_halves", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    ggml_tensor* A = g.ggml_reshape_2d(c, rec_->input_f32(a, n * rows), n, rows);
    ggml_tensor* B = g.ggml_reshape_2d(c, rec_->input_f32(b, n * rows), n, rows);
    rec_->output(out, g.ggml_concat(c, A, B, 0));
  });
}

void GgmlBackend::kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                           const float* v) {
  if (n_tok == 0) return;
  if (pos0 < 0 || pos0 + n_tok > kv.n_ctx)
    fail("kv_store: positions ", pos0, "..", pos0 + n_tok, " outside the cache of ", kv.n_ctx);
  record("kv_store", [&] {
    const int64_t n = n_tok * kv.n_kv_head * kv.head_dim;
    ggml_tensor* K = rec_->input_f32(k, n);
    ggml_tensor* V = rec_->input_f32(v, n);
    rec_->cache_store(kv.k, type_of(kv.k_type), kv.n_ctx, kv.head_dim, kv.n_kv_head, pos0, n_tok,
                      K);
    rec_->cache_store(kv.v, type_of(kv.v_type), kv.n_ctx, kv.head_dim, kv.n_kv_head, pos0, n_tok,
                      V);
  });
}

void GgmlBackend::attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                            int n_head, float scale, float* out) {
  if (n_tok == 0) return;
  const int64_t n_pos = pos0 + n_tok;
  if (n_pos > kv.n_ctx) fail("attention: ", n_pos, " positions exceed the cache of ", kv.n_ctx);
  if (kv.n_kv_head == 0 || n_head % kv.n_kv_head != 0)
    throw Refused(cat("ggml: attention with ", n_head, " heads over ", kv.n_kv_head, " KV heads"));
  record("attention", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    const int D = kv.head_dim;
    ggml_tensor* Q = g.ggml_reshape_3d(c, rec_->input_f32(q, n_tok * n_head * D), D, n_head, n_tok);
    ggml_tensor* K =
        rec_->cache_for_attention(kv.k, type_of(kv.k_type), kv.n_ctx, D, kv.n_kv_head, n_pos);
    ggml_tensor* V =
        rec_->cache_for_attention(kv.v, type_of(kv.v_type), kv.n_ctx, D, kv.n_kv_head, n_pos);
    // Causal mask [n_tok][n_pos]: query t (position pos0 + t) sees positions up to its own.
    std::vector<uint16_t> mask(n_tok * n_pos,
                               fp32_to_fp16(-std::numeric_limits<float>::infinity()));
    for (int64_t t = 0; t < n_tok; ++t)
      std::fill_n(mask.begin() + t * n_pos, pos0 + t + 1, fp32_to_fp16(0.0f));
    ggml_tensor* M = g.ggml_reshape_2d(c, rec_->copy_in(mask.data(), GGML_TYPE_F16, n_tok * n_pos),
                                       n_pos, n_tok);
    ggml_tensor* O =
        g.ggml_flash_attn_ext(c, g.ggml_permute(c, Q, 0, 2, 1, 3), K, V, M, scale, 0.0f, 0.0f);
    g.ggml_flash_attn_ext_set_prec(O, GGML_PREC_F32);
    rec_->output(out, O);  // [n_tok][n_head][head_dim]
  });
}

void GgmlBackend::ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv,
                           const float* w, float* state, float* out) {
  if (n_tok == 0) return;
  if (d_conv < 2) throw Refused(cat("ggml: ssm_conv of ", d_conv, " taps (needs at least 2)"));
  record("ssm_conv", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    const int64_t carried = d_conv - 1;
    ggml_tensor* S =
        g.ggml_reshape_2d(c, rec_->input_f32(state, channels * carried), carried, channels);
    ggml_tensor* X = g.ggml_reshape_2d(c, rec_->input_f32(x, n_tok * channels), channels, n_tok);
    // Per channel the carried inputs, then this call's tokens: [carried + n_tok][channels].
    ggml_tensor* SX = g.ggml_concat(c, S, g.ggml_transpose(c, X), 0);
    ggml_tensor* W = rec_->weight(w, GGML_TYPE_F32, d_conv, channels);
    ggml_tensor* Y = g.ggml_ssm_conv(c, g.ggml_reshape_3d(c, SX, carried + n_tok, channels, 1), W);
    rec_->output(out, Y);  // [n_tok][channels]
    // The new state: the last `carried` columns.
    rec_->output(state, g.ggml_view_2d(c, SX, carried, channels, SX->nb[1], n_tok * sizeof(float)));
  });
}

void GgmlBackend::delta_net_gates(const float* alpha, const float* b, const float* dt_bias,
                                  const float* a, int64_t n_tok, int n_v, float* g_out,
                                  float* beta) {
  if (n_tok == 0) return;
  record("delta_net_gates", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    ggml_tensor* A = g.ggml_reshape_2d(c, rec_->input_f32(alpha, n_tok * n_v), n_v, n_tok);
    ggml_tensor* biased = g.ggml_add(c, A, rec_->weight(dt_bias, GGML_TYPE_F32, n_v, 1));
    rec_->output(g_out,
                 g.ggml_mul(c, g.ggml_softplus(c, biased), rec_->weight(a, GGML_TYPE_F32, n_v, 1)));
    rec_->output(beta, g.ggml_sigmoid(c, rec_->input_f32(b, n_tok * n_v)));
  });
}

void GgmlBackend::gated_delta_rule(const DeltaNetDims& d, int64_t n_tok, const float* qkv,
                                   const float* g_in, const float* beta, float eps, float* state,
                                   float* out) {
  if (n_tok == 0) return;
  if (d.d_k != d.d_v || d.n_v % d.n_k != 0)
    throw Refused(cat("ggml: gated delta rule with d_k ", d.d_k, " != d_v ", d.d_v));
  record("gated_delta_rule", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    const int64_t C = d.conv_dim(), S = d.d_v;
    ggml_tensor* X = g.ggml_reshape_2d(c, rec_->input_f32(qkv, n_tok * C), C, n_tok);
    const auto heads = [&](int64_t n_heads, int64_t offset) {  // [n_tok][n_heads][S] of each row
      return g.ggml_cont(c, g.ggml_view_3d(c, X, S, n_heads, n_tok, S * sizeof(float), X->nb[1],
                                           offset * sizeof(float)));
    };
    ggml_tensor* Q = g.ggml_l2_norm(c, heads(d.n_k, 0), eps);
    ggml_tensor* K = g.ggml_l2_norm(c, heads(d.n_k, d.key_dim()), eps);
    ggml_tensor* V = heads(d.n_v, 2 * d.key_dim());
    ggml_tensor* G = g.ggml_reshape_4d(c, rec_->input_f32(g_in, n_tok * d.n_v), 1, d.n_v, n_tok, 1);
    ggml_tensor* B = g.ggml_reshape_4d(c, rec_->input_f32(beta, n_tok * d.n_v), 1, d.n_v, n_tok, 1);
    ggml_tensor* S0 =
        g.ggml_reshape_4d(c, rec_->input_f32(state, d.state_floats()), S, S, d.n_v, 1);
    ggml_tensor* R = g.ggml_gated_delta_net(
        c, g.ggml_reshape_4d(c, Q, S, d.n_k, n_tok, 1), g.ggml_reshape_4d(c, K, S, d.n_k, n_tok, 1),
        g.ggml_reshape_4d(c, V, S, d.n_v, n_tok, 1), G, B, S0, 1);
    // R packs the outputs [n_tok][n_v][S], then the final state [n_v][S][S].
    const int64_t n_out = n_tok * d.value_dim();
    rec_->output(out, g.ggml_view_1d(c, R, n_out, 0));
    rec_->output(state, g.ggml_view_1d(c, R, d.state_floats(), n_out * sizeof(float)));
  });
}

void GgmlBackend::gated_rms_norm(const float* x, const float* z, const float* w, int64_t n,
                                 int64_t rows, float eps, float* y) {
  if (rows == 0) return;
  record("gated_rms_norm", [&] {
    const ggml::Api& g = rec_->api();
    ggml_context* c = rec_->ctx();
    ggml_tensor* Z = g.ggml_reshape_2d(c, rec_->input_f32(z, n * rows), n, rows);
    rec_->output(y, g.ggml_mul(c, normed(*rec_, x, w, n, rows, eps), g.ggml_silu(c, Z)));
  });
}

}  // namespace kz
