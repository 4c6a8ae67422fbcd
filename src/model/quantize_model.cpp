#include "model/quantize_model.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/error.h"
#include "base/progress.h"
#include "base/thread_pool.h"
#include "gguf/streaming_writer.h"
#include "model/model.h"
#include "quant/quant.h"

namespace kz {
namespace {

constexpr uint32_t kAlignment = 32;           // what StreamingGgufWriter lays out
constexpr uint64_t kSlabBytes = 64ull << 20;  // output rows converted per parallel step
constexpr uint32_t kQuantizationVersion = 2;  // GGML_QNT_VERSION

uint64_t pad(uint64_t n) {
  return (n + kAlignment - 1) / kAlignment * kAlignment;
}

// A layer-0 head count: a u32, or (per-layer models) the first element of an array.
int64_t layer0_count(const gguf::File& f, const std::string& key) {
  const gguf::Value* v = f.find(key);
  if (!v) return 0;
  if (v->type() == gguf::ValueType::ARRAY) {
    const std::vector<int64_t> a = f.get_int_array(key);
    return a.empty() ? 0 : a[0];
  }
  return f.get_u32(key);
}

RecipeModel recipe_model(const gguf::File& f) {
  const std::string arch = f.get_string("general.architecture");
  RecipeModel m;
  m.n_layer = f.get_u32(arch + ".block_count");
  m.n_head = layer0_count(f, arch + ".attention.head_count");
  m.n_head_kv = layer0_count(f, arch + ".attention.head_count_kv");
  if (m.n_head_kv == 0) m.n_head_kv = m.n_head;  // absent: no grouping, as the reference assumes
  return m;
}

std::vector<int64_t> shape_without_trailing_ones(const gguf::TensorInfo& t) {
  std::vector<int64_t> ne(t.ne, t.ne + std::max<uint32_t>(t.n_dims, 1));
  while (ne.size() > 1 && ne.back() == 1) ne.pop_back();
  return ne;
}

// Input types converted without --allow-requantize: floats, and Q8_0 (close enough to them that
// quantizing from it is the usual way to make smaller files of a model published in Q8_0).
bool is_plain_source(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::Q8_0;
}

void check_convertible(const gguf::TensorInfo& t, DType target, bool allow_requantize) {
  if (t.type == target || is_plain_source(t.type)) return;
  const std::string from(dtype_name(t.type)), to(dtype_name(target));
  if (!can_dequantize(t.type))
    fail("tensor '", t.name, "': cannot convert from ", from, " (no dequantizer)");
  if (!allow_requantize)
    fail("tensor '", t.name, "' is ", from, ": requantizing it to ", to,
         " needs --allow-requantize (quality loss; start from F32, F16, BF16 or Q8_0)");
}

// The reference rewrites these two keys (removed, then appended in this order).
std::vector<gguf::KeyValue> output_metadata(const gguf::File& input, uint32_t file_type) {
  std::vector<gguf::KeyValue> kvs;
  for (const gguf::KeyValue& kv : input.metadata()) {
    if (kv.key == "general.quantization_version" || kv.key == "general.file_type") continue;
    if (kv.key == "general.alignment") continue;  // the output is laid out with the default 32
    kvs.push_back(kv);
  }
  kvs.push_back({"general.quantization_version", gguf::val(kQuantizationVersion)});
  kvs.push_back({"general.file_type", gguf::val(file_type)});
  return kvs;
}

// Header, metadata and tensor infos, padded: their size depends on the tensors' names and
// dimension counts, not on the dimensions' values, so empty tensors of the same ranks measure it.
uint64_t metadata_bytes(const std::vector<gguf::KeyValue>& kvs,
                        const std::vector<PlannedTensor>& tensors) {
  gguf::Writer w;
  for (const gguf::KeyValue& kv : kvs) w.set(kv.key, kv.value);
  for (const PlannedTensor& t : tensors) {
    std::vector<int64_t> empty(t.ne.size(), 1);
    empty[0] = 0;
    w.add_tensor(t.source->name, t.type, std::move(empty), {});
  }
  return w.to_bytes().size();
}

void refuse_input_as_output(const gguf::File& input, const std::string& path) {
  struct stat in {
  }, out{};
  if (::stat(input.path().c_str(), &in) != 0) fail(input.path(), ": ", std::strerror(errno));
  if (::stat(path.c_str(), &out) != 0) return;  // does not exist yet
  if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
    fail(path, ": is the input file ", input.path(), " (refusing to overwrite it)");
  if (!S_ISREG(out.st_mode)) fail(path, ": exists and is not a regular file");
}

// Converts one tensor's rows in slabs, in parallel, and streams them to the writer.
void write_tensor(const PlannedTensor& t, StreamingGgufWriter& writer, ThreadPool& pool,
                  std::vector<std::vector<float>>& scratch) {
  const gguf::TensorInfo& src = *t.source;
  if (src.type == t.type) {
    writer.write(src.data, t.bytes);
    return;
  }
  const int64_t cols = src.ne[0], rows = src.n_elements() / std::max<int64_t>(cols, 1);
  const uint64_t src_row = row_bytes(src.type, cols), dst_row = row_bytes(t.type, cols);
  const int64_t slab_rows =
      std::max<int64_t>(1, int64_t(kSlabBytes / std::max<uint64_t>(dst_row, 1)));
  std::vector<uint8_t> out(uint64_t(std::min(slab_rows, rows)) * dst_row);
  for (int64_t r0 = 0; r0 < rows; r0 += slab_rows) {
    const int64_t n = std::min(slab_rows, rows - r0);
    pool.parallel_for(n, 1, [&](int64_t begin, int64_t end, int thread) {
      std::vector<float>& x = scratch[thread];
      x.resize(cols);
      for (int64_t r = begin; r < end; ++r) {
        dequantize_row(src.type, src.data + (r0 + r) * src_row, x.data(), cols);
        quantize_row(t.type, x.data(), out.data() + r * dst_row, cols);
      }
    });
    writer.write(out.data(), uint64_t(n) * dst_row);
  }
}

// The written file, loaded as a model, has exactly the planned tensors.
void validate(const std::string& path, const QuantizePlan& plan) {
  const auto model = Model::load(path);
  const gguf::File& f = model->file();
  if (f.file_size() != plan.file_size)
    fail(path, ": written ", f.file_size(), " bytes, planned ", plan.file_size);
  if (f.tensors().size() != plan.tensors.size()) fail(path, ": tensor count differs from the plan");
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const gguf::TensorInfo& got = f.tensors()[i];
    const PlannedTensor& want = plan.tensors[i];
    if (got.name != want.source->name || got.type != want.type || got.nbytes != want.bytes)
      fail(path, ": tensor '", got.name, "' differs from the plan");
  }
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    fail(path, ": cannot flush to disk: ", std::strerror(err));
  }
  ::close(fd);
}

}  // namespace

