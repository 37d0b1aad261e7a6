// tests/host/validate_fuzz_test.cpp — property-based fuzz of the host validation: random ranks,
// extents, strides, element sizes, boxes and pointers through porter::validate_source and
// porter::make_tiled_source, compared with an independent model of the documented rules
// (docs/design.md, "Sources are validated once"; the rules files' comments). The model is written
// here from the rules' text, not from porter's code: it computes stride bytes in 128-bit
// arithmetic, finds the outermost split by brute force, and lists every rule id each path breaks.
//
// Default: a fixed seed and 4000 cases (a fraction of a second). PORTER_FUZZ_SEED=<n> and
// PORTER_FUZZ_CASES=<n> change them; every failure prints the seed and the case's layout, so
//   PORTER_FUZZ_SEED=<seed> PORTER_FUZZ_CASES=<case+1> porter_host_tests --gtest_filter='ValidateFuzz.*'
// repeats it. A crash (signal, uncaught exception) fails the test program.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/error.hpp"
#include "porter/source.hpp"

namespace {

using porter::path_id;
using u128 = unsigned __int128;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::uint64_t(std::strtoull(v, nullptr, 0)) : fallback;
}
std::uint64_t fuzz_seed() { return env_u64("PORTER_FUZZ_SEED", 0x5eed2026); }
long long fuzz_cases() { return (long long)env_u64("PORTER_FUZZ_CASES", 4000); }

/// What the documented rules say about a layout.
struct verdict {
  std::string error_rule;                      ///< an input no path can read: the rule porter must throw
  unsigned mask = 0;                           ///< paths allowed
  std::map<path_id, std::multiset<std::string>> rules;  ///< rule ids broken, per path
  int cp_async_chunk = 0;
  int split_rows = 0, copies_per_box = 0;
};

/// TMA boxes may exceed the tensor's extent (a box larger than the tensor zero-fills the rest, as
/// CUTLASS's small problems use it); true restores the old rule tma.box_within_extent.
constexpr bool model_box_within_extent = false;

verdict model(const porter::source_desc& d) {
  verdict v;
  const int R = d.rank;
  if (R < 1 || R > 5) { v.error_rule = "source.rank"; return v; }
  const int es = d.elem_bytes;
  if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16) { v.error_rule = "source.element_size"; return v; }
  if (d.ptr == nullptr) { v.error_rule = "source.null_pointer"; return v; }
  for (int i = 0; i < R; ++i) if (d.extent[i] < 1) { v.error_rule = "source.extent_positive"; return v; }
  for (int i = 0; i < R; ++i) if (d.box[i] < 1) { v.error_rule = "source.box_positive"; return v; }
  for (int i = 0; i < R; ++i) if (d.stride[i] < 1) { v.error_rule = "source.stride_positive"; return v; }
  if (d.stride[R - 1] != 1) { v.error_rule = "source.inner_contiguous"; return v; }

  const u128 addr = u128(reinterpret_cast<std::uintptr_t>(d.ptr));
  const u128 inner_bytes = u128(d.box[R - 1]) * u128(es);
  auto& tma = v.rules[path_id::tma];
  // TMA: cuTensorMapEncodeTiled's list, and porter's split of the outermost dimension.
  if (addr % 16 != 0) tma.insert("tma.global_address_alignment");
  for (int i = 0; i + 1 < R; ++i) {
    const u128 sb = u128(d.stride[i]) * u128(es);
    if (sb % 16 != 0) tma.insert("tma.stride_multiple_of_16");
    if (sb >= (u128(1) << 40)) tma.insert("tma.stride_below_2^40");
  }
  if (inner_bytes % 16 != 0) tma.insert("tma.inner_box_multiple_of_16");
  if (R == 1) {
    v.split_rows = d.box[0];
    v.copies_per_box = 1;
  } else {
    for (int i = 0; i < R; ++i)
      if (u128(d.extent[i]) > (u128(1) << 32)) tma.insert("tma.extent_range");
    if (std::int64_t(d.box[R - 1]) * (es == 16 ? 2 : 1) > 256) tma.insert("tma.box_dim_range");
    for (int i = 1; i + 1 < R; ++i)
      if (d.box[i] > 256) tma.insert("tma.box_dim_range");
    // Split: the largest s <= 256 dividing box[0] whose part (s rows of the inner box bytes) is a
    // multiple of 128 bytes; brute force over every candidate.
    u128 slab = u128(es);
    for (int i = 1; i < R; ++i) slab *= u128(d.box[i]);
    int split = d.box[0];
    if (d.box[0] > 256) {
      int best = 0;
      for (int s = 1; s <= 256; ++s)
        if (d.box[0] % s == 0 && (u128(s) * slab) % 128 == 0) best = s;
      if (best == 0) tma.insert("tma.split_alignment");
      else split = best;
    }
    v.split_rows = split;
    v.copies_per_box = d.box[0] / split;
    if (model_box_within_extent)
      for (int i = 0; i < R; ++i)
        if (std::int64_t(i == 0 ? split : d.box[i]) > d.extent[i]) tma.insert("tma.box_within_extent");
  }
  // cp.async: 4, 8 or 16 bytes, the widest power of two dividing the address, every outer stride
  // in bytes and the box row in bytes.
  int w = 16;
  auto limit = [&](u128 x) {
    while (w > 1 && x % unsigned(w) != 0) w /= 2;
  };
  limit(addr);
  limit(inner_bytes);
  for (int i = 0; i + 1 < R; ++i) limit(u128(d.stride[i]) * u128(es));
  if (w < 4) v.rules[path_id::cp_async].insert("cp_async.alignment_4");
  else v.cp_async_chunk = w;
  for (path_id p : {path_id::tma, path_id::cp_async, path_id::staged})
    if (v.rules[p].empty()) v.mask |= porter::path_bit(p);
  return v;
}

