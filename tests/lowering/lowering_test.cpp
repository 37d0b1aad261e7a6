// tests/lowering/lowering_test.cpp — reads kernels.cu's PTX for sm_75/80/90 and checks which instructions each path emits per target.
//
// PORTER_PTX_SM75, PORTER_PTX_SM80, PORTER_PTX_SM90 and PORTER_PTX_SM90_DEBUG (PORTER_DEBUG=1) are
// the paths of the PTX files built by tests/lowering/CMakeLists.txt (nvcc -ptx, then ptxas, per target).
// Kernels are found by their mangled names: lower_<form>I...N6porter4path<len><path>E...
#include <cctype>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ptx_module.hpp"

namespace {

using porter_test::ptx_module;

const char* const forms[] = {"box1d", "box2d", "box3d", "bytes"};
/// Kernels that also store (tests/lowering/kernels.cu: a swizzled box copied in and stored back; a
/// tile reduced into a destination and stored as a byte range).
const char* const store_forms[] = {"swz2d", "reduce2d"};
const char* const paths[] = {"tma", "cp_async", "staged"};  // automatic is resolved on the host: no kernel of its own

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
    // 7 forms x 3 paths (+ lower_held2d, lower_grid, lower_roles2d, lower_aligned2d, lower_fixed2d,
    // lower_runtime2d, lower_multicast2d, lower_rolesmc2d, lower_prefetch2d, lower_hint2d,
    // lower_hintmc2d, lower_hintroles2d, lower_wide2d per path), + lower_twochunk2d and lower_skew2d
    // on cp_async only.
    EXPECT_EQ(m.entries().size(), 62u) << "sm_" << sm;
    for (const char* f : forms)
      for (const char* p : paths) {
        const auto k = code(sm, p, f);
        EXPECT_TRUE(has(k, "ret;"));
        EXPECT_TRUE(has(k, "bar.sync"));  // every pipeline starts with a CTA barrier after init
      }
  }
  EXPECT_EQ(module(90, true).target(), "sm_90");
  EXPECT_EQ(module(90, true).entries().size(), 62u);
}

TEST(Lowering, NoKernelDividesIntegers) {
  // The copies, the ring's counters and the schedules compute with shifts, masks and multiplies.
  // A 32-bit integer division is a sequence of about 20 instructions in every thread; two or three
  // per pipeline step in porter-bench's GEMM kernel bodies cost 13% of sgemm's time and 55% of
  // smallgemm's on the H200 (bench/results/h200-2026-12-01-session17). This keeps them out of
  // porter's own device code on every target, the debug build included.
  const std::pair<int, bool> modules[] = {{75, false}, {80, false}, {90, false}, {90, true}};
  for (const auto& [sm, debug] : modules) {
    const ptx_module& m = module(sm, debug);
    for (const auto& e : m.entries()) {
      const std::string text = m.closure(e);
      for (const char* op : {"div.s32", "div.u32", "div.s64", "div.u64", "rem.s32", "rem.u32", "rem.s64", "rem.u64"})
        EXPECT_EQ(text.find(op), std::string::npos) << "sm_" << sm << (debug ? " (PORTER_DEBUG) " : " ") << e << ": " << op;
    }
  }
}

// ---- tma ---------------------------------------------------------------------------------------------

/// Lines of `k` that contain `instr`.
std::vector<std::string> lines_with(const kernel_code& k, const std::string& instr) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while ((at = k.text.find(instr, at)) != std::string::npos) {
    const std::size_t b = k.text.rfind('\n', at), e = k.text.find('\n', at);
    out.push_back(k.text.substr(b + 1, e == std::string::npos ? e : e - b - 1));
    at += instr.size();
  }
  return out;
}

/// The arrival count operand of every mbarrier.init in `k`: an immediate, or the value a register
/// was last set to with mov (the PTX nvcc emits for a constant argument); -1 when neither is seen.
std::vector<long> init_counts(const kernel_code& k) {
  std::vector<long> out;
  for (const auto& line : lines_with(k, "mbarrier.init.shared::cta.b64")) {
    const std::size_t comma = line.rfind(','), semi = line.rfind(';');
    std::string op = line.substr(comma + 1, semi - comma - 1);
    op.erase(0, op.find_first_not_of(" \t"));
    if (!op.empty() && std::isdigit(static_cast<unsigned char>(op[0]))) {
      out.push_back(std::stol(op));
      continue;
    }
    long v = -1;
    for (const auto& mov : lines_with(k, "mov.u32 \t" + op + ",")) v = std::stol(mov.substr(mov.rfind(',') + 1));
    for (const auto& mov : lines_with(k, "mov.b32 \t" + op + ",")) v = std::stol(mov.substr(mov.rfind(',') + 1));
    out.push_back(v);
  }
  return out;
}

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

TEST(LoweringSm90, TmaFullBarrierIsArmedOncePerStageByTheIssuingThread) {
  // The protocol of backends/tma/porter/tma/protocol.hpp: FULL counts one arrival (the issuing
  // thread's, at commit), the bytes come as transaction counts, and no EMPTY mbarrier exists.
  for (const char* f : forms) {
    const auto k = code(90, "tma", f);
    const auto counts = init_counts(k);
    ASSERT_FALSE(counts.empty()) << k.label;
    for (long c : counts) EXPECT_EQ(c, 1) << k.label << ": every mbarrier is initialised with arrival count 1";
    // One arrive per commit site (run_pipeline has two: prologue and steady state), never one per
    // thread in a loop, and never a wait for an EMPTY barrier (the reuse guard is a CTA barrier).
    EXPECT_EQ(lines_with(k, "mbarrier.arrive").size(), 2u) << k.label;
    EXPECT_EQ(lines_with(k, "mbarrier.try_wait.parity").size(), 1u) << k.label << ": consumers wait on FULL only";
    EXPECT_TRUE(lacks(k, "mbarrier.arrive.expect_tx"));
    EXPECT_TRUE(lacks(k, "cp.async.mbarrier.arrive"));
  }
}

