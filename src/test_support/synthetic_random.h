// The pseudo-random numbers of synthetic models: splitmix64, fully specified here (unlike the
// std distributions, whose output is implementation-defined), so a seed gives the same model
// with every compiler and library.
#pragma once

#include <cstdint>
#include <string_view>

namespace kz {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 24 random bits (exact in float).
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }
  // Uniform in [-1, 1).
  float symmetric() { return 2.0f * uniform() - 1.0f; }

 private:
  uint64_t state_;
};

// A seed derived from several values (a seed, a tensor name hash, a row index, ...).
inline uint64_t mix_seed(uint64_t a, uint64_t b) {
  return SplitMix64(a ^ (b * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull)).next();
}

// FNV-1a, to derive a tensor's seed from its name.
inline uint64_t hash_name(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

}  // namespace kz
