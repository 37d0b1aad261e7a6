// tests/host/mechanisms_test.cpp — porter::copy_mechanisms, byte_range_mechanisms, explain with a
// coordinate pattern and check_strict_paths, against an independent calculation written here from
// the lowerings' documented behaviour (porter/mechanisms.hpp): per byte for byte ranges, per width
// for cp.async boxes, per coordinate for TMA boxes.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/error.hpp"
#include "porter/mechanisms.hpp"

namespace {

using porter::mechanism;
using porter::path_id;
using porter_test::Contains;
using porter_test::desc;

constexpr std::uintptr_t base = 0x200000;

long long B(const porter::mechanism_counts& c, mechanism m) { return c.bytes[int(m)]; }
long long C(const porter::mechanism_counts& c, mechanism m) { return c.copies[int(m)]; }

// ---- the independent model -----------------------------------------------------------------------

/// Does every one of these values divide by w?
bool all_divisible(std::int64_t w, std::initializer_list<std::int64_t> v) {
  for (std::int64_t x : v)
    if (((x % w) + w) % w != 0) return false;
  return true;
}

/// tma byte range, one byte at a time: byte j moves with cp.async.bulk when source and destination
/// agree mod 16 and src + j lies between the first and the last 16-byte boundary of the range.
void model_tma_bytes(std::uint64_t s, std::uint64_t d, std::uint64_t n, long long& bulk, long long& threads) {
  const std::uint64_t lo = (s + 15) / 16 * 16, hi = (s + n) / 16 * 16;
  for (std::uint64_t j = 0; j < n; ++j) {
    const bool b = (s % 16 == d % 16) && s + j >= lo && s + j < hi;
    (b ? bulk : threads)++;
  }
}

/// cp_async byte range: the widest of 16, 8, 4 dividing both addresses; whole chunks of it.
void model_cp_bytes(std::uint64_t s, std::uint64_t d, std::uint64_t n, int& w, long long& cp, long long& threads) {
  w = 0;
  for (int c : {16, 8, 4})
    if (s % unsigned(c) == 0 && d % unsigned(c) == 0) { w = c; break; }
  cp = w ? (long long)(n / unsigned(w) * unsigned(w)) : 0;
  threads = (long long)n - cp;
}

TEST(Mechanisms, TmaBoxesAtUnalignedInnerCoordinatesMoveWithThreadLoads) {
  // 64 x 1024 floats, 8 x 32 boxes at columns 0..15: only multiples of 4 floats (16 B) take TMA.
  const auto d = desc(4, {64, 1024}, {1024, 1}, {8, 32}, base);
  std::vector<porter::coord<2>> at;
  for (int c = 0; c < 16; ++c) at.push_back({8, c});
  const auto m = porter::copy_mechanisms(d, porter::coordinate_list<2>(at), path_id::tma);
  EXPECT_EQ(m.total_copies, 16);
  EXPECT_EQ(C(m, mechanism::tma_tensor), 4);
  EXPECT_EQ(C(m, mechanism::thread_loads), 12);
  EXPECT_EQ(B(m, mechanism::tma_tensor), 4 * 8 * 32 * 4);
  EXPECT_DOUBLE_EQ(m.fraction(mechanism::thread_loads), 0.75);
  EXPECT_TRUE(m.falls_back());
  EXPECT_TRUE(Contains(m.first_fallback, "the box at (8, 1) (copy 1)"));
  EXPECT_TRUE(Contains(m.first_fallback, "1 elements = 4 B, not a multiple of 16 B"));
  EXPECT_TRUE(Contains(m.describe(), "16 copies, 16384 B: tma tensor 25.0% (4 copies), thread loads 75.0% (12 copies)"));
  // Negative aligned coordinates are aligned too (-4 floats = -16 B).
  const auto neg = porter::copy_mechanisms(d, porter::coordinate_list<2>({{-3, -4}, {0, -8}}), path_id::tma);
  EXPECT_FALSE(neg.falls_back());
  EXPECT_EQ(C(neg, mechanism::tma_tensor), 2);
}

TEST(Mechanisms, StencilGridIsAllTmaAndAllCpAsync16) {
  // porter-bench's stencil: 16384^2 floats, box 34 x 136 at (32 i - 1, 128 j - 4).
  const auto d = desc(4, {16384, 16384}, {16384, 1}, {34, 136}, base);
  const auto g = porter::tile_grid<2>({-1, -4}, {32, 128}, {512, 128});
  EXPECT_EQ(g.size(), 512 * 128);
  const auto t = porter::copy_mechanisms(d, g, path_id::tma);
  EXPECT_EQ(t.fraction(mechanism::tma_tensor), 1.0);
  EXPECT_EQ(t.total_bytes, 512LL * 128 * 34 * 136 * 4);
  const auto c = porter::copy_mechanisms(d, g, path_id::cp_async);
  EXPECT_EQ(c.fraction(mechanism::cp_async_16), 1.0);
  const auto s = porter::copy_mechanisms(d, g, path_id::staged);
  EXPECT_EQ(s.fraction(mechanism::thread_loads), 1.0);
  EXPECT_FALSE(s.falls_back());  // staged moves everything with thread loads: that is the path, not a fallback
}

TEST(Mechanisms, GridEnumeratesRowMajor) {
  const auto g = porter::tile_grid<3>({1, -2, 5}, {10, 3, 100}, {2, 3, 4});
  ASSERT_EQ(g.size(), 24);
  int at[3];
  long long t = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k, ++t) {
        g.at(t, at);
        EXPECT_EQ(at[0], 1 + 10 * i);
        EXPECT_EQ(at[1], -2 + 3 * j);
        EXPECT_EQ(at[2], 5 + 100 * k);
      }
  EXPECT_EQ(g.describe(), "grid of 2 x 3 x 4 tiles from (1, -2, 5) step (10, 3, 100)");
}

