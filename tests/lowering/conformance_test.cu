// tests/lowering/conformance_test.cu — every lowering of the NVIDIA registry passes
// porter::backend::check_conformance (copies and protocol) in every compile pass, and the NVIDIA
// fragment loads and grid control pass check_fragment_conformance and check_grid_conformance.
//
// The checks are static_asserts: if this file compiles for every target in PORTER_CUDA_ARCHITECTURES,
// the lowerings mirror each other. The run-time tests below say which lowering owns which path tag
// and how it completes. A drifted lowering is rejected by tests/fail/backend_drift.cu and
// tests/fail/protocol_drift.cu, drifted fragment loads by tests/fail/fragment_drift.cu and a drifted
// grid control by tests/fail/grid_drift.cu.
#include <type_traits>

#include <gtest/gtest.h>

#include "backends/conformance.hpp"
#include "porter/fragments/load.hpp"
#include "porter/grid/control.hpp"
#include "porter/lowerings.hpp"
#include "porter/pipeline.hpp"

namespace {

template <class... L>
constexpr bool all_conform(porter::lowerings::list<L...>) {
  return (porter::backend::check_conformance<L>() && ...);
}
static_assert(all_conform(porter::lowerings::all{}), "every lowering of the registry conforms");
static_assert(porter::backend::check_fragment_conformance<porter::backend::fragment_loads>(), "the NVIDIA fragment loads conform");
static_assert(porter::backend::check_grid_conformance<porter::backend::grid_control>(), "the NVIDIA grid control conforms");

TEST(LoweringConformance, TheRegistryListsOneLoweringPerPathTag) {
  EXPECT_TRUE((std::is_same_v<porter::lowering_for<porter::path::tma>, porter::backend::tma>));
  EXPECT_TRUE((std::is_same_v<porter::lowering_for<porter::path::cp_async>, porter::backend::cp_async>));
  EXPECT_TRUE((std::is_same_v<porter::lowering_for<porter::path::staged>, porter::backend::staged>));
  int n = 0;
  porter::lowerings::for_each_path(porter::lowerings::all{}, [&](auto p) {
    EXPECT_EQ(static_cast<int>(decltype(p)::id), n) << "registry order is path_id order";
    ++n;
  });
  EXPECT_EQ(n, porter::path_count);
}

TEST(LoweringConformance, EachLoweringCompletesTheWayItsPathSays) {
  EXPECT_EQ(porter::backend::tma::path::completion, porter::completion::mbarrier_tx);
  EXPECT_EQ(porter::backend::cp_async::path::completion, porter::completion::async_group);
  EXPECT_EQ(porter::backend::staged::path::completion, porter::completion::cta_barrier);
  using box = porter::box<float, 8, 64>;
  EXPECT_EQ((porter::pipeline<porter::path::tma, 3, box>::completion_kind), porter::completion::mbarrier_tx);
  EXPECT_TRUE((std::is_same_v<porter::pipeline<porter::path::cp_async, 3, box>::protocol_type,
                              porter::backend::cp_async_protocol<porter::stage_ring<3, box>>>));
}

}  // namespace
