// tests/host/validate_source_test.cpp — every rule of porter::validate_source: rule id, offending value in the message, paths kept.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/error.hpp"
#include "porter/source.hpp"

namespace {

using porter::path_bit;
using porter::path_id;
using porter_test::Contains;
using porter_test::desc;
using porter_test::note;
using porter_test::refusal;
using porter_test::refusals_of;

constexpr std::uintptr_t base = 0x100000;  // a fake, 4 KiB aligned global address

// ---- layouts every path accepts ---------------------------------------------------------------

TEST(ValidateSource, AlignedDenseFloatGridIsReadableByEveryPath) {
  // The stencil example's source: 1000 x 1500 floats, 18 x 72 halo boxes (288 B rows).
  const auto r = porter::validate_source(desc(4, {1000, 1500}, {1500, 1}, {18, 72}, base));
  EXPECT_EQ(r.mask, path_bit(path_id::tma) | path_bit(path_id::cp_async) | path_bit(path_id::staged));
  EXPECT_TRUE(r.refusals.empty());
  EXPECT_EQ(r.cp_async_max_chunk, 16);
  EXPECT_EQ(r.tma_copies_per_box, 1);
  EXPECT_EQ(r.tma_split_rows, 18);
  const auto* n = note(r, path_id::cp_async);
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(Contains(n->message, "chunks of up to 16 B (cp.async.cg)"));
  EXPECT_TRUE(Contains(n->message, "narrower chunks"));  // 4-byte elements: a box may start at any column
  ASSERT_NE(note(r, path_id::staged), nullptr);
  EXPECT_TRUE(Contains(note(r, path_id::staged)->message, "vector loads of up to 16 B"));
}

// ---- tma.stride_multiple_of_16 -----------------------------------------------------------------

TEST(ValidateSource, RowPitch2002BytesRefusesTmaAndCpAsyncKeepsStaged) {
  // 2-byte elements, pitch 1001 elements = 2002 B: not a multiple of 16 (TMA) and only 2-byte aligned (cp.async).
  const auto r = porter::validate_source(desc(2, {64, 1000}, {1001, 1}, {16, 64}, base));
  EXPECT_EQ(r.mask, path_bit(path_id::staged));
  const auto* t = refusal(r, path_id::tma, "tma.stride_multiple_of_16");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "2002 B"));
  EXPECT_TRUE(Contains(t->message, "row pitch"));
  EXPECT_TRUE(Contains(t->message, "multiple of 16 B"));
  const auto* c = refusal(r, path_id::cp_async, "cp_async.alignment_4");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(Contains(c->message, "2002 B"));
  EXPECT_TRUE(Contains(c->message, "only 2-byte aligned"));
  EXPECT_EQ(r.cp_async_max_chunk, 0);
  ASSERT_NE(note(r, path_id::staged), nullptr);
  EXPECT_TRUE(Contains(note(r, path_id::staged)->message, "vector loads of up to 2 B"));
}

TEST(ValidateSource, FloatPitch4004BytesRefusesTmaOnlyAndCpAsyncUses4ByteChunks) {
  const auto r = porter::validate_source(desc(4, {64, 1000}, {1001, 1}, {16, 64}, base));
  EXPECT_EQ(r.mask, path_bit(path_id::cp_async) | path_bit(path_id::staged));
  const auto* t = refusal(r, path_id::tma, "tma.stride_multiple_of_16");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "4004 B"));
  EXPECT_EQ(r.cp_async_max_chunk, 4);
  ASSERT_NE(note(r, path_id::cp_async), nullptr);
  EXPECT_TRUE(Contains(note(r, path_id::cp_async)->message, "chunks of up to 4 B (cp.async.ca)"));
}

TEST(ValidateSource, OuterStrideOfA3dTensorIsCheckedToo) {
  // Row pitch fine (64 floats), plane stride 4100 floats = 16400 B: a multiple of 16 -> fine; 4099 -> 16396 B.
  const auto ok = porter::validate_source(desc(4, {4, 64, 64}, {4100, 64, 1}, {2, 8, 64}, base));
  EXPECT_TRUE(ok.supports(path_id::tma));
  const auto bad = porter::validate_source(desc(4, {4, 64, 64}, {4099, 64, 1}, {2, 8, 64}, base));
  const auto* t = refusal(bad, path_id::tma, "tma.stride_multiple_of_16");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "dimension 0"));
  EXPECT_TRUE(Contains(t->message, "16396 B"));
  EXPECT_FALSE(Contains(t->message, "row pitch"));  // dimension 1 is the row pitch of a 3D tensor, not 0
  EXPECT_EQ(bad.cp_async_max_chunk, 4);
}

