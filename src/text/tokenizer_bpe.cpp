#include "text/tokenizer_bpe.h"

#include <algorithm>

#include "text/tokenizer_bytes.h"

namespace kz {
namespace {

// std heap functions build a max-heap: "a < b" means a is popped after b.
bool later(const auto& a, const auto& b) {
  return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
}

size_t utf8_len(uint8_t lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

}  // namespace

void BpeEncoder::push_pair(int32_t left) {
  const int32_t right = symbols_[left].next;
  if (right < 0) return;
  const int32_t l = symbols_[left].id, r = symbols_[right].id;
  if (l < 0 || r < 0) return;
  const BpeMerge* m = vocab_.merges.find(l, r);
  if (m == nullptr) return;
  heap_.push_back({m->rank, left, l, r, m->result});
  std::push_heap(heap_.begin(), heap_.end(), [](auto& a, auto& b) { return later(a, b); });
}

void BpeEncoder::encode(std::string_view pretoken, std::vector<int32_t>& out) {
  mapped_.clear();
  append_byte_encoded(mapped_, pretoken);
  symbols_.clear();
  heap_.clear();
  // Initial symbols: the code points of the mapped text (1 or 2 bytes each).
  for (uint32_t i = 0; i < mapped_.size();) {
    const auto len = static_cast<uint32_t>(utf8_len(static_cast<uint8_t>(mapped_[i])));
    const auto n = static_cast<int32_t>(symbols_.size());
    symbols_.push_back(
        {vocab_.symbol_id(std::string_view(mapped_).substr(i, len)), n - 1, n + 1, i, len});
    i += len;
  }
  if (symbols_.empty()) return;
  symbols_.back().next = -1;
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(symbols_.size()); ++i) push_pair(i);

  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), [](auto& a, auto& b) { return later(a, b); });
    const Pair p = heap_.back();
    heap_.pop_back();
    Symbol& left = symbols_[p.left];
    // Stale entry: a side was merged since (llama.cpp compares the texts; symbols only grow, so
    // comparing ids and adjacency is the same test). Merged-away symbols have len 0.
    if (left.len == 0 || left.id != p.left_id || left.next < 0) continue;
    Symbol& right = symbols_[left.next];
    if (right.id != p.right_id) continue;
    left.id = p.result;
    left.len += right.len;
    left.next = right.next;
    if (right.next >= 0) symbols_[right.next].prev = p.left;
    right.len = 0;
    if (left.prev >= 0) push_pair(left.prev);
    push_pair(p.left);
  }
  for (int32_t i = 0; i >= 0; i = symbols_[i].next) emit(symbols_[i], out);
}

void BpeEncoder::emit(const Symbol& s, std::vector<int32_t>& out) const {
  if (s.id >= 0 && s.id < vocab_.n_vocab()) {
    out.push_back(s.id);
    return;
  }
  // Not a token (only with an inconsistent vocabulary): llama.cpp looks up each byte of the
  // symbol's text as a 1-byte token and drops the bytes that are not.
  for (size_t k = 0; k < s.len; ++k) {
    const int32_t id = vocab_.symbol_id(std::string_view(mapped_).substr(s.begin + k, 1));
    if (id >= 0 && id < vocab_.n_vocab()) out.push_back(id);
  }
}

}  // namespace kz
