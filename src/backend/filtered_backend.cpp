#include "backend/filtered_backend.h"

namespace kz {
namespace {

std::vector<Backend*> distinct(Backend& a, Backend& b) {
  if (&a == &b) return {&a};
  return {&a, &b};
}

}  // namespace

FilteredBackend::FilteredBackend(Backend& device, Backend& cpu, OpFilter filter,
                                 DeviceLayers layers)
    : InterceptingBackend(distinct(device, cpu)),
      device_(device),
      cpu_(cpu),
      filter_(std::move(filter)),
      layers_(layers) {}

std::string_view FilteredBackend::last_op_backend() const {
  return on_cpu_ ? cpu_.last_op_backend() : device_.last_op_backend();
}

void FilteredBackend::reset_traffic() {
  InterceptingBackend::reset_traffic();
  counts_ = {};
}

void FilteredBackend::dispatch(OpCall& call) {
  const bool filtered = filter_.matches(call.shape);
  const bool outside = !filtered && !layers_.on_device(layer());
  const bool refused = !filtered && !outside && &device_ != &cpu_ && !device_.supports(call);
  const bool to_cpu = filtered || outside || refused;
  if (outside) ++counts_.layer_ops;
  if (refused) {
    ++counts_.refused_ops;
    refused_.insert(call.shape.to_string());
  }
  if (to_cpu) {
    ++counts_.cpu_ops;
    if (!on_cpu_ && &device_ != &cpu_) device_.sync();  // the cpu reads what the device wrote
  } else {
    ++counts_.device_ops;
  }
  on_cpu_ = to_cpu;
  call.run(to_cpu ? cpu_ : device_);
}

}  // namespace kz
