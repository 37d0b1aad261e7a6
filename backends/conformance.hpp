// backends/conformance.hpp — compile-time check that a lowering offers the whole operation set,
// copy and completion alike, with exactly the reference signatures.
//
// Every lowering (tma, cp_async, staged; the staged lowering's NVIDIA and AMD flavours) offers the
// same operations, so the neutral API (porter::pipeline, porter::async_copy) can drive any of them
// through the registry. This header turns that rule into a compile error instead of a convention
// (docs/design.md, "The lowering contract"):
//
//   static_assert(porter::backend::check_conformance<porter::backend::tma>());
//
// A lowering L conforms when it
//   * is an empty, trivially default-constructible struct;
//   * names a concrete path tag: `using path = porter::path::tma` (a type with `static constexpr
//     path_id id`, `name`, `completion`, `min_compute_capability`, `nvidia_only`);
//   * has the copies, for boxes of every rank (1..5) and element size (1..16 B), each taking an L2
//     hint (porter/cache_hint.hpp) as a template parameter that defaults to cache_hint::none:
//       template <class Box, cache_hint H = cache_hint::none> static void copy_box(typename Box::element_type* dst,
//           const tiled_source<Box>& src, const coord<Box::rank>& at, const detail::copy_context& ctx)
//       template <cache_hint H = cache_hint::none>
//       static void copy_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx)
//   * has `template <class Ring> protocol` (for rings of 1..8 stages and one or two buffers), a
//     class whose per-thread object the pipeline holds, with
//       void init(unsigned char* header, unsigned thread, unsigned nthreads)
//       void acquire(unsigned stage, unsigned pass)
//       template <int I, class Box, cache_hint H = cache_hint::none> void copy_box(unsigned stage,
//           typename Box::element_type* dst, const tiled_source<Box>& src, const coord<Box::rank>& at)
//       template <int I, cache_hint H = cache_hint::none> void copy_bytes(unsigned stage, void* dst,
//           const void* src, std::size_t bytes)
//       void commit(unsigned stage, unsigned pass)
//       void wait(unsigned stage, unsigned pass, unsigned pending_after)
//       void release(unsigned stage, unsigned pass)
//       static constexpr int stages (== Ring::stages)
//   * has the stores (porter/store.hpp), for boxes of every rank and element size:
//       template <class Box> static void store_box(const tiled_destination<Box>& dst,
//           const typename Box::element_type* tile, const coord<Box::rank>& at, const detail::copy_context& ctx)
//       template <reduce_op Op, class Box> static void reduce_box(... the same parameters ...)
//       static void store_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx)
//       static void store_commit(const detail::copy_context& ctx)
//       template <int N> static void store_wait_read(const detail::copy_context& ctx)
//       template <int N> static void store_wait_read_before_release(const detail::copy_context& ctx)
//       template <int N> static void store_wait_write(const detail::copy_context& ctx)
//   * has static void after_generic_writes() (a consumer wrote into a landed stage; porter::stage_written)
//   * has static void before_async_proxy_reads() (a consumer reads a landed stage through the async
//     proxy, as wgmma does; porter::async_proxy_reads)
//   * has `template <class Ring, class Roles> role_protocol` (porter::role_pipeline), with
//     the protocol's operations plus commit_written(stage, pass), void enter_role(bool producer) and
//     void sync_role(bool producer)
// A mismatch (say `void*` where the reference has `const void*`, a missing `static`, an added
// `noexcept`, a protocol without `release`) fails with a sentence naming the operation; the
// compiler's instantiation note names the lowering.
//
// The fragment loads (shared memory -> registers, porter/fragment.hpp) have one flavour per vendor
// (backends/fragments/{nvidia,amd}/porter/fragments/load.hpp, both porter::backend::fragment_loads)
// and the same rule:
//
//   static_assert(porter::backend::check_fragment_conformance<porter::backend::fragment_loads>());
//
// F conforms when it is an empty, trivially default-constructible struct with
//   static constexpr const char* instruction   (the instruction in words)
//   template <int N, bool Trans, class At> static void load(std::uint32_t (&r)[N], const At& at)
//       for N = 1, 2, 4 and Trans = false, true, `at` being any callable (int m, int row, int col)
//       -> const unsigned char*
// and, in CUDA builds, static std::uint32_t shared_address(const void* p) (what a wgmma matrix
// descriptor holds; sm_90 has wgmma, the AMD flavour has no such consumer).
//
// The grid control (clusters and dependent launch, porter/cluster.hpp) likewise:
// check_grid_conformance<porter::backend::grid_control>() requires an empty struct with
// static constexpr const char* instructions, static unsigned cluster_rank() and cluster_size(), and
// static void cluster_sync(), wait_prior_grid() and launch_dependents()
// (backends/grid/{nvidia,amd}/porter/grid/control.hpp).
//
// Device compilers only (nvcc, hipcc): lowering operations exist only where __device__ is understood.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/cache_hint.hpp"
#include "porter/destination.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/path.hpp"
#include "porter/roles.hpp"
#include "porter/source.hpp"
#include "porter/stage_ring.hpp"

