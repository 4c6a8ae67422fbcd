#include "text/tokenizer_utf8.h"

namespace kz {

void append_utf8(std::string& out, uint32_t cpt) {
  if (cpt < 0x80) {
    out += static_cast<char>(cpt);
  } else if (cpt < 0x800) {
    out += static_cast<char>(0xC0 | (cpt >> 6));
    out += static_cast<char>(0x80 | (cpt & 0x3F));
  } else if (cpt < 0x10000) {
    out += static_cast<char>(0xE0 | (cpt >> 12));
    out += static_cast<char>(0x80 | ((cpt >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cpt & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cpt >> 18));
    out += static_cast<char>(0x80 | ((cpt >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cpt >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cpt & 0x3F));
  }
}

namespace {

bool is_surrogate(uint32_t cpt) {
  return cpt >= 0xD800 && cpt <= 0xDFFF;
}

}  // namespace

RegexInput to_regex_input(std::string_view text) {
  RegexInput r;
  r.bpe.reserve(text.size());
  bool has_surrogate = false;
  for (size_t i = 0; i < text.size();) {
    const uint32_t cpt = next_cpt_lenient(text, i);
    has_surrogate |= is_surrogate(cpt);
    append_utf8(r.bpe, cpt);
  }
  if (!has_surrogate) return r;
  for (size_t i = 0; i < r.bpe.size();) {
    const uint32_t cpt = next_cpt_lenient(r.bpe, i);
    append_utf8(r.match, is_surrogate(cpt) ? kReplacementChar : cpt);
  }
  return r;
}

Utf8Status next_utf8(std::string_view s, size_t& len) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  size_t need = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte (Unicode Table 3-7)
  if (b0 < 0x80) {
    len = 1;
    return Utf8Status::kComplete;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    len = 1;
    return Utf8Status::kInvalid;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (k >= s.size()) return Utf8Status::kIncomplete;
    const auto b = static_cast<uint8_t>(s[k]);
    const bool ok = k == 1 ? (b >= lo && b <= hi) : is_utf8_continuation(b);
    if (!ok) {
      len = k;
      return Utf8Status::kInvalid;
    }
  }
  len = need + 1;
  return Utf8Status::kComplete;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t len = 0;
    if (next_utf8(s.substr(i), len) != Utf8Status::kComplete) return false;
    i += len;
  }
  return true;
}

}  // namespace kz
