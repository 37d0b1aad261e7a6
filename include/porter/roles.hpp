// porter/roles.hpp — producer and consumer roles of a CTA, in the type.
//
// A warp-specialized kernel splits its CTA: producer warps only issue copies, consumer warps only
// read landed stages and compute (CUTLASS's warp-specialized mainloops, ThunderKittens, DeepGEMM).
// porter::roles names both sets at compile time, so a porter::role_pipeline derives its arrival
// counts and thread scopes from the type:
//
//   using r = porter::roles<porter::warps<1>, porter::warpgroups<2>>;          // 32 + 256 threads
//   using r = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>,
//                           porter::registers<40, 232>>;                      // with setmaxnreg
//
// Thread layout: the CTA has exactly roles::threads threads (blockDim.x * y * z); threads
// [0, producer_threads) of the linear thread index are the producers, the next consumer_threads
// the consumers. Both counts are whole warps, so no warp holds two roles (ldmatrix and mma in a
// consumer are warp-collective).
//
// Registers: porter::registers<P, C> asks the target to move registers from the producers to the
// consumers when the roles begin (setmaxnreg.dec P / .inc C, PTX ISA 9.7.17.1), on targets that
// have it (sm_90a and sm_100a builds); elsewhere it lowers to nothing. It needs both roles to be
// whole warpgroups (setmaxnreg is warpgroup-wide) and counts of 24..256 in steps of 8.
// The budgets must fit the registers the CTA holds at launch: setmaxnreg moves registers within the
// CTA's pool (what the producers' .dec released), and .inc waits until the pool has them, so
//   P x producer_threads + C x consumer_threads <= roles::register_pool
// where register_pool is the most one CTA of roles::threads threads can be given: 64 K registers
// shared out per warp in steps of 8 per thread, at most 256 each (384 threads: 168 x 384 = 64,512,
// not 65,536). Compile the kernel with __launch_bounds__(roles::threads, 1) so that it is given that
// many (ptxas 13.0 gives a kernel with setmaxnreg the whole 168 at 384 threads: every
// pb_bf16gemm_roles of porter-bench, spilling or not). A split over the pool hangs the CTA in
// setmaxnreg.inc: measured on the H200 (session 31), registers<96, 208> on 128 + 256 threads
// (65,536) never left enter_role, while 88 / 208 (64,512) runs.
#pragma once

namespace porter {

/// N warps (32 N threads) of one role. N >= 1.
template <int N>
struct warps {
  static_assert(N >= 1 && N <= 32, "porter::warps<N>: a role has 1 to 32 warps.");
  static constexpr unsigned threads = 32u * unsigned(N);
  static constexpr bool whole_warpgroups = N % 4 == 0;
};

/// N warpgroups (4 warps, 128 N threads) of one role. N >= 1.
template <int N>
struct warpgroups {
  static_assert(N >= 1 && N <= 8, "porter::warpgroups<N>: a role has 1 to 8 warpgroups.");
  static constexpr unsigned threads = 128u * unsigned(N);
  static constexpr bool whole_warpgroups = true;
};

/// Per-thread register budgets of the producer and consumer roles (0: leave as compiled).
template <int Producer, int Consumer>
struct registers {
  static_assert((Producer == 0) == (Consumer == 0), "porter::registers<P, C>: give both budgets, or neither (0, 0).");
  static_assert(Producer == 0 || (Producer >= 24 && Producer <= 256 && Producer % 8 == 0 && Consumer >= 24 && Consumer <= 256 &&
                                  Consumer % 8 == 0),
                "porter::registers<P, C>: each budget must be 24..256 registers and a multiple of 8 (PTX setmaxnreg).");
  static_assert(Producer <= Consumer, "porter::registers<P, C>: the producers give registers to the consumers (P <= C).");
  static constexpr int producer = Producer;
  static constexpr int consumer = Consumer;
};

/// The roles of a CTA: `Producer` and `Consumer` are porter::warps<N> or porter::warpgroups<N>;
/// `Registers` a porter::registers<P, C> (default: no reallocation). See the file comment.
template <class Producer, class Consumer, class Registers = registers<0, 0>>
struct roles {
  static constexpr unsigned producer_threads = Producer::threads;
  static constexpr unsigned consumer_threads = Consumer::threads;
  static constexpr unsigned threads = producer_threads + consumer_threads;
  static constexpr unsigned producer_warps = producer_threads / 32u;
  static constexpr unsigned consumer_warps = consumer_threads / 32u;
  static constexpr int producer_registers = Registers::producer;
  static constexpr int consumer_registers = Registers::consumer;
  static constexpr bool reallocates = Registers::producer != 0;
  static_assert(threads <= 1024, "porter::roles: a CTA has at most 1024 threads.");
  /// Registers one CTA of `threads` threads holds at most (one CTA per SM): 65,536 shared out in
  /// steps of 8 per thread (a warp's allocation unit is 256), at most 256 per thread. 384 threads:
  /// 168 x 384 = 64,512. setmaxnreg can only move these between the roles (see the file comment).
  static constexpr unsigned register_pool =
      ((65536u / threads) / 8u * 8u < 256u ? (65536u / threads) / 8u * 8u : 256u) * threads;
  static_assert(!reallocates || unsigned(Registers::producer) * producer_threads + unsigned(Registers::consumer) * consumer_threads <=
                                    register_pool,
                "porter::roles: the register budgets exceed the CTA's register pool (P x producer threads + C x consumer "
                "threads > roles::register_pool, e.g. 64,512 for 384 threads): setmaxnreg.inc would wait for registers that "
                "never come.");
  static_assert(!reallocates || (Producer::whole_warpgroups && Consumer::whole_warpgroups),
                "porter::roles: register reallocation (porter::registers) needs both roles to be whole warpgroups "
                "(setmaxnreg is warpgroup-wide): use porter::warpgroups<N> or porter::warps<4 k>.");
};

/// True for porter::roles<Producer, Consumer, Registers> (what porter::role_pipeline's second argument must be).
template <class T> struct is_roles { static constexpr bool value = false; };
template <class P, class C, class R> struct is_roles<roles<P, C, R>> { static constexpr bool value = true; };

}  // namespace porter
