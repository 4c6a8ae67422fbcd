// Special tokens of a vocabulary: ids from GGUF keys, ids recognised by their text, the
// end-of-generation set and the list the special-token partition searches (tokenizer.md §1-§3.1).
#pragma once

#include "text/vocab.h"

namespace kz {

// Fills v.special, v.add_bos/add_eos, v.end_of_generation and v.special_tokens, and overrides
// the type of end-of-generation tokens to CONTROL (as llama.cpp). Needs tokens and types loaded.
void load_special_tokens(const gguf::File& f, Vocab& v);

}  // namespace kz
