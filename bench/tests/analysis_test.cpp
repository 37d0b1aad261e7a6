// bench/tests/analysis_test.cpp — the "porter/automatic >= 0.99x the fastest forced path" targets
// without a GPU: rows as porter-bench's workloads leave them, evaluate_targets, and the target's value
// taken from the paired re-timing (workloads.cpp pair_automatic) only when that pairing compared
// automatic with the row the target compares it with.
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

}  // namespace
