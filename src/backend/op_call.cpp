#include "backend/op_call.h"

#include <cassert>

#include "base/error.h"
#include "kernels/ref/ops.h"
#include "quant/quant.h"

namespace kz {

std::string_view phase_name(Phase p) {
  return p == Phase::Prompt ? "prompt" : "token";
}

const std::vector<OpKind>& op_kinds() {
  static const std::vector<OpKind> kinds = {
      {"matmul", {"type", "rows", "cols"}},
      {"get_rows", {"type", "cols"}},
      {"rms_norm", {"n"}},
      {"rope", {"heads", "head_dim", "n_rot"}},
      {"swiglu", {"width"}},
      {"silu", {"width"}},
      {"add", {"width"}},
      {"mul_sigmoid", {"width"}},
      {"split_halves", {"n"}},
      {"join_halves", {"n"}},
      {"kv_store", {"kv_heads", "head_dim", "k_type", "v_type"}},
      {"attention", {"heads", "kv_heads", "head_dim", "k_type", "v_type"}},
      {"ssm_conv", {"channels", "taps"}},
      {"delta_net_gates", {"heads"}},
      {"gated_delta_rule", {"n_k", "d_k", "n_v", "d_v"}},
      {"gated_rms_norm", {"n"}},
  };
  return kinds;
}

const OpKind* find_op_kind(std::string_view name) {
  for (const OpKind& k : op_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::string OpShape::to_string() const {
  std::string s = kind + "@" + std::string(phase_name(phase));
  for (const auto& [key, value] : params) s += ":" + key + "=" + value;
  return s;
}

std::vector<float> region_floats(const WrittenRegion& r) {
  std::vector<float> out(r.n);
  dequantize_row(r.type, r.data, out.data(), r.n);
  return out;
}

void InterceptingBackend::begin_batch(int64_t n_tok) {
  batch_ = n_tok;
  layer_ = -1;
  for (Backend* b : wrapped_) b->begin_batch(n_tok);
}

void InterceptingBackend::at_layer(int64_t layer) {
  layer_ = layer;
  for (Backend* b : wrapped_) b->at_layer(layer);
}

Backend::Traffic InterceptingBackend::traffic() const {
  Traffic t;
  for (const Backend* b : wrapped_) t += b->traffic();
  return t;
}

void InterceptingBackend::reset_traffic() {
  for (Backend* b : wrapped_) b->reset_traffic();
}

void InterceptingBackend::sync() {
  for (Backend* b : wrapped_) b->sync();
}

void run_synced(const OpCall& call, Backend& be) {
  run_and_sync(be, [&] { call.run(be); });
}

OpCall InterceptingBackend::make_call(std::string_view kind, std::vector<std::string> values,
                                      std::function<void(Backend&)> run,
                                      std::vector<WrittenRegion> written) {
  const OpKind* k = find_op_kind(kind);
  assert(k && k->params.size() == values.size());
  OpCall call;
  call.shape.kind = std::string(kind);
  call.shape.phase = phase();
  for (size_t i = 0; i < values.size(); ++i)
    call.shape.params.emplace_back(std::string(k->params[i]), std::move(values[i]));
  call.run = std::move(run);
  call.written = std::move(written);
  return call;
}

namespace {

std::string num(int64_t v) {
  return std::to_string(v);
}
std::string type(DType t) {
  return std::string(dtype_name(t));
}
WrittenRegion f32(float* p, int64_t n) {
  return {p, DType::F32, n};
}

}  // namespace

void InterceptingBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  OpCall c = make_call("matmul", {type(w.type), num(w.rows), num(w.cols)},
                       [=, &w](Backend& b) { b.matmul(w, x, n_tok, y); }, {f32(y, n_tok * w.rows)});
  c.weight = w.name;
  c.output_rows = n_tok;
  c.rounded_reference = [=, &w](float* out) { ref::matmul_rounded_act(w, x, n_tok, out); };
  dispatch(c);
}

void InterceptingBackend::get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) {
  OpCall c = make_call("get_rows", {type(w.type), num(w.cols)},
                       [=, &w](Backend& b) { b.get_rows(w, ids, y); },
                       {f32(y, int64_t(ids.size()) * w.cols)});
  c.weight = w.name;
  c.output_rows = int64_t(ids.size());
  dispatch(c);
}

void InterceptingBackend::rms_norm(const float* x, const float* w, int64_t n, int64_t rows,
                                   float eps, float* y) {
  OpCall c = make_call("rms_norm", {num(n)}, [=](Backend& b) { b.rms_norm(x, w, n, rows, eps, y); },
                       {f32(y, n * rows)});
  dispatch(c);
}

void InterceptingBackend::rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                                    const int32_t* pos, float freq_base) {
  OpCall c =
      make_call("rope", {num(n_head), num(head_dim), num(n_rot)},
                [=](Backend& b) { b.rope_neox(x, n_tok, n_head, head_dim, n_rot, pos, freq_base); },
                {f32(x, n_tok * n_head * head_dim)});
  dispatch(c);
}

