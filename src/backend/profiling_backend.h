// A decorator that times every op of another backend, by op kind and by layer kind (attention,
// recurrent, FFN, LM head, embedding/norm), for `kazeia bench --profile`. The layer kind of a
// matrix product comes from its weight's name; other ops count toward the kind of the last
// product before them (e.g. attention after attn_v, the delta rule after ssm_alpha), which is
// where the model code runs them. Behind a router (an accelerator with the op filter, a split),
// each op is also counted by the backend that ran it: "attention [cpu]" beside "matmul q4_0".
#pragma once

#include <map>
#include <string>

#include "backend/op_call.h"

namespace kz {

struct OpTimes {
  // "matmul q4_0", "attention", ...; "attention [cpu]" when another backend than the profiled
  // one ran it (the router's CPU).
  std::map<std::string, double> by_op;
  std::map<std::string, double> by_layer;   // "attention", "recurrent", "ffn", "lm_head", "other"
  std::map<std::string, double> by_device;  // the backend that ran the ops: "ggml:Vulkan0", "cpu"
  void clear() { by_op.clear(), by_layer.clear(), by_device.clear(); }
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
