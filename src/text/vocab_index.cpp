#include "text/vocab_index.h"

#include <algorithm>
#include <bit>
#include <functional>

namespace kz {
namespace {

uint32_t hash_text(std::string_view s) {
  const uint64_t h = std::hash<std::string_view>{}(s);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

uint64_t mix(uint64_t x) {  // splitmix64 finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

size_t capacity_for(size_t n) {
  return std::bit_ceil(std::max<size_t>(16, n * 2));
}

}  // namespace

void TextIndex::rehash(size_t capacity) {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(capacity, 0);
  const size_t mask = capacity - 1;
  for (uint64_t s : old) {
    if (s == 0) continue;
    size_t i = (s >> 32) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void TextIndex::build(std::span<const std::string> texts) {
  slots_.clear();
  size_ = 0;
  rehash(capacity_for(texts.size()));
  const size_t mask = slots_.size() - 1;
  for (size_t id = 0; id < texts.size(); ++id) {
    const uint32_t h = hash_text(texts[id]);
    const uint64_t slot = (uint64_t{h} << 32) | (id + 1);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const uint64_t s = slots_[i];
      if (s == 0) {
        slots_[i] = slot;
        ++size_;
        break;
      }
      if ((s >> 32) == h && texts[(s & 0xFFFFFFFFu) - 1] == texts[id]) {
        slots_[i] = slot;  // repeated text: the last id wins
        break;
      }
    }
  }
}

bool TextIndex::insert(int32_t id, std::span<const std::string> texts) {
  if (find(texts[id], texts) >= 0) return false;
  if ((size_ + 1) * 2 > slots_.size()) rehash(capacity_for(size_ + 1));
  const uint32_t h = hash_text(texts[id]);
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i] != 0) i = (i + 1) & mask;
  slots_[i] = (uint64_t{h} << 32) | (static_cast<uint32_t>(id) + 1);
  ++size_;
  return true;
}

int32_t TextIndex::find(std::string_view text, std::span<const std::string> texts) const {
  if (slots_.empty()) return -1;
  const uint32_t h = hash_text(text);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint64_t s = slots_[i];
    if (s == 0) return -1;
    if ((s >> 32) != h) continue;
    const auto id = static_cast<int32_t>((s & 0xFFFFFFFFu) - 1);
    if (texts[id] == text) return id;
  }
}

void MergeTable::reserve(size_t n) {
  if (capacity_for(n) > slots_.size()) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(capacity_for(n));
    size_ = 0;
    for (const Slot& s : old) {
      if (s.key != kEmpty) insert(s.key >> 32, s.key & 0xFFFFFFFFu, s.merge);
    }
  }
}

bool MergeTable::insert(int32_t left, int32_t right, BpeMerge m) {
  if ((size_ + 1) * 2 > slots_.size()) reserve(size_ + 1);
  const uint64_t key = (uint64_t{static_cast<uint32_t>(left)} << 32) | static_cast<uint32_t>(right);
  const size_t mask = slots_.size() - 1;
  for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i].key == key) return false;
    if (slots_[i].key == kEmpty) {
      slots_[i] = {key, m};
      ++size_;
      return true;
    }
  }
}

const BpeMerge* MergeTable::find(int32_t left, int32_t right) const {
  if (slots_.empty()) return nullptr;
  const uint64_t key = (uint64_t{static_cast<uint32_t>(left)} << 32) | static_cast<uint32_t>(right);
  const size_t mask = slots_.size() - 1;
  for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i].key == key) return &slots_[i].merge;
    if (slots_[i].key == kEmpty) return nullptr;
  }
}

}  // namespace kz
