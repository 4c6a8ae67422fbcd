// libFuzzer entry for the library's JSON reader (text/json.h), which reads untrusted text (tool
// definitions and arguments from apps and from kazeia serve's clients): any bytes either parse or
// throw kz::Error, never crash; what parses writes back to text that parses to the same value
// and the same text again. Built with -DKAZEIA_FUZZ=ON (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/error.h"
#include "text/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);  // exact size
  kz::Json value;
  try {
    value = kz::parse_json(text);
  } catch (const kz::Error&) {
    return 0;
  }
  const std::string written = kz::to_json_text(value);
  const kz::Json again = kz::parse_json(written, "written JSON");
  if (!(again == value) || kz::to_json_text(again) != written) {
    std::fprintf(stderr, "json_fuzz: round trip changed the value: %s\n", written.c_str());
    std::abort();
  }
  return 0;
}
