// tests/host/shared_layout_test.cpp — several rings and scratch tiles in one dynamic shared-memory
// array: every part aligned from any 16-byte aligned base, no overlap, one slack for the whole layout.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "porter/box.hpp"
#include "porter/shared_layout.hpp"
#include "porter/stage_ring.hpp"

namespace {

using porter::box;
using porter::scratch;
using porter::shared_layout;
using porter::stage_ring;
using porter::swizzle;
using porter::swizzled;

using ra = stage_ring<4, box<float, 8, 32>>;                                   // 128-aligned
using rb = stage_ring<2, swizzled<box<std::uint16_t, 24, 64>, swizzle::b128>>;  // 1024-aligned
using sc = scratch<swizzled<box<float, 5, 16>, swizzle::b64>>;                  // 512-aligned, 320 B
using L = shared_layout<ra, rb, sc>;

static_assert(L::alignment == 1024, "the largest part alignment");
static_assert(L::offset(0) % 128 == 0 && L::offset(1) % 1024 == 0 && L::offset(2) % 512 == 0, "each part on its alignment");
static_assert(L::offset(1) == 0 && L::offset(2) == rb::footprint && L::offset(0) == rb::footprint + sc::footprint,
              "parts by decreasing alignment: the 1 KiB-aligned ring, the 512 B scratch, the 128 B ring");
static_assert(L::footprint == ra::footprint + rb::footprint + sc::footprint, "no padding between parts");
static_assert(L::bytes == L::footprint + 1024 - 16, "one slack for the whole layout");
static_assert(L::bytes < ra::bytes + rb::bytes + sc::footprint + sc::alignment, "less than rings of their own (each with its slack)");
static_assert(ra::footprint == ra::bytes - ra::alignment, "a ring's footprint is its bytes without the slack");

TEST(SharedLayout, PartsAreAlignedAndInsideTheArrayFromEveryBase) {
  std::vector<unsigned char> mem(L::bytes + 4096);
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(mem.data());
  unsigned char* base16 = mem.data() + ((16 - (a & 15)) & 15);
  for (std::size_t shift = 0; shift < 2048; shift += 16) {
    unsigned char* smem = base16 + shift;
    unsigned char* p0 = L::part<0>(smem);
    unsigned char* p1 = L::part<1>(smem);
    unsigned char* p2 = L::part<2>(smem);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p0) % 128, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p1) % 1024, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p2) % 512, 0u);
    EXPECT_GE(p0, smem);
    EXPECT_LE(p0 + ra::footprint, smem + L::bytes) << "shift " << shift;
    EXPECT_LE(p1 + rb::footprint, p2);
    EXPECT_LE(p2 + sc::footprint, p0);
  }
}

TEST(SharedLayout, OnePartIsTheRingWithASmallerSlack) {
  using one = shared_layout<ra>;
  EXPECT_EQ(one::footprint, ra::footprint);
  EXPECT_EQ(one::bytes, ra::footprint + 128 - 16);
  EXPECT_EQ(one::offset(0), 0u);
}

}  // namespace
