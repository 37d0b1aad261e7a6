// tests/host/box_geometry_test.cpp — the element-wise copies' fast arithmetic (porter/detail/box_geometry.hpp)
// against the plain 64-bit rules it replaces, on the host (the functions are host-device).
//
// - box_inside (one unsigned compare per dimension against tiled_source::interior_end) equals
//   "0 <= at[d] and at[d] + box[d] <= extent[d] for every d", computed in 64 bits, including
//   negative coordinates, coordinates near 2^31, boxes larger than the tensor and extents above 2^31
//   (where a box reaching past index 2^31 - 1 is not interior: the copies compute indices in int).
// - box_chunk_bytes (32-bit, from the host's tiled_source::chunk_bits) equals the widest access of
//   the 64-bit OR of the pointer, every outer stride in bytes, the first column in bytes and the box
//   row in bytes.
// - interior_chunk (one address per chunk) equals locate_chunk's address for every chunk of boxes
//   that lie inside the tensor, at random shapes, strides and origins, ranks 1..5.
// - first_stepped (the stepped walk of the cp_async copies: a thread's first chunk once, then two
//   constant steps) gives interior_chunk's address and landing_offset's offset for every chunk
//   k + j*n of every thread, for every copying set n that steps_by_constants admits, on dense and
//   swizzled 2D boxes of 1..16-byte elements; and a step steps_by_constants refuses (one row of a
//   swizzled box) would land chunks at the wrong offsets.
// - make_tiled_source fills interior_end from the extents.
#include <cstdint>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "porter/destination.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/source.hpp"

