#include "backend/ggml/recorder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "base/shared_memory.h"

namespace kz::ggml {
namespace {

constexpr int64_t kGraphSize = 16384;  // nodes of one graph
constexpr int64_t kNodeTensors = 2 * kGraphSize;
constexpr int64_t kIoTensors = 4096;  // copied-in leaves of one graph
constexpr int64_t kOpTensors = 256;   // more than any one op makes
constexpr int64_t kWeightsPerContext = 512;

// Thrown inside an op's build when the graph so far must run first (op() retries after it).
struct NeedsFlush {};

// In `memory` when given (kept by the caller, so a graph's metadata costs no allocation), else its
// own.
ggml_context* new_context(const Api& g, int64_t tensors, bool with_graph,
                          std::vector<uint8_t>* memory = nullptr) {
  ggml_init_params p{};
  p.mem_size = tensors * g.ggml_tensor_overhead() +
               (with_graph ? g.ggml_graph_overhead_custom(kGraphSize, false) : 0);
  if (memory) {
    memory->resize(p.mem_size);
    p.mem_buffer = memory->data();
  }
  p.no_alloc = true;  // tensor metadata only; data lives in backend buffers
  ggml_context* c = g.ggml_init(p);
  if (!c) fail("ggml: out of memory for a graph context");
  return c;
}

bool full(const Api& g, ggml_context* c) {
  return g.ggml_used_mem(c) + kOpTensors * g.ggml_tensor_overhead() > g.ggml_get_mem_size(c);
}

bool is_view(const ggml_tensor* t) {
  return t->op == GGML_OP_VIEW || t->op == GGML_OP_RESHAPE || t->op == GGML_OP_PERMUTE ||
         t->op == GGML_OP_TRANSPOSE;
}

bool overlaps(const uint8_t* a, uint64_t an, const uint8_t* b, uint64_t bn) {
  return a < b + bn && b < a + an;
}

}  // namespace

Recorder::Recorder(const Library& lib, const DeviceInfo& device, int n_threads, Traffic& traffic)
    : g_(lib.api), device_(device), traffic_(traffic), n_threads_(n_threads) {
  context_per_graph_ = device.library.find("vulkan") != std::string::npos &&
                       device.description.find("llvmpipe") != std::string::npos;
  start_backend();
  buft_ = g_.ggml_backend_dev_buffer_type(device.handle);
  galloc_ = g_.ggml_gallocr_new(buft_);
  ggml_backend_reg_t reg = g_.ggml_backend_dev_backend_reg(device.handle);
  if (!std::getenv("KAZEIA_GGML_NO_REPACK"))
    if (auto extra = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(
            g_.ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts")))
      for (ggml_backend_buffer_type_t* b = extra(device.handle); b && *b; ++b)
        extra_bufts_.push_back(*b);
}

Recorder::~Recorder() {
  discard();
  forget_weights();
  if (io_buffer_) g_.ggml_backend_buffer_free(io_buffer_);
  g_.ggml_gallocr_free(galloc_);
  g_.ggml_backend_free(backend_);
}

void Recorder::start_backend() {
  if (backend_) g_.ggml_backend_free(backend_);
  backend_ = g_.ggml_backend_dev_init(device_.handle, nullptr);
  if (!backend_) fail("ggml: device ", device_.name, " did not start");
  context_used_ = false;
  ggml_backend_reg_t reg = g_.ggml_backend_dev_backend_reg(device_.handle);
  if (auto set_threads = reinterpret_cast<ggml_backend_set_n_threads_t>(
          g_.ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads")))
    set_threads(backend_, n_threads_);
}

void Recorder::begin() {
  if (ctx_ && (full(g_, ctx_) || g_.ggml_graph_n_nodes(graph_) > kGraphSize - kOpTensors ||
               io_tensors_ > kIoTensors - kOpTensors))
    flush();
  if (ctx_) return;
  ctx_ = new_context(g_, kNodeTensors, true, &node_memory_);
  io_ctx_ = new_context(g_, kIoTensors, false, &io_memory_);
  graph_ = g_.ggml_new_graph_custom(ctx_, kGraphSize, false);
}

void Recorder::discard() {
  if (ctx_) g_.ggml_free(ctx_);
  if (io_ctx_) g_.ggml_free(io_ctx_);
  ctx_ = io_ctx_ = nullptr;
  graph_ = nullptr;
  io_tensors_ = 0;
  copies_.clear();
  written_.clear();
  cache_writes_.clear();
  caches_.clear();
  must_finish_ = false;
}

void Recorder::op(const std::function<void()>& build, bool corrupt) {
  for (bool retried = false;; retried = true) {
    begin();
    outputs_.clear();
    new_caches_.clear();
    new_cache_writes_.clear();
    const uint8_t* lo =
        static_cast<uint8_t*>(g_.ggml_get_mem_buffer(ctx_)) + g_.ggml_used_mem(ctx_);
    try {
      build();
    } catch (const NeedsFlush&) {
      if (retried) fail("ggml: internal error: an op still overlaps the graph after a flush");
      flush();
      continue;
    }
    if (ggml_tensor* t = first_refused_output(lo))
      throw Refused(cat("ggml: device ", device_.name, " does not run ", g_.ggml_op_desc(t),
                        " (route the op to the CPU: supports() answers false for it)"));
    commit(corrupt);
    if (must_finish_) flush();
    return;
  }
}

bool Recorder::probe(const std::function<void()>& build) {
  probe_ctx_ = new_context(g_, kOpTensors, false);
  probing_ = true;
  outputs_.clear();
  new_caches_.clear();
  new_cache_writes_.clear();
  bool ok = true;
  try {
    build();
    ok = first_refused_output(static_cast<uint8_t*>(g_.ggml_get_mem_buffer(probe_ctx_))) == nullptr;
  } catch (const Refused&) {
    ok = false;
  }
  probing_ = false;
  g_.ggml_free(probe_ctx_);
  probe_ctx_ = nullptr;
  outputs_.clear();
  new_caches_.clear();
  new_cache_writes_.clear();
  return ok;
}

ggml_tensor* Recorder::first_refused(ggml_tensor* t, const uint8_t* lo, const uint8_t* hi) const {
  const auto* p = reinterpret_cast<const uint8_t*>(t);
  if (!t || p < lo || p >= hi) return nullptr;  // made before this op, or a leaf elsewhere
  for (ggml_tensor* src : t->src)
    if (ggml_tensor* r = first_refused(src, lo, hi)) return r;
  if (t->op != GGML_OP_NONE && !g_.ggml_backend_dev_supports_op(device_.handle, t)) return t;
  return nullptr;
}

ggml_tensor* Recorder::first_refused_output(const uint8_t* lo) const {
  const uint8_t* hi =
      static_cast<uint8_t*>(g_.ggml_get_mem_buffer(ctx())) + g_.ggml_get_mem_size(ctx());
  for (const auto& [p, t] : outputs_)
    if (ggml_tensor* r = first_refused(t, lo, hi)) return r;
  for (const auto& [base, c] : new_caches_)
    if (ggml_tensor* r = first_refused(c.t, lo, hi)) return r;
  return nullptr;
}

void Recorder::commit(bool corrupt) {
  for (auto [p, t] : outputs_) {
    if (corrupt) t = g_.ggml_scale(ctx_, t, 2.0f);
    g_.ggml_build_forward_expand(graph_, t);
    auto* host = static_cast<uint8_t*>(p);
    const uint64_t bytes = g_.ggml_nbytes(t);
    // Ranges this one covers whole are never read or copied back again.
    std::erase_if(written_, [&](const Written& w) {
      return w.host >= host && w.host + w.bytes <= host + bytes;
    });
    written_.push_back({host, bytes, t});
    if (!shared_memory::find(host, bytes)) must_finish_ = true;  // the op must finish now
  }
  for (auto& [base, c] : new_caches_) {
    g_.ggml_build_forward_expand(graph_, c.t);
    caches_[base] = c;
  }
  for (const CacheWrite& w : new_cache_writes_) {
    cache_writes_.push_back(w);
    if (!shared_memory::find(w.host, w.bytes)) must_finish_ = true;
  }
}

ggml_tensor* Recorder::new_leaf(ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2) {
  if (probing_) return g_.ggml_new_tensor_3d(probe_ctx_, type, ne0, ne1, ne2);
  ++io_tensors_;
  ggml_tensor* t = g_.ggml_new_tensor_3d(io_ctx_, type, ne0, ne1, ne2);
  g_.ggml_set_input(t);
  return t;
}

ggml_tensor* Recorder::copy_in(const void* p, ggml_type type, int64_t n) {
  ggml_tensor* t = new_leaf(type, n);
  if (probing_) return t;
  const auto* b = static_cast<const uint8_t*>(p);
  const uint64_t bytes = g_.ggml_nbytes(t);
  // The host writes shared memory only after a sync (Backend::sync), and this graph's results
  // reach it only after its inputs are read: read it then, without a copy now.
  if (shared_memory::find(b, bytes))
    copies_.push_back({t, {}, b});
  else
    copies_.push_back({t, std::vector<uint8_t>(b, b + bytes)});
  return t;
}

ggml_tensor* Recorder::input(const void* p, ggml_type type, int64_t n) {
  if (probing_) return new_leaf(type, n);
  const auto* b = static_cast<const uint8_t*>(p);
  const uint64_t bytes = g_.ggml_row_size(type, n);
  // Newest first: the first range that overlaps holds the latest value of the bytes they share.
  for (auto w = written_.rbegin(); w != written_.rend(); ++w) {
    if (!overlaps(b, bytes, w->host, w->bytes)) continue;
    if (b < w->host || b + bytes > w->host + w->bytes || w->t->type != type) throw NeedsFlush{};
    if (b == w->host && bytes == w->bytes) return g_.ggml_reshape_1d(ctx_, w->t, n);
    return g_.ggml_view_1d(ctx_, w->t, n, uint64_t(b - w->host));
  }
  for (const CacheWrite& w : cache_writes_)
    if (overlaps(b, bytes, w.host, w.bytes)) throw NeedsFlush{};
  return copy_in(p, type, n);
}

ggml_tensor* Recorder::new_weight_tensor(ggml_type type, int64_t ne0, int64_t ne1) {
  if (weight_ctxs_.empty() || weights_in_ctx_ == kWeightsPerContext) {
    weight_ctxs_.push_back(new_context(g_, kWeightsPerContext, false));
    weights_in_ctx_ = 0;
  }
  ++weights_in_ctx_;
  return g_.ggml_new_tensor_2d(weight_ctxs_.back(), type, ne0, ne1);
}

ggml_backend_buffer_t Recorder::place_weight(ggml_backend_buffer_type_t buft, ggml_tensor* t) {
  // Devices may want more than the data (padding their kernels read into).
  ggml_backend_buffer_t buf =
      g_.ggml_backend_buft_alloc_buffer(buft, g_.ggml_backend_buft_get_alloc_size(buft, t));
  if (!buf)
    fail("ggml: device ", device_.name, " is out of memory for a weight of ", g_.ggml_nbytes(t),
         " bytes");
  if (g_.ggml_backend_tensor_alloc(buf, t, g_.ggml_backend_buffer_get_base(buf)) !=
      GGML_STATUS_SUCCESS)
    fail("ggml: device ", device_.name, " could not place a weight of ", g_.ggml_nbytes(t),
         " bytes");
  g_.ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
  weight_buffers_.push_back(buf);
  return buf;
}

ggml_tensor* Recorder::repacked_weight(const void* p, ggml_type type, int64_t ne0, int64_t ne1) {
  for (ggml_backend_buffer_type_t buft : extra_bufts_) {
    ggml_tensor* t = new_weight_tensor(type, ne0, ne1);
    ggml_backend_buffer_t buf = place_weight(buft, t);
    // Whether the device multiplies by it in this layout (the repacking takes only some types
    // and shapes), asked of a product node made for the question before any byte is written.
    ggml_init_params ip{};
    ip.mem_size = 4 * g_.ggml_tensor_overhead();
    ip.no_alloc = true;
    ggml_context* c = g_.ggml_init(ip);
    ggml_tensor* x = g_.ggml_new_tensor_2d(c, GGML_TYPE_F32, ne0, 8);
    const bool ok = g_.ggml_backend_dev_supports_op(device_.handle, g_.ggml_mul_mat(c, t, x));
    g_.ggml_free(c);
    if (ok) {
      g_.ggml_backend_tensor_set(t, p, 0, g_.ggml_nbytes(t));  // repacked as it is written
      traffic_.weights_repacked += g_.ggml_nbytes(t);
      return t;
    }
    weight_buffers_.pop_back();
    g_.ggml_backend_buffer_free(buf);
  }
  return nullptr;
}

ggml_tensor* Recorder::weight(const void* p, ggml_type type, int64_t ne0, int64_t ne1,
                              bool for_products) {
  if (probing_) return g_.ggml_new_tensor_2d(probe_ctx_, type, ne0, ne1);
  const uint64_t bytes = g_.ggml_row_size(type, ne0) * ne1;
  const WeightKey key{p, bytes, for_products};
  if (auto it = weights_.find(key); it != weights_.end()) return it->second;
  // A layout of the device's own for products (e.g. ggml's CPU's repacked Q4_0), as llama.cpp
  // uses it: a second copy of the weight, counted.
  if (for_products)
    if (ggml_tensor* t = repacked_weight(p, type, ne0, ne1)) return weights_[key] = t;
  ggml_tensor* t = new_weight_tensor(type, ne0, ne1);
  void* host = const_cast<void*>(p);
  // In place where the device takes host memory (the file mapping itself): one copy.
  // (GGUF aligns tensor data to 32 bytes, what ggml's CPU buffers ask.)
  ggml_backend_buffer_t buf = nullptr;
  if (device_.buffer_from_host_ptr &&
      reinterpret_cast<uintptr_t>(p) % g_.ggml_backend_buft_get_alignment(buft_) == 0)
    buf = g_.ggml_backend_dev_buffer_from_host_ptr(device_.handle, host, bytes, bytes);
  if (buf) {
    if (g_.ggml_backend_tensor_alloc(buf, t, host) != GGML_STATUS_SUCCESS)
      fail("ggml: device ", device_.name, " could not wrap a weight of ", bytes, " bytes");
    g_.ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    weight_buffers_.push_back(buf);
    traffic_.weights_wrapped += bytes;
  } else {
    place_weight(buft_, t);
    g_.ggml_backend_tensor_set(t, p, 0, bytes);
    traffic_.weights_uploaded += bytes;
  }
  return weights_[key] = t;
}

void Recorder::output(void* p, ggml_tensor* t) {
  // A view has no memory of its own for the allocator to keep: copy it into a node.
  if (is_view(t)) t = g_.ggml_cont(ctx(), t);
  outputs_.emplace_back(p, t);
}

ggml_tensor* Recorder::cache_for_attention(void* base, ggml_type type, int64_t n_ctx, int head_dim,
                                           int n_head, int64_t n_pos) {
  if (probing_) {
    for (const auto& [b, c] : new_caches_)
      if (b == base) return c.t;
    return new_leaf(type, head_dim, n_pos, n_head);
  }
  if (auto it = caches_.find(base); it != caches_.end()) {
    if (it->second.n_pos == n_pos) return it->second.t;
    throw NeedsFlush{};
  }
  ggml_tensor* leaf = new_leaf(type, head_dim, n_pos, n_head);
  const uint64_t row = g_.ggml_row_size(type, head_dim);
  std::vector<uint8_t> bytes(n_head * n_pos * row);
  for (int h = 0; h < n_head; ++h)
    std::memcpy(bytes.data() + h * n_pos * row, static_cast<uint8_t*>(base) + h * n_ctx * row,
                n_pos * row);
  copies_.push_back({leaf, std::move(bytes)});
  caches_[base] = {leaf, n_pos};
  return leaf;
}

void Recorder::cache_store(void* base, ggml_type type, int64_t n_ctx, int head_dim, int n_head,
                           int64_t pos0, int64_t n_tok, ggml_tensor* rows) {
  if (!probing_ && caches_.count(base)) throw NeedsFlush{};  // a second store in one graph
  const int64_t n_pos = pos0 + n_tok;
  const uint64_t row = g_.ggml_row_size(type, head_dim);
  ggml_tensor* leaf = new_leaf(type, head_dim, n_pos, n_head);
  std::vector<int64_t> index(n_tok * n_head);  // source row t*n_head + h -> cache row h*n_pos + p
  for (int64_t t = 0; t < n_tok; ++t)
    for (int h = 0; h < n_head; ++h) index[t * n_head + h] = h * n_pos + pos0 + t;
  if (!probing_) {
    std::vector<uint8_t> bytes(n_head * n_pos * row);  // positions from pos0 on: written below
    for (int h = 0; h < n_head; ++h)
      std::memcpy(bytes.data() + h * n_pos * row, static_cast<uint8_t*>(base) + h * n_ctx * row,
                  pos0 * row);
    copies_.push_back({leaf, std::move(bytes)});
  }
  ggml_context* c = ctx();
  ggml_tensor* set = g_.ggml_set_rows(c, g_.ggml_reshape_2d(c, leaf, head_dim, n_pos * n_head),
                                      g_.ggml_reshape_2d(c, rows, head_dim, n_head * n_tok),
                                      copy_in(index.data(), GGML_TYPE_I64, int64_t(index.size())));
  // Attention reads the cache through the store's result, so the graph orders them.
  ggml_tensor* after = g_.ggml_view_3d(c, set, head_dim, n_pos, n_head, row, n_pos * row, 0);
  new_caches_.push_back({base, {after, n_pos}});
  for (int h = 0; h < n_head; ++h)
    new_cache_writes_.push_back({leaf, (h * n_pos + pos0) * row,
                                 static_cast<uint8_t*>(base) + (h * n_ctx + pos0) * row,
                                 n_tok * row});
}

void Recorder::place_inputs() {
  // One buffer, kept from graph to graph and grown when a graph needs more: no device
  // allocation per graph.
  const uint64_t align = g_.ggml_backend_buft_get_alignment(buft_);
  const auto aligned = [&](uint64_t n) { return (n + align - 1) / align * align; };
  uint64_t need = 0;
  for (const HostCopy& c : copies_)
    need = aligned(need) + g_.ggml_backend_buft_get_alloc_size(buft_, c.t);
  if (need == 0) return;
  if (!io_buffer_ || io_capacity_ < need) {
    if (io_buffer_) g_.ggml_backend_buffer_free(io_buffer_);
    io_capacity_ = std::max(need, 2 * io_capacity_);
    io_buffer_ = g_.ggml_backend_buft_alloc_buffer(buft_, io_capacity_);
    if (!io_buffer_) fail("ggml: device ", device_.name, " is out of memory for a graph's inputs");
  }
  auto* base = static_cast<uint8_t*>(g_.ggml_backend_buffer_get_base(io_buffer_));
  uint64_t offset = 0;
  for (const HostCopy& c : copies_) {
    offset = aligned(offset);
    if (g_.ggml_backend_tensor_alloc(io_buffer_, c.t, base + offset) != GGML_STATUS_SUCCESS)
      fail("ggml: device ", device_.name, " could not place a graph's input");
    offset += g_.ggml_backend_buft_get_alloc_size(buft_, c.t);
  }
}

void Recorder::flush() {
  if (!ctx_) return;
  struct Discard {
    Recorder* r;
    ~Discard() { r->discard(); }
  } discard_after{this};
  const int n_nodes = g_.ggml_graph_n_nodes(graph_);
  if (n_nodes == 0) return;
  for (const Written& w : written_) g_.ggml_set_output(w.t);
  // Before any buffer is freed below (inputs or graph allocator outgrown): see recorder.h.
  if (context_per_graph_ && context_used_) start_backend();
  context_used_ = true;
  place_inputs();
  for (const HostCopy& c : copies_) {
    const uint64_t bytes = g_.ggml_nbytes(c.t);
    g_.ggml_backend_tensor_set(c.t, c.shared ? c.shared : c.bytes.data(), 0, bytes);
    traffic_.to_device += bytes;
  }
  if (!g_.ggml_gallocr_alloc_graph(galloc_, graph_))
    fail("ggml: device ", device_.name, " could not allocate a graph of ", n_nodes, " nodes");
  if (g_.ggml_backend_graph_compute(backend_, graph_) != GGML_STATUS_SUCCESS)
    fail("ggml: device ", device_.name, " failed to compute a graph of ", n_nodes, " nodes");
  for (const Written& w : written_) {
    g_.ggml_backend_tensor_get(w.t, w.host, 0, w.bytes);
    traffic_.to_host += w.bytes;
  }
  for (const CacheWrite& w : cache_writes_) {
    g_.ggml_backend_tensor_get(w.leaf, w.host, w.offset, w.bytes);
    traffic_.to_host += w.bytes;
  }
  ++traffic_.graphs;
  traffic_.nodes += n_nodes;
}

void Recorder::forget_weights() {
  for (ggml_backend_buffer_t b : weight_buffers_) g_.ggml_backend_buffer_free(b);
  for (ggml_context* c : weight_ctxs_) g_.ggml_free(c);
  weight_buffers_.clear();
  weight_ctxs_.clear();
  weights_.clear();
  weights_in_ctx_ = 0;
}

}  // namespace kz::ggml
