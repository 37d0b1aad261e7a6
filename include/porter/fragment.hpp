// porter/fragment.hpp — warp-level fragment loads from a landed (swizzled) tile, and the wgmma
// shared-memory matrix descriptor of one: moving data from shared memory to registers.
//
// A fragment is what a warp holds of one to four 8 x 8 matrices of 2-byte elements after a
// matrix load: per lane, one 32-bit register (two elements) per matrix, in the layout of PTX ISA
// 9.7.14.5.15 "ldmatrix" (also the A/B operand fragments of mma.m16n8k16):
//
//   lane l, matrix m:  reg[m] = M_m(l/4, 2(l%4))  |  M_m(l/4, 2(l%4)+1) << 16     (element bits)
//   transposed:        reg[m] = M_m(2(l%4), l/4)  |  M_m(2(l%4)+1, l/4) << 16
//
// load_fragments<Rows, Cols>(tile, row0, col0) loads the Rows x Cols elements at (row0, col0) of a
// tile seen as a matrix (Box::rows rows, the outer dimensions flattened, by Box::inner columns;
// tile_view::matrix_byte_offset), cut into 8 x 8 matrices taken DOWN THE COLUMNS FIRST:
// matrix m is the block at rows row0 + 8 (m % (Rows/8)), columns col0 + 8 (m / (Rows/8)).
// So <16, 16> is mma.m16n8k16's A operand (a0..a3), <8, 16> its B operand from a K-major [n][k]
// tile (b0, b1), <16, 8, true> the same B from a [k][n] tile.
// With porter::along_rows as the last argument the matrices are taken ALONG THE ROWS FIRST instead
// (matrix m at rows row0 + 8 (m / (Cols/8)), columns col0 + 8 (m % (Cols/8))): <16, 16> of a K-major
// [n][k] tile is then the B operands of two n8 tiles in register pairs, (b0, b1) of rows n0..n0+7 in
// reg[0], reg[1] and of rows n0+8..n0+15 in reg[2], reg[3]: the adjacent registers an mma reads, so
// no register copies stand between the load and the mma. (Down the columns, a tile's b0 and b1 are
// reg[j] and reg[j + 2], and the compiler copies them into a pair before the mma: ptxas 13.0 did so
// before every one of porter-bench's bf16 mma.sync, two moves per mma.) Every address goes through the
// tile's swizzle mode: the same registers from a dense, 32 B, 64 B or 128 B swizzled tile.
//
// Lowering (the vendor's fragment_loads, reached as porter/fragments/load.hpp by include path):
// NVIDIA ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 (sm_75+, one instruction);
// AMD ds_read_b32 per matrix, or two ds_read_u16 transposed (no cross-lane load; each lane reads
// its own elements, lane taken modulo 32). Bit-identical on both (tests/device/test_fragment.cu).
#pragma once
#include <cstdint>

#include "porter/box.hpp"
#include "porter/config.hpp"
#include "porter/detail/trap.hpp"
#include "porter/fragments/load.hpp"
#include "porter/matrix_descriptor.hpp"

