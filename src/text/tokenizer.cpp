#include "text/tokenizer.h"

#include <algorithm>

#include "base/error.h"
#include "text/tokenizer_bpe.h"
#include "text/tokenizer_bytes.h"
#include "text/tokenizer_utf8.h"

namespace kz {

Tokenizer::Tokenizer(Vocab vocab) : vocab_(std::move(vocab)), pre_(vocab_.pre) {}

// llama.cpp `tokenizer_st_partition`: each special token, longest first, splits every raw
// fragment at each of its occurrences (left to right, non-overlapping).
std::vector<Tokenizer::Fragment> Tokenizer::partition(std::string_view text,
                                                      bool parse_special) const {
  std::vector<Fragment> frags;
  if (!text.empty()) frags.push_back({-1, 0, text.size()});
  std::vector<Fragment> next;
  for (int32_t id : vocab_.special_tokens) {
    const TokenType type = vocab_.types[id];
    // Without parse_special only USER_DEFINED tokens are matched (HF added non-special tokens).
    if (!parse_special && (type == TokenType::kControl || type == TokenType::kUnknown)) continue;
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
      for (size_t hit; (hit = raw.find(tok, pos)) != std::string_view::npos;) {
        found = true;
        if (hit > pos) next.push_back({-1, pos, hit});
        next.push_back({id, hit, hit + tok.size()});
        pos = hit + tok.size();
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
  std::vector<int32_t> out;
  if (add_special && vocab_.add_bos && vocab_.special.bos >= 0) out.push_back(vocab_.special.bos);
  for (const Fragment& f : partition(text, parse_special)) {
    if (f.token >= 0) {
      out.push_back(f.token);
    } else {
      encode_raw(text.substr(f.begin, f.end - f.begin), out);
    }
  }
  if (add_special && vocab_.add_eos && vocab_.special.eos >= 0) out.push_back(vocab_.special.eos);
  return out;
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
