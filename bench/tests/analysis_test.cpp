// bench/tests/analysis_test.cpp — the targets that take a paired re-timing, without a GPU: rows as
// porter-bench's workloads leave them, then the analysis. "porter/automatic >= 0.99x the fastest
// forced path" (workloads.cpp pair_automatic) and "planner: ... planned S=k within 5% of the best
// point" (workloads.cpp planner_pairing, analysis.cpp planner_line_of) take the paired ratio only
// when the pairing compared exactly the two rows the target compares, else the two medians' ratio.
// Then how run_ncu's stall lines name their variant and read their numbers.
#include <gtest/gtest.h>

#include <string>

#include "bench.hpp"

namespace {

pb::row porter_row(const std::string& path, double rate) {
  pb::row r;
  r.workload = "stream";
  r.size = "2^28 fp32";
  r.impl = "porter";
  r.path = path;
  r.stages = 4;
  r.unit = "GB/s";
  r.rate = rate;
  r.ms_median = 1.0;
  return r;
}

/// A context with stream rows: tma 3000 GB/s (the fastest forced path), cp_async 2950, staged 2900,
/// automatic 2900 in its own median (0.967x tma) and `paired` over `with` in the pairing.
pb::context stream_rows(double paired, const std::string& with) {
  pb::context cx;
  cx.rep.rows = {porter_row("tma", 3000), porter_row("cp_async", 2950), porter_row("staged", 2900), porter_row("automatic", 2900)};
  pb::row& au = cx.rep.rows.back();
  if (!with.empty()) {
    au.paired_ratio = paired;
    au.paired_rounds = 6;
    au.paired_with = with;
  }
  return cx;
}

/// The "stream: porter/automatic >= 0.99x the fastest forced path" target that evaluate_targets
/// makes from stream_rows(paired, with); a target with an empty name when there is none.
pb::target automatic_target(double paired, const std::string& with) {
  pb::context cx = stream_rows(paired, with);
  pb::evaluate_targets(cx);
  for (const auto& t : cx.rep.targets)
    if (t.name.rfind("stream: porter/automatic >= 0.99x the fastest forced path", 0) == 0) return t;
  return {};
}

TEST(AutomaticTarget, UnpairedTakesTheTwoMedians) {
  const pb::target t = automatic_target(0, "");
  ASSERT_FALSE(t.name.empty());
  EXPECT_NEAR(t.value, 2900.0 / 3000.0, 1e-12);
  EXPECT_EQ(t.verdict, "MISS");
  EXPECT_EQ(t.detail.find("paired"), std::string::npos) << t.detail;
}

TEST(AutomaticTarget, PairedWithTheFastestForcedPathTakesThePairedRatio) {
  const pb::target t = automatic_target(0.996, "porter/tma S=4");
  ASSERT_FALSE(t.name.empty());
  EXPECT_DOUBLE_EQ(t.value, 0.996);
  EXPECT_EQ(t.verdict, "PASS");
  EXPECT_NE(t.detail.find("paired: 0.996x over 6 alternating rounds"), std::string::npos) << t.detail;
  EXPECT_NE(t.detail.find("0.967x"), std::string::npos) << "the unpaired ratio stays in the detail: " << t.detail;
}

TEST(AutomaticTarget, APairedMissSaysByHowMuch) {
  const pb::target t = automatic_target(0.95, "porter/tma S=4");
  ASSERT_FALSE(t.name.empty());
  EXPECT_DOUBLE_EQ(t.value, 0.95);
  EXPECT_EQ(t.verdict, "MISS");
  EXPECT_NE(t.detail.find("missed by 4.0%"), std::string::npos) << t.detail;
}

TEST(AutomaticTarget, APairingWithAnotherRowIsIgnored) {
  // Paired with cp_async, but tma is the fastest forced path: the pairing does not answer the target.
  const pb::target t = automatic_target(1.01, "porter/cp_async S=4");
  ASSERT_FALSE(t.name.empty());
  EXPECT_NEAR(t.value, 2900.0 / 3000.0, 1e-12);
  EXPECT_EQ(t.verdict, "MISS");
}

TEST(RowLabel, NamesImplPathAndStages) {
  pb::row r = porter_row("cp_async", 1);
  EXPECT_EQ(r.label(), "porter/cp_async S=4");
  r.path = "-";
  r.stages = 0;
  r.impl = "memcpy";
  EXPECT_EQ(r.label(), "memcpy");
}

// ---- the planner target -------------------------------------------------------------------------

pb::row bf16_row(const std::string& impl, int stages, double rate) {
  pb::row r;
  r.workload = "bf16gemm";
  r.size = "4096^3 x2";
  r.impl = impl;
  r.path = "tma";
  r.stages = stages;
  r.sweep_only = stages != 3;
  r.unit = "TFLOP/s";
  r.rate = rate;
  r.ms_median = 1.0;
  return r;
}

/// bf16gemm 4096^3 x2 on tma as session 44 measured it: the planned point porter/tma S=3 at 446.80
/// TFLOP/s in its own median, the best point porter-4-per-cta/tma S=4 at 476.20 (0.938x); between
/// them porter/tma S=4 and porter-persistent/tma S=3; a faster porter-nested row (another kernel
/// body, not a point the planner picks) and a faster row on cp_async (another path). The planned
/// row carries `paired` over `with` when `with` is not empty.
pb::context bf16_planner_rows(double paired, const std::string& with) {
  pb::context cx;
  cx.rep.rows = {bf16_row("porter", 3, 446.80), bf16_row("porter-persistent", 3, 452.0), bf16_row("porter", 4, 450.0),
                 bf16_row("porter-4-per-cta", 4, 476.20), bf16_row("porter-nested", 3, 500.0), bf16_row("porter", 2, 300.0)};
  pb::row other_path = bf16_row("porter-4-per-cta", 3, 520.0);
  other_path.path = "cp_async";
  cx.rep.rows.push_back(other_path);
  if (!with.empty()) {
    cx.rep.rows[0].paired_ratio = paired;
    cx.rep.rows[0].paired_rounds = 6;
    cx.rep.rows[0].paired_with = with;
  }
  return cx;
}

pb::planner_plan plan_s3() {
  pb::planner_plan p;
  p.stages = 3;
  p.reason = "Little's law asks for 3 stages";
  return p;
}

/// The planner target that evaluate_targets makes from `cx`'s planner lines (empty name: none).
pb::target planner_target(pb::context& cx) {
  pb::evaluate_targets(cx);
  for (const auto& t : cx.rep.targets)
    if (t.name.rfind("planner: bf16gemm 4096^3 x2 porter/tma planned S=3", 0) == 0) return t;
  return {};
}

TEST(PlannerPoints, PlannedIsThePorterRowAtThePlannedStagesBestIsAnyScheduleOfTheSameKernel) {
  const pb::context cx = bf16_planner_rows(0, "");
  const pb::planner_points p = pb::planner_points_of(cx, "bf16gemm", "4096^3 x2", "tma", 3);
  ASSERT_NE(p.planned, nullptr);
  ASSERT_NE(p.best, nullptr);
  EXPECT_EQ(p.planned, &cx.rep.rows[0]);
  EXPECT_EQ(p.best->label(), "porter-4-per-cta/tma S=4") << "not porter-nested (another kernel body), not another path";
  EXPECT_EQ(pb::planner_points_of(cx, "bf16gemm", "4096^3 x2", "tma", 5).planned, nullptr) << "no row at S=5";
  EXPECT_EQ(pb::planner_points_of(cx, "bf16gemm", "8192^3", "tma", 3).best, nullptr) << "another size";
}

TEST(PlannerPoints, AFailedRowIsNeitherPoint) {
  pb::context cx = bf16_planner_rows(0, "");
  cx.rep.rows[3].status = "FAILED: result differs bitwise";
  const pb::planner_points p = pb::planner_points_of(cx, "bf16gemm", "4096^3 x2", "tma", 3);
  ASSERT_NE(p.best, nullptr);
  EXPECT_EQ(p.best->label(), "porter-persistent/tma S=3");
}

TEST(PlannerTarget, UnpairedTakesTheTwoMedians) {
  pb::context cx = bf16_planner_rows(0, "");
  const pb::planner_line l = pb::planner_line_of(cx, "bf16gemm", "4096^3 x2", "tma", plan_s3());
  EXPECT_EQ(l.paired_rounds, 0);
  EXPECT_EQ(l.best, 4);
  EXPECT_EQ(l.best_label, "porter-4-per-cta/tma S=4");
  EXPECT_NEAR(l.ratio(), 446.80 / 476.20, 1e-12);
  cx.rep.planner.push_back(l);
  const pb::target t = planner_target(cx);
  ASSERT_FALSE(t.name.empty());
  EXPECT_NEAR(t.value, 446.80 / 476.20, 1e-12);
  EXPECT_EQ(t.verdict, "MISS");
  EXPECT_EQ(t.detail.find("paired:"), std::string::npos) << t.detail;
  EXPECT_NE(t.detail.find("unpaired medians: porter/tma S=3 446.80 TFLOP/s vs porter-4-per-cta/tma S=4 476.20 TFLOP/s = 0.938x"),
            std::string::npos)
      << t.detail;
  EXPECT_NE(t.detail.find("missed by 1.2%"), std::string::npos) << t.detail;
  EXPECT_NE(t.detail.find("Little's law asks for 3 stages"), std::string::npos) << "a miss gives the planner's reason: " << t.detail;
}

TEST(PlannerTarget, PairedWithTheBestPointTakesThePairedRatio) {
  pb::context cx = bf16_planner_rows(0.987, "porter-4-per-cta/tma S=4");
  const pb::planner_line l = pb::planner_line_of(cx, "bf16gemm", "4096^3 x2", "tma", plan_s3());
  EXPECT_EQ(l.paired_rounds, 6);
  EXPECT_DOUBLE_EQ(l.paired_ratio, 0.987);
  EXPECT_DOUBLE_EQ(l.planned_rate, 446.80) << "the unpaired medians stay on the line";
  EXPECT_DOUBLE_EQ(l.best_rate, 476.20);
  cx.rep.planner.push_back(l);
  const pb::target t = planner_target(cx);
  ASSERT_FALSE(t.name.empty());
  EXPECT_DOUBLE_EQ(t.value, 0.987);
  EXPECT_EQ(t.verdict, "PASS");
  EXPECT_NE(t.detail.find("paired: 0.987x over 6 alternating rounds"), std::string::npos) << t.detail;
  EXPECT_NE(t.detail.find("unpaired medians: porter/tma S=3 446.80 TFLOP/s vs porter-4-per-cta/tma S=4 476.20 TFLOP/s = 0.938x"),
            std::string::npos)
      << "both figures in the detail: " << t.detail;
}

TEST(PlannerTarget, APairedMissSaysByHowMuch) {
  pb::context cx = bf16_planner_rows(0.931, "porter-4-per-cta/tma S=4");
  cx.rep.planner.push_back(pb::planner_line_of(cx, "bf16gemm", "4096^3 x2", "tma", plan_s3()));
  const pb::target t = planner_target(cx);
  ASSERT_FALSE(t.name.empty());
  EXPECT_DOUBLE_EQ(t.value, 0.931);
  EXPECT_EQ(t.verdict, "MISS");
  EXPECT_NE(t.detail.find("paired: 0.931x"), std::string::npos) << t.detail;
  EXPECT_NE(t.detail.find("missed by 2.0%"), std::string::npos) << t.detail;
}

TEST(PlannerTarget, APairingWithAnotherRowIsIgnored) {
  // Paired with porter/tma S=4, but the best point is porter-4-per-cta/tma S=4.
  pb::context cx = bf16_planner_rows(1.01, "porter/tma S=4");
  const pb::planner_line l = pb::planner_line_of(cx, "bf16gemm", "4096^3 x2", "tma", plan_s3());
  EXPECT_EQ(l.paired_rounds, 0);
  cx.rep.planner.push_back(l);
  const pb::target t = planner_target(cx);
  ASSERT_FALSE(t.name.empty());
  EXPECT_NEAR(t.value, 446.80 / 476.20, 1e-12);
  EXPECT_EQ(t.verdict, "MISS");
  EXPECT_EQ(t.detail.find("paired:"), std::string::npos) << t.detail;
}

TEST(PlannerTarget, ThePlannedPointBeingTheBestNeedsNoPairing) {
  pb::context cx = bf16_planner_rows(0.5, "porter-4-per-cta/tma S=4");
  cx.rep.rows[0].rate = 480.0;  // the planned row is now the best point itself
  const pb::planner_line l = pb::planner_line_of(cx, "bf16gemm", "4096^3 x2", "tma", plan_s3());
  EXPECT_EQ(l.best_label, "porter/tma S=3");
  EXPECT_EQ(l.paired_rounds, 0) << "a pairing recorded against another row does not answer this line";
  cx.rep.planner.push_back(l);
  const pb::target t = planner_target(cx);
  EXPECT_DOUBLE_EQ(t.value, 1.0);
  EXPECT_EQ(t.verdict, "PASS");
}

TEST(PlannerReport, TableAndJsonGiveBothRatios) {
  pb::context cx = bf16_planner_rows(0.987, "porter-4-per-cta/tma S=4");
  cx.rep.planner.push_back(pb::planner_line_of(cx, "bf16gemm", "4096^3 x2", "tma", plan_s3()));
  const std::string table = cx.rep.table();
  EXPECT_NE(table.find("): 0.938x unpaired, 0.987x paired (6 rounds against porter-4-per-cta/tma S=4)"), std::string::npos) << table;
  const std::string json = cx.rep.json();
  const auto planner = json.find("\"planner\": [");
  ASSERT_NE(planner, std::string::npos);
  const std::string line = json.substr(planner, json.find(']', planner) - planner);
  EXPECT_NE(line.find("\"best_point\": \"porter-4-per-cta/tma S=4\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"unpaired_ratio\": 0.938"), std::string::npos) << line;
  EXPECT_NE(line.find("\"paired_ratio\": 0.987, \"paired_rounds\": 6"), std::string::npos) << line;
}

TEST(PlannerReport, AnUnpairedLineHasNoPairedFields) {
  pb::context cx = bf16_planner_rows(0, "");
  cx.rep.planner.push_back(pb::planner_line_of(cx, "bf16gemm", "4096^3 x2", "tma", plan_s3()));
  const std::string json = cx.rep.json();
  const auto planner = json.find("\"planner\": [");
  ASSERT_NE(planner, std::string::npos);
  const std::string line = json.substr(planner, json.find(']', planner) - planner);
  EXPECT_NE(line.find("\"unpaired_ratio\": 0.938"), std::string::npos) << line;
  EXPECT_EQ(line.find("\"paired_ratio\""), std::string::npos) << line;
  EXPECT_EQ(line.find("paired_rounds"), std::string::npos) << line;
  EXPECT_EQ(cx.rep.table().find("x paired"), std::string::npos);
}

// ---- stall lines -----------------------------------------------------------------------------------

TEST(StallLabel, SplitsWorkloadSizeImplPathAndStages) {
  pb::stall_line s;
  ASSERT_TRUE(pb::parse_stall_label("bf16gemm 4096^3 porter-wgmma-setmaxnreg/tma S=4", s));
  EXPECT_EQ(s.workload, "bf16gemm");
  EXPECT_EQ(s.size, "4096^3");
  EXPECT_EQ(s.impl, "porter-wgmma-setmaxnreg");
  EXPECT_EQ(s.path, "tma");
  EXPECT_EQ(s.stages, 4);
  pb::stall_line p;
  ASSERT_TRUE(pb::parse_stall_label("ports/cutlass porter/cp_async S=6", p));
  EXPECT_EQ(p.workload, "ports/cutlass");
  EXPECT_EQ(p.size, "");
  EXPECT_EQ(p.impl, "porter");
  EXPECT_EQ(p.path, "cp_async");
  EXPECT_EQ(p.stages, 6);
  pb::stall_line c;
  EXPECT_FALSE(pb::parse_stall_label("stream copy-kernel", c)) << "the copy kernel names no variant";
  EXPECT_TRUE(c.workload.empty());
  EXPECT_FALSE(pb::parse_stall_label("sgemm 4096^3 porter/tma S=x", c));
}

TEST(StallLabel, MetricNumbersAsNcuPrintsThem) {
  EXPECT_DOUBLE_EQ(*pb::metric_number("74.83"), 74.83);
  EXPECT_DOUBLE_EQ(*pb::metric_number("402,653,184"), 402653184.0);
  EXPECT_FALSE(pb::metric_number("n/a"));
  EXPECT_FALSE(pb::metric_number(""));
  pb::stall_line s;
  s.metrics = {{"long_scoreboard%", "0.74"}, {"tensor_pipe%", "n/a"}};
  EXPECT_DOUBLE_EQ(*s.number("long_scoreboard%"), 0.74);
  EXPECT_FALSE(s.number("tensor_pipe%"));
  EXPECT_FALSE(s.number("fma_pipe%"));
}

}  // namespace
