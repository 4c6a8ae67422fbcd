// A decorator that times every op of another backend, by op kind and by layer kind (attention,
// recurrent, FFN, LM head, embedding/norm), for `kazeia bench --profile`. The layer kind of a
// matrix product comes from its weight's name; other ops count toward the kind of the last
// product before them (e.g. attention after attn_v, the delta rule after ssm_alpha), which is
// where the model code runs them.
#pragma once

#include <map>
#include <string>

#include "backend/op_call.h"

namespace kz {

struct OpTimes {
  std::map<std::string, double> by_op;     // "matmul q4_0", "attention", ...
  std::map<std::string, double> by_layer;  // "attention", "recurrent", "ffn", "lm_head", "other"
  void clear() { by_op.clear(), by_layer.clear(); }
};

class ProfilingBackend final : public InterceptingBackend {
 public:
  explicit ProfilingBackend(Backend& inner) : InterceptingBackend({&inner}), inner_(inner) {}
  std::string_view name() const override { return inner_.name(); }
  std::string device_key() const override { return inner_.device_key(); }
  OpTimes& times() { return times_; }

 protected:
  void dispatch(OpCall& call) override;

 private:
  Backend& inner_;
  OpTimes times_;
  std::string layer_ = "other";
};

}  // namespace kz
