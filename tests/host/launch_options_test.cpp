// tests/host/launch_options_test.cpp — porter::launch_options' cluster and programmatic-dependent-launch
// rules on fake devices, and the search for tiled sources inside struct arguments (field paths,
// the hook, a forced tma refused for a source in a struct): everything porter::launch checks
// before it touches a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/launch.hpp"
#include "porter/role_pipeline.hpp"
#include "porter/schedule_types.hpp"
#include "porter/source.hpp"

namespace {

using porter::dims3;
using porter::errc;
using porter::path_id;
using porter_test::Contains;
using porter_test::thrown;

// ---- launch_options plumbing ---------------------------------------------------------------------

TEST(LaunchOptions, DefaultsAskForNoLaunchAttribute) {
  const porter::launch_options o;
  EXPECT_EQ(o.cluster_dims.count(), 1u);
  EXPECT_FALSE(o.dependent_launch);
  EXPECT_FALSE(o.has_launch_attributes());
  EXPECT_FALSE(porter::launch_options{}.cluster(1).has_launch_attributes()) << "a cluster of one CTA is no cluster";
}

TEST(LaunchOptions, ClusterAndDependentLaunchAreRecordedAndChain) {
  const auto o = porter::launch_options{}.cluster({2, 1, 1}).programmatic_dependent_launch().strict();
  EXPECT_EQ(o.cluster_dims.x, 2u);
  EXPECT_EQ(o.cluster_dims.y, 1u);
  EXPECT_EQ(o.cluster_dims.z, 1u);
  EXPECT_TRUE(o.dependent_launch);
  EXPECT_TRUE(o.strict_paths);
  EXPECT_TRUE(o.has_launch_attributes());
  EXPECT_TRUE(porter::launch_options{}.cluster(dims3{2, 2}).has_launch_attributes());
  EXPECT_EQ(dims3(2, 2).count(), 4u);
  EXPECT_TRUE(porter::launch_options{}.programmatic_dependent_launch().has_launch_attributes());
  EXPECT_FALSE(porter::launch_options{}.programmatic_dependent_launch(false).has_launch_attributes());
}

// ---- clusters ------------------------------------------------------------------------------------

TEST(LaunchCluster, AClusterOfTwoOverAnEvenGridPassesOnAnH200OnEveryPathsBinary) {
  EXPECT_NO_THROW(porter::check_cluster(dims3{8}, dims3{2}, porter_test::h200(), 90));
  EXPECT_NO_THROW(porter::check_cluster(dims3{8}, dims3{2}, porter_test::h200(), 0));  // binary unknown
  EXPECT_NO_THROW(porter::check_cluster(dims3{4, 6, 2}, dims3{2, 3, 2}, porter_test::h200(), 90));
  EXPECT_NO_THROW(porter::check_cluster(dims3{16}, dims3{16}, porter_test::h200(), 90)) << "16: non-portable, checked at launch";
}

TEST(LaunchCluster, AClusterOfOneIsNoClusterAndPassesEverywhere) {
  for (const auto& caps : {porter_test::h200(), porter_test::a100(), porter_test::t4(), porter_test::mi250x()}) {
    SCOPED_TRACE(caps.name);
    EXPECT_NO_THROW(porter::check_cluster(dims3{7}, dims3{1}, caps, 75));
  }
}

TEST(LaunchCluster, AGridThatIsNotAMultipleOfTheClusterIsRefusedNamingTheDimension) {
  const auto e = thrown([] { porter::check_cluster(dims3{7}, dims3{2}, porter_test::h200(), 90); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::invalid_argument);
  EXPECT_EQ(e->rule(), "launch.cluster_grid");
  EXPECT_TRUE(Contains(e->what(), "clusters of 2x1x1 CTAs"));
  EXPECT_TRUE(Contains(e->what(), "grid of 7x1x1"));
  EXPECT_TRUE(Contains(e->what(), "x: 7 is not a multiple of 2")) << e->what();
  const auto y = thrown([] { porter::check_cluster(dims3{4, 3}, dims3{2, 2}, porter_test::h200(), 90); });
  ASSERT_TRUE(y);
  EXPECT_EQ(y->rule(), "launch.cluster_grid");
  EXPECT_TRUE(Contains(y->what(), "y: 3 is not a multiple of 2")) << y->what();
}

TEST(LaunchCluster, ClustersBelowComputeCapability90AreRefused) {
  const auto e = thrown([] { porter::check_cluster(dims3{8}, dims3{2}, porter_test::a100(), 80); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.cluster_device");
  EXPECT_TRUE(Contains(e->what(), "needs compute capability 9.0"));
  EXPECT_TRUE(Contains(e->what(), "NVIDIA A100-SXM4-80GB"));
  EXPECT_TRUE(Contains(e->what(), "has 8.0"));
}

TEST(LaunchCluster, ClustersOfCodeCompiledBelowSm90AreRefusedOnAnH200) {
  const auto e = thrown([] { porter::check_cluster(dims3{8}, dims3{2}, porter_test::h200(), 80); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "launch.cluster_binary");
  EXPECT_TRUE(Contains(e->what(), "compute_80"));
  EXPECT_TRUE(Contains(e->what(), "CUDA_ARCHITECTURES"));
}

TEST(LaunchCluster, MoreThan16CtasOrAZeroDimensionAreRefused) {
  const auto e = thrown([] { porter::check_cluster(dims3{32}, dims3{32}, porter_test::h200(), 90); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::invalid_argument);
  EXPECT_EQ(e->rule(), "launch.cluster_size");
  EXPECT_TRUE(Contains(e->what(), "asks for 32 CTAs per cluster"));
  EXPECT_TRUE(Contains(e->what(), "at most 8 are portable and 16"));
  const auto z = thrown([] { porter::check_cluster(dims3{8}, dims3{2, 0, 1}, porter_test::h200(), 90); });
  ASSERT_TRUE(z);
  EXPECT_EQ(z->rule(), "launch.cluster_shape");
}

TEST(LaunchCluster, AnAmdGpuHasNoClusters) {
  const auto e = thrown([] { porter::check_cluster(dims3{8}, dims3{2}, porter_test::mi250x(), 0); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.cluster_vendor");
  EXPECT_TRUE(Contains(e->what(), "AMD Instinct MI250X"));
}

// ---- programmatic dependent launch ---------------------------------------------------------------

TEST(LaunchDependent, PassesOnAnH200WithSm90Code) {
  EXPECT_NO_THROW(porter::check_programmatic_dependent_launch(porter_test::h200(), 90));
  EXPECT_NO_THROW(porter::check_programmatic_dependent_launch(porter_test::h200(), 0));
}

TEST(LaunchDependent, IsRefusedBelow90OnOldCodeAndOnAmd) {
  const auto d = thrown([] { porter::check_programmatic_dependent_launch(porter_test::a100(), 80); });
  ASSERT_TRUE(d);
  EXPECT_EQ(d->code(), errc::path_unsupported);
  EXPECT_EQ(d->rule(), "launch.pdl_device");
  EXPECT_TRUE(Contains(d->what(), "needs compute capability 9.0"));
  EXPECT_TRUE(Contains(d->what(), "has 8.0"));
  const auto b = thrown([] { porter::check_programmatic_dependent_launch(porter_test::h200(), 80); });
  ASSERT_TRUE(b);
  EXPECT_EQ(b->rule(), "launch.pdl_binary");
  EXPECT_TRUE(Contains(b->what(), "wait_prior_grid() compiles to nothing"));
  const auto v = thrown([] { porter::check_programmatic_dependent_launch(porter_test::mi250x(), 0); });
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule(), "launch.pdl_vendor");
}

TEST(LaunchDependent, CheckLaunchAttributesRunsOnlyTheRulesAskedFor) {
  EXPECT_NO_THROW(porter::detail::check_launch_attributes(porter::launch_options{}, dims3{7}, porter_test::t4(), 75));
  const auto c = thrown([] {
    porter::detail::check_launch_attributes(porter::launch_options{}.cluster(2), dims3{8}, porter_test::t4(), 75);
  });
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rule(), "launch.cluster_device");
  const auto p = thrown([] {
    porter::detail::check_launch_attributes(porter::launch_options{}.programmatic_dependent_launch(), dims3{8}, porter_test::t4(), 75);
  });
  ASSERT_TRUE(p);
  EXPECT_EQ(p->rule(), "launch.pdl_device");
}

// ---- kernels that use a porter::role_pipeline ----------------------------------------------------

using one_four = porter::roles<porter::warps<1>, porter::warps<4>>;
template <class P>
using role_pipe = porter::role_pipeline<P, one_four, 2, porter::box<float, 8, 32>>;

TEST(LaunchRolePipeline, EveryRoleProtocolNeedsWhatItsPathNeedsAndStagedRunsEverywhere) {
  static_assert(porter::path::tma::role_min_compute_capability == 90);
  static_assert(porter::path::cp_async::role_min_compute_capability == 80);
  static_assert(porter::path::staged::role_min_compute_capability == 0, "mbarriers from sm_80, shared-memory counters below");
  static_assert(porter::path::staged::min_compute_capability == 0);
#if !PORTER_HIP  // a HIP build has no tma / cp_async lowering, and its roles must be whole wavefronts of 64
  static_assert(role_pipe<porter::path::tma>::min_compute_capability == 90);
  static_assert(role_pipe<porter::path::cp_async>::min_compute_capability == 80);
  static_assert(role_pipe<porter::path::staged>::min_compute_capability == 0);
#endif
}

TEST(LaunchRolePipeline, AStagedRolePipelineRunsOnASm75DeviceAndACpAsyncOneIsRefusedNamingTheWayOut) {
  // sm_75: the staged role protocol completes on shared-memory phase counters (no mbarrier there).
  EXPECT_NO_THROW(porter::check_role_pipeline_on_device(path_id::staged, porter_test::t4(), 75));
  EXPECT_NO_THROW(porter::check_role_pipeline_on_device(path_id::staged, porter_test::a100(), 75));
  const auto e = thrown([] { porter::check_role_pipeline_on_device(path_id::cp_async, porter_test::t4(), 75); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.role_pipeline_device");
  EXPECT_TRUE(Contains(e->what(), "a kernel with a porter::role_pipeline on path cp_async needs compute capability 8.0")) << e->what();
  EXPECT_TRUE(Contains(e->what(), "FULL/EMPTY mbarriers")) << e->what();
  EXPECT_TRUE(Contains(e->what(), "'Tesla T4' has 7.5")) << e->what();
  EXPECT_TRUE(Contains(e->what(), "use path staged there")) << e->what();
}

TEST(LaunchRolePipeline, CodeCompiledForSm75IsRefusedOnAnA100AndAnAmdGpuRunsOnlyTheStagedOne) {
  const auto b = thrown([] { porter::check_role_pipeline_on_device(path_id::cp_async, porter_test::a100(), 75); });
  ASSERT_TRUE(b);
  EXPECT_EQ(b->rule(), "launch.role_pipeline_binary");
  EXPECT_TRUE(Contains(b->what(), "compiled for compute_75")) << b->what();
  EXPECT_TRUE(Contains(b->what(), "CUDA_ARCHITECTURES")) << b->what();
  // AMD: the staged role protocol (LDS phase counters) runs there; the NVIDIA paths' do not.
  EXPECT_NO_THROW(porter::check_role_pipeline_on_device(path_id::staged, porter_test::mi250x(), 0));
  const auto v = thrown([] { porter::check_role_pipeline_on_device(path_id::cp_async, porter_test::mi250x(), 0); });
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule(), "launch.role_pipeline_vendor");
  EXPECT_TRUE(Contains(v->what(), "AMD Instinct MI250X")) << v->what();
  EXPECT_TRUE(Contains(v->what(), "on AMD a role pipeline runs on path staged")) << v->what();
  // tma's role pipeline needs what the path needs (the launch's path check refuses it first).
  const auto t = thrown([] { porter::check_role_pipeline_on_device(path_id::tma, porter_test::a100(), 80); });
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rule(), "launch.role_pipeline_device");
  EXPECT_TRUE(Contains(t->what(), "needs compute capability 9.0 (the path's TMA")) << t->what();
}

TEST(LaunchRolePipeline, EveryPathPassesWhereItsRoleProtocolRuns) {
  EXPECT_NO_THROW(porter::check_role_pipeline_on_device(path_id::staged, porter_test::t4(), 75));
  for (path_id p : {path_id::cp_async, path_id::staged}) {
    EXPECT_NO_THROW(porter::check_role_pipeline_on_device(p, porter_test::a100(), 80));
    EXPECT_NO_THROW(porter::check_role_pipeline_on_device(p, porter_test::a100(), 0)) << "binary unknown";
    EXPECT_NO_THROW(porter::check_role_pipeline_on_device(p, porter_test::h200(), 90));
  }
  EXPECT_NO_THROW(porter::check_role_pipeline_on_device(path_id::tma, porter_test::h200(), 90));
}

TEST(LaunchRolePipeline, TheLaunchChecksOnlyWhenTheOptionsSayTheKernelUsesOne) {
  // porter::launch cannot see a role pipeline inside the kernel: the option declares it.
  EXPECT_FALSE(porter::launch_options{}.role_pipeline_kernel);
  const auto o = porter::launch_options{}.uses_role_pipeline();
  EXPECT_TRUE(o.role_pipeline_kernel);
  EXPECT_FALSE(o.has_launch_attributes()) << "a declaration, not a launch attribute";
  EXPECT_FALSE(porter::launch_options{}.uses_role_pipeline().uses_role_pipeline(false).role_pipeline_kernel);
  EXPECT_NO_THROW(porter::detail::check_role_pipeline(path_id::cp_async, porter::launch_options{}, porter_test::t4(), 75));
  const auto e = thrown([&] { porter::detail::check_role_pipeline(path_id::cp_async, o, porter_test::t4(), 75); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "launch.role_pipeline_device");
  EXPECT_NO_THROW(porter::detail::check_role_pipeline(path_id::cp_async, o, porter_test::a100(), 80));
  EXPECT_NO_THROW(porter::detail::check_role_pipeline(path_id::staged, o, porter_test::t4(), 75));
}

// ---- kernel_family launches forced to a concrete path --------------------------------------------

TEST(LaunchFamily, AForcedFamilyLaunchReturnsOneConstantChoicePerPathWithTheSameReason) {
  // porter::launch<P>(kernel_family, ...) for a concrete P returns detail::forced_choice<P>() (a
  // CUDA translation unit's code; its return type is checked here): the reason reads as before,
  // and is built once per path, not per launch.
  static_assert(std::is_same_v<porter::detail::family_launch_result<porter::path::cp_async>, const porter::path_choice&>);
  static_assert(std::is_same_v<porter::detail::family_launch_result<porter::path::automatic>, porter::path_choice>);
  const porter::path_choice& c = porter::detail::forced_choice<porter::path::cp_async>();
  EXPECT_EQ(c.path, path_id::cp_async);
  EXPECT_EQ(c.reason, "cp_async: forced");
  EXPECT_EQ(&c, &porter::detail::forced_choice<porter::path::cp_async>()) << "one constant, not one string per call";
  EXPECT_EQ(porter::detail::forced_choice<porter::path::tma>().path, path_id::tma);
  EXPECT_EQ(porter::detail::forced_choice<porter::path::tma>().reason, "tma: forced");
  EXPECT_EQ(porter::detail::forced_choice<porter::path::staged>().path, path_id::staged);
  EXPECT_EQ(porter::detail::forced_choice<porter::path::staged>().reason, "staged: forced");
}

// ---- sources inside struct arguments -------------------------------------------------------------

using B = porter::box<float, 16, 64>;
using B3 = porter::box<float, 2, 8, 32>;

/// A source built on host memory, its mask set as the H200 would (layout rules only).
template <class Box>
porter::tiled_source<Box> h200_source(std::vector<float>& mem, std::int64_t rows, std::int64_t cols, std::int64_t pitch) {
  auto s = porter::make_tiled_source<Box>(mem.data(), {rows, cols}, {pitch});
  s.supported = porter::validate_source(s.desc()).mask;
  return s;
}

struct held {  // an aggregate: found field by field
  int tiles;
  porter::tile_schedule sched;
  porter::tiled_source<B> src;
};
struct nested {
  float* out;
  held inner;
  porter::tiled_destination<B> dst;
};
class hooked {  // not an aggregate: the hook names what it holds
 public:
  hooked(const porter::tiled_source<B>& a, const porter::tiled_source<B>& b) : a_(a), b_(b) {}
  template <class F>
  void porter_sources(F&& f) const {
    f(a_);
    f(b_);
  }

 private:
  porter::tiled_source<B> a_;
  porter::tiled_source<B> b_;
};

struct found {
  std::string where;
  unsigned mask;
};
template <class... Args>
std::vector<found> sources_of(const Args&... args) {
  std::vector<found> v;
  porter::detail::for_each_arg(
      [&](const auto& a, int index) {
        porter::detail::for_each_source(a, index, [&](const auto& s, const porter::source_location& at) {
          v.push_back({porter::describe(at), s.supported});
        });
      },
      args...);
  return v;
}

TEST(LaunchStructSources, AggregateFieldsAreVisitedInOrderWithTheirPaths) {
  static_assert(porter::detail::fields::visitable_fields<held>() == 3);
  static_assert(porter::detail::fields::visitable_fields<nested>() == 3);
  std::vector<float> mem(128 * 128);
  nested n{};
  n.inner.src = h200_source<B>(mem, 100, 128, 128);
  static_cast<porter::tiled_source<B>&>(n.dst) = h200_source<B>(mem, 64, 64, 128);
  const porter::tiled_source<B> top = h200_source<B>(mem, 10, 64, 128);
  const auto v = sources_of(top, 3, n, 2.5f);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].where, "kernel argument 0");
  EXPECT_EQ(v[1].where, "kernel argument 2, field 1.2");
  EXPECT_EQ(v[2].where, "kernel argument 2, field 2");
  EXPECT_EQ(porter::detail::count_sources(n), 2);
}

TEST(LaunchStructSources, TheHookNamesMembersOfANonAggregate) {
  std::vector<float> mem(128 * 128);
  const hooked h(h200_source<B>(mem, 100, 128, 128), h200_source<B>(mem, 100, 100, 101));
  const auto v = sources_of(1, h);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].where, "kernel argument 1, field 0");
  EXPECT_EQ(v[1].where, "kernel argument 1, field 1");
  EXPECT_TRUE(v[0].mask & porter::path_bit(path_id::tma));
  EXPECT_FALSE(v[1].mask & porter::path_bit(path_id::tma));
}

TEST(LaunchStructSources, SmallAggregatesAndAggregatesWithArraysAreNotLookedInto) {
  // coord has an array member and 4-byte alignment: it cannot hold a source and is not probed.
  static_assert(porter::detail::fields::visitable_fields<porter::coord<3>>() == -1);
  struct small {
    int a[4];
    float b;
  };
  static_assert(porter::detail::fields::visitable_fields<small>() == -1);
  const auto v = sources_of(porter::coord<2>{{1, 2}}, small{}, porter::tile_schedule{});
  EXPECT_TRUE(v.empty());
}

TEST(LaunchStructSources, SourcesInsideAOneElementArrayFieldAreFound) {
  // Brace elision makes the flat and braced probes agree on a one-element array member, so the
  // struct is visited field by field; the array field is then walked element by element.
  struct with_array {
    porter::tiled_source<B> s[1];
    int n;
  };
  static_assert(porter::detail::fields::visitable_fields<with_array>() == 2);
  std::vector<float> mem(128 * 128);
  with_array w{};
  w.s[0] = h200_source<B>(mem, 100, 100, 101);
  const auto v = sources_of(7, w);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].where, "kernel argument 1, field 0.0");
  EXPECT_FALSE(v[0].mask & porter::path_bit(path_id::tma));
}

/// An empty member type (a tag, a stateless functor): it holds nothing.
struct tag {};
/// Empty, 128-byte aligned and not an aggregate (a constructor): porter cannot look into it, and
/// need not: an empty class holds no source.
struct alignas(128) empty_aligned_class {
  empty_aligned_class() {}
};

TEST(LaunchStructSources, EmptyMembersAreSkippedAndKeepTheirFieldNumbers) {
  // `{x}` cannot initialise an empty aggregate member (it has no element for x), so the braced
  // field count stopped at the first empty member and the struct was refused at compile time.
  struct alignas(128) with_tags {
    tag first;
    int tiles;
    tag middle;
    porter::tiled_source<B> src;
    empty_aligned_class also_empty;
    tag last;
  };
  static_assert(porter::detail::fields::visitable_fields<with_tags>() == 6);
  struct alignas(128) only_tags {
    tag a, b;
  };
  static_assert(porter::detail::fields::visitable_fields<only_tags>() == 2);
  std::vector<float> mem(128 * 128);
  with_tags w{};
  w.src = h200_source<B>(mem, 100, 100, 101);
  const auto v = sources_of(7, w, only_tags{}, empty_aligned_class{});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].where, "kernel argument 1, field 3");
  EXPECT_FALSE(v[0].mask & porter::path_bit(path_id::tma));
  // The `{}` count does not let through what the other counts refuse: a C array beside a tag, a
  // non-const reference beside a tag, and an empty base (a field for `{}`, but no structured
  // binding) still need the hook.
  struct alignas(128) tag_and_array {
    tag t;
    int a[2];
  };
  struct alignas(128) tag_and_ref {
    tag t;
    int& r;
    porter::tiled_source<B> s;
  };
  struct alignas(128) tag_base : tag {
    int n;
    porter::tiled_source<B> s;
  };
  static_assert(porter::detail::fields::visitable_fields<tag_and_array>() == -1);
  static_assert(porter::detail::fields::visitable_fields<tag_and_ref>() == -1);
  static_assert(porter::detail::fields::visitable_fields<tag_base>() == -1);
}

