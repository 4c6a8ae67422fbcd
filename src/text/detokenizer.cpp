#include "text/detokenizer.h"

#include "text/tokenizer_utf8.h"

namespace kz {

std::string Detokenizer::push(int32_t id) {
  pending_ += tokenizer_->token_to_piece(id, special_);
  return drain(false);
}

std::string Detokenizer::flush() {
  return drain(true);
}

std::string Detokenizer::drain(bool final) {
  std::string out;
  size_t i = 0;
  while (i < pending_.size()) {
    size_t len = 0;
    const Utf8Status st = next_utf8(std::string_view(pending_).substr(i), len);
    if (st == Utf8Status::kIncomplete && !final) break;
    if (st == Utf8Status::kComplete) {
      out.append(pending_, i, len);
    } else {
      append_utf8(out, kReplacementChar);
      if (st == Utf8Status::kIncomplete) len = pending_.size() - i;  // at the end of the stream
    }
    i += len;
  }
  pending_.erase(0, i);
  return out;
}

}  // namespace kz
