// porter/mechanisms.hpp — which mechanism moves each copy's bytes, decided per copy (host).
//
// A path is how a pipeline moves bytes, but not every copy of a path uses the path's instruction:
//   tma       2D-5D boxes: cp.async.bulk.tensor ("tma tensor"), except boxes whose innermost
//             coordinate is not a multiple of 16 bytes, which move with thread loads (TMA faults on
//             those); 1D boxes and byte ranges: cp.async.bulk ("bulk") for the 16-byte-aligned body,
//             thread loads for the unaligned head and tail (< 16 B each) and for ranges whose source
//             and destination disagree modulo 16; the part of a 1D box outside the tensor is stored
//             as zero by the threads ("zero fill").
//   cp_async  cp.async chunks of 16, 8 or 4 bytes, the widest that the pointer, the strides, the box
//             row and the box's first column (boxes), or both addresses (byte ranges), allow; below
//             4 bytes thread loads; the tail of a byte range that is not a whole chunk: thread loads.
//   staged    thread loads, always.
// The choice depends only on the layout, the box and the coordinate (and, for byte ranges, the two
// addresses), so the host can tell it for a kernel's coordinate pattern before launch:
// copy_mechanisms counts copies and bytes per mechanism, explain(src, pattern) prints them,
// porter::launch with launch_options::strict_paths refuses a forced path whose copies would fall
// back, and kernels compiled with PORTER_STRICT_PATHS=1 trap in the fallback branches instead.
// The classification mirrors backends/tma/porter/tma/copy.hpp and backends/cp_async/porter/
// cp_async/copy.hpp; the host tests check it against an independent calculation and the device
// tests (test_strict.cu) against the kernels.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "porter/box.hpp"
#include "porter/device.hpp"
#include "porter/path.hpp"
#include "porter/source.hpp"

namespace porter {

/// What moves a copy's bytes into shared memory.
enum class mechanism : int {
  tma_tensor = 0,  ///< cp.async.bulk.tensor (tma path, 2D-5D boxes)
  bulk,            ///< cp.async.bulk (tma path, 1D boxes and byte ranges)
  cp_async_16,     ///< cp.async.cg, 16-byte chunks
  cp_async_8,      ///< cp.async.ca, 8-byte chunks
  cp_async_4,      ///< cp.async.ca, 4-byte chunks
  thread_loads,    ///< plain loads to registers and stores to shared memory
  zero_fill,       ///< thread stores of zero, no load (the out-of-tensor part of a tma 1D box)
};
/// Number of mechanisms.
inline constexpr int mechanism_count = 7;
/// "tma tensor", "bulk", "cp.async 16", "cp.async 8", "cp.async 4", "thread loads", "zero fill".
const char* mechanism_name(mechanism m);

/// Copies and bytes per mechanism over a set of copies of one path.
struct mechanism_counts {
  path_id path = path_id::staged;
  long long copies[mechanism_count] = {};  ///< async_copy calls (boxes, byte ranges) of which mechanism m moved some bytes
  long long bytes[mechanism_count] = {};   ///< shared-memory bytes that mechanism m wrote
  long long total_copies = 0;              ///< async_copy calls counted
  long long total_bytes = 0;               ///< bytes of all of them (the sum of bytes[])
  long long fallback_copies = 0;           ///< calls of which thread loads moved some bytes on tma or cp_async
  std::string first_fallback;              ///< the first such copy and why (a sentence), or empty

  /// bytes[m] / total_bytes (0 when nothing was copied).
  double fraction(mechanism m) const {
    return total_bytes > 0 ? double(bytes[int(m)]) / double(total_bytes) : 0.0;
  }
  /// True when a forced tma or cp_async path moves some of these bytes with thread loads: what
  /// strict_paths refuses (zero fill, narrower cp.async chunks and staged's loads are not fallbacks).
  bool falls_back() const { return path != path_id::staged && bytes[int(mechanism::thread_loads)] > 0; }
  /// One line: "1000 copies, 4096000 B: tma tensor 75.0% (750 copies), thread loads 25.0% (250 copies)".
  std::string describe() const;
  /// Add another set of copies of the same path.
  mechanism_counts& operator+=(const mechanism_counts& o);
};

/// The coordinates a kernel copies boxes of one source at (elements, outermost first): a tile
/// grid (tile t, in row-major order over `count`, is origin + index * step, the pattern of a
/// for_each_tile over a grid of tiles) or an explicit list. Build with tile_grid / coordinate_list.
struct copy_pattern {
  int rank = 1;
  bool is_grid = true;
  int origin[max_rank] = {};        ///< grid: the coordinate of tile 0
  int step[max_rank] = {};          ///< grid: elements between neighbouring tiles, per dimension
  long long count[max_rank] = {};   ///< grid: tiles per dimension (>= 0)
  std::vector<int> list;            ///< list: `rank` ints per coordinate