/// A random layout: mostly valid, sometimes breaking one input rule; extents, strides and boxes
/// from small to huge, pointers at every offset modulo 16.
porter::source_desc random_desc(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<std::int64_t> l) { return *(l.begin() + std::ptrdiff_t(rng() % l.size())); };
  porter::source_desc d;
  d.rank = 1 + int(rng() % 5);
  static const int sizes[] = {1, 2, 4, 8, 16};
  d.elem_bytes = sizes[rng() % 5];
  std::uint64_t a = (rng() & 0xffffffffff00ull) + 16 * (rng() % 64);
  a += rng() % 4 == 0 ? rng() % 16 : 0;  // a quarter of the pointers are not 16-byte aligned
  d.ptr = reinterpret_cast<const void*>(std::uintptr_t(a));
  for (int i = 0; i < d.rank; ++i) {
    const int r = int(rng() % 10);
    d.extent[i] = r < 5 ? 1 + std::int64_t(rng() % 300) : r < 8 ? 1 + std::int64_t(rng() % 70000)
                  : pick({1, 2, 255, 256, 257, (1LL << 32) - 1, 1LL << 32, (1LL << 32) + 1, 1LL << 40});
    const int b = int(rng() % 10);
    d.box[i] = b < 6 ? 1 + int(rng() % 64) : b < 9 ? 1 + int(rng() % 300) : int(pick({256, 257, 384, 512, 768, 1000, 1024, 4096}));
  }
  // Strides: dense, padded (aligned or not), or huge, innermost 1.
  d.stride[d.rank - 1] = 1;
  for (int i = d.rank - 2; i >= 0; --i) {
    const std::int64_t dense = d.stride[i + 1] * std::min<std::int64_t>(d.extent[i + 1], 1LL << 20);
    const int s = int(rng() % 10);
    d.stride[i] = s < 4 ? dense : s < 7 ? dense + std::int64_t(rng() % 64) : s < 9 ? (dense + 15) / 16 * 16 : pick({1LL << 36, (1LL << 37) + 3, 1LL << 40, 1LL << 59, (1LL << 60) + 1, (1LL << 62)});
  }
  // Now and then, an input no path can read.
  switch (rng() % 40) {
    case 0: d.rank = int(rng() % 2) ? 0 : 6 + int(rng() % 3); break;
    case 1: d.elem_bytes = int(pick({0, 3, 5, 6, 12, 32, -4})); break;
    case 2: d.ptr = nullptr; break;
    case 3: d.extent[rng() % unsigned(d.rank)] = pick({0, -1, -(1LL << 40)}); break;
    case 4: d.box[rng() % unsigned(d.rank)] = int(pick({0, -1, -300})); break;
    case 5: d.stride[rng() % unsigned(d.rank)] = pick({0, -1, -64}); break;
    case 6: d.stride[d.rank - 1] = pick({2, 3, 64}); break;
    default: break;
  }
  return d;
}