void InterceptingBackend::swiglu(const float* gate, const float* up, int64_t n, float* y) {
  OpCall c = make_call("swiglu", {num(per_token(n))}, [=](Backend& b) { b.swiglu(gate, up, n, y); },
                       {f32(y, n)});
  dispatch(c);
}

void InterceptingBackend::silu(float* x, int64_t n) {
  OpCall c = make_call("silu", {num(per_token(n))}, [=](Backend& b) { b.silu(x, n); }, {f32(x, n)});
  dispatch(c);
}

void InterceptingBackend::add(float* x, const float* y, int64_t n) {
  OpCall c =
      make_call("add", {num(per_token(n))}, [=](Backend& b) { b.add(x, y, n); }, {f32(x, n)});
  dispatch(c);
}

void InterceptingBackend::mul_sigmoid(float* x, const float* gate, int64_t n) {
  OpCall c = make_call("mul_sigmoid", {num(per_token(n))},
                       [=](Backend& b) { b.mul_sigmoid(x, gate, n); }, {f32(x, n)});
  dispatch(c);
}

void InterceptingBackend::split_halves(const float* x, int64_t rows, int64_t n, float* a,
                                       float* b) {
  OpCall c =
      make_call("split_halves", {num(n)}, [=](Backend& b_) { b_.split_halves(x, rows, n, a, b); },
                {f32(a, rows * n), f32(b, rows * n)});
  c.output_rows = rows;
  dispatch(c);
}

void InterceptingBackend::join_halves(const float* a, const float* b, int64_t rows, int64_t n,
                                      float* out) {
  OpCall c =
      make_call("join_halves", {num(n)}, [=](Backend& be) { be.join_halves(a, b, rows, n, out); },
                {f32(out, rows * 2 * n)});
  c.output_rows = rows;
  dispatch(c);
}

void InterceptingBackend::kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                                   const float* k, const float* v) {
  // Head-major cache: each KV head's new rows are one contiguous range, keys then values.
  std::vector<WrittenRegion> written;
  for (int h = 0; h < kv.n_kv_head; ++h)
    written.push_back({kv.k_row(h, pos0), kv.k_type, n_tok * kv.head_dim});
  for (int h = 0; h < kv.n_kv_head; ++h)
    written.push_back({kv.v_row(h, pos0), kv.v_type, n_tok * kv.head_dim});
  OpCall c = make_call(
      "kv_store", {num(kv.n_kv_head), num(kv.head_dim), type(kv.k_type), type(kv.v_type)},
      [=](Backend& b) { b.kv_store(kv, pos0, n_tok, k, v); }, std::move(written));
  dispatch(c);
}

void InterceptingBackend::attention(const float* q, const KvCacheView& kv, int64_t pos0,
                                    int64_t n_tok, int n_head, float scale, float* out) {
  OpCall c = make_call(
      "attention",
      {num(n_head), num(kv.n_kv_head), num(kv.head_dim), type(kv.k_type), type(kv.v_type)},
      [=](Backend& b) { b.attention(q, kv, pos0, n_tok, n_head, scale, out); },
      {f32(out, n_tok * n_head * kv.head_dim)});
  c.output_rows = n_tok;
  dispatch(c);
}

void InterceptingBackend::ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv,
                                   const float* w, float* state, float* out) {
  OpCall c = make_call("ssm_conv", {num(channels), num(d_conv)},
                       [=](Backend& b) { b.ssm_conv(x, n_tok, channels, d_conv, w, state, out); },
                       {f32(out, n_tok * channels), f32(state, channels * (d_conv - 1))});
  dispatch(c);
}

void InterceptingBackend::delta_net_gates(const float* alpha, const float* beta_in,
                                          const float* dt_bias, const float* a, int64_t n_tok,
                                          int n_v, float* g, float* beta) {
  OpCall c = make_call(
      "delta_net_gates", {num(n_v)},
      [=](Backend& b) { b.delta_net_gates(alpha, beta_in, dt_bias, a, n_tok, n_v, g, beta); },
      {f32(g, n_tok * n_v), f32(beta, n_tok * n_v)});
  dispatch(c);
}

void InterceptingBackend::gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok,
                                           const float* qkv, const float* g, const float* beta,
                                           float eps, float* state, float* out) {
  OpCall c =
      make_call("gated_delta_rule", {num(dims.n_k), num(dims.d_k), num(dims.n_v), num(dims.d_v)},
                [=](Backend& b) { b.gated_delta_rule(dims, n_tok, qkv, g, beta, eps, state, out); },
                {f32(out, n_tok * dims.value_dim()), f32(state, dims.state_floats())});
  dispatch(c);
}

void InterceptingBackend::gated_rms_norm(const float* x, const float* z, const float* w, int64_t n,
                                         int64_t rows, float eps, float* y) {
  OpCall c = make_call("gated_rms_norm", {num(n)},
                       [=](Backend& b) { b.gated_rms_norm(x, z, w, n, rows, eps, y); },
                       {f32(y, n * rows)});
  dispatch(c);
}

}  // namespace kz
