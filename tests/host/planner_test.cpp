// tests/host/planner_test.cpp — the stage and grid planner (include/porter/planner.hpp): Little's
// law per SM, the shared-memory and occupancy clamps, the staged rule, the per-stage-count
// occupancy table, the one-tile-per-CTA rule of plan_launch, and the errors. Every expected count
// below is worked out by hand in the test's comment from the rule in the header, not from the code.
#include <string>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/planner.hpp"

namespace {

namespace pt = porter_test;
using porter::path_id;

/// An H200 as query_device reports it (the fields the planner reads): 132 SMs, 2048 threads and
/// 228 KiB of shared memory per SM, 227 KiB per CTA after the opt-in; 3201 MHz x 6016-bit HBM.
porter::device_caps h200() {
  auto c = pt::h200();
  c.max_threads_per_sm = 2048;
  c.smem_per_sm = 233472;
  c.mem_clock_khz = 3201000;
  c.mem_bus_width_bits = 6016;
  return c;
}

/// A request with a chosen demand and latency, so needed = latency x demand is a round number.
porter::stage_plan_request request(path_id path, std::size_t stage_bytes, double latency_ns, double demand_gbs) {
  porter::stage_plan_request q;
  q.path = path;
  q.stage_bytes = stage_bytes;
  q.fixed_smem_bytes = 256;
  q.threads_per_cta = 256;
  q.latency_ns = latency_ns;
  q.demand_bytes_per_second_per_sm = demand_gbs * 1e9;
  return q;
}

TEST(Planner, LittlesLawCountsTheStagesLoadingBesideTheOneConsumed) {
  // needed = 600 ns x 50 GB/s = 30000 B per SM. 2 CTAs/SM (the caller's register limit), 8 KiB
  // stages: S = 2 keeps 1 x 8192 x 2 = 16384 B, S = 3 keeps 2 x 8192 x 2 = 32768 B >= 30000.
  auto q = request(path_id::tma, 8192, 600, 50);
  q.ctas_per_sm_limit = 2;
  const auto p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.ctas_per_sm, 2);
  EXPECT_DOUBLE_EQ(p.needed_bytes, 30000.0);
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 32768.0);
  EXPECT_NE(p.reason.find("Little's law"), std::string::npos) << p.reason;
  // The same on cp_async: both paths are asynchronous.
  q.path = path_id::cp_async;
  EXPECT_EQ(porter::plan_stages(h200(), q).stages, 3);
}

TEST(Planner, ThreadsBoundTheCtasWhenNoOtherLimitIsGiven) {
  // 256 threads: 2048 / 256 = 8 CTAs/SM. needed = 1000 ns x 100 GB/s = 100000 B; 4 KiB stages:
  // (S - 1) x 4096 x 8 >= 100000 needs S - 1 >= 3.05, so S = 5 (5 x 4096 + 256 + 1024 B per CTA
  // leaves 8 CTAs within 228 KiB).
  const auto p = porter::plan_stages(h200(), request(path_id::tma, 4096, 1000, 100));
  EXPECT_EQ(p.stages, 5);
  EXPECT_EQ(p.ctas_per_sm, 8);
}

TEST(Planner, SharedMemoryCapsTheCountAndTheReasonSaysSo) {
  // 64 KiB stages: S = 4 needs 4 x 65536 + 256 = 262400 B > the 232448 B opt-in; S = 3 fits one
  // CTA per SM (196864 + 1024 B). needed = 2000 ns x 200 GB/s = 400000 B is out of reach: the most
  // bytes in flight win, S = 3 with 2 x 65536 x 1 = 131072 B.
  const auto p = porter::plan_stages(h200(), request(path_id::tma, 65536, 2000, 200));
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.ctas_per_sm, 1);
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 131072.0);
  EXPECT_NE(p.reason.find("the most the shared memory allows"), std::string::npos) << p.reason;
}

TEST(Planner, AStageLargerThanOneCtaMayUseDoesNotFit) {
  const auto p = porter::plan_stages(h200(), request(path_id::cp_async, 240000, 600, 50));
  EXPECT_EQ(p.stages, 1);
  EXPECT_EQ(p.ctas_per_sm, 0);
  EXPECT_NE(p.reason.find("not even 1 stage"), std::string::npos) << p.reason;
}

