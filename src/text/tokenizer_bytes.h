// Byte-level alphabet of GPT-2 style BPE (tokenizer.md §3.3, llama.cpp
// `unicode_byte_to_utf8_map`): every byte is written as one printable code point, so that the
// vocabulary and merges are plain Unicode strings. Bytes 0x21-0x7E, 0xA1-0xAC and 0xAE-0xFF map to
// themselves; the other 68 bytes, in increasing order, to U+0100..U+0143.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kz {

uint32_t byte_to_cpt(uint8_t b);
int cpt_to_byte(uint32_t cpt);  // -1 if `cpt` is not in the alphabet

// Appends the UTF-8 of byte_to_cpt(b) for every byte b of `bytes`.
void append_byte_encoded(std::string& out, std::string_view bytes);

}  // namespace kz
