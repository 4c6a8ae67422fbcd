#include "model/weights.h"

#include <algorithm>

#include "base/error.h"
#include "quant/quant.h"

namespace kz {
namespace {

std::string shape_str(const int64_t* ne, size_t n) {
  std::string s = "{";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "}";
}

}  // namespace

const gguf::TensorInfo& WeightBinder::find(const std::string& name,
                                           std::span<const int64_t> shape) {
  const gguf::TensorInfo* t = file_.find_tensor(name);
  if (!t) fail(file_.path(), ": missing tensor '", name, "'");
  int64_t want[4] = {1, 1, 1, 1};
  std::copy(shape.begin(), shape.end(), want);
  for (int d = 0; d < 4; ++d) {
    if (t->ne[d] != want[d])
      fail(file_.path(), ": tensor '", name, "' has wrong shape; expected ",
           shape_str(want, shape.size()), ", got ",
           shape_str(t->ne, std::max<size_t>(t->n_dims, 1)));
  }
  if (!can_dequantize(t->type))
    fail(file_.path(), ": tensor '", name, "' has type ", dtype_name(t->type),
         ", which this engine cannot compute");
  used_.insert(name);
  return *t;
}

Matrix WeightBinder::matrix(const gguf::TensorInfo& t) {
  Matrix m;
  m.type = t.type;
  m.cols = t.ne[0];
  m.rows = t.ne[1];
  m.data = t.data;
  m.row_bytes = row_bytes(t.type, t.ne[0]);
  m.name = t.name;
  m.derived = std::make_shared<DerivedWeights>();
  return m;
}

const float* WeightBinder::as_f32(const gguf::TensorInfo& t) {
  if (t.type == DType::F32) return reinterpret_cast<const float*>(t.data);
  auto buf = std::make_unique<float[]>(t.n_elements());
  const int64_t rows = t.ne[1] * t.ne[2] * t.ne[3];
  const uint64_t rb = row_bytes(t.type, t.ne[0]);
  for (int64_t r = 0; r < rows; ++r)
    dequantize_row(t.type, t.data + r * rb, buf.get() + r * t.ne[0], t.ne[0]);
  converted_.push_back(std::move(buf));
  return converted_.back().get();
}

BoundTensors WeightBinder::bind(std::span<const TensorSpec> list) {
  BoundTensors b;
  for (const TensorSpec& spec : list) {
    if (spec.optional && !has(spec.name)) continue;
    const gguf::TensorInfo& t = find(spec.name, spec.ne);
    BoundTensors::Bound& out = b.bound_[{spec.layer, spec.role}];
    if (spec.kind == TensorKind::matrix)
      out.matrix = matrix(t);
    else
      out.f32 = as_f32(t);
  }
  return b;
}

void WeightBinder::keep(const std::string& name) {
  used_.insert(name);
}

void WeightBinder::finish() const {
  for (const auto& t : file_.tensors())
    if (!used_.count(t.name))
      fail(file_.path(), ": unexpected tensor '", t.name, "' (wrong number of tensors; expected ",
           used_.size(), ", got ", file_.tensors().size(), ")");
}

uint32_t u32_or_uniform_array(const gguf::File& file, const std::string& key) {
  const gguf::Value* v = file.find(key);
  if (!v) fail(file.path(), ": missing key '", key, "'");
  if (v->type() != gguf::ValueType::ARRAY) return file.get_u32(key);
  const auto values = file.get_int_array(key);
  if (values.empty()) fail(file.path(), ": key '", key, "' is an empty array");
  for (int64_t x : values)
    if (x != values[0] || x < 0)
      fail(file.path(), ": key '", key, "' varies per layer, which is not supported");
  return static_cast<uint32_t>(values[0]);
}

}  // namespace kz
