// Records Backend ops as nodes of one ggml graph on one device and computes it at flush().
// Host memory is the ops' interface, so the recorder maps host ranges to nodes: a range an op
// wrote (e.g. a scratch slot) is read by later ops from that node, a range nobody wrote in this
// graph is copied in when read, and at flush() the latest node of every written range is copied
// back. A read that overlaps a written range without being part of one node (e.g. a slot
// rewritten at another size) cannot be served by the graph: the graph so far is computed first.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backend/ggml/library.h"
#include "base/error.h"

namespace kz::ggml {

// An op or shape this driver or the device does not run: supports() answers false, and an op
// called anyway throws it.
class Refused : public Error {
 public:
  using Error::Error;
};

// Host-device traffic: graphs computed and their nodes; bytes copied in (activations, states,
// K/V prefixes) and back (results); weights used in place, copied to the device or repacked,
// once each.
struct Traffic {
  int64_t graphs = 0, nodes = 0;
  uint64_t to_device = 0, to_host = 0, weights_wrapped = 0, weights_uploaded = 0;
  uint64_t weights_repacked = 0;  // second copies in the device's own layout
};

class Recorder {
 public:
  Recorder(const Library& lib, const DeviceInfo& device, int n_threads, Traffic& traffic);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  const Api& api() const { return g_; }
  ggml_context* ctx() const { return probing_ ? probe_ctx_ : ctx_; }

  // Records one op: `build` reads inputs (input(), weight(), copy_in(), cache()), makes nodes in
  // ctx() and names its results with output(). With `corrupt`, each result is doubled (a test
  // fault). Throws kz::Error if the device does not run one of the nodes.
  void op(const std::function<void()>& build, bool corrupt = false);
  // Builds the op in a scratch context without recording it: whether the device runs every node.
  bool probe(const std::function<void()>& build);

  // The n elements of `type` at p, as a 1-D tensor (in this graph: the node that wrote them).
  ggml_tensor* input(const void* p, ggml_type type, int64_t n);
  ggml_tensor* input_f32(const float* p, int64_t n) { return input(p, GGML_TYPE_F32, n); }
  // Data the host made for this op (token ids, positions, masks): copied in, never looked up.
  ggml_tensor* copy_in(const void* p, ggml_type type, int64_t n);
  // A weight (rows of ne0 elements) made once and found again by address; `for_products`: only
  // ever the first operand of mul_mat, so it may take the device's own layout (repacked).
  ggml_tensor* weight(const void* p, ggml_type type, int64_t ne0, int64_t ne1,
                      bool for_products = false);
  // t (contiguous, ggml_nbytes(t) bytes) is the new value of host memory at p.
  void output(void* p, ggml_tensor* t);

  // One layer's K or V cache in this graph: ne = {head_dim, n_pos, n_head} of `type`, positions
  // [0, n_pos) of host cache `base` (head-major: head h's positions at base + h*n_ctx*row).
  struct Cache {
    ggml_tensor* t = nullptr;  // what attention reads (after any store)
    int64_t n_pos = 0;
  };
  // The cache as attention over [0, n_pos) reads it.
  ggml_tensor* cache_for_attention(void* base, ggml_type type, int64_t n_ctx, int head_dim,
                                   int n_head, int64_t n_pos);
  // Writes rows (f32 [n_tok][n_head][head_dim]) at positions pos0.. of the cache.
  void cache_store(void* base, ggml_type type, int64_t n_ctx, int head_dim, int n_head,
                   int64_t pos0, int64_t n_tok, ggml_tensor* rows);

  // Computes what was recorded and copies its results to host memory.
  void flush();
  void forget_weights();

 private:
  struct Written {  // host memory a node of this graph wrote
    uint8_t* host;
    uint64_t bytes;
    ggml_tensor* t;
  };
  struct HostCopy {  // what a leaf is filled with: shared memory read at flush(), else a copy
    ggml_tensor* t;
    std::vector<uint8_t> bytes;
    const uint8_t* shared = nullptr;
  };
  struct CacheWrite {  // a cache's new rows for one head: leaf bytes [offset, +bytes) -> host
    ggml_tensor* leaf;
    uint64_t offset;
    uint8_t* host;
    uint64_t bytes;
  };
  struct WeightKey {
    const void* p;
    uint64_t bytes;
    bool for_products;
    auto operator<=>(const WeightKey&) const = default;
  };

  void start_backend();
  void begin();
  void discard();
  void place_inputs();
  ggml_tensor* new_weight_tensor(ggml_type type, int64_t ne0, int64_t ne1);
  ggml_backend_buffer_t place_weight(ggml_backend_buffer_type_t buft, ggml_tensor* t);
  ggml_tensor* repacked_weight(const void* p, ggml_type type, int64_t ne0, int64_t ne1);
  ggml_tensor* new_leaf(ggml_type type, int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1);
  // The first node made since `lo` in t's sources (t included) that the device refuses.
  ggml_tensor* first_refused(ggml_tensor* t, const uint8_t* lo, const uint8_t* hi) const;
  ggml_tensor* first_refused_output(const uint8_t* lo) const;
  void commit(bool corrupt);

  const Api& g_;
  const DeviceInfo& device_;
  Traffic& traffic_;
  ggml_backend_t backend_ = nullptr;
  int n_threads_ = 1;
  // Mesa's lavapipe (22.x) reads every binding of a bound descriptor set, and ggml-vulkan reuses
  // its sets from graph to graph, rewriting only the bindings each kernel uses: a binding left
  // from an earlier graph that names a buffer freed since (a graph allocator or input buffer
  // outgrown, ggml-vulkan's own scratch regrown, weights forgotten) corrupts the heap. There
  // each graph runs on a backend context of its own, whose sets name only live buffers.
  bool context_per_graph_ = false;
  bool context_used_ = false;
  ggml_backend_buffer_type_t buft_ = nullptr;
  ggml_gallocr_t galloc_ = nullptr;

  // This graph: nodes in ctx_, copied-in leaves in io_ctx_.
  ggml_context* ctx_ = nullptr;
  ggml_context* io_ctx_ = nullptr;
  std::vector<uint8_t> node_memory_, io_memory_;  // their metadata: allocated once, reused
  ggml_cgraph* graph_ = nullptr;
  ggml_backend_buffer_t io_buffer_ = nullptr;  // the copied-in leaves of every graph
  uint64_t io_capacity_ = 0;
  int64_t io_tensors_ = 0;
  std::vector<HostCopy> copies_;
  std::vector<Written> written_;  // in the order the nodes wrote
  std::vector<CacheWrite> cache_writes_;
  std::map<void*, Cache> caches_;  // by host cache base
  bool must_finish_ = false;       // an output outside shared memory: flush after this op

  // The op being recorded.
  std::vector<std::pair<void*, ggml_tensor*>> outputs_;
  std::vector<std::pair<void*, Cache>> new_caches_;
  std::vector<CacheWrite> new_cache_writes_;
  ggml_context* probe_ctx_ = nullptr;
  bool probing_ = false;

  // Weights, made once.
  std::vector<ggml_context*> weight_ctxs_;
  int64_t weights_in_ctx_ = 0;
  std::vector<ggml_backend_buffer_t> weight_buffers_;
  std::map<WeightKey, ggml_tensor*> weights_;
  // The device's extra buffer types for weights (repacked layouts); $KAZEIA_GGML_NO_REPACK: none.
  std::vector<ggml_backend_buffer_type_t> extra_bufts_;
};

}  // namespace kz::ggml