std::string describe(const porter::source_desc& d) {
  std::ostringstream o;
  o << "rank " << d.rank << ", " << d.elem_bytes << " B elements, ptr " << d.ptr;
  const int R = d.rank >= 1 && d.rank <= 5 ? d.rank : 5;
  o << ", extents [";
  for (int i = 0; i < R; ++i) o << (i ? ", " : "") << d.extent[i];
  o << "], strides [";
  for (int i = 0; i < R; ++i) o << (i ? ", " : "") << d.stride[i];
  o << "], box [";
  for (int i = 0; i < R; ++i) o << (i ? ", " : "") << d.box[i];
  o << "]";
  return o.str();
}

/// Compare porter's report with the model; returns a description of every difference ("" if none).
std::string compare(const porter::support_report& r, const verdict& v) {
  std::ostringstream o;
  if (r.mask != v.mask) o << "mask " << r.mask << ", model " << v.mask << "; ";
  for (path_id p : {path_id::tma, path_id::cp_async, path_id::staged}) {
    std::multiset<std::string> got;
    for (const auto& f : r.refusals)
      if (f.path == p) {
        got.insert(f.rule);
        if (f.message.empty()) o << porter::path_id_name(p) << " refusal " << f.rule << " has no sentence; ";
      }
    std::set<std::string> g(got.begin(), got.end()), w(v.rules.count(p) ? v.rules.at(p).begin() : got.end(),
                                                        v.rules.count(p) ? v.rules.at(p).end() : got.end());
    if (g != w) {
      o << porter::path_id_name(p) << " rules {";
      for (const auto& s : g) o << s << " ";
      o << "}, model {";
      for (const auto& s : w) o << s << " ";
      o << "}; ";
    }
  }
  if (r.cp_async_max_chunk != v.cp_async_chunk) o << "cp.async chunk " << r.cp_async_max_chunk << ", model " << v.cp_async_chunk << "; ";
  if (r.tma_split_rows != v.split_rows) o << "split rows " << r.tma_split_rows << ", model " << v.split_rows << "; ";
  if (r.tma_copies_per_box != v.copies_per_box) o << "copies per box " << r.tma_copies_per_box << ", model " << v.copies_per_box << "; ";
  return o.str();
}

TEST(ValidateFuzz, ValidateSourceAgreesWithTheModel) {
  const std::uint64_t seed = fuzz_seed();
  const long long n = fuzz_cases();
  std::mt19937_64 rng(seed);
  long long invalid = 0, tma_ok = 0, failures = 0;
  for (long long c = 0; c < n && failures < 10; ++c) {
    const porter::source_desc d = random_desc(rng);
    const verdict v = model(d);
    const std::string where = "PORTER_FUZZ_SEED=" + std::to_string(seed) + " case " + std::to_string(c) + ": " + describe(d);
    try {
      const porter::support_report r = porter::validate_source(d);
      if (!v.error_rule.empty()) {
        ADD_FAILURE() << where << ": porter accepted it; the model says " << v.error_rule;
        ++failures;
        continue;
      }
      const std::string diff = compare(r, v);
      if (!diff.empty()) {
        ADD_FAILURE() << where << ": " << diff;
        ++failures;
      }
      tma_ok += r.supports(path_id::tma);
    } catch (const porter::error& e) {
      ++invalid;
      if (e.code() != porter::errc::invalid_argument || e.rule() != v.error_rule) {
        ADD_FAILURE() << where << ": porter threw " << e.what() << " (rule " << e.rule() << "); the model says "
                      << (v.error_rule.empty() ? "valid" : v.error_rule);
        ++failures;
      }
    }
  }
  std::printf("[ fuzz     ] seed %llu: %lld cases, %lld invalid inputs, %lld TMA-readable\n", (unsigned long long)seed, n, invalid, tma_ok);
  EXPECT_GT(invalid, 0) << "the generator never produced an invalid input";
  EXPECT_GT(tma_ok, 0) << "the generator never produced a TMA-readable layout";
}