namespace {

using porter::box;
using porter::coord;
using porter::tiled_source;

struct alignas(16) e16 {  // a 16-byte element
  std::uint32_t v[4];
};

// The rule box_inside replaces, written out in 64 bits: every element inside the tensor, and every
// index of the box inside 32 bits (the copies compute at[d] + i in int).
template <class Box>
bool inside_reference(const tiled_source<Box>& s, const coord<Box::rank>& at) {
  for (int d = 0; d < Box::rank; ++d) {
    const std::int64_t end = std::int64_t(at[d]) + Box::dim(d);
    if (at[d] < 0 || end > s.extent[d] || end > (std::int64_t(1) << 31)) return false;
  }
  return true;
}

// A source described by hand (extents, strides and a pointer value that is never dereferenced), with
// interior_end and chunk_bits set the way make_tiled_source sets them.
template <class Box>
tiled_source<Box> fake_source(std::uintptr_t ptr, const std::int64_t* ext, const std::int64_t* str) {
  tiled_source<Box> s{};
  s.ptr = reinterpret_cast<const typename Box::element_type*>(ptr);
  for (int d = 0; d < Box::rank; ++d) {
    s.extent[d] = ext[d];
    s.stride[d] = str[d];
    s.interior_end[d] = porter::detail::interior_end_of(ext[d], Box::dim(d));
  }
  s.chunk_bits = porter::detail::chunk_bits_of(s.ptr, str, Box::rank, int(sizeof(typename Box::element_type)));
  return s;
}

TEST(BoxGeometry, InteriorEndClampsToTheCoordinateRange) {
  EXPECT_EQ(porter::detail::interior_end_of(100, 16), 85u) << "at 0..84: at + 16 <= 100";
  EXPECT_EQ(porter::detail::interior_end_of(16, 16), 1u) << "only at 0 fits";
  EXPECT_EQ(porter::detail::interior_end_of(15, 16), 0u) << "a box larger than the tensor never fits";
  EXPECT_EQ(porter::detail::interior_end_of(1, 256), 0u);
  EXPECT_EQ(porter::detail::interior_end_of(std::int64_t(1) << 31, 1), std::uint32_t(1) << 31)
      << "a one-element box: every non-negative 32-bit coordinate";
  EXPECT_EQ(porter::detail::interior_end_of(std::int64_t(1) << 40, 8), (std::uint32_t(1) << 31) - 7)
      << "the box's last index stays below 2^31";
  EXPECT_EQ(porter::detail::interior_end_of((std::int64_t(1) << 31) - 2, 8), (std::uint32_t(1) << 31) - 9);
}

template <class Box>
void check_inside(std::mt19937_64& rng, int cases) {
  constexpr int R = Box::rank;
  const int big = std::numeric_limits<int>::max(), small = std::numeric_limits<int>::min();
  for (int c = 0; c < cases; ++c) {
    std::int64_t ext[R], str[R];
    for (int d = 0; d < R; ++d) {
      switch (rng() % 4) {
        case 0: ext[d] = std::int64_t(rng() % 4) + Box::dim(d) - 2; break;               // around the box size
        case 1: ext[d] = std::int64_t(rng() % 5000) + 1; break;
        case 2: ext[d] = (std::int64_t(1) << 31) + std::int64_t(rng() % 64) - 32; break;  // around 2^31
        default: ext[d] = std::int64_t(1) << (32 + rng() % 8); break;                     // above 2^31
      }
      if (ext[d] < 1) ext[d] = 1;
      str[d] = 1;
    }
    const tiled_source<Box> s = fake_source<Box>(4096, ext, str);
    coord<R> at{};
    for (int d = 0; d < R; ++d) {
      const std::int64_t edge = ext[d] - Box::dim(d);  // the last origin that fits
      switch (rng() % 6) {
        case 0: at[d] = int(rng() % 3) - 1; break;  // -1, 0, 1
        case 1: at[d] = int(std::max<std::int64_t>(std::min<std::int64_t>(edge + std::int64_t(rng() % 3) - 1, big), small)); break;
        case 2: at[d] = big - int(rng() % 3); break;
        case 3: at[d] = small + int(rng() % 3); break;
        case 4: at[d] = -int(rng() % 1000) - 1; break;
        default: at[d] = int(rng() % 100000); break;
      }
    }
    ASSERT_EQ(porter::detail::box_inside<Box>(s, at), inside_reference(s, at)) << "case " << c;
  }
}

TEST(BoxGeometry, BoxInsideMatchesTheSixtyFourBitRule) {
  std::mt19937_64 rng(20261202);
  check_inside<box<float, 16, 16>>(rng, 20000);
  check_inside<box<float, 4096>>(rng, 20000);
  check_inside<box<std::uint16_t, 3, 5, 64>>(rng, 20000);
  check_inside<box<double, 1, 2, 3, 4, 8>>(rng, 20000);
  check_inside<box<char, 256>>(rng, 20000);
}

template <class Box>
void check_chunk_bytes(std::mt19937_64& rng, int cases) {
  constexpr int R = Box::rank;
  constexpr std::uint64_t es = sizeof(typename Box::element_type);
  for (int c = 0; c < cases; ++c) {
    std::int64_t ext[R], str[R];
    for (int d = 0; d < R; ++d) {
      ext[d] = 1 << 20;
      str[d] = d + 1 == R ? 1 : std::int64_t(rng() % (std::uint64_t(1) << (rng() % 40))) + 1;
    }
    const std::uintptr_t ptr = std::uintptr_t(rng()) & ~std::uintptr_t(es - 1);  // element-aligned
    const tiled_source<Box> s = fake_source<Box>(ptr, ext, str);
    coord<R> at{};
    for (int d = 0; d < R; ++d) at[d] = int(rng() % 4096) - 2048;
    std::uint64_t bits = std::uint64_t(ptr) | std::uint64_t(Box::inner_bytes) | std::uint64_t(std::int64_t(at[R - 1])) * es;
    for (int d = 0; d + 1 < R; ++d) bits |= std::uint64_t(str[d]) * es;
    ASSERT_EQ(porter::detail::box_chunk_bytes<Box>(s, at), porter::detail::widest_access(bits)) << "case " << c;
  }
}

TEST(BoxGeometry, ChunkWidthMatchesTheSixtyFourBitRule) {
  std::mt19937_64 rng(7);
  check_chunk_bytes<box<float, 16, 16>>(rng, 20000);
  check_chunk_bytes<box<float, 8, 6>>(rng, 20000);  // 24-byte rows: at most 8
  check_chunk_bytes<box<std::uint16_t, 3, 5, 64>>(rng, 20000);
  check_chunk_bytes<box<char, 4, 7>>(rng, 20000);  // 7-byte rows: 1
  check_chunk_bytes<box<double, 2, 3, 4, 2>>(rng, 20000);
  check_chunk_bytes<box<char, 256>>(rng, 20000);
}

template <class Box, unsigned W>
void check_interior_chunk(std::mt19937_64& rng, int cases) {
  constexpr int R = Box::rank;
  constexpr unsigned chunks = unsigned(porter::detail::box_chunks<Box, W>);
  for (int c = 0; c < cases; ++c) {
    std::int64_t ext[R], str[R];
    std::int64_t s = 1;
    for (int d = R - 1; d >= 0; --d) {
      // Extents from the box size up to far past 2^31 elements in the innermost dimension (a 1D row
      // longer than 2^31 bytes), strides at least the dense ones, some far above 2^32.
      // (Bounded so that no offset overflows 63 bits: long rows and padded pitches at ranks 1..3.)
      const std::uint64_t span = d + 1 == R ? (std::uint64_t(1) << (rng() % (R <= 2 ? 36 : 12))) : (R <= 3 ? 3000 : 64);
      ext[d] = Box::dim(d) + std::int64_t(rng() % span);
      str[d] = s;
      s = s * ext[d] + std::int64_t(rng() % 3) * (rng() % 2 || R > 3 ? 1 : (std::int64_t(1) << 33));
    }
    const tiled_source<Box> src = fake_source<Box>(std::uintptr_t(1) << 44, ext, str);
    coord<R> at{};
    for (int d = 0; d < R; ++d) {
      const std::int64_t last = std::min<std::int64_t>(ext[d] - Box::dim(d), std::numeric_limits<int>::max());
      at[d] = int(rng() % std::uint64_t(last + 1));
    }
    ASSERT_TRUE(porter::detail::box_inside<Box>(src, at)) << "case " << c;
    for (unsigned k = 0; k < chunks; k += 1 + unsigned(rng() % 7)) {
      const porter::detail::chunk_source cs = porter::detail::locate_chunk<Box, W>(src, at, k);
      ASSERT_EQ(cs.valid, W) << "case " << c << " chunk " << k;
      ASSERT_EQ(static_cast<const void*>(porter::detail::interior_chunk<Box, W>(src, at, k)), cs.src) << "case " << c << " chunk " << k;
    }
  }
}

TEST(BoxGeometry, InteriorChunkAddressMatchesTheBoundsCheckedWalk) {
  std::mt19937_64 rng(11);
  check_interior_chunk<box<float, 16, 16>, 16>(rng, 3000);
  check_interior_chunk<box<float, 8, 128>, 16>(rng, 3000);
  check_interior_chunk<box<float, 4096>, 16>(rng, 3000);
  check_interior_chunk<box<float, 34, 136>, 16>(rng, 3000);
  check_interior_chunk<box<std::uint16_t, 3, 5, 64>, 16>(rng, 3000);
  check_interior_chunk<box<double, 2, 3, 4, 2>, 16>(rng, 3000);
  check_interior_chunk<box<std::uint16_t, 1, 2, 3, 4, 8>, 16>(rng, 3000);
  check_interior_chunk<box<char, 4, 12>, 4>(rng, 3000);
  check_interior_chunk<box<float, 8, 6>, 8>(rng, 3000);
  // Chunks narrower than an element (an element address aligned below its size): the store
  // harness's 8-byte elements 4 B past a boundary, 16-byte elements 8 B past one.
  check_interior_chunk<box<double, 3, 4, 8>, 4>(rng, 3000);
  check_interior_chunk<box<e16, 8, 8>, 8>(rng, 3000);
  check_interior_chunk<box<e16, 5, 3>, 4>(rng, 3000);
  check_interior_chunk<box<std::uint16_t, 7, 10>, 1>(rng, 3000);
}

// A 2D source and a box origin wholly inside it, with 16-byte chunks, for the walks below. Case c
// picks the row pitch: 0 dense, 1 padded by 16 bytes, 2 far above 2^32 bytes; the extents and the
// origin are random. ok is false (and the test has failed) when the case breaks those rules.
template <class Box>
struct interior_case {
  tiled_source<Box> src;
  coord<2> at;
  bool ok;
};

template <class Box>
interior_case<Box> make_interior_case(std::mt19937_64& rng, int c) {
  constexpr std::int64_t esize = sizeof(typename Box::element_type);
  const std::int64_t pad = c == 0 ? 0 : c == 1 ? 16 / esize : (std::int64_t(1) << 33) / esize;
  const std::int64_t ext[2] = {Box::dim(0) + std::int64_t(rng() % 5000), Box::dim(1) + std::int64_t(rng() % 300) * (16 / esize)};
  const std::int64_t str[2] = {ext[1] + pad, 1};
  interior_case<Box> ic{fake_source<Box>(std::uintptr_t(1) << 44, ext, str),
                        coord<2>{int(rng() % std::uint64_t(ext[0] - Box::dim(0) + 1)),
                                 int(rng() % std::uint64_t((ext[1] - Box::dim(1)) / (16 / esize) + 1)) * int(16 / esize)},
                        true};
  ic.ok = porter::detail::box_inside<Box>(ic.src, ic.at) && porter::detail::box_chunk_bytes<Box>(ic.src, ic.at) == 16u;
  if (!ic.ok) ADD_FAILURE() << "the case's box must be interior with 16-byte chunks";
  return ic;
}

// Every admitted copying set n (1..1024 threads) of one box on a few random sources: thread t's
// walk from first_stepped against interior_chunk / landing_offset for each of its chunks. Sets
// `cases` to the number of (n, source) cases walked; counts, into `refused_wrong`, the refused steps
// of one whole row under which a constant step would have landed some chunk elsewhere.
template <class Box>
void check_stepped_walk(std::mt19937_64& rng, int& cases, int& refused_wrong) {
  using porter::detail::first_stepped;
  using porter::detail::interior_chunk;
  using porter::detail::landing_offset;
  using porter::detail::steps_by_constants;
  constexpr unsigned total = unsigned(porter::detail::box_chunks<Box, 16>);
  cases = 0;
  for (int c = 0; c < 3; ++c) {
    const interior_case<Box> ic = make_interior_case<Box>(rng, c);
    if (!ic.ok) return;
    for (unsigned n = 1; n <= 1024; ++n) {
      const unsigned step_bytes = n * 16u;
      if (!steps_by_constants<Box>(step_bytes)) continue;
      ++cases;
      for (unsigned t = 0; t < n && t < total; ++t) {
        const porter::detail::stepped_chunks w = first_stepped<Box>(ic.src, ic.at, t, step_bytes);
        const unsigned char* a = w.src;
        std::uint32_t o = w.dst;
        for (unsigned k = t; k < total; k += n, a += w.src_step, o += w.dst_step) {
          ASSERT_EQ(a, (interior_chunk<Box, 16>(ic.src, ic.at, k))) << "n " << n << " thread " << t << " chunk " << k << " source " << c;
          ASSERT_EQ(o, landing_offset<Box>(k * 16)) << "n " << n << " thread " << t << " chunk " << k << " source " << c;
        }
      }
    }
    // The step of one row (n = inner_bytes / 16) is refused on a swizzled box: a row moves the XOR.
    if constexpr (Box::swizzle_mode != porter::swizzle::none) {
      const unsigned row = unsigned(Box::inner_bytes);
      EXPECT_FALSE(steps_by_constants<Box>(row));
      bool wrong = false;
      for (unsigned k = 0; k + row / 16 < total && !wrong; ++k)
        wrong = landing_offset<Box>(k * 16) + row != landing_offset<Box>(k * 16 + row);
      refused_wrong += wrong;
    }
  }
}

TEST(BoxGeometry, SteppedWalkMatchesInteriorChunkAndLandingOffset) {
  using porter::swizzle;
  using porter::swizzled;
  std::mt19937_64 rng(13);
  int refused_wrong = 0, cases = 0;
#define WALK(...)                                                   \
  check_stepped_walk<__VA_ARGS__>(rng, cases, refused_wrong);       \
  EXPECT_GT(cases, 0) << #__VA_ARGS__ << ": no copying set admitted"
  // Dense: sgemm's cp_async boxes, a bf16 GEMM tile, rows of 16 B .. 1 KiB, 1..16-byte elements.
  WALK(box<float, 16, 128>);
  WALK(box<float, 8, 128>);
  WALK(box<float, 32, 64>);
  WALK(box<std::uint16_t, 128, 64>);
  WALK(box<std::uint8_t, 9, 16>);
  WALK(box<double, 5, 128>);
  WALK(box<e16, 12, 4>);
  WALK(box<float, 3, 12>);  // 48-byte rows
  // Swizzled: the row is one span; the admitted steps are whole atoms of 8 rows.
  WALK(swizzled<box<std::uint16_t, 64, 64>, swizzle::b128>);
  WALK(swizzled<box<std::uint16_t, 128, 32>, swizzle::b64>);
  WALK(swizzled<box<float, 16, 8>, swizzle::b32>);
  WALK(swizzled<box<std::uint8_t, 12, 128>, swizzle::b128>);  // 1.5 atoms
  WALK(swizzled<box<double, 40, 16>, swizzle::b128>);
#undef WALK
  EXPECT_EQ(refused_wrong, 15) << "a one-row step on every swizzled box and source lands some chunk elsewhere";
}

// Every copying set n (1..1024 threads) of a dense 2D box on a few random sources: thread t's
// walk from first_wrapped (one step of n chunks: q rows and r columns, one row more and C columns
// back when the column wraps) against interior_chunk for each of its chunks, and its landing
// offset k x 16 against landing_offset. Sets `uneven` to the number of (n, source) cases walked
// whose step is not whole rows (the ones the cp_async copy walks this way).
template <class Box>
void check_wrapped_walk(std::mt19937_64& rng, int& uneven) {
  static_assert(porter::detail::walks_wrapped<Box>, "dense 2D boxes");
  using porter::detail::first_wrapped;
  using porter::detail::interior_chunk;
  constexpr unsigned total = unsigned(porter::detail::box_chunks<Box, 16>);
  constexpr unsigned per_row = unsigned(Box::inner_bytes / 16);
  uneven = 0;
  for (int c = 0; c < 3; ++c) {
    const interior_case<Box> ic = make_interior_case<Box>(rng, c);
    if (!ic.ok) return;
    for (unsigned n = 1; n <= 1024; ++n) {
      uneven += n % per_row != 0;
      for (unsigned t = 0; t < n && t < total; ++t) {
        const porter::detail::wrapped_chunks w = first_wrapped<Box>(ic.src, ic.at, t, n);
        const unsigned char* a = w.src;
        unsigned col = w.col;
        for (unsigned k = t; k < total; k += n) {
          ASSERT_EQ(a, (interior_chunk<Box, 16>(ic.src, ic.at, k))) << "n " << n << " thread " << t << " chunk " << k << " source " << c;
          ASSERT_EQ(k * 16, porter::detail::landing_offset<Box>(k * 16)) << "a dense box lands chunk k at k x 16";
          ASSERT_EQ(col, k % per_row) << "n " << n << " thread " << t << " chunk " << k;
          a += w.src_step;
          col += w.col_step;
          if (col >= per_row) {
            col -= per_row;
            a += w.wrap;
          }
        }
      }
    }
  }
}

TEST(BoxGeometry, WrappedWalkMatchesInteriorChunk) {
  std::mt19937_64 rng(17);
  int uneven = 0;
#define WRAPPED(...)                            \
  check_wrapped_walk<__VA_ARGS__>(rng, uneven); \
  EXPECT_GT(uneven, 0) << #__VA_ARGS__ << ": no copying set whose step is not whole rows"
  // The wmma port's skewed bf16 box (18 chunks a row), the stencils' fp32 boxes with their halo (34),
  // rows of 3 chunks (48 bytes) and of 64 (1 KiB), a box of one row.
  WRAPPED(box<std::uint16_t, 128, 144>);
  WRAPPED(box<float, 34, 136>);
  WRAPPED(box<float, 36, 136>);
  WRAPPED(box<float, 3, 12>);
  WRAPPED(box<double, 5, 128>);
  WRAPPED(box<std::uint8_t, 1, 48>);
#undef WRAPPED
  check_wrapped_walk<box<float, 40, 4>>(rng, uneven);
  EXPECT_EQ(uneven, 0) << "one chunk a row: every step is whole rows";
}

TEST(BoxGeometry, MakeTiledSourceFillsInteriorEnd) {
  alignas(16) static float data[64 * 100];
  const auto s = porter::make_tiled_source<box<float, 16, 32>>(data, {64, 100});
  EXPECT_EQ(s.interior_end[0], 49u);
  EXPECT_EQ(s.interior_end[1], 69u);
  const auto t = porter::make_tiled_source<box<float, 128, 32>>(data, {64, 100});
  EXPECT_EQ(t.interior_end[0], 0u) << "128 rows never fit in 64";
}

TEST(BoxGeometry, MakeTiledSourceFillsChunkBits) {
  alignas(16) static float data[64 * 100 + 4];
  using B = box<float, 16, 32>;
  auto bits = [](const auto& s) { return s.chunk_bits; };
  EXPECT_EQ(bits(porter::make_tiled_source<B>(data, {64, 100})), 0u) << "16-byte base, 400-byte rows";
  EXPECT_EQ(bits(porter::make_tiled_source<B>(data + 1, {64, 100})), 4u) << "base 4 bytes past 16";
  EXPECT_EQ(bits(porter::make_tiled_source<B>(data, {64, 98})), 8u) << "392-byte rows";
  EXPECT_EQ(bits(porter::make_tiled_source<B>(data + 2, {64, 97})), 12u) << "388-byte rows, base + 8";
  EXPECT_EQ(bits(porter::make_tiled_source<box<float, 256>>(data + 3, {6400})), 12u) << "1D: the base only";
  // Explicit strides (elements) count, not the extents.
  const std::int64_t ext[2] = {8, 16}, str[1] = {18};
  EXPECT_EQ(bits(porter::make_tiled_source<box<float, 8, 16>>(data, ext, str)), 8u) << "72-byte pitch";
  // Destinations come from the same builder (the stores pick their chunk width from it too).
  EXPECT_EQ(bits(porter::make_tiled_destination<box<float, 8, 16>>(data + 1, ext, str)), 12u) << "base + 4, 72-byte pitch";
  EXPECT_EQ(bits(porter::make_tiled_destination<box<float, 16, 32>>(data, {64, 100})), 0u);
}

}  // namespace