// ---- tma.global_address_alignment and cp_async.alignment_4 (address) ---------------------------

TEST(ValidateSource, PointerOffsetBy4RefusesTmaAndNarrowsCpAsyncTo4) {
  const auto r = porter::validate_source(desc(4, {64, 64}, {64, 1}, {8, 64}, base + 4));
  const auto* t = refusal(r, path_id::tma, "tma.global_address_alignment");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "4 B past a 16-byte boundary"));
  EXPECT_EQ(refusals_of(r, path_id::tma), 1);
  EXPECT_TRUE(r.supports(path_id::cp_async));
  EXPECT_EQ(r.cp_async_max_chunk, 4);
}

TEST(ValidateSource, PointerOffsetBy8AllowsCpAsync8ByteChunks) {
  const auto r = porter::validate_source(desc(4, {64, 64}, {64, 1}, {8, 64}, base + 8));
  ASSERT_NE(refusal(r, path_id::tma, "tma.global_address_alignment"), nullptr);
  EXPECT_TRUE(Contains(refusal(r, path_id::tma, "tma.global_address_alignment")->message, "8 B past"));
  EXPECT_EQ(r.cp_async_max_chunk, 8);
}

TEST(ValidateSource, CpAsyncRefusedBelow4ByteAddressAlignmentNamesTheAddress) {
  const auto r = porter::validate_source(desc(2, {64, 64}, {64, 1}, {8, 64}, base + 2));
  const auto* c = refusal(r, path_id::cp_async, "cp_async.alignment_4");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(Contains(c->message, "the global address is 2 B past a 4-byte boundary"));
  EXPECT_TRUE(Contains(c->message, "only 2-byte aligned"));
  EXPECT_EQ(r.mask, path_bit(path_id::staged));
}

TEST(ValidateSource, EveryByteOffsetOfAByteTensor) {
  // Reference model: TMA needs the address 16-byte aligned; cp.async gets the lowest set bit, capped at 16, if >= 4.
  for (unsigned k = 0; k < 32; ++k) {
    SCOPED_TRACE("address offset " + std::to_string(k));
    const auto r = porter::validate_source(desc(1, {64, 256}, {256, 1}, {8, 64}, base + k));
    const unsigned low = k == 0 ? 16u : (k & (~k + 1u)) > 16u ? 16u : (k & (~k + 1u));
    EXPECT_EQ(r.supports(path_id::tma), k % 16 == 0);
    if (k % 16 != 0) {
      const auto* t = refusal(r, path_id::tma, "tma.global_address_alignment");
      ASSERT_NE(t, nullptr);
      EXPECT_TRUE(Contains(t->message, std::to_string(k % 16) + " B past a 16-byte boundary"));
    }
    EXPECT_EQ(r.supports(path_id::cp_async), low >= 4);
    EXPECT_EQ(r.cp_async_max_chunk, low >= 4 ? int(low) : 0);
    if (low < 4) {
      const auto* c = refusal(r, path_id::cp_async, "cp_async.alignment_4");
      ASSERT_NE(c, nullptr);
      EXPECT_TRUE(Contains(c->message, std::to_string(k % 4) + " B past a 4-byte boundary"));
      EXPECT_TRUE(Contains(c->message, "only " + std::to_string(low) + "-byte aligned"));
    }
    EXPECT_TRUE(r.supports(path_id::staged));
  }
}

// ---- tma.inner_box_multiple_of_16 and cp_async.alignment_4 (box row) ---------------------------

TEST(ValidateSource, InnerBoxUnder16BytesRefusesTma) {
  const auto r = porter::validate_source(desc(4, {64, 64}, {64, 1}, {8, 2}, base));  // 2 floats = 8 B
  const auto* t = refusal(r, path_id::tma, "tma.inner_box_multiple_of_16");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "8 B (2 elements of 4 B)"));
  EXPECT_EQ(r.cp_async_max_chunk, 8);  // an 8-byte box row limits cp.async to 8-byte chunks
  const auto r12 = porter::validate_source(desc(4, {64, 64}, {64, 1}, {8, 3}, base));  // 12 B
  ASSERT_NE(refusal(r12, path_id::tma, "tma.inner_box_multiple_of_16"), nullptr);
  EXPECT_TRUE(Contains(refusal(r12, path_id::tma, "tma.inner_box_multiple_of_16")->message, "12 B (3 elements of 4 B)"));
  EXPECT_EQ(r12.cp_async_max_chunk, 4);
  const auto r48 = porter::validate_source(desc(4, {64, 64}, {64, 1}, {8, 12}, base));  // 48 B: fine
  EXPECT_TRUE(r48.supports(path_id::tma));
}

