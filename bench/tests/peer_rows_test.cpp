// bench/tests/peer_rows_test.cpp — the peers' rows without a GPU: the flat JSON reader, the PBPEER
// parser, the merge into porter-bench's rows (groups, ceilings, size labels, checksums, rows that
// stand alone), and bench/peers/triton_peers.py itself (its --self-test rows through this parser,
// and its one-line skip when it cannot run).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "peer_rows.hpp"

namespace {

using pb::flat_json;
using pb::merge_peer_rows;
using pb::parse_flat_json;
using pb::parse_peer_output;
using pb::peer_row;
using pb::row;

TEST(PeerJson, ReadsStringsNumbersBooleansAndEscapes) {
  flat_json j;
  std::string why;
  ASSERT_TRUE(parse_flat_json(R"( {"a": "x\"y\\z\t\u00d7", "n": -1.5e3, "i": 42, "t": true, "f": false, "z": null, "nan": NaN} )",
                              j, &why))
      << why;
  EXPECT_EQ(j.s("a"), "x\"y\\z\t\xc3\x97");
  EXPECT_DOUBLE_EQ(j.d("n"), -1500.0);
  EXPECT_DOUBLE_EQ(j.d("i"), 42.0);
  EXPECT_DOUBLE_EQ(j.d("t"), 1.0);
  EXPECT_DOUBLE_EQ(j.d("f"), 0.0);
  EXPECT_EQ(j.num.count("z"), 0u);
  EXPECT_TRUE(std::isnan(j.d("nan")));
  EXPECT_EQ(j.s("missing", "dflt"), "dflt");
  ASSERT_TRUE(parse_flat_json("{}", j));
  ASSERT_TRUE(parse_flat_json(R"({"emoji": "\ud83d\ude00"})", j));
  EXPECT_EQ(j.s("emoji"), "\xf0\x9f\x98\x80");
}

