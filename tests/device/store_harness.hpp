// tests/device/store_harness.hpp — host machinery of the store and reduction tests (plain C++).
//
// A store case is one launch that writes tiles from shared memory into a destination tensor and is
// checked byte for byte against a CPU model over the WHOLE destination allocation:
//   * the destination sits inside a larger allocation whose every byte (guards, row padding, the
//     tensor) starts random and never zero; the reference is that image with exactly the box
//     elements that lie inside the tensor replaced (stores) or combined (reductions), so a byte
//     written outside the tensor — past an edge, in the padding of a pitch, before the first
//     element — is a mismatch;
//   * the tiles are fresh random data; each CTA loads them into shared memory in the box's layout
//     (through tile_view, so swizzled boxes are written swizzled) in two alternating buffers, stores
//     each with async_store / async_reduce, commits a group per tile, waits wait_read<1> before
//     refilling a buffer and wait_write at the end;
//   * box origins are a random subset of a tile grid whose origin is random (a cut at every edge),
//     plus tiles wholly outside the tensor; stores and float additions never overlap (one write per
//     element: bit-exact), integer reductions also overlap (exact in any order);
//   * byte-range stores: every (destination offset, source offset, count) of a list, including
//     unaligned heads and tails and source/destination disagreeing modulo 16.
// Where a forced path cannot write the destination, the launch must be refused on the host.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "harness.hpp"

namespace porter_test {

/// What a store kernel does with each tile: store it, or reduce it with an operator.
enum class store_mode { store, add, min, max };

/// A kernel under test for tile stores / reductions of one box type through one path.
struct store_kernel {
  const char* path_name = "";
  bool forced = true;
  porter::path_id path = porter::path_id::staged;
  source_spec box;                          ///< the box (rank, element size, dims, bytes, swizzle)
  store_mode mode = store_mode::store;
  int value_kind = 0;                       ///< reductions: 0 f32, 1 s32, 2 u32, 3 u64
  std::size_t shared_bytes = 0;
  int max_threads = 128;
  /// Build the destination over `ptr` (make_tiled_destination; throws porter::error).
  std::function<void(const geometry&, void*)> build;
  std::function<unsigned()> supported;
  std::function<std::string()> explain;
  /// porter::launch: tiles (dense box bytes per slot), coords (int[rank] per slot), work per CTA.
  std::function<void(dim3, dim3, const unsigned char*, const int*, const int2*)> launch;
};
void run_store_cases(test_tally& tt, const std::string& list, const case_options& opt, const store_kernel& k);

/// A kernel that stores byte ranges from shared memory (async_store(q, dst, src, n)).
struct store_bytes_kernel {
  const char* path_name = "";
  std::size_t shared_bytes = 0;
  int max_threads = 128;
  int buffer_bytes = 0;  ///< bytes of the shared source buffer
  /// launch(block, src bytes (global, buffer_bytes + 16), dst base, list of {dst off, src off, n} as int3, count)
  std::function<void(dim3, const unsigned char*, unsigned char*, const int3*, int)> launch;
};
void run_store_bytes_cases(test_tally& tt, const std::string& list, int ncases, const store_bytes_kernel& k);

}  // namespace porter_test