TEST(Planner, StagedPlansTwoStagesWhenEveryCountFitsTheSameCtas) {
  // One register limit for all counts (3 CTAs/SM): every count keeps 3 CTAs; from 2 stages on a
  // step pays one CTA barrier instead of two and the deferred loads overlap the consumer, so the
  // smallest count >= 2 wins: S = 2. No bytes in flight of the asynchronous kind.
  auto q = request(path_id::staged, 18560, 600, 16);
  q.ctas_per_sm_limit = 3;
  const auto p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 2);
  EXPECT_EQ(p.ctas_per_sm, 3);
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 0.0);
  EXPECT_NE(p.reason.find("one CTA barrier per step"), std::string::npos) << p.reason;
  // max_stages 1 leaves no choice.
  q.max_stages = 1;
  EXPECT_EQ(porter::plan_stages(h200(), q).stages, 1);
}

TEST(Planner, StagedTakesTheCountWhoseInstantiationFitsMoreCtas) {
  // The H200's 5-point stencil on staged (2026-12-01): 72 registers at S = 1 (3 CTAs/SM), 64 at
  // S = 2 and S = 3 (4 CTAs/SM), 59 at S = 4 (4 by registers; 3 by 4 x 18560 + 256 + 1024 B of
  // shared memory). S = 2: the first count with 4.
  auto q = request(path_id::staged, 18560, 600, 16);
  q.ctas_per_sm_by_stages = {0, 3, 4, 4, 4, 4, 4, 4, 4};
  const auto p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 2);
  EXPECT_EQ(p.ctas_per_sm, 4);
  EXPECT_NE(p.reason.find("(4, 3 at 1 stage)"), std::string::npos) << p.reason;
}

TEST(Planner, StagedKeepsOneStageOnlyWhereItFitsStrictlyMoreCtas) {
  // The H100's radius-2 stencil instantiations (session 39): 4 CTAs/SM at S = 1, 2 at S = 2, 3 at
  // S = 3 (registers; shared memory alone fits 4 CTAs of 256 + 3 x 18560 + 1024 = 56960 B even at
  // S = 3). 4 > 3: S = 1.
  auto q = request(path_id::staged, 18560, 600, 16);
  q.ctas_per_sm_by_stages = {0, 4, 2, 3, 2, 2, 1, 1, 1};
  auto p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 1);
  EXPECT_EQ(p.ctas_per_sm, 4);
  EXPECT_NE(p.reason.find("more than any count >= 2 (3)"), std::string::npos) << p.reason;
  // S = 1 and S = 3 tie at 3 CTAs/SM (S = 2 fits 2): the tie goes to the count >= 2, S = 3.
  q.ctas_per_sm_by_stages = {0, 3, 2, 3, 2, 2, 1, 1, 1};
  p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.ctas_per_sm, 3);
}

TEST(Planner, ThePerCountTableReplacesTheSingleLimitCountByCount) {
  // needed = 1000 ns x 40.96 GB/s = 40960 B; 4 KiB stages.
  // One limit of 8 CTAs/SM: S = 2 keeps 32768 B, S = 3 keeps 65536 B >= 40960: S = 3.
  // With the table, S = 2 and 3 fit 4 CTAs: 16384, 32768 B; S = 4: 3 x 4096 x 4 = 49152 B: S = 4.
  auto q = request(path_id::cp_async, 4096, 1000, 40.96);
  q.ctas_per_sm_limit = 8;
  EXPECT_EQ(porter::plan_stages(h200(), q).stages, 3);
  q.ctas_per_sm_by_stages = {0, 8, 4, 4, 4, 4, 4, 4, 4};
  const auto p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 4);
  EXPECT_EQ(p.ctas_per_sm, 4);
  // A zero entry falls back to ctas_per_sm_limit for that count alone: S = 3 then fits 8 CTAs
  // (2 x 4096 x 8 = 65536 B >= 40960).
  q.ctas_per_sm_by_stages[3] = 0;
  EXPECT_EQ(porter::plan_stages(h200(), q).stages, 3);
}

