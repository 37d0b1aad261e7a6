// tests/lowering/conformance_test.cu — the NVIDIA backends (tma, cp_async, staged) pass porter::backend::check_conformance in every compile pass.
//
// The checks are static_asserts: if this file compiles for every target in PORTER_CUDA_ARCHITECTURES,
// the backends mirror each other. The run-time tests below say which backend owns which path tag.
// A drifted backend is rejected by tests/fail/backend_drift.cu.
#include <type_traits>

#include <gtest/gtest.h>

#include "backends/conformance.hpp"
#include "porter/cp_async/copy.hpp"
#include "porter/path.hpp"
#include "porter/staged/copy.hpp"
#include "porter/tma/copy.hpp"

static_assert(porter::backend::check_conformance<porter::backend::staged>(), "staged is the reference backend");
static_assert(porter::backend::check_conformance<porter::backend::tma>(), "tma mirrors staged");
static_assert(porter::backend::check_conformance<porter::backend::cp_async>(), "cp_async mirrors staged");

namespace {

TEST(BackendConformance, EachBackendOwnsItsPathTag) {
  EXPECT_TRUE((std::is_same_v<porter::backend::tma::path, porter::path::tma>));
  EXPECT_TRUE((std::is_same_v<porter::backend::cp_async::path, porter::path::cp_async>));
  EXPECT_TRUE((std::is_same_v<porter::backend::staged::path, porter::path::staged>));
  EXPECT_EQ(porter::backend::tma::path::id, porter::path_id::tma);
  EXPECT_EQ(porter::backend::cp_async::path::id, porter::path_id::cp_async);
  EXPECT_EQ(porter::backend::staged::path::id, porter::path_id::staged);
}

TEST(BackendConformance, EachBackendCompletesTheWayItsPathSays) {
  EXPECT_EQ(porter::backend::tma::path::completion, porter::completion::mbarrier_tx);
  EXPECT_EQ(porter::backend::cp_async::path::completion, porter::completion::mbarrier_arrive);
  EXPECT_EQ(porter::backend::staged::path::completion, porter::completion::cta_barrier);
}

}  // namespace
