// Shared memory (base/shared_memory.h): page-aligned, found again from any pointer inside it, and
// its listeners told before it is freed.
#include "base/shared_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace kz {
namespace {

TEST(SharedMemory, AllocationsArePageAlignedAndFoundFromInside) {
  SharedVector<float> v(1000, 1.0f);
  const auto* base = reinterpret_cast<const uint8_t*>(v.data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(base) % shared_memory::kAlignment, 0u);
  const auto whole = shared_memory::find(v.data(), 4000);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->base, base);
  EXPECT_EQ(whole->bytes, 4032u);  // whole 64-byte lines
  const auto inside = shared_memory::find(v.data() + 10, 400);
  ASSERT_TRUE(inside.has_value());
  EXPECT_EQ(inside->base, base);
  EXPECT_FALSE(shared_memory::find(v.data() + 10, 3993).has_value());  // runs past the end
  std::vector<float> other(1000);
  EXPECT_FALSE(shared_memory::find(other.data(), 4).has_value());
}

struct Recorder final : SharedMemoryListener {
  std::vector<SharedRegion> freed;
  void on_free(const SharedRegion& r) override { freed.push_back(r); }
};

TEST(SharedMemory, ListenersAreToldBeforeAnAllocationIsFreed) {
  Recorder r;
  shared_memory::add_listener(&r);
  const uint8_t* base = nullptr;
  {
    SharedVector<uint8_t> v(100);
    base = v.data();
    v.resize(10000);  // a new allocation; the old one is freed
    ASSERT_EQ(r.freed.size(), 1u);
    EXPECT_EQ(r.freed[0].base, base);
    EXPECT_EQ(r.freed[0].bytes, 128u);
    base = v.data();
  }
  ASSERT_EQ(r.freed.size(), 2u);
  EXPECT_EQ(r.freed[1].base, base);
  EXPECT_FALSE(shared_memory::find(base, 1).has_value());
  shared_memory::remove_listener(&r);
  { SharedVector<uint8_t> v(100); }
  EXPECT_EQ(r.freed.size(), 2u);
}

}  // namespace
}  // namespace kz
