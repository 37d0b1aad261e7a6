// tests/host/stage_ring_test.cpp — stage_ring layout: 128-byte aligned buffers in every stage, header size, slack, tiny-box padding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "porter/path.hpp"
#include "porter/pipeline.hpp"
#include "porter/stage_ring.hpp"

namespace {

using porter::box;
using porter::stage_ring;

// ---- compile time: a few configurations spelled out -----------------------------------------------

using tiny = box<char, 4>;               // 4 B: padded to a whole 128-byte line
using halo = box<float, 18, 72>;         // 5184 B: not a multiple of 128
using pair = box<double, 7>;             // 56 B
using ring_tiny2 = stage_ring<2, tiny, tiny>;
static_assert(ring_tiny2::buffer_bytes[0] == 128 && ring_tiny2::buffer_bytes[1] == 128,
              "a 4-byte box occupies a whole 128-byte line");
static_assert(ring_tiny2::buffer_offset(1) == 128, "the second tiny buffer starts on the next line");
static_assert(ring_tiny2::stage_bytes == 256, "two padded tiny buffers per stage");
static_assert(ring_tiny2::header_bytes == 128, "2 stages: 2 x (full + empty) mbarriers fit in one line");
static_assert(ring_tiny2::bytes == 128 + 128 + 2 * 256, "slack + header + stages");
static_assert(stage_ring<8, halo>::header_bytes == 128, "8 stages: 16 mbarriers (128 B) fill exactly one line");
static_assert(stage_ring<7, halo>::header_bytes == 128, "7 stages: 14 mbarriers (112 B) fit in one line");
static_assert(stage_ring<3, halo>::stage_bytes == 5248, "5184 B rounded up to 41 lines");
static_assert(stage_ring<3, halo, pair>::buffer_offset(1) == 5248 && stage_ring<3, halo, pair>::stage_bytes == 5376,
              "a second buffer starts after the first's padding");
static_assert(porter::pipeline<porter::path::staged, 3, halo>::shared_bytes == stage_ring<3, halo>::bytes,
              "a pipeline asks for exactly its ring's bytes");

// ---- run time: every configuration of 1..8 stages and 1..3 buffers from a set of boxes -----------

/// The layout of one ring, read from the type (cheap to instantiate; the checks below are not templates).
struct ring_facts {
  int declared_stages, stages, buffers;
  std::size_t alignment, header_bytes, stage_bytes, bytes;
  std::vector<std::size_t> box_bytes, buffer_bytes, buffer_offset, stage_offset;
};

template <int S, class... B>
ring_facts facts() {
  using R = stage_ring<S, B...>;
  ring_facts f{S, R::stages, R::buffers, R::alignment, R::header_bytes, R::stage_bytes, R::bytes, {B::bytes...}, {}, {}, {}};
  for (int i = 0; i < int(sizeof...(B)); ++i) {
    f.buffer_bytes.push_back(R::buffer_bytes[i]);
    f.buffer_offset.push_back(R::buffer_offset(i));
  }
  for (int s = 0; s < S; ++s) f.stage_offset.push_back(R::stage_offset(s));
  return f;
}

void check_ring(const ring_facts& f) {
  const int S = f.declared_stages, n = int(f.box_bytes.size());
  SCOPED_TRACE(std::to_string(S) + " stages, " + std::to_string(n) + " buffers");
  EXPECT_EQ(f.alignment, 128u);
  EXPECT_EQ(f.stages, S);
  EXPECT_EQ(f.buffers, n);
  // Header: room for S full + S empty 8-byte mbarriers, whole lines, no spare line.
  const std::size_t need = 16u * std::size_t(S);
  EXPECT_EQ(f.header_bytes % 128, 0u);
  EXPECT_GE(f.header_bytes, need);
  EXPECT_LT(f.header_bytes - 128, need);
  // Buffers: whole lines, at least the box, less than a line of padding, packed in order.
  std::size_t off = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(f.buffer_bytes[i] % 128, 0u) << "buffer " << i;
    EXPECT_GE(f.buffer_bytes[i], f.box_bytes[i]) << "buffer " << i;
    EXPECT_LT(f.buffer_bytes[i] - f.box_bytes[i], 128u) << "buffer " << i;
    EXPECT_EQ(f.buffer_offset[i], off) << "buffer " << i;
    off += f.buffer_bytes[i];
  }
  EXPECT_EQ(f.stage_bytes, off);
  EXPECT_EQ(f.bytes, 128 + f.header_bytes + std::size_t(S) * f.stage_bytes);
  // Every buffer of every stage starts on a 128-byte boundary; no two share a 128-byte line; all lie
  // after the header and inside the requested bytes minus the alignment slack.
  std::size_t prev_end_line = f.header_bytes / 128;  // first line after the header
  for (int s = 0; s < S; ++s) {
    EXPECT_EQ(f.stage_offset[s], f.header_bytes + std::size_t(s) * f.stage_bytes);
    for (int i = 0; i < n; ++i) {
      const std::size_t start = f.stage_offset[s] + f.buffer_offset[i];
      const std::size_t end = start + f.box_bytes[i];
      EXPECT_EQ(start % 128, 0u) << "stage " << s << " buffer " << i;
      EXPECT_GE(start / 128, prev_end_line) << "stage " << s << " buffer " << i << " shares a line";
      prev_end_line = (end + 127) / 128;
      EXPECT_LE(end, f.bytes - 128) << "stage " << s << " buffer " << i;
    }
  }
  // Dynamic shared memory is only 16-byte aligned: from every 16-byte aligned start, the aligned-up
  // base plus the ring still fits in the requested bytes.
  for (std::size_t mis = 0; mis < 128; mis += 16) {
    const std::size_t aligned = (mis + 127) / 128 * 128;
    EXPECT_LE(aligned - mis + f.header_bytes + std::size_t(S) * f.stage_bytes, f.bytes) << "start at " << mis;
  }
}

