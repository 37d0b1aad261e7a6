// tests/device/store_kernels.cuh — the kernels of the store and reduction tests, written once for
// every path, and their bindings to the case loops of store_harness.cpp.
#pragma once
#include <memory>

#include "runners.cuh"
#include "store_harness.hpp"

namespace porter_test {

/// Slots first..first+trips-1 of work[blockIdx.x]: tile j (dense box bytes at tiles + j * Box::bytes)
/// is written into one of two shared buffers through tile_view (so in the box's swizzled layout),
/// then stored / reduced at coords[j]; a group per tile; a buffer is refilled after wait_read<1>.
/// Even CTAs end with wait_write, odd ones with wait_read (what a CTA needs before it exits).
template <class Path, class Box, int Mode>
__global__ void store_tiles_kernel(const __grid_constant__ porter::tiled_destination<Box> dst, const unsigned char* tiles,
                                   const porter::coord<Box::rank>* coords, const int2* work) {
  using T = typename Box::element_type;
  extern __shared__ unsigned char smem_base[];
  constexpr std::size_t atom = porter::swizzle_atom_bytes(Box::swizzle_mode);
  constexpr std::size_t buf = (Box::bytes + atom - 1) / atom * atom;
  const std::size_t pad = (atom - (reinterpret_cast<std::uintptr_t>(smem_base) & (atom - 1))) & (atom - 1);
  unsigned char* base = smem_base + pad;
  porter::store_queue<Path> q;
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  for (int i = 0; i < trips; ++i) {
    if (i >= 2) q.template wait_read<1>();  // the store of group i-2 has read buffer i % 2
    const porter::tile_view<Box> view(reinterpret_cast<T*>(base + std::size_t(i & 1) * buf));
    const T* from = reinterpret_cast<const T*>(tiles + std::size_t(first + i) * Box::bytes);
    for (std::size_t e = dev::thread_rank(); e < Box::elements; e += dev::cta_threads()) view.element(e) = from[e];
    if constexpr (Mode == int(store_mode::store)) porter::async_store(q, dst, view, coords[first + i]);
    else if constexpr (Mode == int(store_mode::add)) porter::async_reduce<porter::reduce_op::add>(q, dst, view, coords[first + i]);
    else if constexpr (Mode == int(store_mode::min)) porter::async_reduce<porter::reduce_op::min>(q, dst, view, coords[first + i]);
    else porter::async_reduce<porter::reduce_op::max>(q, dst, view, coords[first + i]);
    q.commit();
  }
  // Both ends a CTA may have (porter/store.hpp): odd CTAs leave with their writes still in flight.
  if (blockIdx.x & 1) q.wait_read();
  else q.wait_write();
}

/// Byte ranges: the CTA loads `src` (n_src bytes) into shared memory, then stores range j
/// (tri[j] = {destination offset, source offset, bytes}) to dst + j * 2112 + offset.
template <class Path, int BufferBytes>
__global__ void store_ranges_kernel(const unsigned char* src, unsigned char* dst, const int3* tri, int n) {
  __shared__ __align__(128) unsigned char buf[BufferBytes];
  for (int i = int(dev::thread_rank()); i < BufferBytes; i += int(dev::cta_threads())) buf[i] = src[i];
  porter::store_queue<Path> q;
  for (int j = 0; j < n; ++j) {
    porter::async_store(q, dst + std::size_t(j) * 2112 + tri[j].x, buf + tri[j].y, std::size_t(tri[j].z));
    q.commit();
  }
  if (n & 1) q.wait_read();  // one CTA per case: the harness gives odd cases an odd range count
  else q.wait_write();
}

template <class T> constexpr int value_kind_of() {
  return std::is_same_v<T, float> ? 0 : std::is_same_v<T, std::int32_t> ? 1 : std::is_same_v<T, std::uint32_t> ? 2 : 3;
}

/// store_tiles_kernel<Path, Box, Mode> bound to run_store_cases.
template <class Path, class Box, store_mode Mode = store_mode::store>
store_kernel store_kernel_under_test() {
  auto dst = std::make_shared<porter::tiled_destination<Box>>();
  store_kernel k;
  k.path_name = Path::name;
  k.forced = !std::is_same_v<Path, porter::path::automatic>;
  if constexpr (!std::is_same_v<Path, porter::path::automatic>) k.path = Path::id;
  k.box = detail::spec<Box>();
  k.mode = Mode;
  k.value_kind = value_kind_of<typename Box::element_type>();
  constexpr std::size_t atom = porter::swizzle_atom_bytes(Box::swizzle_mode);
  k.shared_bytes = 2 * ((Box::bytes + atom - 1) / atom * atom) + atom;
  auto make = [](auto p) { return &store_tiles_kernel<decltype(p), Box, int(Mode)>; };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.build = [dst](const geometry& g, void* ptr) {
    std::int64_t ext[Box::rank];
    std::int64_t str[Box::rank > 1 ? Box::rank - 1 : 1] = {};
    for (int d = 0; d < Box::rank; ++d) ext[d] = g.extent[d];
    for (int d = 0; d + 1 < Box::rank; ++d) str[d] = g.stride[d];
    *dst = porter::make_tiled_destination<Box>(static_cast<typename Box::element_type*>(ptr), ext, str, Box{});
  };
  k.supported = [dst] { return dst->supported; };
  k.explain = [dst] { return porter::explain(*dst); };
  const std::size_t smem = k.shared_bytes;
  k.launch = [dst, make, smem](dim3 grid, dim3 block, const unsigned char* tiles, const int* coords, const int2* work) {
    detail::launch_as<Path>(make, grid, block, smem, *dst, tiles, reinterpret_cast<const porter::coord<Box::rank>*>(coords), work);
  };
  return k;
}

template <class Path, class Box, store_mode Mode = store_mode::store>
void store_cases(test_tally& tt, const std::string& list, const case_options& opt) {
  run_store_cases(tt, list, opt, store_kernel_under_test<Path, Box, Mode>());
}

/// store_ranges_kernel<Path> bound to run_store_bytes_cases.
template <class Path>
void store_bytes_cases(test_tally& tt, const std::string& list, int ncases) {
  constexpr int buffer = 2048 + 32;
  store_bytes_kernel k;
  k.path_name = Path::name;
  k.buffer_bytes = buffer;
  auto make = [](auto p) { return &store_ranges_kernel<decltype(p), buffer>; };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.launch = [make](dim3 block, const unsigned char* src, unsigned char* dst, const int3* tri, int n) {
    detail::launch_as<Path>(make, dim3(1), block, 0, src, dst, tri, n);
  };
  run_store_bytes_cases(tt, list, ncases, k);
}

}  // namespace porter_test