  /// Number of coordinates.
  long long size() const;
  /// Coordinate i (0 <= i < size()) into out[0..rank).
  void at(long long i, int* out) const;
  /// "grid of 128 x 512 tiles from (-1, -4) step (32, 128)" or "list of 3 coordinates".
  std::string describe() const;
};

/// A grid of tiles: tile (i0, ..., iR-1) is at origin + (i0 * step[0], ..., iR-1 * step[R-1]);
/// tile index t runs over the grid row-major (the last dimension fastest), as
/// `coord_of(t) = origin + unravel(t) * step` in a for_each_tile.
template <int R>
copy_pattern tile_grid(const coord<R>& origin, const coord<R>& step, const std::array<long long, R>& count) {
  copy_pattern p;
  p.rank = R;
  p.is_grid = true;
  for (int d = 0; d < R; ++d) { p.origin[d] = origin[d]; p.step[d] = step[d]; p.count[d] = count[std::size_t(d)]; }
  return p;
}

/// An explicit list of box coordinates.
template <int R>
copy_pattern coordinate_list(const std::vector<coord<R>>& coords) {
  copy_pattern p;
  p.rank = R;
  p.is_grid = false;
  p.list.reserve(coords.size() * std::size_t(R));
  for (const auto& c : coords)
    for (int d = 0; d < R; ++d) p.list.push_back(c[d]);
  return p;
}

/// Which mechanism moves each box copy of the source `d` at the coordinates of `pattern` when the
/// kernel runs as path `p` (a concrete path). Throws porter::error(errc::invalid_argument, rule
/// mechanisms.pattern_rank) when the pattern's rank is not the source's, and
/// (errc::path_unsupported, rule mechanisms.path_refused) when d's layout refuses `p` (explain says
/// why). Device-independent: the layout rules only (as validate_source).
mechanism_counts copy_mechanisms(const source_desc& d, const copy_pattern& pattern, path_id p);

/// copy_mechanisms for a built source.
template <class Box>
mechanism_counts copy_mechanisms(const tiled_source<Box>& s, const copy_pattern& pattern, path_id p) {
  return copy_mechanisms(s.desc(), pattern, p);
}

/// copy_mechanisms over `tiles` coordinates `coord_of(t)`, t = 0..tiles-1, computed on the host by
/// the same callable a kernel passes to for_each_tile (declare it __host__ __device__).
template <class Box, class CoordOf>
mechanism_counts copy_mechanisms(const tiled_source<Box>& s, long long tiles, CoordOf&& coord_of, path_id p) {
  copy_pattern pat;
  pat.rank = Box::rank;
  pat.is_grid = false;
  pat.list.reserve(std::size_t(tiles > 0 ? tiles : 0) * std::size_t(Box::rank));
  for (long long t = 0; t < tiles; ++t) {
    const coord<Box::rank> c = coord_of(t);
    for (int d = 0; d < Box::rank; ++d) pat.list.push_back(c[d]);
  }
  return copy_mechanisms(s.desc(), pat, p);
}

/// Which mechanism moves a byte-range copy (async_copy(buffer, src, bytes)) of `bytes` bytes from
/// global address `src` to a shared destination at address `dst` (only dst mod 16 matters: a stage
/// buffer is 128-byte aligned, so pass its byte offset) on path `p`.
mechanism_counts byte_range_mechanisms(path_id p, std::uintptr_t src, std::uintptr_t dst, std::size_t bytes);

/// explain(d, caps) followed by the copies of `pattern` on every path d's layout allows: per path,
/// the fraction of bytes and the copies each mechanism takes, and the first copy that falls back
/// with its reason.
std::string explain(const source_desc& d, const device_caps* caps, const copy_pattern& pattern);

/// explain(src, pattern) for a built source on the current device.
template <class Box>
std::string explain(const tiled_source<Box>& s, const copy_pattern& pattern, int device = -1) {
  auto caps = query_device(device);
  return explain(s.desc(), caps ? &*caps : nullptr, pattern);
}

/// Throws porter::error(errc::path_unsupported, rule launch.strict_paths) when path `p` would move
/// some bytes of the copies of kernel argument `index` (a tiled source described by `d`, copied at
/// `pattern`) with thread loads instead of the path's instruction; the message names the count,
/// the fraction of bytes and the first such copy with its reason. porter::launch calls it for
/// every source given a pattern in launch_options when strict_paths is set.
void check_strict_paths(path_id p, const source_desc& d, const copy_pattern& pattern, int index);

}  // namespace porter
