#include "text/tokenizer.h"

#include <algorithm>
#include <iterator>

#include "base/error.h"
#include "text/tokenizer_bpe.h"
#include "text/tokenizer_bytes.h"
#include "text/tokenizer_utf8.h"

namespace kz {

Tokenizer::Tokenizer(Vocab vocab) : vocab_(std::move(vocab)), pre_(vocab_.pre) {}

namespace {

// Whether [begin, end) lies inside one of the sorted spans.
bool inside(std::span<const TextSpan> spans, size_t begin, size_t end) {
  auto it = std::upper_bound(spans.begin(), spans.end(), begin,
                             [](size_t pos, const TextSpan& s) { return pos < s.begin; });
  return it != spans.begin() && end <= std::prev(it)->end;
}

}  // namespace

// llama.cpp `tokenizer_st_partition`: each special token, longest first, splits every raw
// fragment at each of its occurrences (left to right, non-overlapping); CONTROL and UNKNOWN
// tokens only where `special` allows them.
std::vector<Tokenizer::Fragment> Tokenizer::partition(std::string_view text,
                                                      std::span<const TextSpan> special) const {
  std::vector<Fragment> frags;
  if (!text.empty()) frags.push_back({-1, 0, text.size()});
  std::vector<Fragment> next;
  for (int32_t id : vocab_.special_tokens) {
    const TokenType type = vocab_.types[id];
    // USER_DEFINED tokens match everywhere (HF's added non-special tokens).
    const bool control = type == TokenType::kControl || type == TokenType::kUnknown;
    if (control && special.empty()) continue;
    const std::string& tok = vocab_.tokens[id];
    next.clear();
    bool found = false;
    for (const Fragment& f : frags) {
      if (f.token >= 0) {
        next.push_back(f);
        continue;
      }
      size_t pos = f.begin;
      const std::string_view raw = text.substr(0, f.end);
      size_t from = pos;  // where the next search starts; a refused hit stays raw text
      for (size_t hit; (hit = raw.find(tok, from)) != std::string_view::npos;) {
        if (control && !inside(special, hit, hit + tok.size())) {
          from = hit + 1;
          continue;
        }
        found = true;
        if (hit > pos) next.push_back({-1, pos, hit});
        next.push_back({id, hit, hit + tok.size()});
        pos = from = hit + tok.size();
      }
      if (pos < f.end) next.push_back({-1, pos, f.end});
    }
    if (found) frags.swap(next);
  }
  return frags;
}

void Tokenizer::encode_raw(std::string_view text, std::vector<int32_t>& out) const {
  const RegexInput input = to_regex_input(text);
  const std::vector<size_t> ends = pre_.split(input.regex_view());
  BpeEncoder bpe(vocab_);
  size_t begin = 0;
  for (size_t end : ends) {
    bpe.encode(std::string_view(input.bpe).substr(begin, end - begin), out);
    begin = end;
  }
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool parse_special,
                                       bool add_special) const {
  const TextSpan whole{0, text.size()};
  std::vector<int32_t> out;
  if (add_special && vocab_.add_bos && vocab_.special.bos >= 0) out.push_back(vocab_.special.bos);
  encode_into(text,
              parse_special ? std::span<const TextSpan>(&whole, 1) : std::span<const TextSpan>(),
              out);
  if (add_special && vocab_.add_eos && vocab_.special.eos >= 0) out.push_back(vocab_.special.eos);
  return out;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text,
                                       std::span<const TextSpan> special) const {
  std::vector<int32_t> out;
  encode_into(text, special, out);
  return out;
}

void Tokenizer::encode_into(std::string_view text, std::span<const TextSpan> special,
                            std::vector<int32_t>& out) const {
  for (const Fragment& f : partition(text, special)) {
    if (f.token >= 0) {
      out.push_back(f.token);
    } else {
      encode_raw(text.substr(f.begin, f.end - f.begin), out);
    }
  }
}

// llama.cpp `token_to_piece` (BPE branch) and `llama_decode_text`.
std::string Tokenizer::token_to_piece(int32_t id, bool special) const {
  if (id < 0 || id >= vocab_.n_vocab()) {
    fail("token id ", id, " is outside the vocabulary [0, ", vocab_.n_vocab(), ")");
  }
  const std::string& text = vocab_.tokens[id];
  switch (vocab_.types[id]) {
    case TokenType::kControl:
    case TokenType::kUnknown:
      return special ? text : std::string();
    case TokenType::kUserDefined:
      return text;
    case TokenType::kNormal:
      break;
    default:  // UNDEFINED, UNUSED, BYTE: llama.cpp suppresses them like CONTROL tokens
      return std::string();
  }
  std::string bytes;
  for (size_t i = 0; i < text.size();) {
    const uint32_t cpt = next_cpt_lenient(text, i);
    if (const int b = cpt_to_byte(cpt); b >= 0) {
      bytes += static_cast<char>(b);
      continue;
    }
    // A code point outside the byte alphabet: llama.cpp writes this marker (with the whole
    // token text, as it does).
    std::string utf8;
    append_utf8(utf8, cpt);
    bytes += "[UNK_BYTE_0x";
    for (char c : utf8) {
      bytes += "0123456789abcdef"[static_cast<uint8_t>(c) >> 4];
      bytes += "0123456789abcdef"[static_cast<uint8_t>(c) & 15];
    }
    bytes += text + "]";
  }
  return bytes;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool special) const {
  std::string out;
  for (int32_t id : ids) out += token_to_piece(id, special);
  return out;
}

bool Tokenizer::is_end_of_generation(int32_t id) const {
  return std::binary_search(vocab_.end_of_generation.begin(), vocab_.end_of_generation.end(), id);
}

int32_t Tokenizer::find_token(std::string_view text) const {
  return vocab_.token_id(text);
}

}  // namespace kz