TEST(ValidateSource, CpAsyncRefusedForA6ByteBoxRowNamesTheRow) {
  const auto r = porter::validate_source(desc(1, {64, 64}, {64, 1}, {8, 6}, base));
  const auto* c = refusal(r, path_id::cp_async, "cp_async.alignment_4");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(Contains(c->message, "the box row is 6 B"));
  EXPECT_TRUE(Contains(c->message, "only 2-byte aligned"));
  ASSERT_NE(refusal(r, path_id::tma, "tma.inner_box_multiple_of_16"), nullptr);
  EXPECT_TRUE(Contains(refusal(r, path_id::tma, "tma.inner_box_multiple_of_16")->message, "6 B (6 elements of 1 B)"));
}

// ---- tma.box_dim_range and the outermost split -------------------------------------------------

TEST(ValidateSource, InnermostBoxDimension512IsRefused) {
  const auto r = porter::validate_source(desc(4, {64, 4096}, {4096, 1}, {8, 512}, base));  // 2048 B rows
  const auto* t = refusal(r, path_id::tma, "tma.box_dim_range");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "box dimension 1 (innermost) is 512 elements"));
  EXPECT_TRUE(Contains(t->message, "1..256"));
  EXPECT_EQ(refusals_of(r, path_id::tma), 1);
  EXPECT_TRUE(r.supports(path_id::cp_async));
}

TEST(ValidateSource, OutermostBoxDimension512IsSplitInto2CopiesOf256) {
  const auto r = porter::validate_source(desc(4, {4096, 32}, {32, 1}, {512, 32}, base));
  EXPECT_TRUE(r.supports(path_id::tma));
  EXPECT_EQ(r.tma_copies_per_box, 2);
  EXPECT_EQ(r.tma_split_rows, 256);
  const auto* n = note(r, path_id::tma);
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(Contains(n->message, "dimension 0 (512) exceeds 256"));
  EXPECT_TRUE(Contains(n->message, "2 copies of 256"));
}

TEST(ValidateSource, OutermostSplitUsesTheLargestDivisorUpTo256) {
  for (int b : {1, 100, 255, 256, 257, 300, 384, 512, 768, 1000, 1024}) {
    SCOPED_TRACE("outermost box dimension " + std::to_string(b));
    const auto r = porter::validate_source(desc(4, {8192, 32}, {32, 1}, {b, 32}, base));
    int want = 1;  // brute force: the largest divisor of b that is <= 256
    for (int s = 1; s <= 256 && s <= b; ++s)
      if (b % s == 0) want = s;
    EXPECT_TRUE(r.supports(path_id::tma));
    EXPECT_EQ(r.tma_split_rows, want);
    EXPECT_EQ(r.tma_copies_per_box * r.tma_split_rows, b);
  }
}

TEST(ValidateSource, SixteenByteElementsCountAsTwo8ByteTmaElements) {
  const auto r = porter::validate_source(desc(16, {64, 1000}, {1000, 1}, {4, 200}, base));
  const auto* t = refusal(r, path_id::tma, "tma.box_dim_range");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "200 elements (400 8-byte TMA elements)"));
  EXPECT_TRUE(porter::validate_source(desc(16, {64, 1000}, {1000, 1}, {4, 128}, base)).supports(path_id::tma));
  EXPECT_FALSE(porter::validate_source(desc(16, {64, 1000}, {1000, 1}, {4, 129}, base)).supports(path_id::tma));
}

TEST(ValidateSource, MiddleBoxDimensionAbove256IsRefused) {
  const auto r = porter::validate_source(desc(4, {8, 1000, 64}, {64000, 64, 1}, {2, 300, 16}, base));
  const auto* t = refusal(r, path_id::tma, "tma.box_dim_range");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "box dimension 1 is 300"));
  EXPECT_TRUE(Contains(t->message, "only the outermost dimension can be split"));
  EXPECT_TRUE(porter::validate_source(desc(4, {8, 1000, 64}, {64000, 64, 1}, {2, 256, 16}, base)).supports(path_id::tma));
  const auto r4 = porter::validate_source(desc(4, {2, 8, 1000, 64}, {512000, 64000, 64, 1}, {1, 2, 257, 16}, base));
  ASSERT_NE(refusal(r4, path_id::tma, "tma.box_dim_range"), nullptr);
  EXPECT_TRUE(Contains(refusal(r4, path_id::tma, "tma.box_dim_range")->message, "box dimension 2 is 257"));
}