namespace porter {

/// The order in which load_fragments takes the 8 x 8 matrices of its Rows x Cols region (file
/// comment): down_columns, the default (matrix m at row block m % (Rows/8), column block
/// m / (Rows/8)), or along_rows (row block m / (Cols/8), column block m % (Cols/8)). The two agree
/// when the region is one matrix wide or one matrix high.
enum class matrix_order { down_columns, along_rows };

/// matrix_order as a value passed to load_fragments (its last argument): porter::down_columns,
/// porter::along_rows.
template <matrix_order O>
struct matrix_order_tag {
  static constexpr matrix_order value = O;
};
inline constexpr matrix_order_tag<matrix_order::down_columns> down_columns{};
inline constexpr matrix_order_tag<matrix_order::along_rows> along_rows{};

/// What one lane holds of N (1, 2 or 4) 8x8 b16 matrices: reg[m] packs two elements of matrix m,
/// the lower column (or, transposed, the lower row) in bits 0-15.
template <int N>
struct fragment {
  static_assert(N == 1 || N == 2 || N == 4, "porter::fragment: a fragment holds 1, 2 or 4 matrices (ldmatrix .x1, .x2, .x4).");
  std::uint32_t reg[N];
};

namespace detail {
/// T, spelled so that it depends on D (names of a vendor's layer used only by some templates).
template <class D, class T> struct dependent { using type = T; };

template <class Box, int Rows, int Cols>
PORTER_HOST_DEVICE constexpr bool check_fragment_shape() {
  static_assert(is_box<Box>::value, "porter::load_fragments: the tile must be a porter::tile_view of a porter::box.");
  static_assert(sizeof(typename Box::element_type) == 2,
                "porter::load_fragments: the element type must be 2 bytes (b16: half, bf16, 16-bit integers); ldmatrix moves b16 matrices.");
  static_assert(Box::rank >= 2, "porter::load_fragments: the box must have at least 2 dimensions (rows and columns of a matrix).");
  static_assert(Rows % 8 == 0 && Cols % 8 == 0 && Rows > 0 && Cols > 0,
                "porter::load_fragments: Rows and Cols must be multiples of 8 (fragments are made of 8 x 8 matrices).");
  static_assert(Rows * Cols == 64 || Rows * Cols == 128 || Rows * Cols == 256,
                "porter::load_fragments: Rows x Cols must be 64, 128 or 256 elements: 1, 2 or 4 matrices of 8 x 8 (ldmatrix .x1, .x2, .x4).");
  static_assert(Box::inner_bytes % 16 == 0,
                "porter::load_fragments: the box's innermost row must be a multiple of 16 bytes (8 elements), so that every "
                "matrix row starts on a 16-byte boundary.");
  static_assert(std::size_t(Rows) <= Box::rows && Cols <= Box::inner,
                "porter::load_fragments: the Rows x Cols region is larger than the tile.");
  return true;
}
}  // namespace detail

#if PORTER_GPU_COMPILER
/// Load the fragment of the Rows x Cols region at (row0, col0) of a landed tile into registers:
/// Rows x Cols / 64 matrices of 8 x 8, taken down the columns first or, with porter::along_rows as
/// the last argument, along the rows first (file comment), each Trans-posed or not.
/// Warp-collective: all 32 lanes of a warp call it together with the same arguments (converged,
/// like ldmatrix's .sync.aligned); it reads shared memory only.
///
/// Shapes in elements: Rows, Cols multiples of 8 with Rows x Cols in {64, 128, 256}; the tile is
/// Box::rows x Box::inner (tile_view::matrix_byte_offset). Element size 2 bytes; innermost box row
/// a multiple of 16 bytes. Preconditions: 0 <= row0 <= Box::rows - Rows, col0 a multiple of 8 with
/// 0 <= col0 <= Box::inner - Cols (so every matrix row is 16 bytes on a 16-byte boundary: one
/// swizzle chunk); with PORTER_DEBUG=1 a violation traps with a message. The tile's buffer is the
/// one porter landed (aligned to its swizzle atom). Source: PTX ISA 9.7.14.5.15 "ldmatrix".
/// Returns fragment<Rows * Cols / 64> (spelled auto, so that a wrong shape fails with this function's sentence first).
template <int Rows, int Cols, bool Trans = false, class Box, matrix_order Order = matrix_order::down_columns>
PORTER_DEVICE PORTER_FORCEINLINE auto load_fragments(tile_view<Box> tile, int row0, int col0, matrix_order_tag<Order> = {}) {
  static_assert(detail::check_fragment_shape<Box, Rows, Cols>());
  constexpr int N = Rows * Cols / 64;
  constexpr int block_rows = Rows / 8, block_cols = Cols / 8;
#if PORTER_DEBUG
  if (row0 < 0 || row0 > int(Box::rows) - Rows || col0 < 0 || col0 % 8 != 0 || col0 > Box::inner - Cols)
    detail::trap("load_fragments: the region (row0, col0) is outside the tile, or col0 is not a multiple of 8");
#endif
  const unsigned char* base = reinterpret_cast<const unsigned char*>(tile.data());
  // row0 split into its multiple of 8 and the rest (0 when row0 is a multiple of 8, which a compiler
  // sees for warp offsets like 64 w + 16 i): the swizzle then depends on the lane's row and the
  // columns only (tile_view::matrix_byte_offset(row8, row_lo, col)).
  const int row8 = row0 & ~7, row0_lo = row0 & 7;
  fragment<N> f;
  backend::fragment_loads::load<N, Trans>(f.reg, [&](int m, int row, int col) {
    const int row_lo = row0_lo + row;
    if constexpr (Order == matrix_order::down_columns)
      return base + tile_view<Box>::matrix_byte_offset(row8 + 8 * (m % block_rows), row_lo, col0 + 8 * (m / block_rows) + col);
    else
      return base + tile_view<Box>::matrix_byte_offset(row8 + 8 * (m / block_cols), row_lo, col0 + 8 * (m % block_cols) + col);
  });
  return f;
}

/// The sm_90 wgmma shared-memory matrix descriptor (PTX ISA 9.7.15.5.1) of a landed swizzled tile
/// read as a K-major operand (porter::wgmma_k_major<Box>: rows along M or N, K along the innermost
/// row), for the operand whose first element is (row0, col0): start address data() + row0 x span
/// + col0 x 2 bytes (the dense, unswizzled position: the hardware swizzles on the address bits),
/// SBO 8 x span, LBO 16 (unused), base offset 0, the box's swizzle mode. Advancing col0 by 16 is the
/// next K step of a bf16/f16 wgmma (32 bytes). Preconditions: row0 a multiple of 8 (the start on
/// the pattern's repeat, so the base offset is 0), col0 a multiple of 8, both inside the tile
/// (PORTER_DEBUG traps otherwise). NVIDIA only; the instruction needs sm_90a.
template <class Box>
PORTER_DEVICE PORTER_FORCEINLINE std::uint64_t wgmma_descriptor(tile_view<Box> tile, int row0 = 0, int col0 = 0) {
  using layout = wgmma_k_major<Box>;
  static_assert(!arch::hip || sizeof(Box) == 0, "porter::wgmma_descriptor: wgmma is an NVIDIA sm_90a instruction; there is none under HIP.");
#if PORTER_DEBUG
  if (row0 < 0 || row0 % 8 != 0 || row0 >= int(Box::rows) || col0 < 0 || col0 % 8 != 0 || col0 >= Box::inner)
    detail::trap("wgmma_descriptor: row0 and col0 must be multiples of 8 inside the tile");
#endif
  matrix_descriptor_fields f;
  f.start_address = detail::dependent<Box, backend::fragment_loads>::type::shared_address(tile.data()) + std::uint32_t(row0) * std::uint32_t(Box::inner_bytes) +
                    std::uint32_t(col0) * 2u;
  f.leading_byte_offset = layout::leading_byte_offset;
  f.stride_byte_offset = layout::stride_byte_offset;
  f.base_offset = 0;
  f.mode = layout::mode;
  return encode_matrix_descriptor(f);
}
#endif  // PORTER_GPU_COMPILER

}  // namespace porter