TEST(PeerJson, RefusesWhatIsNotAFlatObject) {
  flat_json j;
  std::string why;
  for (const char* bad : {R"({"a": {"b": 1}})", R"({"a": [1]})", R"({"a": 1} trailing)", R"({"a": "open)", R"({"a" 1})",
                          R"({"a": 1,})", R"({"a": "\q"})", R"({"a": 1e})", "[1]", "", R"({"a": "\ud83d"})"}) {
    why.clear();
    EXPECT_FALSE(parse_flat_json(bad, j, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(PeerOutput, ParsesRowsMetaNotesAndSkipsOtherLines) {
  const std::string text =
      "some warning from a library\n"
      "PBPEER {\"type\": \"meta\", \"key\": \"triton\", \"value\": \"3.1.0\"}\r\n"
      "PBPEER {\"type\": \"note\", \"text\": \"a note\"}\n"
      "PBPEER {\"type\": \"row\", \"workload\": \"stream\", \"size\": \"2^28 fp32\", \"impl\": \"triton\", \"kernel\": \"k\", "
      "\"config\": \"BLOCK=4096, num_warps=8\", \"status\": \"ok\", \"check\": \"all ok\", \"checksum\": \"00112233aabbccdd\", "
      "\"ms_median\": 0.5, \"ms_min\": 0.4, \"ms_p10\": 0.45, \"ms_p90\": 0.6, \"reps\": 30, \"bytes\": 2e9, \"unit\": \"GB/s\", "
      "\"extra_key\": \"ignored\"}\n"
      "PBPEER {\"type\": \"row\", \"workload\": \"sgemm\", \"size\": \"8192^3\", \"impl\": \"torch\", \"status\": \"skipped: budget\"}\n"
      "PBPEER {\"type\": \"row\", \"workload\": \"sgemm\", \"impl\": \"triton\", \"status\": \"ok\"}\n"
      "PBPEER {\"type\": \"row\", \"workload\": \"sgemm\", \"size\": \"8192^3\", \"impl\": \"triton\", \"status\": \"ok\"}\n"
      "PBPEER not json\n"
      "PBPEER {\"type\": \"mystery\"}\n";
  const auto o = parse_peer_output(text);
  ASSERT_EQ(o.rows.size(), 2u);
  const row& r = o.rows[0].r;
  EXPECT_EQ(r.workload, "stream");
  EXPECT_EQ(r.size, "2^28 fp32");
  EXPECT_EQ(r.impl, "triton");
  EXPECT_EQ(r.kernel, "k [BLOCK=4096, num_warps=8]");
  EXPECT_EQ(r.check, "all ok; checksum 00112233aabbccdd");
  EXPECT_EQ(o.rows[0].checksum, "00112233aabbccdd");
  EXPECT_DOUBLE_EQ(r.ms_median, 0.5);
  EXPECT_DOUBLE_EQ(r.ms_p90, 0.6);
  EXPECT_EQ(r.reps, 30);
  EXPECT_DOUBLE_EQ(r.bytes, 2e9);
  EXPECT_EQ(r.unit, "GB/s");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(o.rows[1].r.status, "skipped: budget");
  ASSERT_EQ(o.meta.size(), 1u);
  EXPECT_EQ(o.meta[0].first, "triton");
  EXPECT_EQ(o.meta[0].second, "3.1.0");
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_EQ(o.other_lines, 1);
  // No size; an ok row without a median; not JSON; an unknown type.
  EXPECT_EQ(o.malformed, 4);
  EXPECT_NE(o.first_malformed.find("without workload, size"), std::string::npos) << o.first_malformed;
  EXPECT_TRUE(o.skipped.empty());
  EXPECT_EQ(parse_peer_output("PBPEER {\"type\": \"skip\", \"reason\": \"cannot import torch\"}\n").skipped, "cannot import torch");
}

row porter_row(const std::string& w, const std::string& size, const std::string& impl, double rate, double ratio,
               const std::string& ceiling, const std::string& unit, const std::string& check = "") {
  row r;
  r.workload = w;
  r.size = size;
  r.impl = impl;
  r.rate = rate;
  r.ratio = ratio;
  r.ceiling = ceiling;
  r.unit = unit;
  r.check = check;
  r.ms_median = 1;
  r.bytes = w == "stream" ? 2.0 * 4 * (1 << 28) : 0;
  r.flops = w == "stream" ? 0 : 2.0 * 8192.0 * 8192.0 * 8192.0;
  return r;
}

peer_row peer(const std::string& w, const std::string& size, const std::string& impl, double ms, const std::string& checksum = "",
              bool stand_in = false, const std::string& status = "ok") {
  peer_row p;
  p.r.workload = w;
  p.r.size = size;
  p.r.impl = impl;
  p.r.status = status;
  p.r.ms_median = ms;
  p.r.unit = w == "stream" ? "GB/s" : "TFLOP/s";
  p.r.bytes = w == "stream" ? 1.0 : 0;  // porter-bench's definitions replace these where it has the group
  p.r.flops = w == "stream" ? 0 : 2.0 * 8192.0 * 8192.0 * 8192.0;
  p.checksum = checksum;
  if (!checksum.empty()) p.r.check = "checked; checksum " + checksum;
  p.ceiling_stand_in = stand_in;
  if (stand_in) p.r.ceiling = "cuBLAS (torch.matmul)";
  return p;
}

TEST(PeerMerge, JoinsItsGroupAfterTheLastRowWithTheGroupsCeilingAndChecksum) {
  std::vector<row> rows = {
      porter_row("stream", "2^28 fp32", "memcpy", 4000, 1.0, "cudaMemcpy D2D", "GB/s"),
      porter_row("stream", "2^28 fp32", "porter", 3960, 0.99, "cudaMemcpy D2D", "GB/s", "ok; checksum 00112233aabbccdd"),
      porter_row("stream", "2^28 fp32", "porter", 3000, 0.75, "cudaMemcpy D2D", "GB/s", "ok; checksum 00112233aabbccdd"),
      porter_row("stencil2d-r1", "16384^2 fp32", "porter", 3500, 0.875, "cudaMemcpy D2D", "GB/s"),
  };
  rows[2].sweep_only = true;
  const std::vector<peer_row> peers = {peer("stream", "2^28 fp32", "triton", 0.5, "00112233aabbccdd"),
                                       peer("stream", "2^28 fp32", "torch", 0.6, "ffffffffffffffff")};
  const auto notes = merge_peer_rows(rows, peers);
  EXPECT_TRUE(notes.empty());
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[3].impl, "triton");  // after the group's last row (a sweep row), before stencil2d-r1
  EXPECT_EQ(rows[4].impl, "torch");
  EXPECT_EQ(rows[5].workload, "stencil2d-r1");
  const double rate = 2.0 * 4 * (1 << 28) / 0.5e-3 / 1e9;  // porter-bench's bytes over the peer's median
  EXPECT_NEAR(rows[3].rate, rate, 1e-9 * rate);
  EXPECT_NEAR(rows[3].ratio, rate / 4000, 1e-9);
  EXPECT_EQ(rows[3].ceiling, "cudaMemcpy D2D");
  EXPECT_NE(rows[3].check.find("; bit-identical to porter"), std::string::npos) << rows[3].check;
  EXPECT_NE(rows[4].check.find("; not bit-identical to porter"), std::string::npos) << rows[4].check;
}

TEST(PeerMerge, TakesPorterBenchsSizeLabelAndKeepsThePeers) {
  std::vector<row> rows = {porter_row("sgemm", "4096^3 x2", "cublas", 50, 1.0, "cuBLAS", "TFLOP/s")};
  rows[0].flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  merge_peer_rows(rows, {peer("sgemm", "4096^3 x3", "triton", 3.0)});
  ASSERT_EQ(rows.size(), 2u);  // a group that ends at the last row: appended right after it
  EXPECT_EQ(rows[1].size, "4096^3 x2");
  EXPECT_NE(rows[1].check.find("the peer's size label: 4096^3 x3"), std::string::npos) << rows[1].check;
  const double rate = 2.0 * 4096.0 * 4096.0 * 4096.0 / 3e-3 / 1e12;
  EXPECT_NEAR(rows[1].rate, rate, 1e-9 * rate);
  EXPECT_NEAR(rows[1].ratio, rate / 50, 1e-9);
  EXPECT_EQ(rows[1].ceiling, "cuBLAS");
}

TEST(PeerMerge, RowsWithoutAPorterGroupStandAloneAgainstTheirStandIn) {
  std::vector<row> rows = {porter_row("sgemm", "8192^3", "cublas", 50, 1.0, "cuBLAS", "TFLOP/s")};
  const std::vector<peer_row> peers = {peer("bf16gemm", "8192^3", "triton", 2.0), peer("bf16gemm", "8192^3", "torch", 1.6, "", true),
                                       peer("bf16gemm", "4096^3 x3", "triton", 0, "", false, "FAILED: wrong"),
                                       peer("bf16gemm", "4096^3 x3", "torch", 0, "", true, "skipped: budget")};
  const auto notes = merge_peer_rows(rows, peers);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].workload, "sgemm");
  EXPECT_EQ(rows[1].impl, "triton");
  EXPECT_EQ(rows[2].impl, "torch");
  EXPECT_NEAR(rows[1].ratio, 1.6 / 2.0, 1e-12);
  EXPECT_NEAR(rows[2].ratio, 1.0, 1e-12);
  EXPECT_EQ(rows[1].ceiling, "cuBLAS (torch.matmul)");
  EXPECT_EQ(rows[1].size, "8192^3");
  EXPECT_EQ(rows[3].status, "FAILED: wrong");
  EXPECT_EQ(rows[3].ratio, 0);
  EXPECT_EQ(rows[3].rate, 0);
  ASSERT_EQ(notes.size(), 2u);  // one per group that stands alone
  EXPECT_NE(notes[0].find("bf16gemm 8192^3 stand alone"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("nothing (no ceiling)"), std::string::npos) << notes[1];
}

/// Run a shell command; its stdout and exit code.
std::string run(const std::string& cmd, int& code) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) {
    code = -1;
    return out;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = pclose(f);
  code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

TEST(TritonPeersScript, SelfTestRowsParseWithPorterBenchsSizeLabels) {
  if (std::string(PB_TEST_PYTHON).empty()) GTEST_SKIP() << "no python3 found at configure time";
  int code = 0;
  const std::string out =
      run(std::string("'") + PB_TEST_PYTHON + "' '" + PB_TRITON_PEERS_SCRIPT + "' --self-test --l2-bytes 62914560", code);
  ASSERT_EQ(code, 0) << out;
  const auto o = parse_peer_output(out);
  EXPECT_EQ(o.malformed, 0) << o.first_malformed;
  EXPECT_EQ(o.other_lines, 0);
  EXPECT_TRUE(o.skipped.empty());
  ASSERT_GE(o.rows.size(), 8u);
  std::vector<std::string> sgemm_sizes, bf16_sizes;
  for (const auto& p : o.rows) {
    EXPECT_TRUE(p.self_test) << p.r.workload;
    if (p.r.workload == "sgemm" && p.r.impl == "triton") sgemm_sizes.push_back(p.r.size);
    if (p.r.workload == "bf16gemm" && p.r.impl == "triton") bf16_sizes.push_back(p.r.size);
    if (p.r.ok()) {
      EXPECT_NE(p.r.check.find("checksum " + p.checksum), std::string::npos);
    }
  }
  // 60 MiB of L2: 4096^3 fp32 sets are 192 MiB (2 sets), 8192^3 768 MiB (1); bf16 4096^3 96 MiB (3).
  EXPECT_EQ(sgemm_sizes, (std::vector<std::string>{"4096^3 x2", "8192^3"}));
  EXPECT_EQ(bf16_sizes, (std::vector<std::string>{"8192^3", "4096^3 x3"}));
  ASSERT_FALSE(o.notes.empty());
  EXPECT_EQ(o.notes[0], "self-test: a \"quoted \\\"note\\\"\" with a tab\tand unicode \xc3\x97");
  ASSERT_FALSE(o.meta.empty());
  EXPECT_EQ(o.meta[0].first, "triton");
  // The rows merge on their own (this build's porter-bench may have no bf16gemm workload).
  std::vector<row> rows;
  std::vector<peer_row> peers(o.rows.begin(), o.rows.end());
  merge_peer_rows(rows, peers);
  for (const auto& r : rows)
    if (r.workload == "bf16gemm" && r.impl == "triton" && r.ok()) {
      EXPECT_GT(r.ratio, 0) << r.size;
    }
}

TEST(TritonPeersScript, WithoutAGpuItPrintsOneSkipLineAndExitsZero) {
  if (std::string(PB_TEST_PYTHON).empty()) GTEST_SKIP() << "no python3 found at configure time";
  int code = 0;
  const std::string out = run(std::string("CUDA_VISIBLE_DEVICES= '") + PB_TEST_PYTHON + "' '" + PB_TRITON_PEERS_SCRIPT +
                                  "' --quick --only stream 2>/dev/null",
                              code);
  ASSERT_EQ(code, 0) << out;
  const auto o = parse_peer_output(out);
  EXPECT_FALSE(o.skipped.empty()) << out;
  EXPECT_TRUE(o.rows.empty());
  EXPECT_EQ(o.malformed, 0);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

}  // namespace