template <class... B, int... S>
void check_all_depths(std::integer_sequence<int, S...>) {
  (check_ring(facts<S + 1, B...>()), ...);
}

template <class... B>
void check_depths_1_to_8() {
  check_all_depths<B...>(std::make_integer_sequence<int, 8>{});
}

TEST(StageRing, OneBufferEveryDepth) {
  check_depths_1_to_8<tiny>();
  check_depths_1_to_8<halo>();
  check_depths_1_to_8<pair>();
  check_depths_1_to_8<box<float, 32, 128>>();
  check_depths_1_to_8<box<std::uint16_t, 3, 5>>();   // 30 B
  check_depths_1_to_8<box<unsigned char, 2, 3, 4, 5, 6>>();  // 720 B, rank 5
}

TEST(StageRing, TwoBuffersEveryDepth) {
  check_depths_1_to_8<tiny, tiny>();
  check_depths_1_to_8<halo, pair>();
  check_depths_1_to_8<box<float, 64, 32>, box<float, 32, 64>>();  // GEMM-style A and B tiles
}

TEST(StageRing, ThreeBuffersEveryDepth) {
  check_depths_1_to_8<tiny, halo, pair>();
  check_depths_1_to_8<box<double, 16, 16>, tiny, box<std::uint16_t, 3, 5>>();
}

TEST(StageRing, PipelineExposesItsRingAndCompletion) {
  using tma_pipe = porter::pipeline<porter::path::tma, 4, halo, pair>;
  using cpa_pipe = porter::pipeline<porter::path::cp_async, 4, halo>;
  using stg_pipe = porter::pipeline<porter::path::staged, 4, halo>;
  EXPECT_EQ(tma_pipe::shared_bytes, (stage_ring<4, halo, pair>::bytes));
  EXPECT_EQ(tma_pipe::stages, 4);
  EXPECT_TRUE((std::is_same_v<tma_pipe::box_type<1>, pair>));
  EXPECT_EQ(tma_pipe::completion_kind, porter::completion::mbarrier_tx);
  EXPECT_EQ(cpa_pipe::completion_kind, porter::completion::async_group);
  EXPECT_EQ(stg_pipe::completion_kind, porter::completion::cta_barrier);
  // Each pipeline drives its own path's lowering, found through the registry.
  EXPECT_TRUE((std::is_same_v<tma_pipe::lowering::path, porter::path::tma>));
  EXPECT_TRUE((std::is_same_v<cpa_pipe::lowering::path, porter::path::cp_async>));
  EXPECT_TRUE((std::is_same_v<stg_pipe::lowering::path, porter::path::staged>));
  EXPECT_EQ(stg_pipe::protocol_type::stages, 4);
}

}  // namespace
