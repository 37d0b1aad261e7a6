// tests/lowering/lowering_test.cpp — reads kernels.cu's PTX for sm_75/80/90 and checks which instructions each path emits per target.
//
// PORTER_PTX_SM75, PORTER_PTX_SM80, PORTER_PTX_SM90 and PORTER_PTX_SM90_DEBUG (PORTER_DEBUG=1) are
// the paths of the PTX files built by tests/lowering/CMakeLists.txt (nvcc -ptx, then ptxas, per target).
// Kernels are found by their mangled names: lower_<form>I...N6porter4path<len><path>E...
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ptx_module.hpp"

namespace {

using porter_test::ptx_module;

const char* const forms[] = {"box1d", "box2d", "box3d", "bytes"};
const char* const paths[] = {"tma", "cp_async", "staged", "automatic"};

/// The mangled spelling of porter::path::<p> inside a template argument list: "4path3tmaE".
std::string path_tag(const std::string& p) { return "4path" + std::to_string(p.size()) + p + "E"; }

const ptx_module& module(int sm, bool debug = false) {
  static std::map<std::string, ptx_module> cache;
  const char* file = debug ? PORTER_PTX_SM90_DEBUG : sm == 75 ? PORTER_PTX_SM75 : sm == 80 ? PORTER_PTX_SM80 : PORTER_PTX_SM90;
  auto it = cache.find(file);
  if (it == cache.end()) it = cache.emplace(file, ptx_module::load(file)).first;
  return it->second;
}

/// Mangled names of the kernels of `form` instantiated with path `p`.
std::vector<std::string> kernels_named(const ptx_module& m, const std::string& form, const std::string& p) {
  std::vector<std::string> out;
  for (const auto& e : m.entries())
    if (e.find("lower_" + form + "I") != std::string::npos && e.find(path_tag(p)) != std::string::npos) out.push_back(e);
  return out;
}

/// What one kernel executes: its body with every callee, and the strings it references.
struct kernel_code {
  std::string label;  // "sm_90 tma box2d"
  std::string text;
  std::vector<std::string> strings;
};

kernel_code code(int sm, const std::string& p, const std::string& form, bool debug = false) {
  const ptx_module& m = module(sm, debug);
  kernel_code k;
  k.label = "sm_" + std::to_string(sm) + (debug ? " (PORTER_DEBUG)" : "") + " " + p + " " + form;
  const auto names = kernels_named(m, form, p);
  if (names.size() != 1) {
    ADD_FAILURE() << k.label << ": expected one kernel, found " << names.size();
    return k;
  }
  k.text = m.closure(names[0]);
  k.strings = m.strings_used(names[0]);
  return k;
}

::testing::AssertionResult has(const kernel_code& k, const std::string& instr) {
  if (k.text.find(instr) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << k.label << " does not contain \"" << instr << "\"";
}

::testing::AssertionResult lacks(const kernel_code& k, const std::string& instr) {
  const std::size_t at = k.text.find(instr);
  if (at == std::string::npos) return ::testing::AssertionSuccess();
  const std::size_t b = k.text.rfind('\n', at), e = k.text.find('\n', at);
  return ::testing::AssertionFailure() << k.label << " contains \"" << instr << "\": "
                                       << k.text.substr(b + 1, e == std::string::npos ? e : e - b - 1);
}

::testing::AssertionResult uses_string(const kernel_code& k, const std::string& part) {
  for (const auto& s : k.strings)
    if (s.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  ::testing::AssertionResult r = ::testing::AssertionFailure();
  r << k.label << " references no string containing \"" << part << "\"; it references:";
  for (const auto& s : k.strings) r << "\n  \"" << s << "\"";
  return r;
}

// ---- the reader itself, on a hand-written module ------------------------------------------------------

TEST(PtxReader, FindsKernelsDeviceFunctionsCallsAndStrings) {
  const ptx_module m = ptx_module::parse(R"(.version 9.0
.target sm_80
.address_size 64
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0
)
;
.global .align 1 .b8 $str$3[6] = {104, 101, 108, 108, 111, 0};
.func helper(
	.param .b64 p
)
{
	.reg .b64 %rd<2>;
	mov.u64 	%rd1, $str$3;
	{ // callseq 0, 0
	call.uni (retval0), 
	vprintf, 
	(
	param0
	);
	}
	cp.async.ca.shared.global [%r1], [%rd1], 4, %r2;
	ret;
}
.visible .entry k(
	.param .u32 n
)
.maxntid 128, 1, 1
{
	call.uni helper, (param0);
	bar.sync 	0;
	ret;
}
.visible .entry lone()
{
	ret;
}
)");
  EXPECT_EQ(m.target(), "sm_80");
  ASSERT_EQ(m.entries(), (std::vector<std::string>{"k", "lone"}));
  ASSERT_NE(m.find("helper"), nullptr);
  EXPECT_FALSE(m.find("helper")->entry);
  EXPECT_EQ(m.find("vprintf"), nullptr);  // a declaration, not a function with a body
  EXPECT_EQ(m.find("helper")->callees, (std::set<std::string>{"vprintf"}));
  EXPECT_EQ(m.find("k")->callees, (std::set<std::string>{"helper"}));
  const std::string k = m.closure("k");
  EXPECT_NE(k.find("bar.sync"), std::string::npos);
  EXPECT_NE(k.find("cp.async.ca"), std::string::npos);  // reached through the call
  EXPECT_EQ(m.closure("lone").find("cp.async"), std::string::npos);
  EXPECT_EQ(m.strings_used("k"), (std::vector<std::string>{"hello"}));
  EXPECT_TRUE(m.strings_used("lone").empty());
}

// ---- the modules hold what kernels.cu instantiates ---------------------------------------------------

TEST(Lowering, EveryTargetHasOneKernelPerFormAndPath) {
  for (int sm : {75, 80, 90}) {
    const ptx_module& m = module(sm);
    EXPECT_EQ(m.target(), "sm_" + std::to_string(sm));
    EXPECT_EQ(m.entries().size(), 16u) << "sm_" << sm;
    for (const char* f : forms)
      for (const char* p : paths) {
        const auto k = code(sm, p, f);
        EXPECT_TRUE(has(k, "ret;"));
        EXPECT_TRUE(has(k, "bar.sync"));  // every pipeline starts with a CTA barrier after init
      }
  }
  EXPECT_EQ(module(90, true).target(), "sm_90");
  EXPECT_EQ(module(90, true).entries().size(), 16u);
}

// ---- tma ---------------------------------------------------------------------------------------------

TEST(LoweringSm90, TmaTensorBoxesAreBulkTensorCopiesCompletingOnAnMbarrier) {
  for (const char* f : {"box2d", "box3d"}) {
    const auto k = code(90, "tma", f);
    const std::string dim = f[3] == '2' ? "2d" : "3d";
    EXPECT_TRUE(has(k, "cp.async.bulk.tensor." + dim + ".shared::cluster.global.tile.mbarrier::complete_tx::bytes"));
    EXPECT_TRUE(has(k, "mbarrier.expect_tx"));
    EXPECT_TRUE(has(k, "mbarrier.try_wait.parity"));
    EXPECT_TRUE(has(k, "mbarrier.init"));
    EXPECT_TRUE(lacks(k, "cp.async.cg"));
    EXPECT_TRUE(lacks(k, "cp.async.ca"));
    EXPECT_TRUE(lacks(k, "cp.async.commit_group"));  // no cp.async groups on the tma path
    EXPECT_TRUE(lacks(k, "ld.global"));              // the tile moves by TMA only, never through registers
    EXPECT_FALSE(uses_string(k, "compiled for a target without"));
  }
}

TEST(LoweringSm90, TmaOneDimensionalBoxesAndByteRangesAreBulkCopies) {
  for (const char* f : {"box1d", "bytes"}) {
    const auto k = code(90, "tma", f);
    EXPECT_TRUE(has(k, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"));
    EXPECT_TRUE(lacks(k, "cp.async.bulk.tensor"));
    EXPECT_TRUE(has(k, "mbarrier.expect_tx"));
    EXPECT_TRUE(has(k, "mbarrier.try_wait.parity"));
    EXPECT_TRUE(lacks(k, "cp.async.cg"));
    EXPECT_TRUE(lacks(k, "cp.async.ca"));
  }
}

TEST(LoweringWrongTarget, TmaBuiltForSm75AndSm80IsATrapStubWithoutBulkCopies) {
  for (int sm : {75, 80})
    for (const char* f : forms) {
      const auto k = code(sm, "tma", f);
      EXPECT_TRUE(has(k, "trap;"));
      EXPECT_TRUE(lacks(k, "cp.async.bulk"));
      EXPECT_TRUE(lacks(k, "mbarrier.expect_tx"));
      EXPECT_TRUE(uses_string(k, "path tma was compiled for a target without TMA (needs sm_90)"));
    }
}

TEST(LoweringWrongTarget, CpAsyncBuiltForSm75IsATrapStubWithoutCpAsync) {
  for (const char* f : forms) {
    const auto k = code(75, "cp_async", f);
    EXPECT_TRUE(has(k, "trap;"));
    EXPECT_TRUE(lacks(k, "cp.async"));
    EXPECT_TRUE(lacks(k, "mbarrier."));
    EXPECT_TRUE(uses_string(k, "path cp_async was compiled for a target without cp.async (needs sm_80)"));
  }
}

// ---- cp_async ----------------------------------------------------------------------------------------

TEST(LoweringSm80, CpAsyncUsesChunkCopiesGroupsAndTestWait) {
  for (const char* f : forms) {
    const auto k = code(80, "cp_async", f);
    EXPECT_TRUE(has(k, "cp.async.cg.shared.global"));  // 16-byte chunks
    EXPECT_TRUE(has(k, "cp.async.ca.shared.global"));  // 8- and 4-byte chunks
    EXPECT_TRUE(has(k, "cp.async.commit_group"));
    EXPECT_TRUE(has(k, "cp.async.wait_group"));
    EXPECT_TRUE(lacks(k, "cp.async.bulk"));
    EXPECT_TRUE(lacks(k, "mbarrier.expect_tx"));
    EXPECT_TRUE(has(k, "mbarrier.test_wait.parity"));
    EXPECT_TRUE(lacks(k, "mbarrier.try_wait"));  // sm_90 instruction
    EXPECT_FALSE(uses_string(k, "compiled for a target without"));
  }
}

TEST(LoweringSm90, CpAsyncStaysCpAsyncOnHopper) {
  for (const char* f : forms) {
    const auto k = code(90, "cp_async", f);
    EXPECT_TRUE(has(k, "cp.async.cg.shared.global"));
    EXPECT_TRUE(has(k, "cp.async.commit_group"));
    EXPECT_TRUE(has(k, "cp.async.wait_group"));
    EXPECT_TRUE(lacks(k, "cp.async.bulk"));
    EXPECT_TRUE(lacks(k, "mbarrier.expect_tx"));
    EXPECT_TRUE(has(k, "mbarrier.try_wait.parity"));
  }
}

// ---- staged ------------------------------------------------------------------------------------------

TEST(LoweringAllTargets, StagedIsPlainVectorLoadsAndCtaBarriers) {
  for (int sm : {75, 80, 90})
    for (const char* f : forms) {
      const auto k = code(sm, "staged", f);
      EXPECT_TRUE(lacks(k, "cp.async"));
      EXPECT_TRUE(lacks(k, "mbarrier"));
      EXPECT_TRUE(lacks(k, "trap;"));
      EXPECT_TRUE(has(k, "bar.sync"));
      EXPECT_TRUE(has(k, "ld.global.v4.u32"));   // 16-byte vector loads when the addresses allow them
      EXPECT_TRUE(has(k, "st.shared.v4.u32"));   // ... stored with shared-window (not generic) stores
    }
}

// ---- automatic ---------------------------------------------------------------------------------------

TEST(LoweringSm90, AutomaticPrefersTma) {
  for (const char* f : {"box2d", "box3d"}) EXPECT_TRUE(has(code(90, "automatic", f), "cp.async.bulk.tensor"));
  for (const char* f : {"box1d", "bytes"}) EXPECT_TRUE(has(code(90, "automatic", f), "cp.async.bulk.shared::cluster"));
  for (const char* f : forms) {
    const auto k = code(90, "automatic", f);
    EXPECT_TRUE(has(k, "mbarrier.expect_tx"));
    EXPECT_FALSE(uses_string(k, "compiled for a target without"));
  }
  // Boxes a source refuses to TMA fall back to cp.async in the same kernel.
  EXPECT_TRUE(has(code(90, "automatic", "box2d"), "cp.async.cg.shared.global"));
}

TEST(LoweringSm80, AutomaticIsCpAsync) {
  for (const char* f : forms) {
    const auto k = code(80, "automatic", f);
    EXPECT_TRUE(has(k, "cp.async.cg.shared.global"));
    EXPECT_TRUE(has(k, "cp.async.commit_group"));
    EXPECT_TRUE(lacks(k, "cp.async.bulk"));
    EXPECT_TRUE(lacks(k, "mbarrier.expect_tx"));
    EXPECT_TRUE(lacks(k, "mbarrier.try_wait"));
    EXPECT_TRUE(lacks(k, "trap;"));
  }
}

TEST(LoweringSm75, AutomaticIsStaged) {
  for (const char* f : forms) {
    const auto k = code(75, "automatic", f);
    EXPECT_TRUE(lacks(k, "cp.async"));
    EXPECT_TRUE(lacks(k, "mbarrier"));
    EXPECT_TRUE(lacks(k, "trap;"));
    EXPECT_TRUE(has(k, "ld.global.v4.u32"));
    EXPECT_TRUE(has(k, "bar.sync"));
  }
}

// ---- debug builds: bounded waits that trap with a message (DESIGN.md invariant 5) ---------------------

TEST(LoweringSm90, DebugWaitsAreBoundedAndNameTheStage) {
  for (const char* p : {"tma", "cp_async", "automatic"}) {
    const auto d = code(90, p, "box2d", /*debug=*/true);
    EXPECT_TRUE(has(d, "%clock64"));
    EXPECT_TRUE(has(d, "trap;"));
    EXPECT_TRUE(uses_string(d, "full-barrier wait timed out"));
    EXPECT_TRUE(uses_string(d, "empty-barrier wait timed out"));
    EXPECT_TRUE(uses_string(d, "stage %u, phase %u"));
    const auto r = code(90, p, "box2d");
    EXPECT_TRUE(lacks(r, "%clock64"));
    EXPECT_FALSE(uses_string(r, "timed out"));
  }
}

}  // namespace