/// make_tiled_source for a fixed box type over random extents, strides and pointers: its interned
/// report agrees with the model, and an invalid input throws the model's rule.
template <class Box>
void fuzz_make(std::mt19937_64& rng, long long n, std::uint64_t seed, const char* name) {
  using T = typename Box::element_type;
  constexpr int R = Box::rank;
  int failures = 0;
  for (long long c = 0; c < n && failures < 5; ++c) {
    porter::source_desc d = random_desc(rng);
    // Keep the rank and element size of Box: re-draw extents/strides for R dimensions.
    std::int64_t ext[R], str[R];
    for (int i = 0; i < R; ++i) ext[i] = d.extent[i % 5];
    str[R - 1] = (R > 1 && rng() % 30 == 0) ? 2 : 1;  // rank 1 takes one ignored value (the C-array form)
    for (int i = R - 2; i >= 0; --i) str[i] = rng() % 8 == 0 ? d.stride[0] : str[i + 1] * std::max<std::int64_t>(1, std::min<std::int64_t>(ext[i + 1], 1 << 20)) + std::int64_t(rng() % 8);
    const T* ptr = rng() % 50 == 0 ? nullptr : reinterpret_cast<const T*>(std::uintptr_t(d.ptr));
    porter::source_desc m;
    m.rank = R;
    m.elem_bytes = int(sizeof(T));
    m.ptr = ptr;
    for (int i = 0; i < R; ++i) { m.extent[i] = ext[i]; m.stride[i] = str[i]; m.box[i] = Box::dim(i); }
    const verdict v = model(m);
    const std::string where = std::string(name) + " PORTER_FUZZ_SEED=" + std::to_string(seed) + " case " + std::to_string(c) + ": " + describe(m);
    try {
      // Every stride (C array of R), or the outer ones (std::vector of R-1) when the innermost is 1.
      std::vector<std::int64_t> outer(str, str + (R > 1 ? R - 1 : 0));
      const auto s = (str[R - 1] == 1 && (c & 1)) ? porter::make_tiled_source<Box>(ptr, std::vector<std::int64_t>(ext, ext + R), outer)
                                                  : porter::make_tiled_source<Box>(ptr, ext, str);
      if (!v.error_rule.empty()) {
        ADD_FAILURE() << where << ": make_tiled_source accepted it; the model says " << v.error_rule;
        ++failures;
        continue;
      }
      ASSERT_NE(s.report, nullptr) << where;
      const std::string diff = compare(*s.report, v);
      if (!diff.empty()) {
        ADD_FAILURE() << where << ": " << diff;
        ++failures;
      }
      EXPECT_EQ(s.supported & ~s.report->mask, 0u) << where << ": the device mask allows a path the layout refuses";
    } catch (const porter::error& e) {
      if (e.code() != porter::errc::invalid_argument || e.rule() != v.error_rule) {
        ADD_FAILURE() << where << ": make_tiled_source threw " << e.what() << "; the model says " << (v.error_rule.empty() ? "valid" : v.error_rule);
        ++failures;
      }
    }
  }
}

TEST(ValidateFuzz, MakeTiledSourceAgreesWithTheModel) {
  const std::uint64_t seed = fuzz_seed() + 1;
  const long long n = std::max<long long>(1, fuzz_cases() / 8);
  std::mt19937_64 rng(seed);
  fuzz_make<porter::box<float, 8, 32>>(rng, n, seed, "box<float, 8, 32>");
  fuzz_make<porter::box<std::uint8_t, 300, 256>>(rng, n, seed, "box<u8, 300, 256>");
  fuzz_make<porter::box<std::uint16_t, 257, 8>>(rng, n, seed, "box<u16, 257, 8>");
  fuzz_make<porter::box<double, 2, 3, 4, 5, 6>>(rng, n, seed, "box<double, 2, 3, 4, 5, 6>");
  fuzz_make<porter::box<char, 4096>>(rng, n, seed, "box<char, 4096>");
}

}  // namespace
