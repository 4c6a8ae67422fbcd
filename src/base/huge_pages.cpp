#include "base/huge_pages.h"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kz::huge_pages {

size_t alignment(uint64_t bytes, size_t small) {
  return bytes >= kPageBytes ? size_t(kPageBytes) : small;
}

void advise(void* p, uint64_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPageBytes - 1) & ~(kPageBytes - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPageBytes - 1);
  // Advice only: where THP is off or absent the call fails and the pages stay small.
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

void Deleter::operator()(uint8_t* p) const {
  ::operator delete(p, std::align_val_t(alignment));
}

Bytes allocate(uint64_t bytes) {
  const size_t align = alignment(bytes, alignof(std::max_align_t));
  auto* p = static_cast<uint8_t*>(::operator new(bytes, std::align_val_t(align)));
  advise(p, bytes);
  return Bytes(p, Deleter{align});
}

}  // namespace kz::huge_pages
