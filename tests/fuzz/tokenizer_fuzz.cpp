// libFuzzer entry for the tokenizer (text/tokenizer.h) with the fixtures' real Qwen3 and Qwen3.5
// tokenizers: any bytes, encoded as plain text and with control tokens parsed, by both. Every id
// lies in the vocabulary; plain text never yields a control token; valid UTF-8 decodes back to
// itself, at once and streamed through the Detokenizer; invalid UTF-8 is tokenized as the
// header documents (each invalid byte as U+FFFD), so the text it decodes to encodes to the same
// ids; streamed output is always valid UTF-8. Built with -DKAZEIA_FUZZ=ON (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_tokenizers.h"
#include "text/detokenizer.h"
#include "text/tokenizer_utf8.h"

namespace {

[[noreturn]] void violated(const char* tokenizer, const char* what) {
  std::fprintf(stderr, "tokenizer_fuzz: %s tokenizer: %s\n", tokenizer, what);
  std::abort();
}

void check(const kz::Tokenizer& t, const char* name, std::string_view text) {
  const std::vector<int32_t> plain = t.encode(text, false);
  for (int32_t id : plain) {
    if (id < 0 || id >= t.vocab().n_vocab()) violated(name, "an id outside the vocabulary");
    if (kz::fuzz::is_control(t, id)) violated(name, "plain text gave a control token");
  }
  const std::string decoded = t.decode(plain, false);
  // Parsed control tokens come back as their text: the same bytes.
  if (t.decode(t.encode(text, true), true) != decoded)
    violated(name, "parsing control tokens changed the decoded text");

  kz::Detokenizer stream(t);
  std::string shown;
  for (int32_t id : plain) shown += stream.push(id);
  shown += stream.flush();
  if (!kz::is_valid_utf8(shown)) violated(name, "streamed output is not valid UTF-8");

  if (kz::is_valid_utf8(text)) {
    if (decoded != text) violated(name, "valid UTF-8 did not decode to itself");
    if (shown != text) violated(name, "valid UTF-8 streamed back differently");
  } else if (t.encode(decoded, false) != plain) {
    violated(name, "the cleaned-up text of invalid UTF-8 tokenizes differently");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy, so any read past the end is a heap overflow the sanitizer reports.
  const std::vector<char> copy(data, data + size);
  const std::string_view text(copy.data(), copy.size());
  check(kz::fuzz::qwen3_tokenizer(), "Qwen3", text);
  check(kz::fuzz::qwen35_tokenizer(), "Qwen3.5", text);
  return 0;
}
