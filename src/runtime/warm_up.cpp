#include "runtime/warm_up.h"

#include <vector>

#include "backend/op_call.h"
#include "model/scratch.h"

namespace kz {
namespace {

// Passes every op on to `inner` and reports each new layer the model's hints announce.
class LayerReporter final : public InterceptingBackend {
 public:
  LayerReporter(Backend& inner, int64_t n_layer, const WarmUpProgress& on_layer)
      : InterceptingBackend({&inner}), inner_(inner), n_layer_(n_layer), on_layer_(on_layer) {}
  std::string_view name() const override { return inner_.name(); }
  void at_layer(int64_t layer) override {
    InterceptingBackend::at_layer(layer);
    if (layer >= 0 && layer < n_layer_ && on_layer_) on_layer_(layer, n_layer_ + 1);
  }

 protected:
  void dispatch(OpCall& call) override { call.run(inner_); }

 private:
  Backend& inner_;
  int64_t n_layer_;
  const WarmUpProgress& on_layer_;
};

}  // namespace

void warm_up(const Model& model, Backend& be, DType k_type, DType v_type,
             const WarmUpProgress& on_layer) {
  const int64_t n_layer = model.info().n_layer;
  SequenceState state = model.new_state(1, k_type, v_type);
  Scratch scratch;
  std::vector<float> logits;
  LayerReporter reporter(be, n_layer, on_layer);
  const int32_t token = 0;
  model.eval(reporter, state, scratch, std::span(&token, 1), false, logits);
  if (on_layer) on_layer(n_layer + 1, n_layer + 1);
}

}  // namespace kz