TEST(Planner, ANegativeEntryMeansThatCountCannotRun) {
  // As ThePerCountTable...: S = 3 would be planned, but its instantiation cannot be resident; the
  // search stops at the first count that does not fit, so the most bytes in flight below it win:
  // S = 2 (32768 B at 8 CTAs).
  auto q = request(path_id::cp_async, 4096, 1000, 40.96);
  q.ctas_per_sm_limit = 8;
  q.ctas_per_sm_by_stages[3] = -1;
  const auto p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 2);
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 32768.0);
}

TEST(Planner, OneWaveOfOneStepTilesSaysSoInsteadOfLittlesLaw) {
  // 100 tiles of 1 KiB on 132 SMs x 8 CTAs: one wave, although 8 x 1024 B < 600 ns x 50 GB/s.
  porter::launch_plan_request lq;
  lq.stages = request(path_id::tma, 1024, 600, 50);
  lq.tiles = 100;
  const auto p = porter::plan_launch(h200(), lq);
  EXPECT_EQ(p.stages, 1);
  EXPECT_TRUE(p.one_tile_per_cta);
  EXPECT_NE(p.reason.find("fit in one wave of 1056 resident CTAs"), std::string::npos) << p.reason;
  EXPECT_EQ(p.reason.find(">= the"), std::string::npos) << p.reason;
}

TEST(Planner, MaxStagesClampsTheSearch) {
  auto q = request(path_id::tma, 4096, 1000, 100);  // would be 5 (see ThreadsBound...)
  q.max_stages = 3;
  EXPECT_EQ(porter::plan_stages(h200(), q).stages, 3);
}

TEST(Planner, LaunchOfOneStepTilesRunsOneTilePerCtaWithOneStage) {
  // Streaming: 16 KiB tiles, 8 CTAs/SM at 1 stage (threads): 131072 B in flight >= 600 ns x
  // 16 GB/s = 9600 B.
  porter::launch_plan_request lq;
  lq.stages = request(path_id::tma, 16384, 600, 16);
  lq.tiles = 1 << 20;
  lq.steps_per_tile = 1;
  const auto p = porter::plan_launch(h200(), lq);
  EXPECT_EQ(p.stages, 1);
  EXPECT_TRUE(p.one_tile_per_cta);
  EXPECT_EQ(p.ctas_per_sm, 8);
  EXPECT_NE(p.reason.find("more stages would only cut the CTAs per SM"), std::string::npos) << p.reason;
}

TEST(Planner, LaunchOfOneStepTilesTakesTheCountThatFitsMoreCtas) {
  // The stencil case of StagedTakesTheCount...: one step per tile, so a CTA uses one stage, and
  // the 2-stage instantiation fits 4 CTAs/SM against 3.
  porter::launch_plan_request lq;
  lq.stages = request(path_id::staged, 18560, 600, 16);
  lq.stages.ctas_per_sm_by_stages = {0, 3, 4, 4, 4, 4, 4, 4, 4};
  lq.tiles = 1 << 16;
  const auto p = porter::plan_launch(h200(), lq);
  EXPECT_EQ(p.stages, 2);
  EXPECT_TRUE(p.one_tile_per_cta);
  EXPECT_EQ(p.ctas_per_sm, 4);
  EXPECT_NE(p.reason.find("against 3 at 1 stage"), std::string::npos) << p.reason;
}

TEST(Planner, LaunchOfLongTilesPlansStagesInsideEachCta) {
  // A GEMM tile of 1024 K-steps: the one-stage rule does not apply; plan_stages decides (as in
  // LittlesLaw...: S = 3 at 2 CTAs/SM) and, with 2 x 2 x 8192 B >= 30000 B from residency alone,
  // the grid is one tile per CTA.
  porter::launch_plan_request lq;
  lq.stages = request(path_id::tma, 8192, 600, 50);
  lq.stages.ctas_per_sm_limit = 2;
  lq.tiles = 4096;
  lq.steps_per_tile = 1024;
  const auto p = porter::plan_launch(h200(), lq);
  EXPECT_EQ(p.stages, 3);
  EXPECT_TRUE(p.one_tile_per_cta);
  EXPECT_NE(p.reason.find("grid: one tile per CTA"), std::string::npos) << p.reason;
}

