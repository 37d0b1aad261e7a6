// bench/tests/ncu_parse_test.cpp — porter-bench's reading of REAL Nsight Compute output, without ncu
// or a GPU: an excerpt of the H100 run of session 44 (bench/tests/data/ncu_raw_h100_session44_excerpt.txt,
// 15 of its 181 kernels; its header says how it was cut) through parse_ncu_output (ncu_parse.cpp),
// the function run_ncu calls on ncu's output. The values checked are those porter-bench's stall
// table printed from the same output in that run (bench/results/h100-2026-12-07-session44/ncu_ports/
// stdout.txt.gz, parsed then by the code before parse_ncu_output). Then issue 9's ncu targets
// (evaluate_ncu_targets) on those lines as --ncu-only leaves them: no timed rows, so each kind's
// kernel is the one with the shortest duration in the ncu pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "ncu_parse.hpp"
#include "ncu_target_names.hpp"

namespace {

std::string fixture() {
  std::ifstream f(PB_TEST_DATA_DIR "/ncu_raw_h100_session44_excerpt.txt", std::ios::binary);
  EXPECT_TRUE(f) << "missing " PB_TEST_DATA_DIR "/ncu_raw_h100_session44_excerpt.txt";
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The excerpt as run_ncu reads it: every metric porter-bench asks for, none dropped.
pb::ncu_parsed parsed_fixture() { return pb::parse_ncu_output(fixture(), pb::ncu_metrics(), {}); }

const pb::stall_line* line_of(const pb::ncu_parsed& p, const std::string& label) {
  for (const auto& s : p.stalls)
    if (s.label == label) return &s;
  return nullptr;
}

/// The value a line shows for `metric`, as the stall table prints it ("" when the line lacks it).
std::string value(const pb::stall_line& s, const std::string& metric) {
  for (const auto& [k, v] : s.metrics)
    if (k == metric) return v;
  return "";
}

// The labels in the excerpt's order: the r-th row gets the r-th label.
const std::vector<std::string> k_labels = {
    "stream porter/tma S=4",
    "sgemm 4096^3 porter/tma S=4",
    "sgemm 4096^3 porter-per-tile/tma S=4",
    "sgemm 4096^3 porter-4-per-cta/tma S=4",
    "sgemm 4096^3 porter/cp_async S=4",
    "smallgemm 2048^3 porter/tma S=4",
    "smallgemm 2048^3 porter/automatic S=4",
    "bf16gemm 4096^3 porter/tma S=3",
    "bf16gemm 4096^3 porter-4-per-cta/tma S=3",
    "bf16gemm 4096^3 porter-wgmma/tma S=4",
    "bf16gemm 4096^3 porter-wgmma-setmaxnreg/tma S=4",
    "bf16gemm 4096^3 porter-wgmma-setmaxnreg-pairs/tma S=4",
    "bf16gemm 4096^3 porter-roles/tma S=3",
    "ports/cutlass porter/tma S=4",
    "ports/cutlass porter-multicast/tma S=4",
};

TEST(NcuParseH100, EveryRowGetsItsOwnLabelAndVariant) {
  const pb::ncu_parsed p = parsed_fixture();
  ASSERT_EQ(p.stalls.size(), k_labels.size());
  EXPECT_EQ(p.note, "") << "as many rows as labels, nothing dropped";
  for (std::size_t i = 0; i < k_labels.size(); ++i) {
    EXPECT_EQ(p.stalls[i].label, k_labels[i]) << "row " << i;
    EXPECT_FALSE(p.stalls[i].workload.empty()) << "a matched line names its variant: " << p.stalls[i].label;
  }
  const pb::stall_line& w = p.stalls[11];
  EXPECT_EQ(w.workload, "bf16gemm");
  EXPECT_EQ(w.size, "4096^3");
  EXPECT_EQ(w.impl, "porter-wgmma-setmaxnreg-pairs");
  EXPECT_EQ(w.path, "tma");
  EXPECT_EQ(w.stages, 4);
  EXPECT_EQ(w.kernel.rfind("void pb_bf16gemm_wgmma<porter::tma, 4, porter::roles<porter::warpgroups<1>, porter::warpgroups<2>", 0), 0u)
      << w.kernel;
  const pb::stall_line& c = p.stalls[14];
  EXPECT_EQ(c.workload, "ports/cutlass");
  EXPECT_EQ(c.size, "");
  EXPECT_EQ(c.impl, "porter-multicast");
  EXPECT_EQ(c.kernel.rfind("void ports::pb_port_cute<porter::tma, 4, 1, 3>", 0), 0u) << c.kernel;
  const pb::stall_line& s = p.stalls[0];
  EXPECT_EQ(s.workload, "stream");
  EXPECT_EQ(s.size, "");
  EXPECT_EQ(s.impl, "porter");
}

TEST(NcuParseH100, ValuesAreThoseTheStallTablePrinted) {
  const pb::ncu_parsed p = parsed_fixture();
  struct expect {
    const char* label;
    const char* ls;
    const char* fma;
    const char* tensor;
    const char* time;
  };
  // Session 44's stall table (stdout.txt.gz), the same kernels.
  const expect table[] = {
      {"sgemm 4096^3 porter/tma S=4", "0.76", "75.89", "0.04", "2,795,904"},
      {"sgemm 4096^3 porter-per-tile/tma S=4", "0.76", "75.89", "0.04", "2,795,488"},
      {"sgemm 4096^3 porter-4-per-cta/tma S=4", "0.79", "75.51", "0.04", "2,805,664"},
      {"sgemm 4096^3 porter/cp_async S=4", "0.38", "74.25", "0.00", "3,001,888"},
      {"smallgemm 2048^3 porter/tma S=4", "2.36", "25.65", "0", "1,746,272"},
      {"smallgemm 2048^3 porter/automatic S=4", "2.36", "25.66", "0", "1,746,272"},
      {"bf16gemm 4096^3 porter/tma S=3", "4.26", "2.23", "74.76", "304,832"},
      {"bf16gemm 4096^3 porter-4-per-cta/tma S=3", "3.63", "2.25", "76.28", "299,712"},
      {"bf16gemm 4096^3 porter-wgmma/tma S=4", "35.28", "5.90", "87.26", "193,248"},
      {"bf16gemm 4096^3 porter-wgmma-setmaxnreg/tma S=4", "33.82", "2.03", "87.33", "192,256"},
      {"bf16gemm 4096^3 porter-wgmma-setmaxnreg-pairs/tma S=4", "28.86", "2.05", "86.99", "192,032"},
      {"bf16gemm 4096^3 porter-roles/tma S=3", "33.49", "1.81", "79.56", "290,080"},
      {"ports/cutlass porter/tma S=4", "0.74", "74.83", "0.02", "2,822,208"},
      {"ports/cutlass porter-multicast/tma S=4", "0.78", "61.73", "0.04", "3,593,440"},
      {"stream porter/tma S=4", "79.30", "3.38", "0", "700,352"},
  };
  for (const expect& e : table) {
    const pb::stall_line* s = line_of(p, e.label);
    ASSERT_NE(s, nullptr) << e.label;
    EXPECT_EQ(value(*s, "long_scoreboard%"), e.ls) << e.label;
    EXPECT_EQ(value(*s, "fma_pipe%"), e.fma) << e.label;
    EXPECT_EQ(value(*s, "tensor_pipe%"), e.tensor) << e.label;
    EXPECT_EQ(value(*s, "time"), e.time) << e.label;
  }
  // A few more columns of one line, whole, as the table printed them.
  const pb::stall_line* b = line_of(p, "bf16gemm 4096^3 porter-4-per-cta/tma S=3");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(value(*b, "barrier%"), "6.60");
  EXPECT_EQ(value(*b, "short_scoreboard%"), "5.03");
  EXPECT_EQ(value(*b, "occupancy%"), "12.49");
  EXPECT_EQ(value(*b, "smem_bank_conflicts"), "5,336");
  EXPECT_EQ(value(*b, "warp_instructions"), "66,801,408");
  EXPECT_EQ(value(*b, "l2_read_sectors"), "44,342,729");
  const pb::stall_line* sg = line_of(p, "sgemm 4096^3 porter/tma S=4");
  ASSERT_NE(sg, nullptr);
  EXPECT_EQ(value(*sg, "smem_ld_wavefronts_per_load"), "2.00") << "268,435,456 / 134,217,728";
  EXPECT_DOUBLE_EQ(*sg->number("long_scoreboard%"), 0.76);
  EXPECT_DOUBLE_EQ(*sg->number("fma_pipe%"), 75.89);
}

TEST(NcuParseH100, TimeInNanosecondsFromTheUnitsRow) {
  // ncu 2025.x writes "ns" under gpu__time_duration (older versions: "nsecond").
  EXPECT_DOUBLE_EQ(pb::ncu_ns_per("ns"), 1.0);
  EXPECT_DOUBLE_EQ(pb::ncu_ns_per("nsecond"), 1.0);
  EXPECT_DOUBLE_EQ(pb::ncu_ns_per("us"), 1e3);
  EXPECT_DOUBLE_EQ(pb::ncu_ns_per("usecond"), 1e3);
  EXPECT_DOUBLE_EQ(pb::ncu_ns_per("msecond"), 1e6);
  EXPECT_DOUBLE_EQ(pb::ncu_ns_per("%"), 0.0);
  const pb::ncu_parsed p = parsed_fixture();
  for (const auto& s : p.stalls) EXPECT_TRUE(s.number("time_ns")) << "every row has a duration: " << s.label;
  EXPECT_EQ(value(*line_of(p, "sgemm 4096^3 porter/tma S=4"), "time_ns"), "2795904");
  EXPECT_EQ(value(*line_of(p, "bf16gemm 4096^3 porter-wgmma-setmaxnreg-pairs/tma S=4"), "time_ns"), "192032");
  // The same output with the units row saying microseconds: the same column, scaled.
  std::string us = fixture();
  const std::string ns_units = "\"%\",\"%\",\"%\",\"%\",\"ns\",\"ns\",\"ns\",\"ns\"";
  const auto at = us.find(ns_units);
  ASSERT_NE(at, std::string::npos);
  us.replace(at, ns_units.size(), "\"%\",\"%\",\"%\",\"%\",\"us\",\"us\",\"us\",\"us\"");
  const pb::ncu_parsed q = pb::parse_ncu_output(us, pb::ncu_metrics(), {});
  EXPECT_EQ(value(*line_of(q, "sgemm 4096^3 porter/tma S=4"), "time_ns"), "2795904000");
}

TEST(NcuParseH100, ADroppedMetricIsNamedInTheNoteAndAbsentFromTheLines) {
  // As on an ncu that refused a metric: run_ncu asked again without it and names it.
  std::vector<pb::ncu_metric> asked = pb::ncu_metrics();
  const std::string gmma = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active";
  const pb::ncu_parsed p = pb::parse_ncu_output(fixture(), asked, {gmma});
  ASSERT_EQ(p.stalls.size(), k_labels.size());
  EXPECT_EQ(p.note, "not collected (unknown to this ncu): " + gmma + ". ");
  for (const auto& s : p.stalls) EXPECT_EQ(value(s, "tensor_gmma_pipe%"), "") << s.label;
  // A metric asked for whose column ncu's output lacks reads "n/a" (not a number), the rest as before.
  asked.push_back({gmma, "tensor_gmma_pipe%"});
  const pb::ncu_parsed q = pb::parse_ncu_output(fixture(), asked, {});
  const pb::stall_line* w = line_of(q, "bf16gemm 4096^3 porter-wgmma-setmaxnreg-pairs/tma S=4");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(value(*w, "tensor_gmma_pipe%"), "n/a");
  EXPECT_FALSE(w->number("tensor_gmma_pipe%"));
  EXPECT_EQ(value(*w, "tensor_pipe%"), "86.99");
}

TEST(NcuParseH100, ALostLabelShiftsTheRowsAndIsReported) {
  // Rows are matched to labels by order. Without the label of sgemm porter-4-per-cta/tma every later
  // row takes the next kernel's label: the count is reported, and where the shifted label names
  // another kernel than ncu's row the line says so and names no variant (so no target judges it).
  // Where the kernel name is the same (pb_sgemm for the sgemm cp_async row), a shift is not
  // detectable from the name: the count note is the only sign.
  std::string text = fixture();
  const std::string lost = "PBNCU 50 pb_sgemm sgemm 4096^3 porter-4-per-cta/tma S=4\n";
  const auto at = text.find(lost);
  ASSERT_NE(at, std::string::npos);
  text.erase(at, lost.size());
  const pb::ncu_parsed p = pb::parse_ncu_output(text, pb::ncu_metrics(), {});
  ASSERT_EQ(p.stalls.size(), k_labels.size());
  EXPECT_NE(p.note.find("ncu profiled 15 kernels, the child launched 14"), std::string::npos) << p.note;
  EXPECT_EQ(p.stalls[3].label, "sgemm 4096^3 porter/cp_async S=4") << "shifted, same kernel name";
  EXPECT_NE(p.stalls[4].label.find("smallgemm 2048^3 porter/tma S=4 (order mismatch: ncu names void pb_sgemm<porter::cp_async"),
            std::string::npos)
      << p.stalls[4].label;
  EXPECT_TRUE(p.stalls[4].workload.empty());
  EXPECT_EQ(p.stalls[14].label, "kernel #14") << "no label left for the last row";
}

TEST(NcuParseH100, AStarLabelMatchesAnyKernelButPorterBenchsOwn) {
  // The child's reference line (cuBLAS) names its kernel "*": cuBLAS picks the kernel, so any name
  // in ncu's row matches, and the line gets its variant (impl "cublas"), unless the row is one of
  // porter-bench's own kernels (pb_*): then the rows have shifted. Here the last row of the excerpt
  // stands in for a cuBLAS kernel, renamed as cuBLAS 13 named its bf16 kernel on the H100.
  std::string text = fixture();
  const std::string last = "PBNCU 147 pb_port_cute ports/cutlass porter-multicast/tma S=4\n";
  const auto at = text.find(last);
  ASSERT_NE(at, std::string::npos) << "the excerpt's last label";
  text.replace(at, last.size(), "PBNCU 147 * bf16gemm 4096^3 cublas/reference S=0\n");
  {
    // Still porter-bench's kernel in the row: a mismatch, no variant.
    const pb::ncu_parsed p = pb::parse_ncu_output(text, pb::ncu_metrics(), {});
    ASSERT_EQ(p.stalls.size(), k_labels.size());
    const pb::stall_line& s = p.stalls.back();
    EXPECT_NE(s.label.find("bf16gemm 4096^3 cublas/reference S=0 (order mismatch: ncu names void ports::pb_port_cute"), std::string::npos)
        << s.label;
    EXPECT_TRUE(s.impl.empty());
  }
  // The row's kernel name is cuBLAS': the last row's name field (the excerpt's last kernel name).
  const std::string name = "ports::pb_port_cute";
  const auto row = text.rfind(name);
  ASSERT_NE(row, std::string::npos);
  text.replace(row, name.size(), "nvjet_sm90_tss_256x128_64x4_1x2_h_bz_coopA_TNT");
  const pb::ncu_parsed p = pb::parse_ncu_output(text, pb::ncu_metrics(), {});
  ASSERT_EQ(p.stalls.size(), k_labels.size());
  const pb::stall_line& s = p.stalls.back();
  EXPECT_EQ(s.label, "bf16gemm 4096^3 cublas/reference S=0");
  EXPECT_EQ(s.workload, "bf16gemm");
  EXPECT_EQ(s.size, "4096^3");
  EXPECT_EQ(s.impl, "cublas");
  EXPECT_EQ(s.path, "reference");
  EXPECT_NE(s.kernel.find("nvjet_sm90_tss_256x128_64x4_1x2_h_bz_coopA_TNT"), std::string::npos) << s.kernel;
  EXPECT_FALSE(value(s, "long_scoreboard%").empty());
}

TEST(NcuParseH100, NoRowsSaysWhy) {
  const pb::ncu_parsed p =
      pb::parse_ncu_output("==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n",
                           pb::ncu_metrics(), {});
  EXPECT_TRUE(p.stalls.empty());
  EXPECT_NE(p.note.find("ERR_NVGPUCTRPERM"), std::string::npos) << p.note;
}

// ---- the ncu targets on the H100's lines (--ncu-only) -------------------------------------------------

/// The context --ncu-only leaves: the excerpt's stall lines, no timed rows.
pb::context ncu_only(const pb::ncu_parsed& p) {
  pb::context cx;
  cx.rep.stalls = p.stalls;
  cx.rep.stalls_note = p.note;
  pb::evaluate_ncu_targets(cx);
  return cx;
}

using namespace pb_test;  // the kinds' name prefixes and target_with_prefix (ncu_target_names.hpp)

void expect_target(const pb::target& t, const char* verdict, double value, const std::string& kernel) {
  ASSERT_FALSE(t.name.empty());
  EXPECT_EQ(t.verdict, verdict) << t.name << ": " << t.detail;
  EXPECT_DOUBLE_EQ(t.value, value) << t.name;
  EXPECT_NE(t.detail.find(kernel), std::string::npos) << t.name << " judges " << kernel << ": " << t.detail;
  EXPECT_NE(t.detail.find("--ncu-only"), std::string::npos) << t.detail;
}

TEST(NcuTargetsH100, VerdictsOnTheShortestKernelOfEachKind) {
  const pb::context cx = ncu_only(parsed_fixture());
  ASSERT_EQ(cx.rep.targets.size(), 8u);
  // sgemm: porter-per-tile/tma (2,795,488 ns, the shortest of the pass's porter sgemm kernels).
  expect_target(target_with_prefix(cx, k_sgemm + k_ls), "PASS", 0.76, "sgemm 4096^3 porter-per-tile/tma S=4");
  expect_target(target_with_prefix(cx, k_sgemm + k_fma_pipe), "PASS", 75.89, "sgemm 4096^3 porter-per-tile/tma S=4");
  // smallgemm: porter/tma and porter/automatic tie at 1,746,272 ns; the first launched is kept.
  expect_target(target_with_prefix(cx, k_small + k_ls), "PASS", 2.36, "smallgemm 2048^3 porter/tma S=4");
  expect_target(target_with_prefix(cx, k_small + k_fma_pipe), "MISS", 25.65, "smallgemm 2048^3 porter/tma S=4");
  EXPECT_NE(target_with_prefix(cx, k_small + k_fma_pipe).detail.find("missed by 44.35 percentage points"), std::string::npos);
  // bf16gemm mma.sync: porter-roles/tma (290,080 ns) is the kind's shortest, and it has a producer
  // warpgroup: its long-scoreboard share misses, with the caveat; its tensor pipe passes.
  const pb::target ml = target_with_prefix(cx, k_mma + k_ls), mp = target_with_prefix(cx, k_mma + k_hmma_pipe);
  expect_target(ml, "MISS", 33.49, "bf16gemm 4096^3 porter-roles/tma S=3");
  expect_target(mp, "PASS", 79.56, "bf16gemm 4096^3 porter-roles/tma S=3");
  EXPECT_NE(ml.detail.find("caveat: the share is over all of the kernel's active warps"), std::string::npos) << ml.detail;
  // bf16gemm wgmma: porter-wgmma-setmaxnreg-pairs/tma (192,032 ns), judged on the HMMA metric.
  const pb::target wl = target_with_prefix(cx, k_wg + k_ls), wp = target_with_prefix(cx, k_wg + k_hmma_pipe);
  expect_target(wl, "MISS", 28.86, "bf16gemm 4096^3 porter-wgmma-setmaxnreg-pairs/tma S=4");
  expect_target(wp, "PASS", 86.99, "bf16gemm 4096^3 porter-wgmma-setmaxnreg-pairs/tma S=4");
  EXPECT_NE(wp.detail.find("sm__pipe_tensor_op_hmma_cycles_active"), std::string::npos) << wp.detail;
  EXPECT_NE(wp.detail.find("counts wgmma's tensor-pipe cycles too"), std::string::npos) << wp.detail;
  EXPECT_NE(wl.detail.find("caveat: the share is over all of the kernel's active warps (smsp__warps_active), the producer warpgroup's 4 of its 12 warps"),
            std::string::npos)
      << wl.detail;
  EXPECT_NE(wl.detail.find("4/12 = 33%"), std::string::npos) << wl.detail;
  EXPECT_NE(wl.detail.find("79% of the long-scoreboard samples on the producers' EMPTY wait"), std::string::npos) << wl.detail;
  EXPECT_EQ(wl.detail.find("thread loads"), std::string::npos) << "not the thread-load hint: " << wl.detail;
  EXPECT_DOUBLE_EQ(wl.goal, 5.0) << "the issue's target, unchanged";
}

TEST(NcuTargetsH100, WithoutTheRolesKernelTheMmaSyncKindIsPorter4PerCta) {
  // The kinds as the session-44 table suggests at a glance: among porter, porter-4-per-cta and the
  // wgmma kernels, the mma.sync kind's shortest is porter-4-per-cta/tma (299,712 ns), which passes both.
  pb::ncu_parsed p = parsed_fixture();
  for (auto it = p.stalls.begin(); it != p.stalls.end();)
    it = it->impl == "porter-roles" ? p.stalls.erase(it) : it + 1;
  const pb::context cx = ncu_only(p);
  const pb::target ml = target_with_prefix(cx, k_mma + k_ls), mp = target_with_prefix(cx, k_mma + k_hmma_pipe);
  expect_target(ml, "PASS", 3.63, "bf16gemm 4096^3 porter-4-per-cta/tma S=3");
  expect_target(mp, "PASS", 76.28, "bf16gemm 4096^3 porter-4-per-cta/tma S=3");
  EXPECT_EQ(ml.detail.find("caveat"), std::string::npos) << "no producer warpgroup: " << ml.detail;
}

TEST(NcuTargetsH100, AnAbsentGmmaMetricLeavesTheWgmmaTargetsJudged) {
  // An ncu that refused the GMMA metric (as an older porter-bench asked for it): dropped and named,
  // and the wgmma kind, judged on the HMMA metric, is judged as before.
  const std::string gmma = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active";
  const pb::context cx = ncu_only(pb::parse_ncu_output(fixture(), pb::ncu_metrics(), {gmma}));
  EXPECT_NE(cx.rep.stalls_note.find("not collected (unknown to this ncu): " + gmma), std::string::npos) << cx.rep.stalls_note;
  expect_target(target_with_prefix(cx, k_wg + k_ls), "MISS", 28.86, "porter-wgmma-setmaxnreg-pairs/tma");
  expect_target(target_with_prefix(cx, k_wg + k_hmma_pipe), "PASS", 86.99, "porter-wgmma-setmaxnreg-pairs/tma");
  // Asked for but absent from ncu's columns ("n/a" on every line): still nothing changes.
  std::vector<pb::ncu_metric> asked = pb::ncu_metrics();
  asked.push_back({gmma, "tensor_gmma_pipe%"});
  const pb::context cy = ncu_only(pb::parse_ncu_output(fixture(), asked, {}));
  expect_target(target_with_prefix(cy, k_wg + k_hmma_pipe), "PASS", 86.99, "porter-wgmma-setmaxnreg-pairs/tma");
  // The metric the kind does judge, dropped: n/a naming it, the long-scoreboard target still judged.
  std::vector<pb::ncu_metric> no_hmma;
  for (const auto& m : pb::ncu_metrics())
    if (m.shown != "tensor_pipe%") no_hmma.push_back(m);
  const std::string hmma = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
  const pb::context cz = ncu_only(pb::parse_ncu_output(fixture(), no_hmma, {hmma}));
  const pb::target wp = target_with_prefix(cz, k_wg + k_hmma_pipe);
  EXPECT_EQ(wp.verdict, "n/a");
  EXPECT_NE(wp.detail.find("not measured: tensor_pipe% (" + hmma + ")"), std::string::npos) << wp.detail;
  EXPECT_NE(wp.detail.find("unknown to this ncu"), std::string::npos) << wp.detail;
  EXPECT_EQ(target_with_prefix(cz, k_wg + k_ls).verdict, "MISS");
}

/// The whole raw output of a run (not in the repository: gunzip bench/results/h100-2026-12-07-session44/
/// ncu_ports/ncu_raw.txt.gz and name it in PB_NCU_RAW): every row parses with its label, and the
/// verdicts are those of the excerpt (which keeps each kind's shortest kernel). Skipped without it.
TEST(NcuTargetsH100, WholeRawOutputWhenGiven) {
  const char* path = std::getenv("PB_NCU_RAW");
  if (!path || !*path) GTEST_SKIP() << "PB_NCU_RAW not set";
  std::ifstream f(path, std::ios::binary);
  ASSERT_TRUE(f) << path;
  std::ostringstream text;
  text << f.rdbuf();
  const pb::ncu_parsed p = pb::parse_ncu_output(text.str(), pb::ncu_metrics(), {});
  EXPECT_EQ(p.stalls.size(), 181u);
  EXPECT_EQ(p.note, "");
  for (const auto& s : p.stalls) {
    EXPECT_EQ(s.label.find("mismatch"), std::string::npos) << s.label;
    EXPECT_TRUE(s.number("time_ns")) << s.label;
  }
  const pb::context cx = ncu_only(p);
  const pb::context ex = ncu_only(parsed_fixture());
  ASSERT_EQ(cx.rep.targets.size(), ex.rep.targets.size());
  for (std::size_t i = 0; i < cx.rep.targets.size(); ++i) {
    EXPECT_EQ(cx.rep.targets[i].verdict, ex.rep.targets[i].verdict) << cx.rep.targets[i].name;
    EXPECT_DOUBLE_EQ(cx.rep.targets[i].value, ex.rep.targets[i].value) << cx.rep.targets[i].name;
    std::printf("  %-5s %6.2f  %s\n", cx.rep.targets[i].verdict.c_str(), cx.rep.targets[i].value, cx.rep.targets[i].name.c_str());
  }
}

}  // namespace