TEST(Mechanisms, CpAsyncBoxWidthsAgreeWithAPerWidthModelOverRandomLayouts) {
  std::mt19937_64 rng(20261201);
  for (int i = 0; i < 3000; ++i) {
    const int es = 1 << int(rng() % 5);  // 1..16
    const int rank = 1 + int(rng() % 3);
    const std::int64_t inner = 1 + std::int64_t(rng() % 300);
    std::int64_t pitch = inner + std::int64_t(rng() % 40);
    const int bi = 1 + int(rng() % 64);
    const std::uintptr_t off = 4 * (rng() % 8);
    porter::source_desc d = rank == 1   ? desc(es, {inner}, {1}, {bi}, base + off)
                            : rank == 2 ? desc(es, {50, inner}, {pitch, 1}, {3, bi}, base + off)
                                        : desc(es, {4, 50, inner}, {pitch * 60, pitch, 1}, {2, 3, bi}, base + off);
    const auto r = porter::validate_source(d);
    if (!r.supports(path_id::cp_async)) continue;
    std::vector<int> cols;
    for (int k = 0; k < 6; ++k) cols.push_back(int(rng() % 200) - 100);
    porter::copy_pattern p;
    p.rank = rank;
    p.is_grid = false;
    for (int c : cols) {
      for (int dd = 0; dd + 1 < rank; ++dd) p.list.push_back(int(rng() % 7) - 3);
      p.list.push_back(c);
    }
    const auto m = porter::copy_mechanisms(d, p, path_id::cp_async);
    long long want[5] = {};  // by width 16, 8, 4, threads
    const std::int64_t box_bytes = std::int64_t(es) * bi * (rank >= 2 ? 3 : 1) * (rank == 3 ? 2 : 1);
    for (int c : cols) {
      int w = 0;
      for (int cw : {16, 8, 4}) {
        const bool ok = all_divisible(cw, {std::int64_t(base + off), std::int64_t(bi) * es, std::int64_t(c) * es,
                                           rank >= 2 ? pitch * es : 0, rank == 3 ? pitch * 60 * es : 0});
        if (ok) { w = cw; break; }
      }
      want[w == 16 ? 0 : w == 8 ? 1 : w == 4 ? 2 : 3] += box_bytes;
    }
    SCOPED_TRACE("case " + std::to_string(i) + ": es " + std::to_string(es) + ", rank " + std::to_string(rank) + ", inner box " +
                 std::to_string(bi) + ", pitch " + std::to_string(pitch) + ", offset " + std::to_string(off));
    EXPECT_EQ(B(m, mechanism::cp_async_16), want[0]);
    EXPECT_EQ(B(m, mechanism::cp_async_8), want[1]);
    EXPECT_EQ(B(m, mechanism::cp_async_4), want[2]);
    EXPECT_EQ(B(m, mechanism::thread_loads), want[3]);
    EXPECT_EQ(m.falls_back(), want[3] > 0);
  }
}