// ---- boxes larger than the tensor ------------------------------------------------------------------

// A problem smaller than one tile keeps TMA: the box is encoded as it is and the elements outside
// the tensor read as zero (there was a rule tma.box_within_extent; tests/device/test_small_tensors.cu
// checks on the GPU that TMA copies such boxes bit-exactly).
TEST(ValidateSource, BoxLargerThanTheTensorInEveryDimensionKeepsTma) {
  const auto r = porter::validate_source(desc(4, {5, 7}, {8, 1}, {8, 32}, base));  // 5 x 7 floats, box 8 x 32
  EXPECT_TRUE(r.supports(path_id::tma));
  EXPECT_EQ(refusals_of(r, path_id::tma), 0);
  EXPECT_EQ(r.tma_split_rows, 8);
  const auto r5 = porter::validate_source(desc(4, {1, 1, 2, 1, 3}, {16, 16, 8, 4, 1}, {2, 2, 3, 2, 8}, base));
  EXPECT_TRUE(r5.supports(path_id::tma));
  // With the outermost dimension split: 300 rows of 256 B in 2 copies of 150, over 20 rows.
  const auto big = porter::validate_source(desc(1, {20, 100}, {112, 1}, {300, 256}, base));
  EXPECT_TRUE(big.supports(path_id::tma));
  EXPECT_EQ(big.tma_split_rows, 150);
}

// ---- tma.stride_below_2^40 and tma.extent_range ------------------------------------------------

TEST(ValidateSource, StrideOf2To40BytesIsRefused) {
  const std::int64_t s = std::int64_t(1) << 38;  // floats: 2^40 bytes
  const auto r = porter::validate_source(desc(4, {4, 64}, {s, 1}, {4, 64}, base));
  const auto* t = refusal(r, path_id::tma, "tma.stride_below_2^40");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, std::to_string(std::uint64_t(1) << 40) + " B"));
  EXPECT_EQ(refusals_of(r, path_id::tma), 1);  // still a multiple of 16
  EXPECT_TRUE(r.supports(path_id::cp_async));
  EXPECT_TRUE(porter::validate_source(desc(4, {4, 64}, {s - 4, 1}, {4, 64}, base)).supports(path_id::tma));  // 2^40 - 16 B
}

// Found by the validation fuzz: 2^62 floats is 2^64 B, which wrapped to 0 in 64-bit arithmetic
// and passed as "below 2^40".
TEST(ValidateSource, StrideWhoseByteSizeOverflows64BitsIsRefused) {
  for (std::int64_t s : {std::int64_t(1) << 62, (std::int64_t(1) << 60) + 4, std::int64_t(1) << 59}) {
    SCOPED_TRACE("stride " + std::to_string(s));
    const auto r = porter::validate_source(desc(16, {4, 64}, {s, 1}, {4, 64}, base));
    const auto* t = refusal(r, path_id::tma, "tma.stride_below_2^40");
    ASSERT_NE(t, nullptr);
    const bool beyond = s > (std::int64_t(1) << 59);  // 2^59 x 16 B = 2^63 B still fits in 64 bits
    EXPECT_TRUE(Contains(t->message, beyond ? std::to_string(s) + " elements of 16 B (beyond 2^64 B)" : "9223372036854775808 B"));
  }
}

TEST(ValidateSource, ExtentAbove2To32IsRefusedForTensorCopies) {
  const std::int64_t e = (std::int64_t(1) << 32) + 1;
  const auto r = porter::validate_source(desc(4, {4, e}, {e + 3, 1}, {4, 64}, base));  // pitch 2^34 + 16 B
  const auto* t = refusal(r, path_id::tma, "tma.extent_range");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(Contains(t->message, "extent of dimension 1 is 4294967297"));
  EXPECT_EQ(refusals_of(r, path_id::tma), 1);
  const std::int64_t e32 = std::int64_t(1) << 32;
  EXPECT_TRUE(porter::validate_source(desc(4, {4, e32}, {e32, 1}, {4, 64}, base)).supports(path_id::tma));
  // 1D sources move with cp.async.bulk byte copies, which have no tensor-map extent limit.
  EXPECT_TRUE(porter::validate_source(desc(4, {std::int64_t(1) << 33}, {1}, {256}, base)).supports(path_id::tma));
}

