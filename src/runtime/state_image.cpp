#include "runtime/state_image.h"

#include <cstring>

#include "base/error.h"
#include "base/hash.h"

namespace kz {
namespace {

constexpr char kMagic[8] = {'K', 'Z', 'S', 'T', 'A', 'T', 'E', 0};
constexpr uint32_t kVersion = 2;  // 2: K/V caches head-major

class Writer {
 public:
  template <class T>
  void put(const T& v) {
    bytes(&v, sizeof(T));
  }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  std::vector<uint8_t> out;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}
  template <class T>
  T get(const char* what) {
    T v;
    bytes(&v, sizeof(T), what);
    return v;
  }
  void bytes(void* p, size_t n, const char* what) {
    if (n > in_.size() - pos_) fail("state image: truncated while reading ", what);
    if (n == 0) return;  // p may be null (an empty cache): memcpy's pointers must not be
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  size_t pos() const { return pos_; }

 private:
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

// The first n_past positions of each KV head of one cache ([n_kv_head][n_ctx][row]), in head
// order: f(offset, bytes) for each head's run.
template <class F>
void for_each_head_run(const SharedVector<uint8_t>& cache, const SequenceState& st, int64_t n_past,
                       F f) {
  if (st.n_ctx == 0 || st.n_kv_head == 0) return;
  const uint64_t head_stride = cache.size() / st.n_kv_head;
  const uint64_t used = uint64_t(n_past) * (head_stride / uint64_t(st.n_ctx));
  for (int h = 0; h < st.n_kv_head; ++h) f(h * head_stride, used);
}

void put_recurrent(Writer& w, const RecurrentStates& recur) {
  w.bytes(recur.floats().data(), recur.bytes());
}

void get_recurrent(Reader& r, RecurrentStates& recur) {
  r.bytes(recur.floats().data(), recur.bytes(), "recurrent state");
}

}  // namespace

std::vector<uint8_t> save_state_image(const Model& model, const SequenceState& st,
                                      std::span<const int32_t> tokens,
                                      std::span<const Checkpoint> checkpoints) {
  Writer w;
  w.bytes(kMagic, sizeof(kMagic));
  w.put(kVersion);
  w.put(uint64_t(0));  // total size, patched below
  w.put(model.fingerprint());
  w.put(static_cast<uint32_t>(st.k_type));
  w.put(static_cast<uint32_t>(st.v_type));
  w.put(st.n_past);
  w.put(uint64_t(tokens.size()));
  w.bytes(tokens.data(), tokens.size_bytes());
  for (const auto& a : st.attn) {
    for_each_head_run(a.k, st, st.n_past, [&](uint64_t at, uint64_t n) { w.bytes(&a.k[at], n); });
    for_each_head_run(a.v, st, st.n_past, [&](uint64_t at, uint64_t n) { w.bytes(&a.v[at], n); });
  }
  put_recurrent(w, st.recur);
  w.put(uint64_t(checkpoints.size()));
  for (const auto& c : checkpoints) {
    w.put(c.n_past);
    put_recurrent(w, c.recur);
  }
  const uint64_t total = w.out.size() + sizeof(uint64_t);
  std::memcpy(w.out.data() + sizeof(kMagic) + sizeof(kVersion), &total, sizeof(total));
  w.put(fnv1a(w.out.data(), w.out.size()));  // detects corruption, not an adversary
  return std::move(w.out);
}

RestoredState load_state_image(const Model& model, std::span<const uint8_t> image, int64_t n_ctx) {
  if (image.size() < sizeof(kMagic) + sizeof(uint64_t)) fail("state image: truncated header");
  if (std::memcmp(image.data(), kMagic, sizeof(kMagic)) != 0)
    fail("state image: not a Kazeia state (bad magic)");
  const auto body = image.first(image.size() - sizeof(uint64_t));
  uint64_t stored_sum;
  std::memcpy(&stored_sum, image.data() + body.size(), sizeof(stored_sum));

  Reader r(body);
  char magic[8];
  r.bytes(magic, sizeof(magic), "magic");
  const auto version = r.get<uint32_t>("version");
  if (version != kVersion)
    fail("state image: version ", version, " is not supported (expected ", kVersion, ")");
  const auto total = r.get<uint64_t>("size");
  if (total != image.size())
    fail("state image: truncated or padded (", image.size(), " bytes, header says ", total, ")");
  if (fnv1a(body.data(), body.size()) != stored_sum)
    fail("state image: checksum mismatch (corrupted)");
  if (r.get<uint64_t>("fingerprint") != model.fingerprint())
    fail("state image: saved from another model (fingerprint mismatch)");
  const auto k_type = static_cast<DType>(r.get<uint32_t>("k type"));
  const auto v_type = static_cast<DType>(r.get<uint32_t>("v type"));
  if (!dtype_info(uint32_t(k_type)) || !dtype_info(uint32_t(v_type)))
    fail("state image: invalid KV cache type");
  const auto n_past = r.get<int64_t>("position");
  const auto n_tokens = r.get<uint64_t>("token count");
  if (n_past < 0 || uint64_t(n_past) != n_tokens)
    fail("state image: position ", n_past, " does not match its ", n_tokens, " tokens");
  if (n_past > n_ctx)
    fail("state image: holds ", n_past, " tokens, more than the context size ", n_ctx);

  RestoredState out;
  out.state = model.new_state(n_ctx, k_type, v_type);
  out.tokens.resize(n_tokens);
  r.bytes(out.tokens.data(), n_tokens * sizeof(int32_t), "tokens");
  for (int32_t t : out.tokens)
    if (t < 0 || t >= model.info().n_vocab) fail("state image: token id ", t, " out of range");
  SequenceState& st = out.state;
  st.n_past = n_past;
  for (auto& a : st.attn) {
    for_each_head_run(a.k, st, n_past,
                      [&](uint64_t at, uint64_t n) { r.bytes(&a.k[at], n, "K cache"); });
    for_each_head_run(a.v, st, n_past,
                      [&](uint64_t at, uint64_t n) { r.bytes(&a.v[at], n, "V cache"); });
  }
  get_recurrent(r, st.recur);
  const auto n_checkpoints = r.get<uint64_t>("checkpoint count");
  const uint64_t checkpoint_bytes = st.fixed_bytes() + sizeof(int64_t);
  if (n_checkpoints > (body.size() - r.pos()) / checkpoint_bytes)
    fail("state image: truncated checkpoints");
  for (uint64_t i = 0; i < n_checkpoints; ++i) {
    Checkpoint c;
    c.n_past = r.get<int64_t>("checkpoint position");
    const int64_t prev = out.checkpoints.empty() ? -1 : out.checkpoints.back().n_past;
    if (c.n_past <= prev || c.n_past > n_past)
      fail("state image: checkpoint position ", c.n_past, " out of order");
    c.recur = st.recur;  // right sizes; overwritten below
    get_recurrent(r, c.recur);
    out.checkpoints.push_back(std::move(c));
  }
  if (r.pos() != body.size()) fail("state image: ", body.size() - r.pos(), " unexpected bytes");
  return out;
}

}  // namespace kz
