// bench/tests/kernel_name_test.cpp — the lowering report's kernel names (tools/kernel_name.cpp):
// the parameter list is cut at template depth 0, so a cast inside the template arguments no longer
// truncates the name, and enum casts read as enumerators.
#include <gtest/gtest.h>

#include <string>

#include "kernel_name.hpp"

namespace {

using pb::short_demangled_name;
using pb::short_kernel_name;

TEST(KernelName, PlainTemplateArguments) {
  EXPECT_EQ(short_demangled_name("void pb::pb_sgemm<porter::path::tma, 4, true>(float const*, float const*, float*, int, int, int)"),
            "pb_sgemm<tma, 4, true>");
  EXPECT_EQ(short_demangled_name("void pb::(anonymous namespace)::pb_manual_sgemm<3>(float const*, float const*, float*, int, int, int)"),
            "pb_manual_sgemm<3>");
  EXPECT_EQ(short_demangled_name("void pb::_GLOBAL__N__1234_abc::pb_manual_stencil<2, 1>(float const*, float*, int, int)"),
            "pb_manual_stencil<2, 1>");
}

TEST(KernelName, CacheHintCastsAreEnumerators) {
  // The cast's '(' used to end the name: "pb_stream<cp_async, 4," for every hint.
  EXPECT_EQ(short_demangled_name("void pb::pb_stream<porter::path::cp_async, 4, (porter::cache_hint)0>(float const*, float*, unsigned long)"),
            "pb_stream<cp_async, 4, none>");
  EXPECT_EQ(short_demangled_name("void pb::pb_stream<porter::path::tma, 4, (porter::cache_hint)2>(float const*, float*, unsigned long)"),
            "pb_stream<tma, 4, evict_first>");
  EXPECT_EQ(short_demangled_name("void pb::pb_bf16gemm_wgmma<porter::path::tma, 4, porter::roles<porter::warpgroups<1>, "
                                 "porter::warpgroups<2>, porter::registers<40, 232> >, (porter::cache_hint)3, "
                                 "(porter::cache_hint)1, false>(porter::tiled_source<porter::box<float, 64, 64> >, float*)"),
            "pb_bf16gemm_wgmma<tma, 4, porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, "
            "porter::registers<40, 232> >, evict_last, evict_normal, false>");
}

TEST(KernelName, OtherEnumCastsLoseTheirNamespace) {
  EXPECT_EQ(short_demangled_name("void pb::pb_swz<porter::path::tma, (porter::swizzle)128>(int)"), "pb_swz<tma, (swizzle)128>");
  // A value the enum does not name stays a cast.
  EXPECT_EQ(short_demangled_name("void pb::pb_stream<porter::path::tma, 4, (porter::cache_hint)9>(int)"),
            "pb_stream<tma, 4, (cache_hint)9>");
}

TEST(KernelName, ParenthesesInValueArguments) {
  EXPECT_EQ(short_demangled_name("void pb::pb_stencil<porter::path::tma, 1, 2>(porter::tiled_source<porter::box<float, "
                                 "(32)+((2)*(2)), 136> >, float*, int, int, porter::tile_schedule)"),
            "pb_stencil<tma, 1, 2>");
  EXPECT_EQ(short_demangled_name("void pb::pb_k<((3)>(2)), ((1)<(2))>(int)"), "pb_k<((3)>(2)), ((1)<(2))>");
  EXPECT_EQ(short_demangled_name("pb_no_params<1>"), "pb_no_params<1>");
}

TEST(KernelName, DemanglesFirst) {
  // void pb::pb_stream<porter::path::tma, 4, (porter::cache_hint)2>(float const*, float*, unsigned long)
  EXPECT_EQ(short_kernel_name("_ZN2pb9pb_streamIN6porter4path3tmaELi4ELNS1_10cache_hintE2EEEvPKfPfm"),
            "pb_stream<tma, 4, evict_first>");
  EXPECT_EQ(short_kernel_name("not_mangled"), "not_mangled");
}

}  // namespace
