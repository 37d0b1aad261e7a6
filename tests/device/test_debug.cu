// tests/device/test_debug.cu — PORTER_DEBUG=1 (built into porter_device_debug_tests only).
//
// DebugMatrix: correct use runs clean and bit-exact with every debug check compiled in.
// DebugTrap:   misuse traps with porter's message naming the stage and phase. A trap kills the CUDA
//              context, so each case runs in a child process (gtest death test, "threadsafe" style:
//              the binary re-executes itself). The child sends its stdout (where device printf goes)
//              to stderr, launches, synchronises and exits with 3 when the kernel failed, 0 when it
//              ran to the end; the parent matches porter's message in the child's stderr.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "runners.cuh"

#if !PORTER_DEBUG
#  error "test_debug.cu must be built with PORTER_DEBUG=1"
#endif

namespace pt = porter_test;

namespace {

using f32_box = porter::box<float, 8, 32>;

template <class P>
class DebugMatrix : public ::testing::Test {};
TYPED_TEST_SUITE(DebugMatrix, pt::all_paths, pt::path_names);

TYPED_TEST(DebugMatrix, boxes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, f32_box>(tt, "debug", {pt::cases(12, 2)});
}
TYPED_TEST(DebugMatrix, bytes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::bytes_cases<TypeParam, 2>(tt, "debug", pt::cases(8, 2));
}

// ---- misuse ---------------------------------------------------------------------------------------

enum misuse : int {
  acquire_beyond_capacity = 1,  // a third acquire on a 2-stage pipeline with nothing released
  use_before_init,              // pipeline(smem, defer_init) and no init()
  wait_without_commit,          // consumer_wait with no committed stage
  bytes_beyond_buffer,          // async_copy of 257 bytes into a 256-byte buffer
  wait_timeout,                 // the issuing thread skips producer_commit: FULL never completes, the bounded wait traps
  cta_threads_wrong_size,       // pipeline(smem, porter::cta_threads<128>) in a CTA of 64 threads
};

using misuse_box = porter::box<unsigned char, 256>;
template <class P>
using misuse_pipe = porter::pipeline<P, 2, misuse_box>;

template <class P>
__global__ void misuse_kernel(const unsigned char* src, int what) {
  extern __shared__ unsigned char smem[];
  using Pipe = misuse_pipe<P>;
  switch (what) {
    case acquire_beyond_capacity: {
      Pipe pipe(smem);
      auto a = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(a), src, 64);
      pipe.producer_commit(a);
      auto b = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(b), src, 64);
      pipe.producer_commit(b);
      auto c = pipe.producer_acquire();  // traps: stage 0, phase 1
      pipe.producer_commit(c);
      break;
    }
    case use_before_init: {
      // The check reads a flag in the pipeline object, not shared memory: a stale pattern there (here
      // a pipeline initialised first over the same bytes) cannot pass it.
      {
        Pipe earlier(smem);
        (void)earlier;
      }
      __syncthreads();
      Pipe pipe(smem, porter::defer_init);
      auto a = pipe.producer_acquire();  // traps
      pipe.producer_commit(a);
      break;
    }
    case wait_without_commit: {
      Pipe pipe(smem);
      auto r = pipe.consumer_wait();  // traps: stage 0, phase 0
      pipe.consumer_release(r);
      break;
    }
    case bytes_beyond_buffer: {
      Pipe pipe(smem);
      auto a = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(a), src, misuse_box::bytes + 1);  // traps: stage 0, phase 0
      pipe.producer_commit(a);
      break;
    }
    case wait_timeout: {
      Pipe pipe(smem);
      auto a = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(a), src, 64);
      // Thread 0 issued the copy and is the one arrival FULL counts: without its commit the phase
      // never completes, whatever the bytes do.
      if (pt::dev::thread_rank() == 0) return;
      pipe.producer_commit(a);
      auto r = pipe.consumer_wait();  // the bounded wait traps: stage 0, phase 0
      pipe.consumer_release(r);
      break;
    }
    case cta_threads_wrong_size: {
      Pipe pipe(smem, porter::cta_threads<128>);  // traps at init: the CTA has 64 threads
      auto a = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(a), src, 64);
      pipe.producer_commit(a);
      auto r = pipe.consumer_wait();
      pipe.consumer_release(r);
      break;
    }
    default: break;
  }
}

// ---- role pipelines (porter::role_pipeline): one producer warp, four consumer warps, 2 stages ----

enum role_misuse : int {
  role_wrong_cta_size = 1,    // launched with 64 threads instead of Roles::threads = 160
  role_consumer_acquires,     // a consumer thread calls producer_acquire
  role_release_missing,       // the consumers never release: the producers' EMPTY wait times out
  role_commit_missing,        // the producers never commit: the consumers' FULL wait times out
};

using misuse_roles = porter::roles<porter::warps<1>, porter::warps<4>>;
template <class P>
using misuse_role_pipe = porter::role_pipeline<P, misuse_roles, 2, misuse_box>;

template <class P>
__global__ void role_misuse_kernel(const unsigned char* src, int what) {
  extern __shared__ unsigned char smem[];
  misuse_role_pipe<P> pipe(smem);  // traps here for role_wrong_cta_size
  if (what == role_consumer_acquires && pipe.is_consumer()) {
    auto a = pipe.producer_acquire();  // traps
    pipe.producer_commit(a);
    return;
  }
  // Only one role may time out, or the two bounded waits race for the first message: without
  // releases the consumers stop after the two stages they can see; without commits the producers
  // stop after the two stages they may fill.
  const int steps = 4;
  if (pipe.is_producer()) {
    for (int i = 0; i < (what == role_commit_missing ? 2 : steps); ++i) {
      auto a = pipe.producer_acquire();  // role_release_missing: the third acquire (stage 0, phase 1) times out
      porter::async_copy(porter::buffer<0>(a), src, 64);
      if (what != role_commit_missing) pipe.producer_commit(a);
    }
  } else {
    for (int i = 0; i < (what == role_release_missing ? 2 : steps); ++i) {
      auto r = pipe.consumer_wait();  // role_commit_missing: the first wait (stage 0, phase 0) times out
      if (what != role_release_missing) pipe.consumer_release(r);
    }
  }
}