TEST(Planner, ALargeStageCountsTheTimeItsBytesTakeToLand) {
  // The bf16 mma.sync GEMM's shape on the H200: 48 KiB stages, 1 CTA/SM, 340 ns, 68 GB/s per SM.
  // Without a fill rate: needed = 340 ns x 68 GB/s = 23120 B, and S = 2 keeps 1 x 49152 B >= it.
  auto q = request(path_id::tma, 49152, 340, 68);
  q.ctas_per_sm_limit = 1;
  const auto before = porter::plan_stages(h200(), q);
  EXPECT_EQ(before.stages, 2);
  EXPECT_DOUBLE_EQ(before.transfer_ns, 0.0);
  EXPECT_NEAR(before.needed_bytes, 23120.0, 1e-6);
  // At 60 GB/s per SM a stage lands 49152 / 60e9 s = 819.2 ns after its first byte: needed =
  // (340 + 819.2) ns x 68 GB/s = 78825.6 B. S = 2 keeps 49152 B (short); S = 3 keeps 98304 B.
  q.fill_bytes_per_second_per_sm = 60e9;
  const auto p = porter::plan_stages(h200(), q);
  EXPECT_EQ(p.stages, 3);
  EXPECT_NEAR(p.transfer_ns, 819.2, 1e-9);
  EXPECT_NEAR(p.needed_bytes, 78825.6, 1e-6);
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 98304.0);
  EXPECT_NE(p.reason.find("(340 + 819 ns to land a 48 KiB stage at 60 GB/s per SM)"), std::string::npos) << p.reason;
  // A fast fill makes the term small: at 600 GB/s per SM, (340 + 81.92) x 68 = 28690.6 B: S = 2.
  q.fill_bytes_per_second_per_sm = 600e9;
  EXPECT_EQ(porter::plan_stages(h200(), q).stages, 2);
  // plan_launch passes the fill rate to the schedule as well: a GEMM tile of 128 K-steps at the
  // 60 GB/s fill keeps 2 stages in flight in its one CTA/SM (98304 B >= 78825.6 B = 77.0 KiB): one
  // tile per CTA.
  porter::launch_plan_request lq;
  lq.stages = q;
  lq.stages.fill_bytes_per_second_per_sm = 60e9;
  lq.tiles = 2048;
  lq.steps_per_tile = 128;
  const auto l = porter::plan_launch(h200(), lq);
  EXPECT_EQ(l.stages, 3);
  EXPECT_TRUE(l.one_tile_per_cta);
  EXPECT_NE(l.reason.find("77.0 KiB Little's law asks for (1159.2 ns x 68.0 GB/s per SM)"), std::string::npos) << l.reason;
}

TEST(Planner, ScheduleCountsTheTileTransferTimeWhenTheFillIsKnown) {
  // 16 KiB one-step tiles, 2 CTAs/SM, 3 stages, 300 ns x 40 GB/s = 12000 B: one tile per resident
  // CTA keeps 2 x 16384 = 32768 B >= 12000, one tile per CTA. At a 10 GB/s fill a tile lands
  // 1638.4 ns after its first byte: needed = (300 + 1638.4) x 40 = 77536 B > 32768, and a
  // persistent CTA keeps 2 tiles (2 x 2 x 16384 = 65536 B, more than 32768): persistent.
  porter::schedule_request sr;
  sr.tiles = 100000;
  sr.tile_bytes = 16384;
  sr.stages = 3;
  sr.ctas_per_sm = 2;
  sr.latency_ns = 300;
  sr.demand_bytes_per_second_per_sm = 40e9;
  EXPECT_FALSE(porter::plan_schedule(h200(), sr).schedule.persistent());
  sr.fill_bytes_per_second_per_sm = 10e9;
  const auto p = porter::plan_schedule(h200(), sr);
  EXPECT_TRUE(p.schedule.persistent());
  EXPECT_NEAR(p.needed_bytes, 77536.0, 1e-6);
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 65536.0);
}

