// Flat open-addressing hash tables for the vocabulary: 150k-entry std::unordered_maps cost one
// allocation per node and several cache misses per lookup, which made loading a Qwen vocabulary
// take ~0.5 s; these tables take a few contiguous arrays.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kz {

// text -> id over texts stored elsewhere (the caller passes them to every call).
class TextIndex {
 public:
  // Indexes texts[0..n); for a repeated text the last id wins (as llama.cpp's token_to_id).
  void build(std::span<const std::string> texts);
  // Adds texts[id]; returns false (and changes nothing) if an equal text is already indexed.
  bool insert(int32_t id, std::span<const std::string> texts);
  int32_t find(std::string_view text, std::span<const std::string> texts) const;  // -1 if absent
  size_t size() const { return size_; }

 private:
  void rehash(size_t capacity);
  // Slot: hash in the high 32 bits, id + 1 in the low 32 bits; 0 = empty.
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

struct BpeMerge {
  int32_t rank;    // index in tokenizer.ggml.merges (lower merges first)
  int32_t result;  // symbol id of left + right
};

// (left symbol id, right symbol id) -> merge.
class MergeTable {
 public:
  void reserve(size_t n);
  bool insert(int32_t left, int32_t right, BpeMerge m);  // false if the pair exists (kept)
  const BpeMerge* find(int32_t left, int32_t right) const;
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key = kEmpty;
    BpeMerge merge{};
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // ids are >= 0, so no real key has it
  void grow();
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace kz