/// The child side of a death test: `launch(src)` launches the misuse over a 4 KiB source; then
/// synchronise and exit 3 if the kernel failed (0 if it did not, 4 if the launch threw).
template <class Launch>
[[noreturn]] void run_child(Launch&& launch) {
  std::fflush(stdout);
  dup2(2, 1);  // device printf goes to stdout; the death test reads stderr
  unsigned char* src = nullptr;
  if (cudaMalloc(&src, 4096) != cudaSuccess) {
    std::fprintf(stderr, "child: cudaMalloc failed\n");
    std::_Exit(5);
  }
  cudaMemset(src, 0x11, 4096);
  try {
    launch(static_cast<const unsigned char*>(src));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child: porter::launch threw: %s\n", e.what());
    std::fflush(stderr);
    std::_Exit(4);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::fflush(stdout);
  std::fprintf(stderr, "child: cudaDeviceSynchronize: %s\n", cudaGetErrorString(e));
  std::fflush(stderr);
  std::_Exit(e == cudaSuccess ? 0 : 3);
}

/// A pipeline misuse on path P (a CTA of 64 threads).
template <class P>
[[noreturn]] void run_misuse(int what) {
  run_child([what](const unsigned char* src) {
    porter::launch<P>(&misuse_kernel<P>, dim3(1), dim3(64), misuse_pipe<P>::shared_bytes, nullptr, src, what);
  });
}

/// A role-pipeline misuse on path P (a CTA of misuse_roles::threads, or 64 for the wrong size).
template <class P>
[[noreturn]] void run_role_misuse(int what) {
  run_child([what](const unsigned char* src) {
    const unsigned threads = what == role_wrong_cta_size ? 64u : misuse_roles::threads;
    porter::launch<P>(&role_misuse_kernel<P>, dim3(1), dim3(threads), misuse_role_pipe<P>::shared_bytes, nullptr, src, what);
  });
}

template <class P>
class DebugTrap : public ::testing::Test {};
TYPED_TEST_SUITE(DebugTrap, pt::concrete_paths, pt::path_names);

TYPED_TEST(DebugTrap, acquire_beyond_capacity) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_misuse<TypeParam>(acquire_beyond_capacity), ::testing::ExitedWithCode(3),
              "porter: producer_acquire beyond capacity.*stage 0, phase 1");
}
TYPED_TEST(DebugTrap, barrier_used_before_initialisation) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_misuse<TypeParam>(use_before_init), ::testing::ExitedWithCode(3),
              "porter: pipeline used before initialisation");
}
TYPED_TEST(DebugTrap, wait_with_nothing_committed) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_misuse<TypeParam>(wait_without_commit), ::testing::ExitedWithCode(3),
              "porter: consumer_wait with no committed stage.*stage 0, phase 0");
}
TYPED_TEST(DebugTrap, byte_count_beyond_the_buffer) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_misuse<TypeParam>(bytes_beyond_buffer), ::testing::ExitedWithCode(3),
              "porter: async_copy: byte count exceeds the stage buffer.*stage 0, phase 0");
}
TYPED_TEST(DebugTrap, bounded_wait_times_out) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  // Only the tma protocol waits on an mbarrier; cp_async waits for its own cp.async groups and a CTA
  // barrier, staged for a CTA barrier: neither has a bounded wait that could time out.
  const bool mbarrier = std::is_same_v<TypeParam, porter::path::tma>;
  if (!mbarrier) GTEST_SKIP() << "this pipeline completes through cp.async groups and CTA barriers: there is no bounded mbarrier wait to time out";
  EXPECT_EXIT(run_misuse<TypeParam>(wait_timeout), ::testing::ExitedWithCode(3),
              "porter: consumer_wait: the stage never landed.*stage 0, phase 0");
}

TYPED_TEST(DebugTrap, cta_threads_on_a_cta_of_another_size) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_misuse<TypeParam>(cta_threads_wrong_size), ::testing::ExitedWithCode(3),
              "porter: porter::pipeline: constructed with porter::cta_threads<N>, but the CTA does not have N threads");
}
TYPED_TEST(DebugTrap, role_pipeline_on_a_cta_of_the_wrong_size) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_role_misuse<TypeParam>(role_wrong_cta_size), ::testing::ExitedWithCode(3),
              "porter: porter::role_pipeline: the CTA must have exactly Roles::threads threads");
}
TYPED_TEST(DebugTrap, role_pipeline_consumer_calls_producer_acquire) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_role_misuse<TypeParam>(role_consumer_acquires), ::testing::ExitedWithCode(3),
              "porter: role_pipeline::producer_acquire called by a consumer thread");
}
TYPED_TEST(DebugTrap, role_pipeline_missing_release_times_out_on_empty) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_role_misuse<TypeParam>(role_release_missing), ::testing::ExitedWithCode(3),
              "porter: producer_acquire: the consumers never released the stage.*stage 0, phase 1");
}
TYPED_TEST(DebugTrap, role_pipeline_missing_commit_times_out_on_full) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT(run_role_misuse<TypeParam>(role_commit_missing), ::testing::ExitedWithCode(3),
              "porter: consumer_wait: the stage never landed.*stage 0, phase 0");
}

}  // namespace
