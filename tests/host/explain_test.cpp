// tests/host/explain_test.cpp — porter::explain(desc, caps): per-path yes/refused lines, reasons with rules, the "automatic: X" line.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/choose.hpp"
#include "porter/source.hpp"

namespace {

using porter_test::Contains;
using porter_test::desc;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// The block of one path: its "name: ..." line followed by its indented "  - ..." lines.
struct path_block {
  std::string head;
  std::string bullets;  // the bullet lines joined with '\n'
  bool found = false;
};

path_block block(const std::string& text, const std::string& path) {
  path_block b;
  const auto ls = lines_of(text);
  for (std::size_t i = 0; i < ls.size(); ++i) {
    if (ls[i].rfind(path + ": ", 0) != 0) continue;
    b.found = true;
    b.head = ls[i];
    for (std::size_t j = i + 1; j < ls.size() && ls[j].rfind("  - ", 0) == 0; ++j) b.bullets += ls[j] + "\n";
    break;
  }
  return b;
}

// The stencil example's source: every layout rule holds, so only the device decides.
const porter::source_desc grid = desc(4, {1000, 1500}, {1500, 1}, {18, 72}, 0x100000);

TEST(Explain, WithoutADeviceOnlyStagedAndTheReasonIsNamed) {
  const std::string s = porter::explain(grid, nullptr);
  const auto ls = lines_of(s);
  ASSERT_GE(ls.size(), 6u);
  EXPECT_EQ(ls[0], "tiled source: rank 2, 4-byte elements, extents [1000, 1500], strides [1500, 1] elements, box [18, 72]");
  EXPECT_EQ(ls[1], "device: none (no usable GPU)");
  const auto tma = block(s, "tma"), cpa = block(s, "cp_async"), st = block(s, "staged");
  ASSERT_TRUE(tma.found && cpa.found && st.found) << s;
  EXPECT_EQ(tma.head, "tma: refused");
  // "no device" is said once, in the header; each path says what it would need.
  EXPECT_TRUE(Contains(tma.bullets, "needs a device with TMA [rule tma.device]"));
  EXPECT_EQ(cpa.head, "cp_async: refused");
  EXPECT_TRUE(Contains(cpa.bullets, "needs a device with cp.async [rule cp_async.device]"));
  EXPECT_FALSE(Contains(tma.bullets + cpa.bullets, "no device"));
  EXPECT_EQ(st.head, "staged: yes");
  EXPECT_EQ(block(s, "automatic").head, "automatic: staged");
}

TEST(Explain, OnAnH200EveryPathSaysYesAndAutomaticIsTma) {
  const auto caps = porter_test::h200();
  const std::string s = porter::explain(grid, &caps);
  EXPECT_TRUE(Contains(s, "device: NVIDIA H200 (sm_90, 132 SMs)\n"));
  EXPECT_EQ(block(s, "tma").head, "tma: yes");
  EXPECT_EQ(block(s, "cp_async").head, "cp_async: yes");
  EXPECT_EQ(block(s, "staged").head, "staged: yes");
  EXPECT_FALSE(Contains(s, "[rule"));  // nothing refused
  EXPECT_TRUE(Contains(block(s, "cp_async").bullets, "cp.async.cg"));
  EXPECT_EQ(block(s, "automatic").head, "automatic: tma");
}

TEST(Explain, OnAnA100TmaIsRefusedNamingTheDeviceAndAutomaticIsCpAsync) {
  const auto caps = porter_test::a100();
  const std::string s = porter::explain(grid, &caps);
  const auto tma = block(s, "tma");
  EXPECT_EQ(tma.head, "tma: refused");
  EXPECT_TRUE(Contains(tma.bullets, "device 'NVIDIA A100-SXM4-80GB' has no TMA (needs compute capability 9.0; it has 8.0) [rule tma.device]"));
  EXPECT_EQ(block(s, "cp_async").head, "cp_async: yes");
  EXPECT_EQ(block(s, "staged").head, "staged: yes");
  EXPECT_EQ(block(s, "automatic").head, "automatic: cp_async");
}

TEST(Explain, OnAT4OnlyStagedIsLeft) {
  const auto caps = porter_test::t4();
  const std::string s = porter::explain(grid, &caps);
  EXPECT_TRUE(Contains(block(s, "tma").bullets, "has no TMA (needs compute capability 9.0; it has 7.5)"));
  EXPECT_EQ(block(s, "cp_async").head, "cp_async: refused");
  EXPECT_TRUE(Contains(block(s, "cp_async").bullets,
                       "device 'Tesla T4' has no cp.async (needs compute capability 8.0; it has 7.5) [rule cp_async.device]"));
  EXPECT_EQ(block(s, "staged").head, "staged: yes");
  EXPECT_EQ(block(s, "automatic").head, "automatic: staged");
}

TEST(Explain, OnAHipDeviceTheNvidiaPathsAreRefusedEvenAtComputeCapability9) {
  const auto caps = porter_test::mi250x();
  const std::string s = porter::explain(grid, &caps);
  EXPECT_TRUE(Contains(s, "device: AMD Instinct MI250X ("));
  EXPECT_TRUE(Contains(s, "110 CUs)"));
  EXPECT_EQ(block(s, "tma").head, "tma: refused");
  EXPECT_TRUE(Contains(block(s, "tma").bullets, "[rule tma.device]"));
  EXPECT_EQ(block(s, "cp_async").head, "cp_async: refused");
  EXPECT_TRUE(Contains(block(s, "cp_async").bullets, "[rule cp_async.device]"));
  EXPECT_EQ(block(s, "staged").head, "staged: yes");
  EXPECT_EQ(block(s, "automatic").head, "automatic: staged");
}

TEST(Explain, HipRefusalSaysTheDeviceIsAmdInsteadOfQuotingItsComputeCapability) {
  // gfx90a reports 9.0: "needs compute capability 9.0; it has 9.0" would contradict itself.
  const auto caps = porter_test::mi250x();
  const std::string s = porter::explain(grid, &caps);
  EXPECT_TRUE(Contains(s, "device: AMD Instinct MI250X (gfx90a, 110 CUs)\n"));
  EXPECT_FALSE(Contains(s, "it has 9.0"));
  EXPECT_TRUE(Contains(block(s, "tma").bullets, "device 'AMD Instinct MI250X' is an AMD GPU"));
  EXPECT_TRUE(Contains(block(s, "cp_async").bullets, "device 'AMD Instinct MI250X' is an AMD GPU"));
}

TEST(Explain, LayoutRefusalIsListedWithItsRuleAndAutomaticFallsBack) {
  const auto d = desc(4, {64, 1000}, {1001, 1}, {16, 64}, 0x100000);  // pitch 4004 B
  const auto h = porter_test::h200();
  const std::string s = porter::explain(d, &h);
  EXPECT_EQ(block(s, "tma").head, "tma: refused");
  EXPECT_TRUE(Contains(block(s, "tma").bullets,
                       "stride of dimension 0 (the row pitch) is 4004 B, not a multiple of 16 B [rule tma.stride_multiple_of_16]"));
  EXPECT_FALSE(Contains(block(s, "tma").bullets, "tma.device"));  // the H200 has TMA
  EXPECT_EQ(block(s, "cp_async").head, "cp_async: yes");
  EXPECT_TRUE(Contains(block(s, "cp_async").bullets, "chunks of up to 4 B"));
  EXPECT_EQ(block(s, "automatic").head, "automatic: cp_async");
  // On an A100 the tma block carries both reasons: the layout and the device.
  const auto a = porter_test::a100();
  const std::string sa = porter::explain(d, &a);
  EXPECT_TRUE(Contains(block(sa, "tma").bullets, "[rule tma.stride_multiple_of_16]"));
  EXPECT_TRUE(Contains(block(sa, "tma").bullets, "[rule tma.device]"));
  EXPECT_EQ(block(sa, "automatic").head, "automatic: cp_async");
}

TEST(Explain, TwoByteAlignedRowsLeaveOnlyStagedEvenOnAnH200) {
  const auto d = desc(2, {64, 1000}, {1001, 1}, {16, 64}, 0x100000);  // pitch 2002 B
  const auto h = porter_test::h200();
  const std::string s = porter::explain(d, &h);
  EXPECT_TRUE(Contains(block(s, "tma").bullets, "2002 B"));
  EXPECT_EQ(block(s, "cp_async").head, "cp_async: refused");
  EXPECT_TRUE(Contains(block(s, "cp_async").bullets, "only 2-byte aligned [rule cp_async.alignment_4]"));
  EXPECT_EQ(block(s, "automatic").head, "automatic: staged");
}

TEST(Explain, SplitOutermostDimensionIsReported) {
  const auto d = desc(4, {4096, 32}, {32, 1}, {512, 32}, 0x100000);
  const auto h = porter_test::h200();
  const std::string s = porter::explain(d, &h);
  EXPECT_EQ(block(s, "tma").head, "tma: yes");
  EXPECT_TRUE(Contains(block(s, "tma").bullets, "each box is 2 copies of 256"));
}

TEST(Explain, AutomaticSaysWhyAndDemotesTmaForBoxesBelowTheBreakEven) {
  const auto h = porter_test::h200();
  const auto& be = porter::break_even_for(h);
  ASSERT_GT(be.tensor_box_bytes, 16);
  // A 2D box of 16-byte rows, 4 rows: 64 B per TMA copy, below any measured break-even.
  const auto small = desc(4, {1024, 1024}, {1024, 1}, {4, 4}, 0x100000);
  const std::string s = porter::explain(small, &h);
  EXPECT_EQ(block(s, "tma").head, "tma: yes");
  const auto a = block(s, "automatic");
  EXPECT_EQ(a.head, "automatic: cp_async");
  EXPECT_TRUE(Contains(a.bullets, "64 B, below the " + std::to_string(be.tensor_box_bytes) + " B")) << s;
  // The stencil's 18 x 72 box (5184 B) is above it: tma, and the reason says so.
  const auto g = block(porter::explain(grid, &h), "automatic");
  EXPECT_EQ(g.head, "automatic: tma");
  EXPECT_TRUE(Contains(g.bullets, "break-even"));
  // The choice itself, for two sources: the smaller box decides.
  const porter::source_desc* both[] = {&grid, &small};
  EXPECT_EQ(porter::choose_path(~0u, h, both, 2).path, porter::path_id::cp_async);
  EXPECT_EQ(porter::choose_path(~0u, h, both, 1).path, porter::path_id::tma);
  // Without cp_async the demoted tma falls to staged; without tma the choice is cp_async.
  EXPECT_EQ(porter::choose_path(porter::path_bit(porter::path_id::tma), h, both, 2).path, porter::path_id::staged);
  EXPECT_EQ(porter::choose_path(porter::path_bit(porter::path_id::cp_async), h, both, 1).path, porter::path_id::cp_async);
}

TEST(Explain, AutomaticLineAgreesWithSelectPathOnEveryDevice) {
  const porter::source_desc sources[] = {grid, desc(4, {64, 1000}, {1001, 1}, {16, 64}, 0x100000),
                                         desc(2, {64, 1000}, {1001, 1}, {16, 64}, 0x100000)};
  const porter::device_caps devices[] = {porter_test::h200(), porter_test::a100(), porter_test::t4(), porter_test::mi250x()};
  for (const auto& d : sources) {
    const auto r = porter::validate_source(d);
    for (const auto& c : devices) {
      SCOPED_TRACE(c.name);
      const std::string s = porter::explain(d, &c);
      EXPECT_EQ(block(s, "automatic").head, std::string("automatic: ") +
                                                porter::path_id_name(porter::select_path(r.mask, c.compute_capability(), c.hip)));
      EXPECT_EQ(s.find("automatic:"), s.rfind("automatic:"));  // exactly one such line
    }
  }
}

}  // namespace
