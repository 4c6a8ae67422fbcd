#include "text/tokenizer_bytes.h"

#include <array>

#include "text/tokenizer_utf8.h"

namespace kz {
namespace {

constexpr bool maps_to_itself(int b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

constexpr std::array<uint16_t, 256> make_byte_table() {
  std::array<uint16_t, 256> t{};
  uint16_t next = 0x100;
  for (int b = 0; b < 256; ++b) t[b] = maps_to_itself(b) ? b : next++;
  return t;
}
constexpr std::array<uint16_t, 256> kByteToCpt = make_byte_table();

constexpr std::array<int16_t, 0x144> make_cpt_table() {
  std::array<int16_t, 0x144> t{};
  for (auto& x : t) x = -1;
  for (int b = 0; b < 256; ++b) t[kByteToCpt[b]] = static_cast<int16_t>(b);
  return t;
}
constexpr std::array<int16_t, 0x144> kCptToByte = make_cpt_table();
static_assert(kByteToCpt[0x20] == 0x120 && kByteToCpt[0x0A] == 0x10A && kByteToCpt[0xAD] == 0x143);

}  // namespace

uint32_t byte_to_cpt(uint8_t b) {
  return kByteToCpt[b];
}

int cpt_to_byte(uint32_t cpt) {
  return cpt < kCptToByte.size() ? kCptToByte[cpt] : -1;
}

void append_byte_encoded(std::string& out, std::string_view bytes) {
  for (char c : bytes) append_utf8(out, kByteToCpt[static_cast<uint8_t>(c)]);
}

}  // namespace kz
