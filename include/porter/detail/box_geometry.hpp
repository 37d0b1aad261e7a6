// porter/detail/box_geometry.hpp — where each chunk of a box comes from (neutral arithmetic).
//
// The element-wise paths (cp_async, staged, hip) split a box into chunks of W bytes (W a power of
// two, 1..16) and give each thread chunks k = thread, thread + nthreads, ... A chunk never straddles
// the tensor's lower edge: W divides the byte address of the tensor's first element, every stride in
// bytes and the box's first column in bytes, so a chunk starting before column 0 ends before it.
// It may straddle the upper edge of the innermost dimension; `valid` then counts the bytes inside.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/config.hpp"

namespace porter::detail {

/// Lowest set bit of x, capped at 16 (x == 0 gives 16): the widest aligned access x allows.
PORTER_HOST_DEVICE constexpr unsigned widest_access(std::uint64_t x) {
  const std::uint64_t low = x & (~x + 1);
  return (x == 0 || low >= 16) ? 16u : unsigned(low);
}

/// Widest chunk (bytes, 1..16) for copying `Box` from a tensor at `ptr` with `stride` (elements)
/// starting at `at`: limited by the base address, each outer stride in bytes (both in
/// tiled_source::chunk_bits, set on the host), the first column in bytes and the box row in bytes
/// (the shared-memory side). Only the low four bits of each term decide the width, so the terms are
/// 32-bit: one OR with the host's bits per copy (this runs once per box copy in every thread).
template <class Box, class Src>
PORTER_HOST_DEVICE PORTER_FORCEINLINE unsigned box_chunk_bytes(const Src& src, const coord<Box::rank>& at) {
  constexpr std::uint32_t esize = sizeof(typename Box::element_type);
  std::uint32_t bits = src.chunk_bits | std::uint32_t(Box::inner_bytes % 16) | std::uint32_t(at[Box::rank - 1]) * esize;
  bits &= 15u;
  return bits == 0 ? 16u : (bits & (0u - bits));
}

/// Where dense byte `o` of a Box lands in its shared-memory buffer: o, or o swizzled in the box's
/// mode (porter/swizzle.hpp). A chunk of W <= 16 bytes at a W-aligned `o` stays contiguous (the
/// swizzle moves whole 16-byte chunks).
template <class Box>
PORTER_HOST_DEVICE PORTER_FORCEINLINE constexpr std::uint32_t landing_offset(std::uint32_t o) {
  return swizzle_offset(Box::swizzle_mode, o);
}

/// Where chunk `k` (of W bytes) of a box lands and comes from.
struct chunk_source {
  std::size_t dst_offset;   ///< bytes from the buffer's start in shared memory (swizzle applied)
  const void* src;          ///< global address; a valid in-tensor address even when valid == 0
  unsigned valid;           ///< bytes inside the tensor (0..W); the rest read as zero
};

/// Locate chunk k of W bytes of `Box` at `at` in `src` (see file comment). The index arithmetic
/// inside the box is 32-bit (a box holds far fewer than 2^31 chunks: it fits in shared memory), so
/// its row/column split is a 32-bit multiply-high by a constant; only the tensor offset is 64-bit.
template <class Box, unsigned W, class Src>
PORTER_HOST_DEVICE PORTER_FORCEINLINE chunk_source locate_chunk(const Src& src, const coord<Box::rank>& at,
                                                                std::size_t k) {
  using T = typename Box::element_type;
  constexpr int R = Box::rank;
  constexpr unsigned chunks_per_row = unsigned(Box::inner_bytes / W);
  static_assert(Box::rows * (Box::inner_bytes / W) < (std::size_t(1) << 31), "porter: a box of 2^31 chunks or more cannot be in shared memory.");
  const unsigned kk = unsigned(k);
  const unsigned row = kk / chunks_per_row;
  const unsigned c = kk - row * chunks_per_row;
  // Decompose the row index into outer box indices (outermost first) and test each dimension.
  unsigned rest = row;
  std::int64_t elem = 0;
  bool inside = true;
PORTER_UNROLL
  for (int d = R - 2; d >= 0; --d) {
    const unsigned bd = unsigned(Box::dim(d));
    const int idx = at[d] + int(rest % bd);
    rest /= bd;
    inside = inside && idx >= 0 && idx < src.extent[d];
    elem += std::int64_t(idx) * src.stride[d];
  }
  // Innermost dimension in bytes.
  const std::int64_t col_bytes = std::int64_t(at[R - 1]) * std::int64_t(sizeof(T)) + std::int64_t(c * W);
  const std::int64_t row_bytes = src.extent[R - 1] * std::int64_t(sizeof(T));
  std::int64_t v = row_bytes - col_bytes;
  v = v < 0 ? 0 : (v > std::int64_t(W) ? std::int64_t(W) : v);
  if (!inside || col_bytes < 0) v = 0;
  const unsigned char* base = reinterpret_cast<const unsigned char*>(src.ptr);
  const unsigned char* from = base + elem * std::int64_t(sizeof(T)) + col_bytes;
  return chunk_source{landing_offset<Box>(row * unsigned(Box::inner_bytes) + c * W), v ? static_cast<const void*>(from) : static_cast<const void*>(base),
                      unsigned(v)};
}

/// True when every element of the box at `at` lies inside the tensor: no chunk is cut by an edge
/// and none reads as zero, so the copy needs no per-chunk bounds (the interior fast path).
/// One unsigned compare per dimension against the host-computed tiled_source::interior_end.
template <class Box, class Src>
PORTER_HOST_DEVICE PORTER_FORCEINLINE bool box_inside(const Src& src, const coord<Box::rank>& at) {
  bool in = true;
PORTER_UNROLL
  for (int d = 0; d < Box::rank; ++d) in = in && std::uint32_t(at[d]) < src.interior_end[d];
  return in;
}

/// Global address of chunk k (W bytes) of a box at `at` that lies wholly inside the tensor
/// (box_inside holds; k < box_chunks<Box, W>). Inside, every index is in [0, 2^31) (interior_end
/// stops below 2^31), so the arithmetic is unsigned with no sign extension: the chunk's row is split
/// with the box's compile-time dimensions, each outer dimension adds one 32-bit index (at[d] plus
/// the row's index in the box) times its 64-bit stride, and the chunk's column joins the innermost
/// index in elements (when W is a multiple of the element size; a chunk of part of an element adds
/// its bytes after the scaling), so a 2D chunk is one 32 x 64-bit
/// multiply-add and a scaled add of the pointer (the element-wise copies run this in every copying
/// thread, every step; the row, column and box sums are 32-bit).
template <class Box, unsigned W, class Src>
PORTER_HOST_DEVICE PORTER_FORCEINLINE const unsigned char* interior_chunk(const Src& src, const coord<Box::rank>& at, unsigned k) {
  constexpr int R = Box::rank;
  constexpr unsigned esize = unsigned(sizeof(typename Box::element_type));
  // W and the element size are powers of two: a chunk is whole elements (W >= esize) or a part
  // of one (an 8-byte element copied in 4-byte chunks when its address is only 4-byte aligned).
  constexpr bool whole = W >= esize;
  constexpr unsigned per_row = unsigned(Box::inner_bytes / W);
  const unsigned row = k / per_row, c = k - row * per_row;
  // The innermost index: at most at[R-1] + Box::inner - 1 < 2^31.
  std::uint64_t elem = std::uint32_t(at[R - 1]) + (whole ? c * (W / esize) : 0u);
  unsigned rest = row;
PORTER_UNROLL
  for (int d = R - 2; d >= 1; --d) {
    const unsigned bd = unsigned(Box::dim(d));
    elem += std::uint64_t(std::uint32_t(at[d]) + rest % bd) * std::uint64_t(src.stride[d]);
    rest /= bd;
  }
  if constexpr (R >= 2) elem += std::uint64_t(std::uint32_t(at[0]) + rest) * std::uint64_t(src.stride[0]);  // row < Box::rows: no modulo
  return reinterpret_cast<const unsigned char*>(src.ptr) + elem * esize + (whole ? 0u : c * W);
}

/// Number of W-byte chunks in a box.
template <class Box, unsigned W>
inline constexpr std::size_t box_chunks = Box::rows * (Box::inner_bytes / W);

/// The bytes a CTA-wide step of chunks must be a multiple of for every chunk of one thread to keep
/// its column and its swizzle XOR (the row advances by whole pattern repeats): a row for a dense box,
/// the swizzle atom (8 rows of the span) for a swizzled one. Then chunk k + n lands n x 16 bytes
/// after chunk k in shared memory and n x 16 / inner_bytes rows after it in the tensor.
template <class Box>
inline constexpr unsigned interior_step_unit =
    Box::swizzle_mode == swizzle::none ? unsigned(Box::inner_bytes) : unsigned(swizzle_atom_bytes(Box::swizzle_mode));

/// The stepped walk of a 2D box wholly inside the tensor (box_inside), in 16-byte chunks, n threads
/// copying (thread t takes chunks t, t + n, t + 2n, ...): where a thread's chunk k comes from and
/// lands, and the constant steps to its chunk k + n. The cp_async copies use it
/// (porter/cp_async/copy.hpp); tests/host/box_geometry_test.cpp checks it against interior_chunk and
/// landing_offset for every chunk.
struct stepped_chunks {
  const unsigned char* src;  ///< global address of chunk k (interior_chunk<Box, 16>)
  std::uint64_t src_step;    ///< bytes from it to chunk k + n in the tensor
  std::uint32_t dst;         ///< its landing offset in the buffer, swizzle applied (landing_offset)
  std::uint32_t dst_step;    ///< bytes from it to chunk k + n in shared memory (step_bytes = n x 16)
};

/// True when a step of n 16-byte chunks (step_bytes = n x 16) is whole swizzle atoms of Box (whole
/// rows when dense, interior_step_unit): every chunk of one thread then keeps its column and its
/// swizzle XOR, so first_stepped's constant steps hold. 2D boxes only.
template <class Box>
PORTER_HOST_DEVICE PORTER_FORCEINLINE constexpr bool steps_by_constants(unsigned step_bytes) {
  return Box::rank == 2 && step_bytes % interior_step_unit<Box> == 0;
}

/// Chunk k's address and landing offset, computed once (interior_chunk, landing_offset), and the
/// steps to chunk k + n: step_bytes in shared memory, step_bytes / inner_bytes rows (times stride[0]
/// elements) in the tensor. Preconditions: steps_by_constants<Box>(step_bytes), box_inside, and 16-
/// byte chunks (box_chunk_bytes == 16). The caller keeps the running address and offset in locals
/// of its own: nvcc 13.0 gave a loop that advanced this struct's fields one more instruction.
template <class Box, class Src>
PORTER_HOST_DEVICE PORTER_FORCEINLINE stepped_chunks first_stepped(const Src& src, const coord<Box::rank>& at, unsigned k,
                                                                   unsigned step_bytes) {
  return stepped_chunks{interior_chunk<Box, 16>(src, at, k),
                        std::uint64_t(step_bytes / unsigned(Box::inner_bytes)) * std::uint64_t(src.stride[0]) *
                            sizeof(typename Box::element_type),
                        landing_offset<Box>(k * 16), step_bytes};
}

/// The wrapped walk: the stepped walk of a dense 2D box (no swizzle) for a copying set whose step is
/// not whole rows (steps_by_constants false: the skewed 128 x 144 bf16 box of a wmma port, 18 chunks
/// a row against 256 threads, or a stencil's 34 x 136 fp32 box with its halo, 34 chunks a row). A
/// step of n chunks is q = n / C rows and r = n % C chunks (C = chunks per row); after it the column
/// is col + r, and when that reaches C the chunk is one row further and C columns back. So per further chunk: one 64-bit add of the step, one compare, and one 64-bit add of
/// `wrap` when the column wrapped, instead of the row split (a division by C) and the 32 x 64-bit
/// multiply-add of interior_chunk. Shared memory needs nothing: a dense box lands chunk k at k x 16.
/// tests/host/box_geometry_test.cpp checks it against interior_chunk for every chunk of every
/// copying set 1..1024.
struct wrapped_chunks {
  const unsigned char* src;  ///< global address of chunk k (interior_chunk<Box, 16>)
  std::uint64_t src_step;    ///< q rows and r chunks, in bytes
  std::uint64_t wrap;        ///< added when the column wraps: one row (stride[0] bytes) less a row of the box
  unsigned col;              ///< chunk k's column (in chunks, < C)
  unsigned col_step;         ///< r
};

/// True when the wrapped walk applies: a dense 2D box (row chunks C = inner_bytes / 16).
template <class Box>
inline constexpr bool walks_wrapped = Box::rank == 2 && Box::swizzle_mode == swizzle::none;

/// Chunk k's address and column, computed once, and the steps of the wrapped walk for a copying set
/// of n threads. Preconditions: walks_wrapped<Box>, box_inside, 16-byte chunks (box_chunk_bytes ==
/// 16). As with first_stepped, the caller keeps the running values in locals of its own.
template <class Box, class Src>
PORTER_HOST_DEVICE PORTER_FORCEINLINE wrapped_chunks first_wrapped(const Src& src, const coord<Box::rank>& at, unsigned k,
                                                                   unsigned n) {
  constexpr unsigned per_row = unsigned(Box::inner_bytes / 16);
  const std::uint64_t pitch = std::uint64_t(src.stride[0]) * sizeof(typename Box::element_type);
  const unsigned q = n / per_row, r = n - q * per_row;
  return wrapped_chunks{interior_chunk<Box, 16>(src, at, k), std::uint64_t(q) * pitch + r * 16u, pitch - per_row * 16u,
                        k % per_row, r};
}

}  // namespace porter::detail