// ---- inputs no path can read: porter::error(errc::invalid_argument) ---------------------------

struct invalid_case {
  const char* what;
  porter::source_desc d;
  const char* rule;
  const char* value_text;
};

porter::source_desc with(porter::source_desc d, void (*edit)(porter::source_desc&)) {
  edit(d);
  return d;
}

TEST(ValidateSource, InputsNoPathCanReadThrowInvalidArgumentNamingRuleAndValue) {
  const porter::source_desc good = desc(4, {64, 64}, {64, 1}, {8, 64}, base);
  const invalid_case cases[] = {
      {"rank 0", with(good, [](porter::source_desc& d) { d.rank = 0; }), "source.rank", "rank is 0"},
      {"rank 6", with(good, [](porter::source_desc& d) { d.rank = 6; }), "source.rank", "rank is 6"},
      {"element size 3", with(good, [](porter::source_desc& d) { d.elem_bytes = 3; }), "source.element_size", "element size is 3 B"},
      {"element size 32", with(good, [](porter::source_desc& d) { d.elem_bytes = 32; }), "source.element_size", "element size is 32 B"},
      {"null pointer", with(good, [](porter::source_desc& d) { d.ptr = nullptr; }), "source.null_pointer", "pointer is null"},
      {"extent 0", with(good, [](porter::source_desc& d) { d.extent[1] = 0; }), "source.extent_positive", "extent of dimension 1 is 0"},
      {"extent -5", with(good, [](porter::source_desc& d) { d.extent[0] = -5; }), "source.extent_positive", "extent of dimension 0 is -5"},
      {"box 0", with(good, [](porter::source_desc& d) { d.box[0] = 0; }), "source.box_positive", "box dimension 0 is 0"},
      {"stride 0", with(good, [](porter::source_desc& d) { d.stride[0] = 0; }), "source.stride_positive", "stride of dimension 0 is 0 elements"},
      {"innermost stride 0", with(good, [](porter::source_desc& d) { d.stride[1] = 0; }), "source.stride_positive", "stride of dimension 1 is 0 elements"},
      {"innermost stride 2", with(good, [](porter::source_desc& d) { d.stride[1] = 2; }), "source.inner_contiguous", "the innermost stride is 2 elements"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto e = porter_test::thrown([&] { porter::validate_source(c.d); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->code(), porter::errc::invalid_argument);
    EXPECT_EQ(e->rule(), c.rule);
    EXPECT_TRUE(Contains(e->what(), c.value_text));
    EXPECT_TRUE(Contains(e->what(), std::string("[rule ") + c.rule + "]"));
  }
  EXPECT_NO_THROW(porter::validate_source(good));
}

// ---- the report's own contract ------------------------------------------------------------------

TEST(ValidateSource, MaskBitIsClearExactlyWhenThePathHasARefusal) {
  // Reference model of the layout rules for 2D sources, checked over pitches, element sizes and offsets.
  for (int es : {1, 2, 4, 8, 16}) {
    for (std::int64_t pitch = 500; pitch < 520; ++pitch) {
      for (std::uintptr_t off : {0u, 4u, 8u, 16u}) {
        const int inner = 64 / es > 0 ? 64 / es : 1;  // a 64-byte box row
        const auto d = desc(es, {100, 500}, {pitch, 1}, {8, inner}, base + off);
        SCOPED_TRACE("element " + std::to_string(es) + " B, pitch " + std::to_string(pitch) + ", offset " + std::to_string(off));
        const auto r = porter::validate_source(d);
        for (path_id p : {path_id::tma, path_id::cp_async, path_id::staged})
          EXPECT_EQ(r.supports(p), refusals_of(r, p) == 0) << porter::path_id_name(p);
        const std::uint64_t pitch_bytes = std::uint64_t(pitch) * std::uint64_t(es);
        EXPECT_EQ(r.supports(path_id::tma), off % 16 == 0 && pitch_bytes % 16 == 0);
        const std::uint64_t bits = (base + off) | 64u | pitch_bytes;
        const std::uint64_t low = bits & (~bits + 1);
        const int want = low >= 16 ? 16 : int(low);
        EXPECT_EQ(r.cp_async_max_chunk, want >= 4 ? want : 0);
        EXPECT_TRUE(r.supports(path_id::staged));
      }
    }
  }
}

}  // namespace