TEST(Planner, ScheduleGoesPersistentWhenResidencyCannotHideTheLatency) {
  // 1 KiB tiles, 2 CTAs/SM, 3 stages, one step per tile: a resident CTA keeps min(1, 2) = 1 tile
  // in flight, 2 x 1024 = 2048 B per SM < 600 ns x 50 GB/s = 30000 B: persistent, 132 x 2 CTAs.
  porter::schedule_request sr;
  sr.tiles = 100000;
  sr.tile_bytes = 1024;
  sr.stages = 3;
  sr.ctas_per_sm = 2;
  sr.latency_ns = 600;
  sr.demand_bytes_per_second_per_sm = 50e9;
  const auto p = porter::plan_schedule(h200(), sr);
  EXPECT_TRUE(p.schedule.persistent());
  EXPECT_EQ(p.schedule.grid_ctas(), 264);
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 2.0 * 2 * 1024);
  // Few enough tiles for one wave: one tile per CTA whatever the bytes.
  sr.tiles = 200;
  const auto w = porter::plan_schedule(h200(), sr);
  EXPECT_FALSE(w.schedule.persistent());
  EXPECT_EQ(w.schedule.grid_ctas(), 200);
}

TEST(Planner, ScheduleStaysOneTilePerCtaWhenTheTileKeepsTheStagesInFlightItself) {
  // smallgemm's shape on the H200: 2 KiB steps, 128 K-steps per tile, 6 CTAs/SM, 2 stages. A
  // resident CTA keeps min(128, 1) = 1 step in flight: 6 x 2048 = 12288 B per SM, below 600 ns x
  // 95 GB/s = 57000 B; a persistent CTA would keep the same 1 step, so the grid is one tile per CTA.
  // (porter-bench, 2026-12-01: the persistent grid ran this kernel at 4.92 TFLOP/s, one tile per
  // CTA at 5.65.)
  porter::schedule_request sr;
  sr.tiles = 4 * 16384;
  sr.tile_bytes = 2048;
  sr.stages = 2;
  sr.ctas_per_sm = 6;
  sr.steps_per_tile = 128;
  sr.latency_ns = 600;
  sr.demand_bytes_per_second_per_sm = 95e9;
  const auto p = porter::plan_schedule(h200(), sr);
  EXPECT_FALSE(p.schedule.persistent());
  EXPECT_DOUBLE_EQ(p.in_flight_bytes, 12288.0);
  EXPECT_NE(p.reason.find("a persistent grid would keep no more"), std::string::npos) << p.reason;
  // Tiles of one step at the same stages: persistence keeps 1 step too (ahead = 1): one tile per CTA.
  sr.steps_per_tile = 1;
  EXPECT_FALSE(porter::plan_schedule(h200(), sr).schedule.persistent());
  // ... at 4 stages a persistent CTA keeps 3: 6 x 3 x 2048 = 36864 B against 12288: persistent.
  sr.stages = 4;
  EXPECT_TRUE(porter::plan_schedule(h200(), sr).schedule.persistent());
}

TEST(Planner, BadRequestsThrowNamedRules) {
  auto zero = request(path_id::tma, 0, 600, 50);
  auto e = pt::thrown([&] { porter::plan_stages(h200(), zero); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), porter::errc::invalid_argument);
  EXPECT_EQ(e->rule(), "planner.stage_bytes");
  porter::launch_plan_request lq;
  lq.stages = zero;
  e = pt::thrown([&] { porter::plan_launch(h200(), lq); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "planner.stage_bytes");
  porter::schedule_request sr;
  sr.tile_bytes = 1024;
  sr.ctas_per_sm = 0;
  e = pt::thrown([&] { porter::plan_schedule(h200(), sr); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "planner.ctas_per_sm");
  sr.ctas_per_sm = 1;
  sr.tiles = -1;
  e = pt::thrown([&] { porter::plan_schedule(h200(), sr); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "planner.tiles");
}

}  // namespace