namespace porter::backend {
namespace conformance_detail {

/// L::path, or void when L has none.
template <class L, class = void> struct path_of { using type = void; };
template <class L> struct path_of<L, std::void_t<typename L::path>> { using type = typename L::path; };

/// The type of &L::copy_box<Box> (H = none: the default must exist) or &L::copy_box<Box, H>, or
/// void when there is no such (unambiguous) member.
template <class L, class Box, cache_hint H, class = void> struct copy_box_of { using type = void; };
template <class L, class Box>
struct copy_box_of<L, Box, cache_hint::none, std::void_t<decltype(&L::template copy_box<Box>)>> {
  using type = decltype(&L::template copy_box<Box>);
};
template <class L, class Box, cache_hint H>
struct copy_box_of<L, Box, H, std::enable_if_t<H != cache_hint::none, std::void_t<decltype(&L::template copy_box<Box, H>)>>> {
  using type = decltype(&L::template copy_box<Box, H>);
};

/// The type of &L::copy_bytes<> (H = none) or &L::copy_bytes<H>, or void when there is none.
template <class L, cache_hint H, class = void> struct copy_bytes_of { using type = void; };
template <class L>
struct copy_bytes_of<L, cache_hint::none, std::void_t<decltype(&L::template copy_bytes<>)>> { using type = decltype(&L::template copy_bytes<>); };
template <class L, cache_hint H>
struct copy_bytes_of<L, H, std::enable_if_t<H != cache_hint::none, std::void_t<decltype(&L::template copy_bytes<H>)>>> {
  using type = decltype(&L::template copy_bytes<H>);
};

/// The reference signatures (docs/design.md, "The lowering contract").
template <class Box>
using copy_box_signature = void (*)(typename Box::element_type*, const tiled_source<Box>&, const coord<Box::rank>&,
                                    const porter::detail::copy_context&);
using copy_bytes_signature = void (*)(void*, const void*, std::size_t, const porter::detail::copy_context&);

template <class L, class Box>
inline constexpr bool copy_box_matches = std::is_same_v<typename copy_box_of<L, Box, cache_hint::none>::type, copy_box_signature<Box>> &&
                                         std::is_same_v<typename copy_box_of<L, Box, cache_hint::evict_first>::type, copy_box_signature<Box>> &&
                                         std::is_same_v<typename copy_box_of<L, Box, cache_hint::evict_last>::type, copy_box_signature<Box>>;
/// copy_bytes with its default hint and with a hint.
template <class L>
inline constexpr bool copy_bytes_matches = std::is_same_v<typename copy_bytes_of<L, cache_hint::none>::type, copy_bytes_signature> &&
                                           std::is_same_v<typename copy_bytes_of<L, cache_hint::evict_normal>::type, copy_bytes_signature> &&
                                           std::is_same_v<typename copy_bytes_of<L, cache_hint::evict_first>::type, copy_bytes_signature>;

/// Boxes of every rank and element size the API allows: the signatures must agree for all of them.
template <class L>
inline constexpr bool copy_box_matches_all =
    copy_box_matches<L, box<float, 256>> && copy_box_matches<L, box<float, 32, 64>> &&
    copy_box_matches<L, box<unsigned char, 4, 16, 32>> && copy_box_matches<L, box<std::uint16_t, 2, 3, 8, 16>> &&
    copy_box_matches<L, box<double, 2, 2, 2, 2, 2>> && copy_box_matches<L, box<porter::detail::vec_t<16>, 8, 8>>;

// ---- the stores ----------------------------------------------------------------------------------------
template <class Box>
using store_box_signature = void (*)(const tiled_destination<Box>&, const typename Box::element_type*, const coord<Box::rank>&,
                                     const porter::detail::copy_context&);
using store_step_signature = void (*)(const porter::detail::copy_context&);

template <class L, class Box, class = void> struct store_box_of { using type = void; };
template <class L, class Box>
struct store_box_of<L, Box, std::void_t<decltype(&L::template store_box<Box>)>> { using type = decltype(&L::template store_box<Box>); };
template <class L, class Box, class = void> struct reduce_box_of { using type = void; };
template <class L, class Box>
struct reduce_box_of<L, Box, std::void_t<decltype(&L::template reduce_box<reduce_op::add, Box>)>> {
  using type = decltype(&L::template reduce_box<reduce_op::add, Box>);
};
template <class L, class = void> struct store_bytes_of { using type = void; };
template <class L> struct store_bytes_of<L, std::void_t<decltype(&L::store_bytes)>> { using type = decltype(&L::store_bytes); };
template <class L, class = void> struct store_commit_of { using type = void; };
template <class L> struct store_commit_of<L, std::void_t<decltype(&L::store_commit)>> { using type = decltype(&L::store_commit); };
template <class L, class = void> struct store_wait_read_of { using type = void; };
template <class L> struct store_wait_read_of<L, std::void_t<decltype(&L::template store_wait_read<0>)>> {
  using type = decltype(&L::template store_wait_read<0>);
};
template <class L, class = void> struct store_wait_read_before_release_of { using type = void; };
template <class L> struct store_wait_read_before_release_of<L, std::void_t<decltype(&L::template store_wait_read_before_release<0>)>> {
  using type = decltype(&L::template store_wait_read_before_release<0>);
};
template <class L, class = void> struct store_wait_write_of { using type = void; };
template <class L> struct store_wait_write_of<L, std::void_t<decltype(&L::template store_wait_write<1>)>> {
  using type = decltype(&L::template store_wait_write<1>);
};

template <class L, class = void> struct before_async_proxy_reads_of { using type = void; };
template <class L> struct before_async_proxy_reads_of<L, std::void_t<decltype(&L::before_async_proxy_reads)>> {
  using type = decltype(&L::before_async_proxy_reads);
};
template <class L, class = void> struct after_generic_writes_of { using type = void; };
template <class L> struct after_generic_writes_of<L, std::void_t<decltype(&L::after_generic_writes)>> {
  using type = decltype(&L::after_generic_writes);
};

template <class L, class Box>
inline constexpr bool store_box_matches = std::is_same_v<typename store_box_of<L, Box>::type, store_box_signature<Box>>;
template <class L>
inline constexpr bool stores_match_all =
    store_box_matches<L, box<float, 256>> && store_box_matches<L, box<float, 32, 64>> &&
    store_box_matches<L, box<unsigned char, 4, 16, 32>> && store_box_matches<L, box<double, 2, 2, 2, 2, 2>> &&
    store_box_matches<L, swizzled<box<std::uint16_t, 8, 64>, swizzle::b128>> &&
    std::is_same_v<typename reduce_box_of<L, box<float, 8, 32>>::type, store_box_signature<box<float, 8, 32>>> &&
    std::is_same_v<typename reduce_box_of<L, box<std::int32_t, 64>>::type, store_box_signature<box<std::int32_t, 64>>> &&
    std::is_same_v<typename store_bytes_of<L>::type, copy_bytes_signature> &&
    std::is_same_v<typename store_commit_of<L>::type, store_step_signature> &&
    std::is_same_v<typename store_wait_read_of<L>::type, store_step_signature> &&
    std::is_same_v<typename store_wait_read_before_release_of<L>::type, store_step_signature> &&
    std::is_same_v<typename store_wait_write_of<L>::type, store_step_signature>;

// ---- the protocol --------------------------------------------------------------------------------------
template <class L, class Ring, class = void> struct protocol_of { using type = void; };
template <class L, class Ring>
struct protocol_of<L, Ring, std::void_t<typename L::template protocol<Ring>>> { using type = typename L::template protocol<Ring>; };

template <class P> using member_init = void (P::*)(unsigned char*, unsigned, unsigned);
template <class P> using member_step = void (P::*)(unsigned, unsigned);
template <class P> using member_wait = void (P::*)(unsigned, unsigned, unsigned);
template <class P, class Box>
using member_copy_box = void (P::*)(unsigned, typename Box::element_type*, const tiled_source<Box>&, const coord<Box::rank>&);
template <class P> using member_copy_bytes = void (P::*)(unsigned, void*, const void*, std::size_t);

template <class P, class = void> struct init_of { using type = void; };
template <class P> struct init_of<P, std::void_t<decltype(&P::init)>> { using type = decltype(&P::init); };
template <class P, class = void> struct acquire_of { using type = void; };
template <class P> struct acquire_of<P, std::void_t<decltype(&P::acquire)>> { using type = decltype(&P::acquire); };
template <class P, class = void> struct commit_of { using type = void; };
template <class P> struct commit_of<P, std::void_t<decltype(&P::commit)>> { using type = decltype(&P::commit); };
template <class P, class = void> struct wait_of { using type = void; };
template <class P> struct wait_of<P, std::void_t<decltype(&P::wait)>> { using type = decltype(&P::wait); };
template <class P, class = void> struct release_of { using type = void; };
template <class P> struct release_of<P, std::void_t<decltype(&P::release)>> { using type = decltype(&P::release); };
template <class P, class Box, class = void> struct pcopy_box_of { using type = void; };
template <class P, class Box>
struct pcopy_box_of<P, Box, std::void_t<decltype(&P::template copy_box<0, Box>)>> { using type = decltype(&P::template copy_box<0, Box>); };
template <class P, class = void> struct pcopy_bytes_of { using type = void; };
template <class P> struct pcopy_bytes_of<P, std::void_t<decltype(&P::template copy_bytes<0>)>> {
  using type = decltype(&P::template copy_bytes<0>);
};
/// The hinted forms (an L2 hint as the last template argument).
template <class P, class Box, class = void> struct pcopy_box_hinted_of { using type = void; };
template <class P, class Box>
struct pcopy_box_hinted_of<P, Box, std::void_t<decltype(&P::template copy_box<0, Box, cache_hint::evict_last>)>> {
  using type = decltype(&P::template copy_box<0, Box, cache_hint::evict_last>);
};
template <class P, class = void> struct pcopy_bytes_hinted_of { using type = void; };
template <class P> struct pcopy_bytes_hinted_of<P, std::void_t<decltype(&P::template copy_bytes<0, cache_hint::evict_first>)>> {
  using type = decltype(&P::template copy_bytes<0, cache_hint::evict_first>);
};
template <class P, class = void> struct stages_of { static constexpr int value = -1; };
template <class P> struct stages_of<P, std::void_t<decltype(P::stages)>> { static constexpr int value = P::stages; };

template <class P> using member_role = void (P::*)(bool);
template <class P, class = void> struct enter_role_of { using type = void; };
template <class P> struct enter_role_of<P, std::void_t<decltype(&P::enter_role)>> { using type = decltype(&P::enter_role); };
template <class P, class = void> struct sync_role_of { using type = void; };
template <class P> struct sync_role_of<P, std::void_t<decltype(&P::sync_role)>> { using type = decltype(&P::sync_role); };
template <class P, class = void> struct commit_written_of { using type = void; };
template <class P> struct commit_written_of<P, std::void_t<decltype(&P::commit_written)>> { using type = decltype(&P::commit_written); };
template <class L, class Ring, class Roles, class = void> struct role_protocol_of { using type = void; };
template <class L, class Ring, class Roles>
struct role_protocol_of<L, Ring, Roles, std::void_t<typename L::template role_protocol<Ring, Roles>>> {
  using type = typename L::template role_protocol<Ring, Roles>;
};

/// Protocol type P of `Ring` (void: none) has every operation with its reference signature.
template <class P, class Ring>
constexpr bool protocol_type_matches() {
  if constexpr (std::is_void_v<P>) {
    return false;
  } else {
    using B = typename Ring::template box_type<0>;
    return std::is_class_v<P> && std::is_same_v<typename init_of<P>::type, member_init<P>> &&
           std::is_same_v<typename acquire_of<P>::type, member_step<P>> && std::is_same_v<typename commit_of<P>::type, member_step<P>> &&
           std::is_same_v<typename release_of<P>::type, member_step<P>> && std::is_same_v<typename wait_of<P>::type, member_wait<P>> &&
           std::is_same_v<typename pcopy_box_of<P, B>::type, member_copy_box<P, B>> &&
           std::is_same_v<typename pcopy_bytes_of<P>::type, member_copy_bytes<P>> &&
           std::is_same_v<typename pcopy_box_hinted_of<P, B>::type, member_copy_box<P, B>> &&
           std::is_same_v<typename pcopy_bytes_hinted_of<P>::type, member_copy_bytes<P>> && stages_of<P>::value == Ring::stages;
  }
}

/// The role-split protocol of a ring: the protocol's operations plus enter_role(bool) and sync_role(bool).
template <class L, class Ring, class Roles>
constexpr bool role_protocol_matches() {
  using P = typename role_protocol_of<L, Ring, Roles>::type;
  if constexpr (std::is_void_v<P>) {
    return false;
  } else {
    return protocol_type_matches<P, Ring>() && std::is_same_v<typename enter_role_of<P>::type, member_role<P>> &&
           std::is_same_v<typename sync_role_of<P>::type, member_role<P>> &&
           std::is_same_v<typename commit_written_of<P>::type, member_step<P>>;
  }
}

/// Rings of 1, 2 and 6 stages split by three role shapes, each role whole wavefronts of 64 (what the
/// AMD flavour accepts; NVIDIA accepts any whole warps).
template <class L>
constexpr bool role_protocol_matches_all() {
  return role_protocol_matches<L, stage_ring<1, box<float, 256>>, roles<warps<2>, warps<2>>>() &&
         role_protocol_matches<L, stage_ring<2, box<float, 32, 64>, box<unsigned char, 4, 16, 32>>, roles<warps<2>, warps<4>>>() &&
         role_protocol_matches<L, stage_ring<6, box<double, 2, 2, 2, 2, 2>>, roles<warpgroups<1>, warpgroups<2>, registers<40, 232>>>();
}

/// One ring's protocol has every operation with its reference signature.
template <class L, class Ring>
constexpr bool protocol_matches() {
  return protocol_type_matches<typename protocol_of<L, Ring>::type, Ring>();
}

/// Rings of 1, 2 and 8 stages, of one box and of two boxes of different shapes.
template <class L>
constexpr bool protocol_matches_all() {
  return protocol_matches<L, stage_ring<1, box<float, 256>>>() && protocol_matches<L, stage_ring<2, box<float, 32, 64>>>() &&
         protocol_matches<L, stage_ring<8, box<unsigned char, 4, 16, 32>, box<double, 2, 2, 2, 2, 2>>>() &&
         protocol_matches<L, stage_ring<3, box<porter::detail::vec_t<16>, 8, 8>, box<float, 8, 128>>>();
}

// ---- the fragment loads ---------------------------------------------------------------------------------
/// A stand-in for porter/fragment.hpp's addressing function: (matrix, row, col) -> address.
struct fragment_at_probe {
  const unsigned char* operator()(int, int, int) const;
};
template <int N> using fragment_load_signature = void (*)(std::uint32_t (&)[N], const fragment_at_probe&);

template <class F, int N, bool Trans, class = void> struct fragment_load_of { using type = void; };
template <class F, int N, bool Trans>
struct fragment_load_of<F, N, Trans, std::void_t<decltype(&F::template load<N, Trans, fragment_at_probe>)>> {
  using type = decltype(&F::template load<N, Trans, fragment_at_probe>);
};
template <class F, int N>
inline constexpr bool fragment_load_matches = std::is_same_v<typename fragment_load_of<F, N, false>::type, fragment_load_signature<N>> &&
                                              std::is_same_v<typename fragment_load_of<F, N, true>::type, fragment_load_signature<N>>;

template <class F, class = void> struct fragment_instruction_of { using type = void; };
template <class F> struct fragment_instruction_of<F, std::void_t<decltype(&F::instruction)>> { using type = decltype(&F::instruction); };
template <class F, class = void> struct shared_address_of { using type = void; };
template <class F> struct shared_address_of<F, std::void_t<decltype(&F::shared_address)>> { using type = decltype(&F::shared_address); };

// ---- the grid control ------------------------------------------------------------------------------------
template <class G, class = void> struct grid_instructions_of { using type = void; };
template <class G> struct grid_instructions_of<G, std::void_t<decltype(&G::instructions)>> { using type = decltype(&G::instructions); };
template <class G, class = void> struct cluster_rank_of { using type = void; };
template <class G> struct cluster_rank_of<G, std::void_t<decltype(&G::cluster_rank)>> { using type = decltype(&G::cluster_rank); };
template <class G, class = void> struct cluster_size_of { using type = void; };
template <class G> struct cluster_size_of<G, std::void_t<decltype(&G::cluster_size)>> { using type = decltype(&G::cluster_size); };
template <class G, class = void> struct cluster_sync_of { using type = void; };
template <class G> struct cluster_sync_of<G, std::void_t<decltype(&G::cluster_sync)>> { using type = decltype(&G::cluster_sync); };
template <class G, class = void> struct wait_prior_grid_of { using type = void; };
template <class G> struct wait_prior_grid_of<G, std::void_t<decltype(&G::wait_prior_grid)>> { using type = decltype(&G::wait_prior_grid); };
template <class G, class = void> struct launch_dependents_of { using type = void; };
template <class G> struct launch_dependents_of<G, std::void_t<decltype(&G::launch_dependents)>> {
  using type = decltype(&G::launch_dependents);
};

}  // namespace conformance_detail

/// True when lowering L conforms (see the file comment); otherwise compilation fails with a sentence.
/// Use as `static_assert(porter::backend::check_conformance<L>());`.
template <class L>
constexpr bool check_conformance() {
  namespace cd = conformance_detail;
  using P = typename cd::path_of<L>::type;
  static_assert(std::is_class_v<L> && std::is_empty_v<L> && std::is_trivially_default_constructible_v<L>,
                "porter lowering conformance: a lowering is an empty, trivially constructible struct.");
  static_assert(is_concrete_path<P>::value,
                "porter lowering conformance: a lowering names its concrete path tag: using path = porter::path::tma, "
                "porter::path::cp_async or porter::path::staged.");
  static_assert(cd::copy_box_matches_all<L>,
                "porter lowering conformance: copy_box must be: template <class Box, cache_hint H = cache_hint::none> static "
                "void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src, const coord<Box::rank>& at, "
                "const detail::copy_context& ctx).");
  static_assert(cd::copy_bytes_matches<L>,
                "porter lowering conformance: copy_bytes must be: template <cache_hint H = cache_hint::none> static void "
                "copy_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx).");
  static_assert(std::is_same_v<typename cd::before_async_proxy_reads_of<L>::type, void (*)()>,
                "porter lowering conformance: before_async_proxy_reads must be: static void before_async_proxy_reads() "
                "(what a consumer needs before reading a landed stage through the async proxy, e.g. with wgmma).");
  static_assert(std::is_same_v<typename cd::after_generic_writes_of<L>::type, void (*)()>,
                "porter lowering conformance: after_generic_writes must be: static void after_generic_writes() (what a "
                "consumer's writes into a landed stage need before the stage is refilled).");
  static_assert(cd::stores_match_all<L>,
                "porter lowering conformance: the stores must be: template <class Box> static void store_box(const "
                "tiled_destination<Box>& dst, const typename Box::element_type* tile, const coord<Box::rank>& at, const "
                "detail::copy_context& ctx), template <reduce_op Op, class Box> static void reduce_box(the same), static void "
                "store_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx), static void "
                "store_commit(const detail::copy_context&), template <int N> static void store_wait_read(const "
                "detail::copy_context&), store_wait_read_before_release and store_wait_write (the same).");
  static_assert(cd::protocol_matches_all<L>(),
                "porter lowering conformance: template <class Ring> protocol must have init(unsigned char*, unsigned, "
                "unsigned), acquire/commit/release(unsigned stage, unsigned pass), wait(unsigned stage, unsigned pass, "
                "unsigned pending_after), template <int I, class Box, cache_hint H = cache_hint::none> copy_box(unsigned stage, "
                "element*, const tiled_source<Box>&, const coord<rank>&), template <int I, cache_hint H = cache_hint::none> "
                "copy_bytes(unsigned stage, void*, const void*, std::size_t) and static constexpr int stages.");
  static_assert(cd::role_protocol_matches_all<L>(),
                "porter lowering conformance: template <class Ring, class Roles> role_protocol must have the protocol's "
                "operations (init, acquire, copy_box, copy_bytes, commit, wait, release, stages), commit_written(unsigned "
                "stage, unsigned pass), enter_role(bool producer) and sync_role(bool producer) (porter/role_pipeline.hpp).");
  return true;
}

/// True when fragment-load flavour F conforms (see the file comment); otherwise compilation fails
/// with a sentence. Use as `static_assert(porter::backend::check_fragment_conformance<F>());`.
template <class F>
constexpr bool check_fragment_conformance() {
  namespace cd = conformance_detail;
  static_assert(std::is_class_v<F> && std::is_empty_v<F> && std::is_trivially_default_constructible_v<F>,
                "porter fragment conformance: fragment_loads is an empty, trivially constructible struct.");
  static_assert(std::is_same_v<typename cd::fragment_instruction_of<F>::type, const char* const*>,
                "porter fragment conformance: fragment_loads must have static constexpr const char* instruction (the "
                "instruction in words).");
  static_assert(cd::fragment_load_matches<F, 1> && cd::fragment_load_matches<F, 2> && cd::fragment_load_matches<F, 4>,
                "porter fragment conformance: load must be: template <int N, bool Trans, class At> static void load(std::uint32_t "
                "(&r)[N], const At& at), for N = 1, 2, 4 and Trans = false, true.");
#if !PORTER_HIP  // the wgmma descriptor's address: NVIDIA only
  static_assert(std::is_same_v<typename cd::shared_address_of<F>::type, std::uint32_t (*)(const void*)>,
                "porter fragment conformance: the NVIDIA flavour must have static std::uint32_t shared_address(const void* p).");
#endif
  return true;
}

/// True when grid-control flavour G conforms (see the file comment); otherwise compilation fails
/// with a sentence. Use as `static_assert(porter::backend::check_grid_conformance<G>());`.
template <class G>
constexpr bool check_grid_conformance() {
  namespace cd = conformance_detail;
  static_assert(std::is_class_v<G> && std::is_empty_v<G> && std::is_trivially_default_constructible_v<G>,
                "porter grid conformance: grid_control is an empty, trivially constructible struct.");
  static_assert(std::is_same_v<typename cd::grid_instructions_of<G>::type, const char* const*>,
                "porter grid conformance: grid_control must have static constexpr const char* instructions (the "
                "instructions in words).");
  static_assert(std::is_same_v<typename cd::cluster_rank_of<G>::type, unsigned (*)()> &&
                    std::is_same_v<typename cd::cluster_size_of<G>::type, unsigned (*)()>,
                "porter grid conformance: cluster_rank and cluster_size must be: static unsigned cluster_rank(), static "
                "unsigned cluster_size().");
  static_assert(std::is_same_v<typename cd::cluster_sync_of<G>::type, void (*)()> &&
                    std::is_same_v<typename cd::wait_prior_grid_of<G>::type, void (*)()> &&
                    std::is_same_v<typename cd::launch_dependents_of<G>::type, void (*)()>,
                "porter grid conformance: cluster_sync, wait_prior_grid and launch_dependents must be: static void f().");
  return true;
}

}  // namespace porter::backend
