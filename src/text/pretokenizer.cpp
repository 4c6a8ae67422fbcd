#include "text/pretokenizer.h"

#include "text/tokenizer_utf8.h"
#include "text/unicode_tables.h"

namespace kz {
namespace {

// A decoded code point; past the end of the text: len 0, no flags.
struct Cpt {
  char32_t c;
  uint8_t flags;
  uint8_t len;
};

bool is_cr_lf(char32_t c) {
  return c == '\r' || c == '\n';
}

char32_t ascii_lower(char32_t c) {
  return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

// The alternatives of the qwen2 / qwen35 regexes (tokenizer.md §3.2), tried in order at each
// position, with the decisions of llama.cpp's hand-written matchers.
class Matcher {
 public:
  Matcher(std::string_view text, bool marks)
      : text_(text),
        word_(marks ? kUnicodeLetter | kUnicodeMark : kUnicodeLetter),
        stop_(kUnicodeSpace | kUnicodeNumber | word_) {}

  // The end of the piece that starts at `pos` (< text size); always past `pos`.
  size_t piece_end(size_t pos) {
    const Cpt cur = at(pos);
    const size_t next = pos + cur.len;

    // (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]); the letters are 1-byte ASCII.
    if (cur.c == '\'') {
      const char32_t c1 = ascii_lower(at(next).c);
      if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') return next + 1;
      const char32_t c2 = ascii_lower(at(next + 1).c);
      if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) {
        return next + 2;
      }
    }

    // [^\r\n\p{L}\p{N}]?\p{L}+ (qwen35: [\p{L}\p{M}]+): a word, with any one code point but
    // CR, LF or a number before it.
    if (!is_cr_lf(cur.c) && !(cur.flags & kUnicodeNumber)) {
      Cpt c = at(next);
      if ((cur.flags & word_) || (c.flags & word_)) {
        size_t end = next;
        for (; c.flags & word_; c = at(end)) end += c.len;
        return end;
      }
    }

    // \p{N}: one number, never grouped.
    if (cur.flags & kUnicodeNumber) return next;

    // " ?[^\s\p{L}\p{N}]+[\r\n]*" (qwen35: not \p{M} either): punctuation, symbols, ...
    size_t end = cur.c == ' ' ? next : pos;
    Cpt c = at(end);
    if (c.len != 0 && !(c.flags & stop_)) {
      do {
        end += c.len;
        c = at(end);
      } while (c.len != 0 && !(c.flags & stop_));
      for (; is_cr_lf(c.c); c = at(end)) end += c.len;
      return end;
    }

    // What is left starts with a space (any other code point was taken above):
    // \s*[\r\n]+ | \s+(?!\S) | \s+
    end = pos;
    size_t last = pos;       // start of the run's last space
    size_t cr_lf_end = pos;  // end of the run's last CR or LF, if any
    for (c = cur; c.flags & kUnicodeSpace; c = at(end)) {
      last = end;
      end += c.len;
      if (is_cr_lf(c.c)) cr_lf_end = end;
    }
    if (cr_lf_end != pos) return cr_lf_end;
    // Before a non-space, a run of two or more leaves its last space to the next piece.
    if (last != pos && end < text_.size()) return last;
    return end;
  }

 private:
  Cpt at(size_t pos) {
    if (pos >= text_.size()) return {0, 0, 0};
    const auto b0 = static_cast<uint8_t>(text_[pos]);
    if (b0 < 0x80) return {b0, kUnicodeAsciiFlags[b0], 1};
    size_t i = pos;
    const char32_t c = next_cpt_lenient(text_, i);
    // Text mostly stays in one script, so the last run often holds the next code point too.
    if (c - run_.first > run_.last - run_.first) run_ = unicode_run(c);
    return {c, run_.flags, static_cast<uint8_t>(i - pos)};
  }

  std::string_view text_;
  uint8_t word_;
  uint8_t stop_;
  UnicodeRun run_ = unicode_run(kReplacementChar);
};

}  // namespace

std::vector<size_t> PreTokenizer::split(std::string_view text) const {
  std::vector<size_t> ends;
  // Pieces average 4-5 bytes in prose and code (more in CJK): one allocation for most texts,
  // where growing by doubling would copy the offsets ~20 times for 1 MB.
  ends.reserve(text.size() / 4 + 1);
  Matcher m(text, marks_);
  for (size_t pos = 0; pos < text.size();) {
    pos = m.piece_end(pos);
    ends.push_back(pos);
  }
  return ends;
}

}  // namespace kz
