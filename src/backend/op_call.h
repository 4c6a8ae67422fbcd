// One op call as data, for the decorators that check, corrupt, route or time ops: what it is (its
// kind, the phase of the batch that runs it, its shape), what memory it writes, and how to run it
// on any backend. Op kinds and their shape parameters are listed once, in kOpKinds.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/backend.h"

namespace kz {

// A prompt batch (more than one token) or a single decode token.
enum class Phase { Prompt, Token };
std::string_view phase_name(Phase p);

// An op kind and the names of its shape parameters, in the order shapes print them.
struct OpKind {
  std::string_view name;
  std::vector<std::string_view> params;
};
// Every op of the Backend interface.
const std::vector<OpKind>& op_kinds();
const OpKind* find_op_kind(std::string_view name);

// What the oracle and the op filter key ops by: "ssm_conv@prompt:channels=1024:taps=4".
struct OpShape {
  std::string kind;
  Phase phase = Phase::Token;
  std::vector<std::pair<std::string, std::string>> params;  // in the kind's order
  std::string to_string() const;
  auto operator<=>(const OpShape&) const = default;
};

// Memory an op writes: n elements of `type` (F32, F16 or Q8_0) at data.
struct WrittenRegion {
  void* data = nullptr;
  DType type = DType::F32;
  int64_t n = 0;
  uint64_t bytes() const { return row_bytes(type, n); }
};

struct OpCall {
  OpShape shape;
  std::function<void(Backend&)> run;  // the op with this call's arguments
  // What the op writes, its output first (then e.g. a recurrent state); in-place inputs included.
  std::vector<WrittenRegion> written;
  std::string_view weight;  // matmul and get_rows: the weight's tensor name
  int64_t output_rows = 1;  // rows of written[0] (tokens), for per-row checks such as arg-max
  // matmul: writes ref's output with the activations rounded as the reference implementation
  // rounds them, so a check can allow exactly the difference that this rounding makes.
  std::function<void(float* y)> rounded_reference;
};

// The region's elements as f32 (F16 and Q8_0 dequantized).
std::vector<float> region_floats(const WrittenRegion& r);

// Runs the call on `be` and waits for its results to be in host memory (Backend::sync), for
// decorators that read what an op wrote.
void run_synced(const OpCall& call, Backend& be);

// A backend that turns every op into an OpCall and hands it to dispatch(); the decorators derive
// from it. It tracks the batch size and layer from the model's hints and passes the hints on to
// the backends it wraps.
class InterceptingBackend : public Backend {
 public:
  void begin_batch(int64_t n_tok) override;
  void at_layer(int64_t layer) override;
  // The wrapped backends' traffic, summed.
  Traffic traffic() const override;
  void reset_traffic() override;
  // Syncs the wrapped backends.
  void sync() override;

  void matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) final;
  void get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) final;
  void rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps, float* y) final;
  void rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot, const int32_t* pos,
                 float freq_base) final;
  void swiglu(const float* gate, const float* up, int64_t n, float* y) final;
  void silu(float* x, int64_t n) final;
  void add(float* x, const float* y, int64_t n) final;
  void mul_sigmoid(float* x, const float* gate, int64_t n) final;
  void split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) final;
  void join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out) final;
  void kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                const float* v) final;
  void attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                 float scale, float* out) final;
  void ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
                float* state, float* out) final;
  void delta_net_gates(const float* alpha, const float* b, const float* dt_bias, const float* a,
                       int64_t n_tok, int n_v, float* g, float* beta) final;
  void gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out) final;
  void gated_rms_norm(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                      float eps, float* y) final;

 protected:
  // `wrapped`: the backends that receive the model's hints too.
  explicit InterceptingBackend(std::vector<Backend*> wrapped) : wrapped_(std::move(wrapped)) {}
  virtual void dispatch(OpCall& call) = 0;
  int64_t layer() const { return layer_; }
  Phase phase() const { return batch_ > 1 ? Phase::Prompt : Phase::Token; }

 private:
  OpCall make_call(std::string_view kind, std::vector<std::string> values,
                   std::function<void(Backend&)> run, std::vector<WrittenRegion> written);
  // Element-wise ops: values per token (n / batch), so a shape does not depend on prompt length.
  int64_t per_token(int64_t n) const { return batch_ > 0 && n % batch_ == 0 ? n / batch_ : n; }

  std::vector<Backend*> wrapped_;
  int64_t batch_ = 1, layer_ = -1;
};

}  // namespace kz