TEST(LoweringSm90, TheRingIsAlignedFromTheSharedWindowOffset) {
  // porter::pipeline aligns its ring from the 32-bit shared-window offset (the vendor registry's
  // detail::shared_alignment_pad), not from the generic address: a kernel that only copies boxes
  // and reads them through the pipeline's stages then never converts a shared address to a
  // generic one (cvta.shared), which on sm_90 rebuilt the generic window (S2UR SR_SWINHI,
  // SR_CgaCtaId) every step of the ports' GEMM.
  for (const char* p : {"tma", "cp_async"}) {
    const auto k = code(90, p, "box2d");
    EXPECT_TRUE(lacks(k, "cvta.shared")) << k.label;
  }
}

TEST(LoweringSm90, AnAlignedSharedArrayFoldsTheRingPad) {
  // The ring's alignment pad, (128 - (offset & 127)) & 127 of the shared-window offset, is
  // recomputed in the K-loop over an array of unknown alignment (box2d); over one declared
  // __align__(128) (aligned2d) the compiler folds it to zero, so no `and ..., 127` is left. On the
  // H200 that was smallgemm tma 3.34 -> 3.04 ms (bench/results/h200-2026-12-01-session16).
  for (const char* p : paths) {
    EXPECT_TRUE(has(code(90, p, "box2d"), ", 127;")) << p;
    EXPECT_TRUE(lacks(code(90, p, "aligned2d"), ", 127;")) << p;
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
    // Thread-load fallbacks (unaligned heads and tails) are fenced for the async proxy.
    EXPECT_TRUE(has(k, "fence.proxy.async.shared::cta"));
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

TEST(LoweringSm80, CpAsyncUsesChunkCopiesGroupsAndOneCtaBarrier) {
  for (const char* f : forms) {
    const auto k = code(80, "cp_async", f);
    EXPECT_TRUE(has(k, "cp.async.cg.shared.global"));  // 16-byte chunks
    EXPECT_TRUE(has(k, "cp.async.ca.shared.global"));  // 8- and 4-byte chunks
    EXPECT_TRUE(has(k, "cp.async.commit_group"));
    EXPECT_TRUE(has(k, "cp.async.wait_group"));
    EXPECT_TRUE(has(k, "bar.sync"));
    EXPECT_TRUE(lacks(k, "cp.async.bulk"));
    EXPECT_TRUE(lacks(k, "mbarrier"));  // the multistage protocol: no mbarrier traffic at all
    EXPECT_FALSE(uses_string(k, "compiled for a target without"));
  }
}

TEST(LoweringSm90, CpAsyncStaysCpAsyncOnHopperWithoutMbarriers) {
  for (const char* f : forms) {
    const auto k = code(90, "cp_async", f);
    EXPECT_TRUE(has(k, "cp.async.cg.shared.global"));
    EXPECT_TRUE(has(k, "cp.async.commit_group"));
    EXPECT_TRUE(has(k, "cp.async.wait_group 1"));  // a 2-stage ring waits for all but the newer group
    EXPECT_TRUE(has(k, "cp.async.wait_group 0"));  // ... and for everything in the drain
    EXPECT_TRUE(lacks(k, "cp.async.bulk"));
    EXPECT_TRUE(lacks(k, "mbarrier"));
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

// ---- stores and swizzle -------------------------------------------------------------------------------

TEST(LoweringSm90, TmaStoresAreBulkTensorStoresWithBulkGroupsAndAProxyFence) {
  const auto k = code(90, "tma", "swz2d");
  EXPECT_TRUE(has(k, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"));  // the load
  EXPECT_TRUE(has(k, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"));                           // the store
  EXPECT_TRUE(has(k, "cp.async.bulk.commit_group"));
  EXPECT_TRUE(has(k, "cp.async.bulk.wait_group.read 0"));  // "the shared source may be reused" (before release)
  EXPECT_TRUE(has(k, "cp.async.bulk.wait_group 0"));       // "the global writes are complete"
  EXPECT_TRUE(has(k, "fence.proxy.async.shared::cta"));   // generic writes before the async proxy reads
  EXPECT_TRUE(lacks(k, "cp.async.cg"));
  const auto r = code(90, "tma", "reduce2d");
  EXPECT_TRUE(has(r, "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group"));
  EXPECT_TRUE(has(r, "cp.async.bulk.global.shared::cta.bulk_group"));  // the byte range
  EXPECT_TRUE(has(r, "cp.async.bulk.commit_group"));
  // Unaligned inner coordinates: one atomic per element (red.global when its result is unused).
  EXPECT_TRUE(has(r, "red.global.add.f32") || has(r, "atom.global.add.f32"));
}

TEST(LoweringAllTargets, CpAsyncAndStagedStoreWithThreadStoresAndAtomicsOnly) {
  for (int sm : {80, 90})
    for (const char* p : {"cp_async", "staged"})
      for (const char* f : store_forms) {
        const auto k = code(sm, p, f);
        EXPECT_TRUE(lacks(k, "cp.async.bulk"));      // no bulk copy, store, group or wait
        EXPECT_TRUE(lacks(k, "cp.reduce.async.bulk"));
        EXPECT_TRUE(lacks(k, "fence.proxy.async"));
        EXPECT_TRUE(has(k, "st.global"));
        EXPECT_TRUE(has(k, "bar.sync"));
        if (std::string(f) == "reduce2d") EXPECT_TRUE(has(k, "red.global.add.f32") || has(k, "atom.global.add.f32"));
      }
  for (const char* f : store_forms) {
    const auto k = code(75, "staged", f);
    EXPECT_TRUE(lacks(k, "cp.async"));
    EXPECT_TRUE(has(k, "st.global"));
  }
}

TEST(LoweringSm90, SwizzledCpAsyncAndStagedCopiesComputeTheDestination) {
  // The tensor map swizzles in hardware on tma; the others XOR the chunk index with the row (an xor
  // on the shared-memory offset) and issue the same copies as for a dense box.
  EXPECT_TRUE(has(code(90, "cp_async", "swz2d"), "cp.async.cg.shared.global"));
  EXPECT_TRUE(has(code(90, "cp_async", "swz2d"), "xor.b32"));
  EXPECT_TRUE(has(code(90, "staged", "swz2d"), "xor.b32"));
  EXPECT_TRUE(has(code(90, "staged", "swz2d"), "st.shared.v4.u32"));
}

// The tma copy of a box does not test the source's tma support in release device code (backends/tma/
// porter/tma/copy.hpp: a trap in the issuing thread's branch moved the ring's counters out of uniform
// registers, 7% of sgemm on the H200); PORTER_DEBUG=1 builds test it with porter's message.
TEST(LoweringSm90, TheTmaBoxCopyTestsTheSourceOnlyInDebugBuilds) {
  for (const char* f : {"box1d", "box2d", "box3d"}) {
    const auto r = code(90, "tma", f);
    EXPECT_TRUE(has(r, "cp.async.bulk"));
    EXPECT_TRUE(lacks(r, "trap;"));
    EXPECT_FALSE(uses_string(r, "this source does not allow tma"));
    const auto d = code(90, "tma", f, /*debug=*/true);
    EXPECT_TRUE(uses_string(d, "this source does not allow tma"));
  }
}

// ---- porter::cta_threads<N>: the CTA size a compile-time constant (include/porter/pipeline.hpp) ----------

/// The basic block of `k` (from its label) that ends with the first `instr`.
std::string block_of_first(const kernel_code& k, const std::string& instr) {
  const std::size_t at = k.text.find(instr);
  if (at == std::string::npos) return {};
  const std::size_t label = k.text.rfind("\n$L__", at);  // a label starts its line; a branch names one mid-line
  const std::size_t from = label == std::string::npos ? 0 : label + 1;
  return k.text.substr(from, at - from);
}

/// Every basic block (from a label to the next) of k's PTX that contains `instr`.
std::vector<std::string> blocks_with(const kernel_code& k, const std::string& instr) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from < k.text.size()) {
    std::size_t next = k.text.find("\n$L__", from + 1);
    if (next == std::string::npos) next = k.text.size();
    const std::string block = k.text.substr(from, next - from);
    if (block.find(instr) != std::string::npos) out.push_back(block);
    from = next;
  }
  return out;
}

// The cp_async interior fast path walks a 2D box of 1,024 chunks or more with a constant
// shared-memory and global step when the CTA-wide step is whole swizzle atoms: lower_wide2d's
// 128 x 64 b16 box (128 B swizzle; the bf16 GEMMs' A box) in a CTA of run-time size has a block
// issuing 16-byte cp.async with no multiply and no XOR (the row split, the tensor offset's 64-bit
// multiply-add and the swizzle computed once per thread, not per chunk; the wgmma GEMM on cp_async
// ran 1.10-1.15x faster on the H200). Smaller boxes keep the walk that computes each chunk: lower_box2d's
// 32 x 64 fp32 box (512 chunks) has no such block (the stepped loop cost smallgemm 6%).
TEST(LoweringCpAsync, TheInteriorWalkOfA16KiB2dBoxStepsWithoutAMultiplyOrSwizzlePerChunk) {
  auto stepped = [](const kernel_code& k) {
    bool any = false;
    for (const auto& b : blocks_with(k, "cp.async.cg.shared.global"))
      any = any || (b.find("mul.") == std::string::npos && b.find("mad.") == std::string::npos && b.find("xor.b32") == std::string::npos);
    return any;
  };
  for (int sm : {80, 90}) {
    const auto wide = code(sm, "cp_async", "wide2d");
    ASSERT_FALSE(blocks_with(wide, "cp.async.cg.shared.global").empty()) << wide.label;
    EXPECT_TRUE(stepped(wide)) << wide.label << ": every block issuing cp.async.cg computes a multiply or a swizzle";
    const auto small = code(sm, "cp_async", "box2d");
    EXPECT_FALSE(stepped(small)) << small.label << ": a 512-chunk box took the stepped walk";
  }
}

// A dense box whose rows do not divide the CTA-wide step (lower_skew2d: the wmma port's 128 x 144
// b16 box, 18 chunks a row, in a CTA of run-time size) walks its interior by wrapping the column
// (detail::first_wrapped): a block issues 16-byte cp.async with no multiply (before: a division by
// 18 and a 64-bit multiply-add per chunk; the port on cp_async +3.0% at one stage, +5.0% at two,
// H100, session 47) and tests the column against the row's last chunk (17).
TEST(LoweringCpAsync, ADenseBoxWhoseRowsDoNotDivideTheStepWrapsWithoutAMultiplyPerChunk) {
  for (int sm : {80, 90}) {
    const auto k = code(sm, "cp_async", "skew2d");
    bool wrapped = false;
    for (const auto& b : blocks_with(k, "cp.async.cg.shared.global"))
      wrapped = wrapped || (b.find("mul.") == std::string::npos && b.find("mad.") == std::string::npos && b.find(", 17;") != std::string::npos);
    EXPECT_TRUE(wrapped) << k.label << ": no block issues a chunk, tests the column against 17 and multiplies nothing";
  }
}

// lower_fixed2d and lower_runtime2d copy sgemm's 8 x 128 fp32 box (256 chunks of 16 B) in CTAs of
// 256 threads, the first with porter::cta_threads<256>. The cp_async fast path's first chunk then
// needs no "has this thread a chunk?" test (k < 256 follows from the hint that the rank is below
// N): the basic block that issues it holds no compare against 255 and no loop back, where the
// run-time-size kernel tests k against 255 before its first chunk (H200 sgemm 8192^3 on cp_async:
// 29.38 -> 28.11 ms, the loop for a second chunk gone too). The test looks at everything before the
// first cp.async (in session 41 the run-time kernel's compare sat in an earlier block).
TEST(LoweringCtaThreads, TheCpAsyncFastPathIssuesAThreadsChunkWithoutTestingIt) {
  for (int sm : {80, 90}) {
    const auto fixed_code = code(sm, "cp_async", "fixed2d");
    const auto runtime_code = code(sm, "cp_async", "runtime2d");
    const std::string fixed = block_of_first(fixed_code, "cp.async.cg.shared.global");
    ASSERT_FALSE(fixed.empty());
    const std::string fixed_before = fixed_code.text.substr(0, fixed_code.text.find("cp.async.cg.shared.global"));
    const std::string runtime_before = runtime_code.text.substr(0, runtime_code.text.find("cp.async.cg.shared.global"));
    ASSERT_NE(runtime_code.text.find("cp.async.cg.shared.global"), std::string::npos) << runtime_code.label;
    EXPECT_EQ(fixed_before.find(", 255;"), std::string::npos) << "sm_" << sm << ":\n" << fixed;
    EXPECT_NE(runtime_before.find(", 255;"), std::string::npos) << "sm_" << sm << ": " << runtime_code.label;
  }
}

// lower_twochunk2d copies the bench sgemm's 16 x 128 fp32 box (512 chunks, two per thread) with
// porter::cta_threads<256>. A power-of-two CTA that divides the chunks issues its chunks in a loop
// without a bound test, which nvcc unrolls fully when the count is known: the block of the first
// interior cp.async holds the second too, and no branch comes back to it (a loop). Before session
// 41 the chunks after the first went through `k < total` with a run-time trip count, unrolled by 4
// with a remainder (sgemm 8192^3 on cp_async, H100, session 40: 41.7 against 46.2 TFLOP/s).
TEST(LoweringCtaThreads, TheCpAsyncInteriorChunksOfAKnownCtaAreIssuedWithoutALoop) {
  for (int sm : {80, 90}) {
    const auto k = code(sm, "cp_async", "twochunk2d");
    const std::string instr = "cp.async.cg.shared.global";
    const auto blocks = blocks_with(k, instr);
    ASSERT_FALSE(blocks.empty()) << k.label;
    const std::string& block = blocks.front();  // "\n$L__BB<n>_<m>:" ... up to the next label
    ASSERT_EQ(block.rfind("\n$L__", 0), 0u) << k.label << ": the first chunk is in the kernel's entry block";
    const std::string label = block.substr(1, block.find(':') - 1);
    const std::size_t label_at = k.text.find(block);
    std::size_t in_block = 0;
    for (std::size_t at = block.find(instr); at != std::string::npos; at = block.find(instr, at + 1)) ++in_block;
    EXPECT_EQ(in_block, 2u) << k.label << ": the interior block issues " << in_block << " chunks:\n" << block;
    // No branch at or after the block targets its label (that would be a loop around the chunks).
    const std::string after = k.text.substr(label_at + 1);
    EXPECT_EQ(after.find("bra.uni \t" + label + ";"), std::string::npos) << k.label << ": " << label << " is a loop head";
    EXPECT_EQ(after.find("bra \t" + label + ";"), std::string::npos) << k.label << ": " << label << " is a loop head";
  }
}

// The same fixed-count loop steps by constants when the CTA-wide step is whole swizzle atoms
// (whole rows here; backends/cp_async/porter/cp_async/copy.hpp, first_stepped): only the first
// chunk of a thread computes its tensor offset with a 64-bit multiply, the others add a constant.
// lower_twochunk2d's 256 threads (2 chunks each, 4 KiB steps) and lower_roles2d's 32 role producers
// (a 32 x 64 fp32 box, 16 chunks each, 512-byte steps): the block issuing a thread's interior
// chunks holds one mul.lo.s64 (before: one per chunk, 2 and 16; in the sm_90 PTX lower_roles2d's
// block shrank from 185 to 59 instructions).
TEST(LoweringCtaThreads, TheCpAsyncInteriorChunksOfAKnownCtaStepByConstants) {
  const std::string instr = "cp.async.cg.shared.global";
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (int sm : {80, 90}) {
    for (const auto& [form, chunks] : {std::pair<const char*, std::size_t>{"twochunk2d", 2}, {"roles2d", 16}}) {
      const auto k = code(sm, "cp_async", form);
      std::string block;  // the block that issues the most chunks: a thread's interior chunks
      for (const auto& b : blocks_with(k, instr))
        if (count(b, instr) > count(block, instr)) block = b;
      ASSERT_EQ(count(block, instr), chunks) << k.label << ": no block issues a thread's " << chunks << " interior chunks";
      EXPECT_EQ(count(block, "mul.lo.s64") + count(block, "mad.lo.s64"), 1u) << k.label << ":\n" << block;
    }
  }
}

// The loop without a bound test is only for a copying set fixed at compile time
// (copy_context::fixed_nthreads: porter::cta_threads<N>, role producers). Read from blockDim, its
// test ran in every copy and nvcc unrolled its loop for a run-time count: lower_runtime2d held 18
// interior cp.async.cg on sm_90 with it, and smallgemm's kernels 40 instead of 12 (H100, session
// 42: smallgemm on cp_async 2% slower). Without it the run-time kernel has one chunk, then the
// bounded loop unrolled by 4 and its remainder: 6.
TEST(LoweringCtaThreads, TheCpAsyncLoopWithoutABoundTestIsOnlyInKernelsOfAFixedCtaSize) {
  for (int sm : {80, 90}) {
    const auto runtime_code = code(sm, "cp_async", "runtime2d");
    const std::size_t chunks = lines_with(runtime_code, "cp.async.cg.shared.global").size();
    EXPECT_GE(chunks, 1u) << runtime_code.label;
    EXPECT_LE(chunks, 6u) << runtime_code.label << ": the run-time-size kernel carries the fixed-size loop as well";
  }
}

// The size is tested once at init in every build, with porter's message. Its cost: the test (with
// any action on failure) and the compiler hint that the rank is below N each make nvcc load no
// tensor of the kernel through ld.global.nc, so the staged path's thread loads lose the read-only
// path (H200: staged sgemm up to 1.4% slower at S=2). The default constructor must not pay it.
TEST(LoweringCtaThreads, TheSizeIsTestedAtInitAndOnlyTheTaggedKernelsLoseTheReadOnlyLoads) {
  for (const char* p : paths) {
    EXPECT_TRUE(uses_string(code(90, p, "fixed2d"), "constructed with porter::cta_threads<N>")) << p;
    EXPECT_TRUE(uses_string(code(90, p, "fixed2d", /*debug=*/true), "constructed with porter::cta_threads<N>")) << p;
    EXPECT_FALSE(uses_string(code(90, p, "runtime2d"), "porter::cta_threads<N>")) << p;
  }
  for (int sm : {75, 80, 90}) {
    EXPECT_TRUE(has(code(sm, "staged", "runtime2d"), "ld.global.nc.v4")) << "sm_" << sm;
    EXPECT_TRUE(lacks(code(sm, "staged", "fixed2d"), "ld.global.nc")) << "sm_" << sm;  // the measured cost; a change that keeps them may drop this line
  }
}

// ---- cluster multicast (porter::cluster_multicast, porter::multicast) ------------------------------------

std::size_t count_of(const kernel_code& k, const std::string& instr) { return lines_with(k, instr).size(); }

// On tma a cluster-multicast ring issues its multicast box with .multicast::cluster (and the
// buffer copied without the tag without it). Each release runs fence.proxy.async per thread and,
// after __syncwarp (bar.warp.sync), lane r arrives on CTA r's EMPTY, its own CTA's included (mapa +
// mbarrier.arrive.shared::cluster, release at CTA scope, never release.cluster); before a refill
// thread 0 waits for its own CTA's EMPTY with acquire at cluster scope. The only cluster
// barriers are the ring's init and the kernel's own porter::cluster_sync() (a cluster barrier as
// the reuse barrier ran the multicast GEMM at 0.77-0.78x of the same kernel without clusters on an
// H100, session 37). A CTA barrier remains in the kernel: the same ring in a launch without
// clusters (a cluster of one CTA) is an ordinary one, and the thread-load fallbacks. On cp_async and staged
// the tag is an ordinary copy: no multicast, no remote arrival, the reuse barrier the CTA's, and
// only the kernel's own cluster barrier. No other kernel multicasts.
TEST(LoweringMulticast, TheTmaClusterRingMulticastsOneBoxAndSpansTheCluster) {
  for (bool debug : {false, true}) {
    const auto t = code(90, "tma", "multicast2d", debug);
    // run_pipeline's fill and refill each issue: per copy site one multicast for buffer 0, and
    // plain copies for buffer 1 and for a launch without clusters (cluster of one CTA).
    const std::size_t mc = count_of(t, ".multicast::cluster");
    EXPECT_GE(mc, 1u) << t.label;
    EXPECT_EQ(count_of(t, "cp.async.bulk.tensor.2d"), 3 * mc) << t.label;
    EXPECT_EQ(count_of(t, "barrier.cluster.arrive"), 2u) << t.label;  // the ring's init and the kernel's cluster_sync
    EXPECT_GE(count_of(t, "mapa.shared::cluster.u32"), 1u) << t.label;
    EXPECT_GE(count_of(t, "mbarrier.arrive.shared::cluster.b64"), 1u) << t.label;
    EXPECT_TRUE(lacks(t, "mbarrier.arrive.release.cluster")) << t.label;
    EXPECT_GE(count_of(t, "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"), 1u) << t.label;
    EXPECT_TRUE(has(t, "bar.sync")) << t.label;        // the reuse barrier of a launch without clusters
    EXPECT_TRUE(has(t, "bar.warp.sync")) << t.label;   // the release: a warp's lanes before its remote arrivals
    EXPECT_TRUE(has(t, "fence.proxy.async.shared::cta")) << t.label;
    EXPECT_TRUE(has(t, "%cluster_nctarank")) << t.label;
  }
  for (int sm : {80, 90})
    for (const char* p : {"cp_async", "staged"}) {
      const auto k = code(sm, p, "multicast2d");
      EXPECT_TRUE(lacks(k, ".multicast::cluster")) << k.label;
      EXPECT_TRUE(lacks(k, "mapa.")) << k.label;
      EXPECT_TRUE(has(k, "bar.sync")) << k.label;
      EXPECT_EQ(count_of(k, "barrier.cluster.arrive"), sm >= 90 ? 1u : 0u) << k.label;
    }
  for (const char* f : {"box1d", "box2d", "box3d", "bytes", "fixed2d", "runtime2d", "roles2d", "held2d"}) {
    const auto k = code(90, "tma", f);
    EXPECT_TRUE(lacks(k, ".multicast::cluster")) << k.label;
    EXPECT_TRUE(lacks(k, "barrier.cluster")) << k.label;
  }
}

// A cluster-multicast ROLE pipeline on tma: the multicast box goes out with .multicast::cluster,
// the producers wait for EMPTY with acquire at cluster scope, and each consumer release arrives on
// its own CTA's EMPTY (mbarrier.arrive.shared::cta) and on each peer's (mapa +
// mbarrier.arrive.shared::cluster: release at CTA scope, never the release.cluster form, which
// ptxas compiles to a GPU-scope MEMBAR behind every arrival and which ran the multicast GEMMs at
// 0.72x on the H200, session 36); the init ends with a cluster barrier and no
// step runs one (the only other cluster barrier is the kernel's own cluster_sync), and no step runs
// a CTA barrier either (the constructor's is the only bar.sync). On cp_async and staged the ring is
// an ordinary role ring: no multicast, no remote arrival, and only the kernel's cluster barrier.
TEST(LoweringMulticast, TheTmaRoleRingReleasesEveryStageOnEveryCtaOfTheCluster) {
  for (bool debug : {false, true}) {
    const auto t = code(90, "tma", "rolesmc2d", debug);
    EXPECT_GE(count_of(t, ".multicast::cluster"), 1u) << t.label;
    EXPECT_GE(count_of(t, "mbarrier.arrive.shared::cluster.b64"), 1u) << t.label;
    EXPECT_TRUE(lacks(t, "mbarrier.arrive.release.cluster")) << t.label;
    EXPECT_GE(count_of(t, "mapa.shared::cluster.u32"), 1u) << t.label;
    EXPECT_GE(count_of(t, "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"), 1u) << t.label;
    EXPECT_EQ(count_of(t, "barrier.cluster.arrive"), 2u) << t.label;  // the ring's init and the kernel's cluster_sync
    EXPECT_EQ(lines_with(t, "bar.sync \t0").size(), 1u) << t.label << ": the constructor's CTA barrier only";
    EXPECT_TRUE(has(t, "%cluster_nctarank")) << t.label;
  }
  for (int sm : {80, 90})
    for (const char* p : {"cp_async", "staged"}) {
      const auto k = code(sm, p, "rolesmc2d");
      EXPECT_TRUE(lacks(k, ".multicast::cluster")) << k.label;
      EXPECT_TRUE(lacks(k, "mapa.")) << k.label;
      EXPECT_TRUE(lacks(k, "shared::cluster.b64")) << k.label;
      EXPECT_EQ(count_of(k, "barrier.cluster.arrive"), sm >= 90 ? 1u : 0u) << k.label;
    }
  for (const char* f : {"roles2d", "hintroles2d", "box2d"}) {
    const auto k = code(90, "tma", f);
    EXPECT_TRUE(lacks(k, "mapa.")) << k.label;
    EXPECT_TRUE(lacks(k, "mbarrier.arrive.shared::cluster")) << k.label;
  }
}

// ---- L2 prefetch (porter::prefetch) -------------------------------------------------------------------------

// On tma a prefetch is one cp.async.bulk.prefetch.tensor per 2D box (issued by thread 0) and a
// cp.async.bulk.prefetch.L2 for the 1D box; it neither lands bytes nor touches a barrier. On
// cp_async and staged it is nothing: the prefetch kernel's code is the same as without it
// (no prefetch instruction of any kind). No other kernel prefetches.
TEST(LoweringPrefetch, TmaPrefetchesThroughTheTensorMapAndOtherPathsEmitNothing) {
  for (bool debug : {false, true}) {
    const auto t = code(90, "tma", "prefetch2d", debug);
    EXPECT_GE(count_of(t, "cp.async.bulk.prefetch.tensor.2d.L2.global.tile"), 1u) << t.label;
    EXPECT_GE(count_of(t, "cp.async.bulk.prefetch.L2.global"), 1u) << t.label;
  }
  for (int sm : {80, 90})
    for (const char* p : {"cp_async", "staged"}) {
      const auto k = code(sm, p, "prefetch2d");
      EXPECT_TRUE(lacks(k, "prefetch.")) << k.label;  // prefetch.global, cp.async.bulk.prefetch (the kernel's name has the word)
    }
  for (const char* f : {"box1d", "box2d", "box3d", "bytes", "fixed2d", "runtime2d", "multicast2d"}) {
    const auto k = code(90, "tma", f);
    EXPECT_TRUE(lacks(k, "cp.async.bulk.prefetch")) << k.label;
  }
}

// ---- L2 eviction hints (porter/cache_hint.hpp) ------------------------------------------------------------

// A hinted copy carries .L2::cache_hint with a createpolicy.fractional policy of its priority on tma
// (bulk-tensor, bulk, multicast; CTA and role rings); cp_async and staged take the hint and emit
// neither; no unhinted kernel emits either, on any path or target.
TEST(LoweringHint, TmaCarriesThePolicyCpAsyncStagedAndUnhintedCopiesDoNot) {
  for (bool debug : {false, true}) {
    const auto t = code(90, "tma", "hint2d", debug);
    EXPECT_TRUE(has(t, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint")) << debug;
    EXPECT_TRUE(has(t, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"));
    EXPECT_TRUE(has(t, "createpolicy.fractional.L2::evict_first.b64"));
    EXPECT_TRUE(has(t, "createpolicy.fractional.L2::evict_last.b64"));
    EXPECT_TRUE(has(t, "createpolicy.fractional.L2::evict_normal.b64"));
    const auto mc = code(90, "tma", "hintmc2d", debug);
    EXPECT_TRUE(has(mc, ".multicast::cluster.L2::cache_hint"));
    EXPECT_TRUE(has(mc, "createpolicy.fractional.L2::evict_last.b64"));
    EXPECT_TRUE(lacks(mc, "evict_first"));
    const auto r = code(90, "tma", "hintroles2d", debug);
    EXPECT_TRUE(has(r, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"));
    EXPECT_TRUE(has(r, "createpolicy.fractional.L2::evict_first.b64"));
  }
  for (int sm : {75, 80, 90})
    for (const char* f : {"hint2d", "hintmc2d", "hintroles2d"}) {
      // staged ignores hints; so does cp_async (its hinted cp.async faulted on the H200:
      // porter/cp_async/copy.hpp), so a hinted copy there is the unhinted code.
      for (const char* p : {"staged", "cp_async"}) {
        const auto k = code(sm, p, f);
        EXPECT_TRUE(lacks(k, ".L2::cache_hint")) << k.label;
        EXPECT_TRUE(lacks(k, "createpolicy")) << k.label;
      }
    }
  for (int sm : {75, 80, 90})
    for (const char* p : paths)
      for (const char* f : {"box1d", "box2d", "box3d", "bytes", "swz2d", "roles2d", "fixed2d", "multicast2d", "prefetch2d"}) {
        const auto k = code(sm, p, f);
        EXPECT_TRUE(lacks(k, ".L2::cache_hint")) << k.label;
        EXPECT_TRUE(lacks(k, "createpolicy")) << k.label;
      }
}

// ---- debug builds: bounded waits that trap with a message (docs/design.md, invariant 5) ---------------------

TEST(LoweringSm90, DebugWaitsAreBoundedAndNameTheStage) {
  const auto d = code(90, "tma", "box2d", /*debug=*/true);
  EXPECT_TRUE(has(d, "%clock64"));
  EXPECT_TRUE(has(d, "trap;"));
  EXPECT_TRUE(uses_string(d, "full-barrier wait timed out"));
  EXPECT_TRUE(uses_string(d, "stage %u, phase %u"));
  const auto r = code(90, "tma", "box2d");
  EXPECT_TRUE(lacks(r, "%clock64"));
  EXPECT_FALSE(uses_string(r, "timed out"));
  // cp_async and staged have no mbarrier wait to bound; their debug builds still check the tokens.
  for (const char* p : {"cp_async", "staged"}) {
    const auto dp = code(90, p, "box2d", /*debug=*/true);
    EXPECT_TRUE(lacks(dp, "mbarrier"));
    EXPECT_TRUE(uses_string(dp, "producer_acquire beyond capacity"));
  }
}

// ---- fragment loads ------------------------------------------------------------------------------------

// porter::load_fragments is one ldmatrix per call on every NVIDIA target (sm_75+), whatever the path
// that landed the tile, with the row addresses computed through the 128 B swizzle (an xor). A path
// below its minimum target (tma before sm_90, cp_async before sm_80) is a trapping stub there, and
// the compiler may drop what follows the trap: those pairs are not read.
TEST(Lowering, FragmentLoadsAreLdmatrixOnEveryTarget) {
  for (int sm : {75, 80, 90})
    for (const char* p : paths) {
      if ((std::string(p) == "tma" && sm < 90) || (std::string(p) == "cp_async" && sm < 80)) continue;
      const auto k = code(sm, p, "frag2d");
      EXPECT_TRUE(has(k, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
      EXPECT_TRUE(has(k, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
      EXPECT_TRUE(has(k, "ldmatrix.sync.aligned.m8n8.x2.shared.b16"));
      EXPECT_TRUE(has(k, "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"));
      EXPECT_TRUE(has(k, "%laneid"));
      EXPECT_TRUE(has(k, "xor.b32"));
      EXPECT_EQ(lines_with(k, "ldmatrix.").size(), 4u) << k.label << ": one ldmatrix per load_fragments call";
    }
  const auto dbg = code(90, "staged", "frag2d", true);
  EXPECT_TRUE(has(dbg, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  EXPECT_TRUE(uses_string(dbg, "load_fragments: the region (row0, col0) is outside the tile"));
}


// ---- wmma fragments through shared memory (porter/wmma.hpp; tests/lowering/wmma_kernels.cu) ----------

/// The kernel of wmma_kernels.cu whose mangled name holds `form` and `type` ("13__nv_bfloat16": bf16, "6__half").
kernel_code wmma_code(int sm, const std::string& form, const std::string& type, bool debug = false) {
  static std::map<std::string, ptx_module> cache;
  const char* file = debug ? PORTER_WMMA_PTX_SM90_DEBUG : sm == 80 ? PORTER_WMMA_PTX_SM80 : PORTER_WMMA_PTX_SM90;
  auto it = cache.find(file);
  if (it == cache.end()) it = cache.emplace(file, ptx_module::load(file)).first;
  kernel_code k;
  k.label = "sm_" + std::to_string(sm) + (debug ? " (PORTER_DEBUG)" : "") + " " + form + " " + type;
  std::vector<std::string> names;
  for (const auto& e : it->second.entries())
    if (e.find(form + "I") != std::string::npos && e.find(type) != std::string::npos) names.push_back(e);
  if (names.size() != 1) {
    ADD_FAILURE() << k.label << ": expected one kernel, found " << names.size();
    return k;
  }
  k.text = it->second.closure(names[0]);
  k.strings = it->second.strings_used(names[0]);
  return k;
}

// porter::load_matrix_sync / store_matrix_sync name the shared state space: one wmma.load or
// wmma.store each, with .shared, and no generic wmma access left (PTX ISA 9.7.14.4).
TEST(Lowering, WmmaFragmentsFromSharedMemoryUseTheSharedStateSpace) {
  for (int sm : {80, 90}) {
    const auto k = wmma_code(sm, "lower_wmma_porter", "13__nv_bfloat16");
    EXPECT_TRUE(has(k, "wmma.load.a.sync.aligned.row.m16n16k16.shared.bf16"));
    EXPECT_TRUE(has(k, "wmma.load.b.sync.aligned.col.m16n16k16.shared.bf16"));
    EXPECT_TRUE(has(k, "wmma.load.c.sync.aligned.row.m16n16k16.shared.f32"));
    EXPECT_TRUE(has(k, "wmma.store.d.sync.aligned.col.m16n16k16.shared.f32"));
    // A generic access has no state space between the shape and the type.
    EXPECT_TRUE(lacks(k, "m16n16k16.bf16"));
    EXPECT_TRUE(lacks(k, "wmma.load.c.sync.aligned.row.m16n16k16.f32"));
    EXPECT_TRUE(lacks(k, "wmma.store.d.sync.aligned.col.m16n16k16.f32"));
    EXPECT_EQ(lines_with(k, "wmma.load").size(), 3u) << k.label;
    const auto h = wmma_code(sm, "lower_wmma_porter", "6__half");
    EXPECT_TRUE(has(h, "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16"));
    EXPECT_TRUE(has(h, "wmma.load.b.sync.aligned.col.m16n16k16.shared.f16"));
  }
  const auto dbg = wmma_code(90, "lower_wmma_porter", "13__nv_bfloat16", true);
  EXPECT_TRUE(uses_string(dbg, "porter::load_matrix_sync: the pointer must be into shared memory"));
  EXPECT_TRUE(uses_string(dbg, "porter::store_matrix_sync: the pointer must be into shared memory"));
}

// Why porter has them: nvcc 13 emits nvcuda::wmma's operand loads (matrix_a, matrix_b) of the same
// shared memory as generic wmma.load (its pointer reaches the instruction as a generic address),
// which ptxas lowers to generic LD. (Its float accumulator load and store from the same buffer do get
// .shared here; the operand loads, cast to int pointers inside nvcuda's mma.hpp, do not.) If a later nvcc infers .shared here, this fails, and porter/wmma.hpp's
// reason is gone (re-measure ports/public-bf16gemm before removing it).
TEST(Lowering, NvcudaWmmaLoadsOfSharedMemoryAreGeneric) {
  for (int sm : {80, 90}) {
    const auto k = wmma_code(sm, "lower_wmma_nvcuda", "13__nv_bfloat16");
    EXPECT_TRUE(has(k, "wmma.load.a.sync.aligned.row.m16n16k16.bf16"));
    EXPECT_TRUE(has(k, "wmma.load.b.sync.aligned.col.m16n16k16.bf16"));
    EXPECT_TRUE(lacks(k, ".shared.bf16"));
  }
}

// ---- producer / consumer roles (porter::role_pipeline; tests/lowering/kernels.cu lower_roles2d) ----

/// Sorted arrival counts of every mbarrier.init in `k`.
std::vector<long> sorted_init_counts(const kernel_code& k) {
  std::vector<long> c = init_counts(k);
  std::sort(c.begin(), c.end());
  return c;
}

TEST(LoweringRoles, EveryPathCompletesOnFullAndEmptyMbarriersWithoutCtaBarriers) {
  // One producer warp, four consumer warps, 3 stages: FULL[3] + EMPTY[3] (128 arrivals each: one
  // per consumer thread). The only CTA barrier is the constructor's; releases are per thread, with
  // no warp barrier in front of them (porter/ptx/role_ring.hpp: racecheck follows those).
  for (int sm : {80, 90})
    for (const char* p : paths) {
      if (sm == 80 && std::string(p) == "tma") continue;
      const auto k = code(sm, p, "roles2d");
      EXPECT_EQ(lines_with(k, "bar.sync \t0").size(), 1u) << k.label << ": one CTA barrier (construction), none per stage";
      EXPECT_TRUE(lacks(k, "bar.warp.sync")) << k.label << ": consumer releases are per thread, no __syncwarp";
      EXPECT_EQ(lines_with(k, "mbarrier.init.shared::cta.b64").size(), 6u) << k.label;
      if (std::string(p) != "cp_async")
        EXPECT_TRUE(lacks(k, "cp.async.commit_group"));
      else  // only on the path after the producer's own stores: commit_group + wait_group 0, then a release arrive
        EXPECT_EQ(lines_with(k, "cp.async.commit_group").size(), 1u) << k.label;
      EXPECT_TRUE(has(k, sm == 90 ? "mbarrier.try_wait.parity" : "mbarrier.test_wait.parity"));
      EXPECT_FALSE(uses_string(k, "compiled for a target without"));
    }
}

TEST(LoweringRoles, TmaFullCountsTheProducerThreadsAndFallbacksRunNoBarrier) {
  const auto k = code(90, "tma", "roles2d");
  EXPECT_EQ(sorted_init_counts(k), (std::vector<long>{32, 32, 32, 128, 128, 128})) << "FULL: 32 producer threads; EMPTY: 128 consumer threads";
  EXPECT_TRUE(has(k, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"));
  EXPECT_TRUE(has(k, "mbarrier.expect_tx"));
  // The run-time column keeps the thread-load fallback live: it fences for the async proxy and runs
  // no barrier at all (each producer's own arrival publishes its stores; the consumers are not there).
  EXPECT_TRUE(has(k, "fence.proxy.async.shared::cta"));
  EXPECT_TRUE(lacks(k, "bar.sync 1"));
  EXPECT_TRUE(lacks(k, "cp.async.cg"));
  EXPECT_TRUE(lacks(k, "cp.async.mbarrier.arrive"));
}

TEST(LoweringRoles, TmaConsumersFenceTheAsyncProxyBeforeTheirRelease) {
  // The consumers read a stage through the generic proxy and the refill writes it through the async
  // proxy: every tma consumer release is fence.proxy.async, then the EMPTY arrival
  // (porter/tma/role_protocol.hpp; wrong C without it on the H200, session 31). hintroles2d copies
  // at a constant column, so no thread-load fallback adds a fence of its own. The other paths'
  // copies are generic-proxy writes: no fence.
  const auto k = code(90, "tma", "hintroles2d");
  EXPECT_EQ(count_of(k, "fence.proxy.async.shared::cta"), 1u) << k.label;
  for (const char* p : {"cp_async", "staged"}) {
    const auto g = code(90, p, "hintroles2d");
    EXPECT_EQ(count_of(g, "fence.proxy.async"), 0u) << g.label;
  }
}

TEST(LoweringRoles, CpAsyncArrivesThroughCpAsyncMbarrierArrive) {
  for (int sm : {80, 90}) {
    const auto k = code(sm, "cp_async", "roles2d");
    EXPECT_EQ(sorted_init_counts(k), (std::vector<long>{32, 32, 32, 128, 128, 128})) << k.label << ": FULL: 32 producer threads; EMPTY: 128 consumer threads";
    EXPECT_TRUE(has(k, "cp.async.cg.shared.global"));
    EXPECT_TRUE(has(k, "cp.async.mbarrier.arrive.noinc.shared::cta.b64"));  // one arrival per producer thread
    EXPECT_TRUE(lacks(k, "cp.async.bulk"));
  }
}

TEST(LoweringRoles, StagedProducersStoreAndArriveWithoutAsyncCopies) {
  for (int sm : {80, 90}) {
    const auto k = code(sm, "staged", "roles2d");
    EXPECT_EQ(sorted_init_counts(k), (std::vector<long>{32, 32, 32, 128, 128, 128})) << k.label << ": FULL: 32 producer threads; EMPTY: 128 consumer threads";
    EXPECT_TRUE(lacks(k, "cp.async"));
    EXPECT_TRUE(has(k, "mbarrier.arrive.shared::cta.b64"));
  }
  // sm_75 has no mbarrier: FULL and EMPTY are shared-memory phase counters (porter/ptx/smem_counter.hpp),
  // an atom.release add per arrival, a relaxed add that completes the phase, an acquire load per probe;
  // still no CTA barrier after the construction's, and no trap.
  const auto k75 = code(75, "staged", "roles2d");
  EXPECT_TRUE(lacks(k75, "mbarrier")) << k75.label;
  EXPECT_FALSE(uses_string(k75, "needs mbarrier")) << k75.label;
  EXPECT_GE(count_of(k75, "atom.release.cta.shared.add.u32"), 2u) << k75.label << ": FULL and EMPTY arrivals";
  EXPECT_GE(count_of(k75, "red.relaxed.cta.shared.add.u32"), 2u) << k75.label << ": the completing add of each";
  EXPECT_GE(count_of(k75, "ld.acquire.cta.shared.u32"), 2u) << k75.label << ": the EMPTY and FULL waits";
  EXPECT_TRUE(has(k75, "nanosleep.u32")) << k75.label;
  EXPECT_EQ(lines_with(k75, "bar.sync \t0").size(), 1u) << k75.label << ": one CTA barrier (construction), none per stage";
}

TEST(LoweringSm90, ASourceInsideAGridConstantStructIsReadByTmaFromParameterSpace) {
  const auto k = code(90, "tma", "held2d");
  EXPECT_TRUE(has(k, "cp.async.bulk.tensor.2d"));
  // __isGridConstant(&p.src.tensor_map) is known true at compile time: no run-time test, no trap text.
  EXPECT_TRUE(lacks(k, "isspacep.param"));
  for (const auto& s : k.strings) EXPECT_EQ(s.find("must be a __grid_constant__"), std::string::npos) << k.label << ": " << s;
}

TEST(Lowering, ClusterAndDependentLaunchHelpersAreSm90PtxAndNothingBelow) {
  for (const char* p : paths) {
    const auto k = code(90, p, "grid");
    EXPECT_TRUE(has(k, "griddepcontrol.wait;"));
    EXPECT_TRUE(has(k, "griddepcontrol.launch_dependents;"));
    EXPECT_TRUE(has(k, "%cluster_ctarank"));
    EXPECT_TRUE(has(k, "%cluster_nctarank"));
    EXPECT_TRUE(has(k, "barrier.cluster.arrive;"));
    EXPECT_TRUE(has(k, "barrier.cluster.wait;"));
  }
  for (int sm : {75, 80})
    for (const char* p : paths) {
      if (std::string(p) == "tma" || (std::string(p) == "cp_async" && sm < 80)) continue;
      const auto k = code(sm, p, "grid");
      EXPECT_TRUE(lacks(k, "griddepcontrol"));
      EXPECT_TRUE(lacks(k, "cluster"));
      EXPECT_TRUE(lacks(k, "trap;"));
      EXPECT_TRUE(has(k, "bar.sync")) << "cluster_sync is the CTA barrier without clusters";
    }
}

}  // namespace
