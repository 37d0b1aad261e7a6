// tests/hip/walk_host_test.cpp — the hip lowering's copy code, run on the host, byte for byte.
//
// porter/staged/walk.hpp (AMD flavour) takes its two memory operations as a policy. The AMD policy becomes
// global_load_* / ds_write_* (checked by check_gfx90a_asm.py); here a host policy runs the SAME
// chunk, partial-chunk and tail code over host memory and checks every access: each load must be
// W-byte aligned and read only bytes of tensor elements (never row padding, never outside the
// tensor), each store must be W-byte aligned and inside the destination. Every CTA thread is played
// in turn (the chunks of different threads are disjoint). The tile must equal a reference built
// element by element: the dense box layout of porter/box.hpp, zero outside the tensor.
// Covers element sizes 1..16 B, ranks 1..3, base addresses 0..15 bytes off 16-byte alignment, padded
// and odd pitches, boxes inside, across every edge and wholly outside, CTAs of 1, 3, 64 and 256.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "porter/box.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/staged/walk.hpp"
#include "porter/source.hpp"

namespace {

namespace hd = porter::backend::amd_detail;

/// Host memory policy with bookkeeping: which source bytes may be read, which destination written.
struct host_access {
  static inline const unsigned char* src_lo = nullptr;   // first byte of the source allocation
  static inline std::vector<unsigned char> readable;     // 1 where the byte belongs to a tensor element
  static inline unsigned char* dst_lo = nullptr;
  static inline std::size_t dst_bytes = 0;
  static inline std::vector<std::string> errors;
  static inline std::size_t loads = 0, stores = 0;

  static void fail(const std::string& s) {
    if (errors.size() < 8) errors.push_back(s);
  }
  template <unsigned W>
  static porter::detail::vec_t<W> load(const void* p) {
    const auto* b = static_cast<const unsigned char*>(p);
    if (reinterpret_cast<std::uintptr_t>(p) % W) fail("load of " + std::to_string(W) + " B at a misaligned address");
    const std::ptrdiff_t o = b - src_lo;
    for (unsigned i = 0; i < W; ++i)
      if (o + std::ptrdiff_t(i) < 0 || std::size_t(o) + i >= readable.size() || !readable[std::size_t(o) + i]) {
        fail("load of " + std::to_string(W) + " B at source byte " + std::to_string(o) + " reads byte " +
             std::to_string(o + std::ptrdiff_t(i)) + ", which is not a tensor element");
        break;
      }
    ++loads;
    porter::detail::vec_t<W> v;
    std::memcpy(&v, p, W);
    return v;
  }
  template <unsigned W>
  static void store(void* p, const porter::detail::vec_t<W>& v) {
    auto* b = static_cast<unsigned char*>(p);
    if (reinterpret_cast<std::uintptr_t>(p) % W) fail("store of " + std::to_string(W) + " B at a misaligned LDS address");
    if (b < dst_lo || b + W > dst_lo + dst_bytes)
      fail("store of " + std::to_string(W) + " B at destination byte " + std::to_string(b - dst_lo) + " outside the tile");
    ++stores;
    std::memcpy(p, &v, W);
  }
  static void reset() { errors.clear(); loads = stores = 0; }
};

/// A rank-R tensor of T in a host allocation at `offset` bytes past a 256-byte boundary.
template <class Box>
struct host_tensor {
  using T = typename Box::element_type;
  static constexpr int R = Box::rank;
  std::vector<unsigned char> storage;
  porter::tiled_source<Box> src{};
  std::size_t span = 0;  // bytes from element 0 to one past the last element

  host_tensor(const std::int64_t (&extent)[R], const std::int64_t (&stride)[R], std::size_t offset, unsigned seed) {
    span = sizeof(T);
    for (int d = 0; d < R; ++d) span += std::size_t(extent[d] - 1) * std::size_t(stride[d]) * sizeof(T);
    storage.assign(span + 512, 0xEE);
    auto base = reinterpret_cast<std::uintptr_t>(storage.data());
    unsigned char* p = storage.data() + ((256 - base % 256) % 256) + offset;
    host_access::src_lo = p;
    host_access::readable.assign(span, 0);
    std::mt19937 rng(seed);
    // Mark and fill every element.
    std::int64_t idx[R] = {};
    for (;;) {
      std::size_t e = 0;
      for (int d = 0; d < R; ++d) e += std::size_t(idx[d]) * std::size_t(stride[d]);
      for (std::size_t b = 0; b < sizeof(T); ++b) {
        host_access::readable[e * sizeof(T) + b] = 1;
        p[e * sizeof(T) + b] = static_cast<unsigned char>(rng() | 1u);  // never 0: zero-fill is visible
      }
      int d = R - 1;
      while (d >= 0 && ++idx[d] == extent[d]) idx[d--] = 0;
      if (d < 0) break;
    }
    src.ptr = reinterpret_cast<const T*>(p);
    for (int d = 0; d < R; ++d) { src.extent[d] = extent[d]; src.stride[d] = stride[d]; }
    src.chunk_bits = porter::detail::chunk_bits_of(src.ptr, stride, R, int(sizeof(T)));  // as make_tiled_source sets it
    src.supported = porter::path_bit(porter::path_id::staged);
    src.tma_split_rows = Box::dim(0);
  }