TEST(LaunchStructSources, ReferenceMembersAndUnionsAreNotTakenForEmptyStructs) {
  struct alignas(128) with_ref {  // a non-const reference: the probes' conversions cannot bind it
    int& r;
    porter::tiled_source<B> s;
  };
  union alignas(128) either {
    porter::tiled_source<B> s;
    int n;
  };
  // Neither is visited field by field: launch then refuses to compile them without the hook.
  static_assert(porter::detail::fields::visitable_fields<with_ref>() == -1);
  static_assert(porter::detail::fields::visitable_fields<either>() == -1);
  static_assert(porter::detail::fields::may_hold_source<either>());
}

TEST(LaunchStructSources, DeepPathsAreCutAfterEightFieldsAndSaySo) {
  porter::source_location at;
  at.argument = 4;
  for (int i = 0; i < 10; ++i) at = at.in_field(i);
  EXPECT_EQ(porter::describe(at), "kernel argument 4, field 0.1.2.3.4.5.6.7.(2 more)");
}

TEST(LaunchStructSources, AForcedTmaLaunchOfAStructHoldingAPitch4004SourceIsRefusedNamingTheField) {
  std::vector<float> mem(64 * 1001);
  held h{};
  h.src = h200_source<B>(mem, 64, 1000, 1001);  // pitch 4004 B: no tma
  ASSERT_FALSE(h.src.supports(path_id::tma));
  const auto e = thrown([&] { porter::detail::check_sources(path_id::tma, porter_test::h200(), 7, h); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.source_path");
  EXPECT_TRUE(Contains(e->what(), "path tma cannot read kernel argument 1, field 2 (a tiled source)")) << e->what();
  EXPECT_TRUE(Contains(e->what(), "[rule tma.stride_multiple_of_16]")) << e->what();
  EXPECT_NO_THROW(porter::detail::check_sources(path_id::cp_async, porter_test::h200(), 7, h));
  EXPECT_NO_THROW(porter::detail::check_sources(path_id::staged, porter_test::h200(), 7, h));
}

TEST(LaunchStructSources, AutomaticSeesStructSources) {
  std::vector<float> mem(64 * 1001);
  held good{}, bad{};
  good.src = h200_source<B>(mem, 64, 1024, 1024);
  bad.src = h200_source<B>(mem, 64, 1000, 1001);
  const unsigned all = porter::path_bit(path_id::tma) | porter::path_bit(path_id::cp_async) | porter::path_bit(path_id::staged);
  porter::source_desc descs[4];
  int n = 0;
  EXPECT_EQ(porter::detail::sources_allow(all, descs, 4, n, good, 1), all);
  EXPECT_EQ(n, 1);
  n = 0;
  const unsigned m = porter::detail::sources_allow(all, descs, 4, n, good, bad);
  EXPECT_EQ(n, 2);
  EXPECT_FALSE(m & porter::path_bit(path_id::tma));
  EXPECT_EQ(descs[1].stride[0], 1001);
  const porter::source_desc* ptrs[2] = {&descs[0], &descs[1]};
  const porter::path_choice c = porter::choose_path(m, porter_test::h200(), ptrs, n);
  EXPECT_EQ(c.path, path_id::cp_async) << c.reason;
  // More sources than the stack buffer holds are counted, not stored.
  n = 0;
  porter::detail::sources_allow(all, descs, 1, n, good, bad, good);
  EXPECT_EQ(n, 3);
}

}  // namespace
