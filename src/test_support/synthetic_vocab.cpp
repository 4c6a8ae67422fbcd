#include "test_support/synthetic_vocab.h"

#include <algorithm>
#include <climits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/error.h"
#include "test_support/synthetic_random.h"

namespace kz {

const char* const kSyntheticChatTemplate =
    "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

namespace {

constexpr uint64_t kVocabSeed = 0x5EED0F5B9E5ull;  // the vocabulary does not depend on the seed
constexpr size_t kMaxTokenBytes = 16;

// Byte b -> its code point in the byte-level alphabet (tokenizer.md §3.3).
uint32_t byte_code_point(int b) {
  if ((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE) return uint32_t(b);
  uint32_t n = 0;  // rank of b among the remapped bytes
  for (int x = 0; x < b; ++x)
    if (!((x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || x >= 0xAE)) ++n;
  return 0x100 + n;
}

std::string utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += char(cp);
  } else {  // the alphabet ends at U+0143
    s += char(0xC0 | (cp >> 6));
    s += char(0x80 | (cp & 0x3F));
  }
  return s;
}

class VocabBuilder {
 public:
  explicit VocabBuilder(SyntheticVocab& v) : v_(v), rng_(kVocabSeed) {
    // Byte tokens ordered by code point: the printable bytes, then the remapped ones.
    std::vector<std::pair<uint32_t, int>> order;
    for (int b = 0; b < 256; ++b) order.push_back({byte_code_point(b), b});
    std::sort(order.begin(), order.end());
    for (auto [cp, b] : order) {
      byte_token_[b] = int32_t(v_.tokens.size());
      add_token(utf8(cp), {uint8_t(b)});
    }
    for (int c = 'a'; c <= 'z'; ++c) words_.push_back(byte_token_[c]);
    for (int c = 'A'; c <= 'Z'; ++c) words_.push_back(byte_token_[c]);
    spaced_.push_back(byte_token_[uint8_t(' ')]);
  }

  void add_merges(int64_t count) {
    const int64_t max_attempts = 64 * count + 100000;
    int64_t added = 0;
    for (int64_t attempt = 0; added < count; ++attempt) {
      if (attempt >= max_attempts)
        fail("synthetic vocabulary: could not build ", count, " merges (", added, " built)");
      if (try_merge()) ++added;
    }
  }

 private:
  void add_token(std::string text, std::vector<uint8_t> bytes) {
    texts_.insert(text);
    v_.tokens.push_back(std::move(text));
    v_.token_types.push_back(1);
    bytes_.push_back(std::move(bytes));
  }

  // An index biased towards the start of a pool (short, early tokens): word-like growth.
  int32_t pick(const std::vector<int32_t>& pool, int power) {
    float u = rng_.uniform(), p = u;
    for (int i = 1; i < power; ++i) p *= u;
    return pool[size_t(p * float(pool.size())) % pool.size()];
  }

  bool try_merge() {
    const bool spaced = rng_.uniform() < 0.3f;
    const int32_t left = pick(spaced ? spaced_ : words_, 2);
    const int32_t right = pick(words_, 3);
    const std::string text = v_.tokens[left] + v_.tokens[right];
    if (texts_.count(text)) return false;
    std::vector<uint8_t> bytes = bytes_[left];
    bytes.insert(bytes.end(), bytes_[right].begin(), bytes_[right].end());
    if (bytes.size() > kMaxTokenBytes) return false;
    // The new merge has the lowest priority, so BPE builds the new token iff the older merges
    // reduce its bytes to exactly (left, right); older tokens are unaffected.
    std::vector<int32_t> syms;
    for (uint8_t b : bytes) syms.push_back(byte_token_[b]);
    reduce(syms);
    if (syms.size() != 2 || syms[0] != left || syms[1] != right) return false;

    const int32_t id = int32_t(v_.tokens.size());
    ranks_[key(left, right)] = {int32_t(v_.merges.size()), id};
    v_.merges.push_back(v_.tokens[left] + " " + v_.tokens[right]);
    add_token(text, std::move(bytes));
    (spaced ? spaced_ : words_).push_back(id);
    return true;
  }

  // BPE (tokenizer.md §3.4): repeatedly merge the lowest-rank adjacent pair, leftmost first.
  void reduce(std::vector<int32_t>& syms) const {
    for (;;) {
      size_t best = syms.size();
      Merge best_merge{INT32_MAX, -1};
      for (size_t i = 0; i + 1 < syms.size(); ++i) {
        auto it = ranks_.find(key(syms[i], syms[i + 1]));
        if (it != ranks_.end() && it->second.rank < best_merge.rank) {
          best = i;
          best_merge = it->second;
        }
      }
      if (best == syms.size()) return;
      syms[best] = best_merge.result;
      syms.erase(syms.begin() + best + 1);
    }
  }

  static uint64_t key(int32_t a, int32_t b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }

  struct Merge {
    int32_t rank, result;
  };
  SyntheticVocab& v_;
  SplitMix64 rng_;
  int32_t byte_token_[256] = {};
  std::vector<std::vector<uint8_t>> bytes_;  // raw bytes of each token
  std::unordered_set<std::string> texts_;
  std::unordered_map<uint64_t, Merge> ranks_;
  std::vector<int32_t> words_;   // letter runs: left or right of a merge
  std::vector<int32_t> spaced_;  // a space then letters: left of a merge
};

}  // namespace

SyntheticVocab synthetic_vocab(int64_t n_vocab) {
  if (n_vocab < kMinSyntheticVocab)
    fail("synthetic vocabulary: n_vocab = ", n_vocab, " is below the minimum ", kMinSyntheticVocab,
         " (256 bytes + 5 special tokens)");
  SyntheticVocab v;
  v.tokens.reserve(n_vocab);
  {
    VocabBuilder b(v);
    b.add_merges(n_vocab - kMinSyntheticVocab);
  }
  auto special = [&](const char* text, int32_t type) {
    v.tokens.push_back(text);
    v.token_types.push_back(type);
    return int32_t(v.tokens.size() - 1);
  };
  v.endoftext = special("<|endoftext|>", 3);
  v.im_start = special("<|im_start|>", 3);
  v.im_end = special("<|im_end|>", 3);
  v.think = special("<think>", 4);
  v.end_think = special("</think>", 4);
  return v;
}

}  // namespace kz