  /// The tile every path must produce: box element i is tensor element at + i, or zero outside.
  std::vector<unsigned char> reference(const porter::coord<R>& at) const {
    std::vector<unsigned char> ref(Box::bytes, 0);
    const auto* p = reinterpret_cast<const unsigned char*>(src.ptr);
    for (std::size_t k = 0; k < Box::elements; ++k) {
      std::size_t rest = k;
      bool inside = true;
      std::int64_t e = 0;
      for (int d = R - 1; d >= 0; --d) {
        const std::int64_t i = std::int64_t(at[d]) + std::int64_t(rest % std::size_t(Box::dim(d)));
        rest /= std::size_t(Box::dim(d));
        inside = inside && i >= 0 && i < src.extent[d];
        e += i * src.stride[d];
      }
      if (inside) std::memcpy(&ref[k * sizeof(T)], p + e * std::int64_t(sizeof(T)), sizeof(T));
    }
    return ref;
  }
};

std::string describe_first_difference(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::ostringstream o;
      o << "first difference at tile byte " << i << ": got " << int(got[i]) << ", want " << int(want[i]);
      return o.str();
    }
  return "identical";
}

/// Copy `Box` at every coordinate in `ats`, for every CTA size, and compare with the reference.
template <class Box>
void check_box(const std::int64_t (&extent)[Box::rank], const std::int64_t (&stride)[Box::rank],
               const std::vector<porter::coord<Box::rank>>& ats) {
  for (std::size_t offset = 0; offset < 16; offset += (sizeof(typename Box::element_type) >= 4 ? 1 : 3)) {
    host_tensor<Box> t(extent, stride, offset, unsigned(offset * 7 + Box::bytes));
    for (const auto& at : ats) {
      const auto ref = t.reference(at);
      for (unsigned nthreads : {1u, 3u, 64u, 256u}) {
        alignas(128) static unsigned char tile[1 << 16];
        static_assert(Box::bytes <= sizeof(tile), "test tile too small");
        std::memset(tile, 0xA5, sizeof(tile));
        host_access::reset();
        host_access::dst_lo = tile;
        host_access::dst_bytes = Box::bytes;
        for (unsigned th = 0; th < nthreads; ++th)
          hd::dispatch_box<host_access, Box>(reinterpret_cast<typename Box::element_type*>(tile), t.src, at,
                                             porter::detail::copy_context{nullptr, th, nthreads});
        std::ostringstream where;
        where << "element " << sizeof(typename Box::element_type) << " B, base +" << offset << " B, at (";
        for (int d = 0; d < Box::rank; ++d) where << (d ? ", " : "") << at[d];
        where << "), " << nthreads << " threads, chunk " << porter::detail::box_chunk_bytes<Box>(t.src, at) << " B";
        SCOPED_TRACE(where.str());
        ASSERT_TRUE(host_access::errors.empty()) << host_access::errors.front();
        const std::vector<unsigned char> got(tile, tile + Box::bytes);
        ASSERT_TRUE(got == ref) << describe_first_difference(got, ref);
        ASSERT_TRUE(std::all_of(tile + Box::bytes, tile + sizeof(tile), [](unsigned char c) { return c == 0xA5; }))
            << "bytes after the tile were written";
      }
    }
  }
}

struct alignas(16) quad { std::uint32_t v[4]; };

TEST(HipWalk, Rank2FloatInsideAcrossEveryEdgeAndOutside) {
  using B = porter::box<float, 6, 20>;
  check_box<B>({23, 37}, {40, 1}, {{0, 0}, {5, 8}, {-2, -3}, {20, 30}, {-1, 17}, {18, -4}, {-6, 0}, {23, 0}, {0, 37}, {30, 50}});
  check_box<B>({23, 37}, {37, 1}, {{0, 0}, {5, 8}, {-2, -3}, {20, 30}, {0, 1}, {3, 3}});  // odd pitch: 4-byte chunks
}

