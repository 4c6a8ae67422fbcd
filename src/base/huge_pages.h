// Large buffers that are filled once and then read often (repacked weights, recurrent states),
// placed on 2 MiB pages where the kernel offers transparent huge pages on request (Linux and
// Android with THP in "madvise" mode): filling them then takes a page fault per 2 MiB instead of
// per 4 KiB, and reading them misses the TLB less (docs/benchmarks.md, "Huge pages"). Elsewhere
// they are ordinary memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kz::huge_pages {

constexpr uint64_t kPageBytes = uint64_t(2) << 20;

// The alignment for an allocation of `bytes`: a huge page for those of at least one, so that
// all their whole huge pages can be used; `small` for the others.
size_t alignment(uint64_t bytes, size_t small);
// Asks for huge pages over the whole 2 MiB pages inside [p, p + bytes) (the rest keeps small
// pages, so a buffer never holds more memory than its size rounds up to); a no-op where the
// system has no such request.
void advise(void* p, uint64_t bytes);

struct Deleter {
  size_t alignment = 0;
  void operator()(uint8_t* p) const;
};
using Bytes = std::unique_ptr<uint8_t[], Deleter>;

// `bytes` uninitialised bytes, on huge pages where they are offered.
Bytes allocate(uint64_t bytes);

}  // namespace kz::huge_pages