TEST(Mechanisms, TmaOneDimensionalBoxesSplitIntoZeroFillBulkAndThreadLoads) {
  // 1000 floats, boxes of 256 floats (1 KiB).
  const auto d = desc(4, {1000}, {1}, {256}, base);
  // At 900: 100 floats inside (from byte 3600, 16-aligned; destination offset 0): bulk 400 B; 156 zero.
  auto m = porter::copy_mechanisms(d, porter::coordinate_list<1>({{900}}), path_id::tma);
  EXPECT_EQ(B(m, mechanism::bulk), 400);
  EXPECT_EQ(B(m, mechanism::zero_fill), 624);
  EXPECT_FALSE(m.falls_back());
  // At -3: 3 zero floats, then 253 floats from byte 0 into destination offset 12: the two
  // addresses disagree mod 16, so all 1012 B move with thread loads.
  m = porter::copy_mechanisms(d, porter::coordinate_list<1>({{-3}}), path_id::tma);
  EXPECT_EQ(B(m, mechanism::zero_fill), 12);
  EXPECT_EQ(B(m, mechanism::thread_loads), 1012);
  EXPECT_TRUE(Contains(m.first_fallback, "needs them to agree modulo 16"));
  // At 1: 256 floats from byte 4 into offset 0: disagree too.
  m = porter::copy_mechanisms(d, porter::coordinate_list<1>({{1}}), path_id::tma);
  EXPECT_EQ(B(m, mechanism::thread_loads), 1024);
  EXPECT_EQ(B(m, mechanism::zero_fill), 0);
  // At 4 with a pointer 4 bytes past 16... is refused by the layout rules instead:
  const auto e = porter_test::thrown([&] {
    porter::copy_mechanisms(desc(4, {1000}, {1}, {256}, base + 4), porter::coordinate_list<1>({{0}}), path_id::tma);
  });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), porter::errc::path_unsupported);
  EXPECT_EQ(e->rule(), "mechanisms.path_refused");
  EXPECT_TRUE(Contains(e->what(), "tma.global_address_alignment"));
}

TEST(Mechanisms, ByteRangesAgreeWithAPerByteModel) {
  for (std::uint64_t so = 0; so < 32; ++so)
    for (std::uint64_t dof = 0; dof < 16; ++dof)
      for (std::uint64_t n : {0ull, 1ull, 3ull, 15ull, 16ull, 17ull, 31ull, 32ull, 33ull, 100ull, 1000ull}) {
        SCOPED_TRACE("source offset " + std::to_string(so) + ", destination offset " + std::to_string(dof) + ", " + std::to_string(n) + " B");
        long long bulk = 0, threads = 0;
        model_tma_bytes(base + so, 128 + dof, n, bulk, threads);
        const auto t = porter::byte_range_mechanisms(path_id::tma, base + so, 128 + dof, n);
        EXPECT_EQ(B(t, mechanism::bulk), bulk);
        EXPECT_EQ(B(t, mechanism::thread_loads), threads);
        EXPECT_EQ(t.total_bytes, (long long)n);
        int w = 0;
        long long cp = 0, rest = 0;
        model_cp_bytes(base + so, 128 + dof, n, w, cp, rest);
        const auto c = porter::byte_range_mechanisms(path_id::cp_async, base + so, 128 + dof, n);
        EXPECT_EQ(B(c, mechanism::cp_async_16) + B(c, mechanism::cp_async_8) + B(c, mechanism::cp_async_4), cp);
        if (w == 16) { EXPECT_EQ(B(c, mechanism::cp_async_16), cp); }
        if (w == 8) { EXPECT_EQ(B(c, mechanism::cp_async_8), cp); }
        if (w == 4) { EXPECT_EQ(B(c, mechanism::cp_async_4), cp); }
        EXPECT_EQ(B(c, mechanism::thread_loads), rest);
        const auto s = porter::byte_range_mechanisms(path_id::staged, base + so, 128 + dof, n);
        EXPECT_EQ(B(s, mechanism::thread_loads), (long long)n);
      }
}