TEST(HipWalk, Rank2BytesAndShortsNeedSubDwordEdgePieces) {
  check_box<porter::box<std::uint8_t, 5, 48>>({17, 61}, {64, 1}, {{0, 0}, {0, 16}, {3, 32}, {-2, 15}, {14, 40}, {0, 13}, {1, 1}});
  check_box<porter::box<std::uint16_t, 4, 24>>({9, 29}, {32, 1}, {{0, 0}, {0, 8}, {5, 16}, {-1, -8}, {2, 20}, {0, 3}});
}

TEST(HipWalk, EightAndSixteenByteElements) {
  check_box<porter::box<std::uint64_t, 3, 10>>({7, 13}, {14, 1}, {{0, 0}, {0, 4}, {5, 6}, {-1, -2}, {6, 11}, {0, 1}});
  check_box<porter::box<quad, 3, 5>>({6, 7}, {8, 1}, {{0, 0}, {4, 4}, {-2, -1}, {5, 6}});
}

TEST(HipWalk, Rank1AndRank3) {
  check_box<porter::box<float, 100>>({250}, {1}, {{0}, {4}, {-12}, {200}, {190}, {250}, {-100}});
  check_box<porter::box<std::uint8_t, 2, 3, 40>>({5, 4, 45}, {200, 50, 1}, {{0, 0, 0}, {-1, 2, 8}, {4, 3, 16}, {1, -1, 5}});
}

TEST(HipWalk, ByteRangesEveryAlignmentAndLength) {
  std::vector<unsigned char> src_store(4096 + 512);
  std::mt19937 rng(7);
  for (auto& c : src_store) c = static_cast<unsigned char>(rng() | 1u);
  const auto sbase = reinterpret_cast<std::uintptr_t>(src_store.data());
  unsigned char* s0 = src_store.data() + (256 - sbase % 256) % 256;
  alignas(128) static unsigned char tile[8192];
  for (std::size_t so = 0; so < 16; ++so)
    for (std::size_t d_o = 0; d_o < 16; d_o += 5)
      for (std::size_t bytes : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(15), std::size_t(16),
                                std::size_t(17), std::size_t(31), std::size_t(63), std::size_t(100), std::size_t(1000),
                                std::size_t(4095)})
        for (unsigned nthreads : {1u, 3u, 64u, 256u}) {
          const unsigned char* s = s0 + so;
          host_access::reset();
          host_access::src_lo = s;
          host_access::readable.assign(bytes, 1);
          std::memset(tile, 0xA5, sizeof(tile));
          host_access::dst_lo = tile + d_o;
          host_access::dst_bytes = bytes;
          for (unsigned th = 0; th < nthreads; ++th)
            hd::dispatch_bytes<host_access>(tile + d_o, s, bytes, porter::detail::copy_context{nullptr, th, nthreads});
          SCOPED_TRACE("source +" + std::to_string(so) + " B, destination +" + std::to_string(d_o) + " B, " +
                       std::to_string(bytes) + " B, " + std::to_string(nthreads) + " threads");
          ASSERT_TRUE(host_access::errors.empty()) << host_access::errors.front();
          ASSERT_EQ(0, std::memcmp(tile + d_o, s, bytes));
          ASSERT_TRUE(std::all_of(tile, tile + d_o, [](unsigned char c) { return c == 0xA5; }));
          ASSERT_TRUE(std::all_of(tile + d_o + bytes, tile + sizeof(tile), [](unsigned char c) { return c == 0xA5; }));
        }
}

TEST(HipWalk, AlignedRangesMoveInSixteenByteChunks) {
  // 16-byte aligned source and destination: 4000 B is 250 loads of 16 B, no narrower access.
  alignas(16) static unsigned char src[4000];
  alignas(128) static unsigned char tile[4096];
  for (std::size_t i = 0; i < sizeof(src); ++i) src[i] = static_cast<unsigned char>(i * 13 + 1);
  host_access::reset();
  host_access::src_lo = src;
  host_access::readable.assign(sizeof(src), 1);
  host_access::dst_lo = tile;
  host_access::dst_bytes = sizeof(src);
  for (unsigned th = 0; th < 64; ++th)
    hd::dispatch_bytes<host_access>(tile, src, sizeof(src), porter::detail::copy_context{nullptr, th, 64});
  EXPECT_TRUE(host_access::errors.empty());
  EXPECT_EQ(host_access::loads, 250u);
  EXPECT_EQ(host_access::stores, 250u);
  EXPECT_EQ(0, std::memcmp(tile, src, sizeof(src)));
}

}  // namespace