QuantizePlan plan_quantization(const gguf::File& input, const QuantizeOptions& options) {
  if (!options.recipe.mix) fail("plan_quantization: no mix");
  QuantizePlan plan;
  for (const gguf::TensorInfo& t : input.tensors()) plan.tensors.push_back({&t, {}, t.type, 0});
  std::sort(plan.tensors.begin(), plan.tensors.end(), [](const auto& a, const auto& b) {
    return reference_tensor_order(a.source->name, b.source->name);
  });

  std::vector<RecipeTensor> recipe_tensors;
  for (PlannedTensor& p : plan.tensors) {
    p.ne = shape_without_trailing_ones(*p.source);
    recipe_tensors.push_back({p.source->name, int(p.ne.size()), p.ne[0], p.source->type});
  }
  const std::vector<DType> types =
      choose_tensor_types(recipe_tensors, recipe_model(input), options.recipe);
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    PlannedTensor& p = plan.tensors[i];
    p.type = types[i];
    check_convertible(*p.source, p.type, options.allow_requantize);
    p.bytes = tensor_bytes(p.type, p.ne);
  }

  plan.metadata = output_metadata(input, options.recipe.mix->file_type);
  plan.file_size = metadata_bytes(plan.metadata, plan.tensors);
  for (const PlannedTensor& p : plan.tensors) plan.file_size += pad(p.bytes);
  return plan;
}

void write_quantized_model(const gguf::File& input, const QuantizePlan& plan,
                           const std::string& path, int n_threads, Progress* progress) {
  refuse_input_as_output(input, path);
  ThreadPool pool(resolve_thread_count(n_threads, "--threads"));
  std::vector<std::vector<float>> scratch(pool.size());
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  try {
    std::vector<StreamingGgufWriter::TensorHeader> headers;
    for (const PlannedTensor& p : plan.tensors) headers.push_back({p.source->name, p.type, p.ne});
    StreamingGgufWriter writer(tmp, plan.metadata, std::move(headers));
    uint64_t bytes_done = 0;  // the time a tensor takes follows its size, not its count
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
      const PlannedTensor& t = plan.tensors[i];
      if (progress) {
        progress->update(double(bytes_done), "tensor " + std::to_string(i + 1) + "/" +
                                                 std::to_string(plan.tensors.size()) + " " +
                                                 t.source->name);
      }
      write_tensor(t, writer, pool, scratch);
      bytes_done += t.bytes;
    }
    if (progress) progress->update(double(bytes_done), "validating");
    writer.finish();
    sync_file(tmp);
    validate(tmp, plan);
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      fail(path, ": cannot rename ", tmp, " to it: ", std::strerror(errno));
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace kz