TEST(Mechanisms, ExplainWithAPatternPrintsEveryAllowedPath) {
  const auto d = desc(2, {64, 1024}, {1024, 1}, {8, 64}, base);  // 2-byte elements
  // Columns 0, 8, 3: tma takes 0 and 8 (16 B multiples); cp.async 16 for 0 and 8, column 3 = 6 B: 2-byte aligned -> thread loads.
  const auto p = porter::coordinate_list<2>({{0, 0}, {0, 8}, {0, 3}});
  const std::string text = porter::explain(d, nullptr, p);
  EXPECT_TRUE(Contains(text, "copies of list of 3 coordinates:"));
  EXPECT_TRUE(Contains(text, "tma: 3 copies, 3072 B: tma tensor 66.7% (2 copies), thread loads 33.3% (1 copy)"));
  EXPECT_TRUE(Contains(text, "first fallback: the box at (0, 3) (copy 2): the innermost coordinate is 3 elements = 6 B"));
  EXPECT_TRUE(Contains(text, "cp_async: 3 copies, 3072 B: cp.async 16 66.7% (2 copies), thread loads 33.3% (1 copy)"));
  EXPECT_TRUE(Contains(text, "only 2-byte aligned; cp.async moves 4, 8 or 16 bytes"));
  EXPECT_TRUE(Contains(text, "staged: 3 copies, 3072 B: thread loads 100.0% (3 copies)"));
  const std::string refused = porter::explain(desc(4, {64, 1000}, {1001, 1}, {8, 32}, base), nullptr, p);
  EXPECT_TRUE(Contains(refused, "tma: refused by the layout (above)"));
}

TEST(Mechanisms, StrictPathsRefusesFallbacksAndAcceptsAlignedPatterns) {
  const auto d = desc(4, {64, 1024}, {1024, 1}, {8, 32}, base);
  EXPECT_NO_THROW(porter::check_strict_paths(path_id::tma, d, porter::tile_grid<2>({0, 0}, {8, 32}, {8, 32}), 0));
  const auto e = porter_test::thrown(
      [&] { porter::check_strict_paths(path_id::tma, d, porter::tile_grid<2>({0, 2}, {8, 32}, {8, 32}), 3); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), porter::errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.strict_paths");
  EXPECT_TRUE(Contains(e->what(), "strict paths: path tma would move 256 of 256 copies of kernel argument 3"));
  EXPECT_TRUE(Contains(e->what(), "100.0% of the bytes) with thread loads; the box at (0, 2) (copy 0)"));
  EXPECT_TRUE(Contains(e->what(), "[rule launch.strict_paths]"));
  // cp_async: float boxes never fall back (4-byte columns); staged is never refused.
  EXPECT_NO_THROW(porter::check_strict_paths(path_id::cp_async, d, porter::tile_grid<2>({0, 2}, {8, 32}, {8, 32}), 0));
  EXPECT_NO_THROW(porter::check_strict_paths(path_id::staged, d, porter::tile_grid<2>({0, 2}, {8, 32}, {8, 32}), 0));
  // Byte boxes at odd columns: cp_async falls back.
  const auto u8 = desc(1, {64, 1024}, {1024, 1}, {8, 32}, base);
  EXPECT_THROW(porter::check_strict_paths(path_id::cp_async, u8, porter::coordinate_list<2>({{0, 1}}), 0), porter::error);
}

TEST(Mechanisms, PatternOfTheWrongRankIsRefused) {
  const auto e = porter_test::thrown([] {
    porter::copy_mechanisms(desc(4, {64, 64}, {64, 1}, {8, 32}, base), porter::coordinate_list<1>({{0}}), path_id::tma);
  });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), porter::errc::invalid_argument);
  EXPECT_EQ(e->rule(), "mechanisms.pattern_rank");
}

TEST(Mechanisms, HostCallableFormMatchesTheGrid) {
  std::vector<float> host(64 * 1024);
  const auto s = porter::make_tiled_source<porter::box<float, 8, 32>>(host.data(), {64, 1024});
  const auto a = porter::copy_mechanisms(s, 64, [](long long t) { return porter::coord<2>{int(t / 8) * 8, int(t % 8) * 32 + 1}; },
                                         path_id::cp_async);
  const auto b = porter::copy_mechanisms(s, porter::tile_grid<2>({0, 1}, {8, 32}, {8, 8}), path_id::cp_async);
  for (int m = 0; m < porter::mechanism_count; ++m) EXPECT_EQ(a.bytes[m], b.bytes[m]);
  EXPECT_EQ(a.total_copies, 64);
}

}  // namespace
