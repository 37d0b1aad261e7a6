// porter/box.hpp — tile shapes (boxes), coordinates and the shared-memory view of a landed tile.
//
// Conventions (used everywhere in porter):
//   * Extents, strides, coordinates and box dimensions are listed OUTERMOST FIRST, like a C array
//     declaration: box<float, 32, 128> is `float tile[32][128]` (32 rows of 128 contiguous floats).
//     The tensor-map encoder reverses them (CUDA driver API lists innermost first).
//   * All extents and coordinates are in elements; sizes in bytes say so in their name.
//   * A tile lands in shared memory densely packed, row-major: element (i0, ..., iR-1) of the box
//     is at dense offset ((i0 * B1 + i1) * B2 + ...) elements. A swizzled box (porter::swizzled,
//     porter/swizzle.hpp) then permutes the 16-byte chunks of that dense image inside each swizzle
//     span. The layout is identical on every path, which is what makes tiles bit-identical across
//     paths; tile_view reads through it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "porter/config.hpp"
#include "porter/swizzle.hpp"

namespace porter {

/// The highest tensor and box rank porter moves: TMA tensor copies are 1D-5D (PTX ISA 9.7.9.27,
/// cp.async.bulk.tensor; cuTensorMapEncodeTiled's tensorRank <= 5). Every rank limit names this.
inline constexpr int max_rank = 5;

/// Coordinates of a box's first element in a rank-R tensor, in elements, outermost first.
/// May be negative or reach past the tensor: elements outside the tensor read as zero.
/// TMA takes 32-bit signed coordinates (PTX ISA 9.7.9.27, cp.async.bulk.tensor), so porter does too;
/// the element-wise paths compute each index of a box (at[d] + i, i < Box::dim(d)) in 32 bits, so a
/// box must not reach past index 2^31 - 1 of any dimension.
template <int R>
struct coord {
  static_assert(R >= 1 && R <= max_rank, "porter::coord: rank must be 1..5 (TMA tensor copies are 1D-5D).");
  int v[R];
  PORTER_HOST_DEVICE constexpr int operator[](int d) const { return v[d]; }
  PORTER_HOST_DEVICE constexpr int& operator[](int d) { return v[d]; }
};
template <class... I> coord(I...) -> coord<sizeof...(I)>;

template <class B> struct is_box;

/// A tile shape: element type T and box dimensions (elements, outermost first).
///
/// Requirements (static_assert): T trivially copyable with sizeof(T) in {1, 2, 4, 8, 16}; rank 1..5;
/// every dimension >= 1. Limits that depend on the path (TMA's 1..256 per dimension, 16-byte
/// multiple inner bytes) are checked on the host by make_tiled_source and reported by explain().
template <class T, int... Dims>
struct box {
  using element_type = T;
  static_assert(std::is_trivially_copyable_v<T>,
                "porter::box: the element type must be trivially copyable; porter moves bytes.");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "porter::box: the element size must be 1, 2, 4, 8 or 16 bytes.");
  static constexpr int rank = sizeof...(Dims);
  static_assert(rank >= 1 && rank <= max_rank, "porter::box: a box has 1 to 5 dimensions.");
  static_assert(((Dims >= 1) && ...), "porter::box: every box dimension must be at least 1 element.");
  static constexpr int dims[rank] = {Dims...};
  /// Box dimension d in elements (usable in device code with a run-time d).
  PORTER_HOST_DEVICE static constexpr int dim(int d) {
    const int a[rank] = {Dims...};
    return a[d];
  }
  /// Elements in the box.
  static constexpr std::size_t elements = (std::size_t(Dims) * ...);
  /// Bytes of the box in shared memory (dense).
  static constexpr std::size_t bytes = elements * sizeof(T);
  /// Elements in one innermost row.
  static constexpr int inner = dim(rank - 1);
  /// Bytes in one innermost row.
  static constexpr std::size_t inner_bytes = std::size_t(inner) * sizeof(T);
  /// Number of innermost rows (product of the outer dimensions; 1 for a 1D box).
  static constexpr std::size_t rows = elements / std::size_t(inner);
  /// Shared-memory swizzle mode: none (dense). porter::swizzled<box<...>, mode> sets one.
  static constexpr porter::swizzle swizzle_mode = porter::swizzle::none;
};

/// Box `Box` landing in shared memory in swizzle mode `S` (porter/swizzle.hpp): the same shape,
/// element type and sizes as Box; its 16-byte chunks are permuted inside each S-byte span. Example:
/// `porter::swizzled<porter::box<__nv_bfloat16, 64, 64>, porter::swizzle::b128>` is a 64 x 64 bf16
/// tile whose 128-byte rows are 128 B-swizzled, the layout ldmatrix and wgmma consumers read
/// without bank conflicts.
///
/// Requirements (static_assert, each a sentence): Box is an unswizzled porter::box of rank >= 2
/// (swizzle permutes chunks by row); S is not none; the innermost row is exactly one span (32, 64
/// or 128 bytes), the layout TMA, ldmatrix and wgmma agree on (a wider tile is several boxes).
/// Every element size 1..16 B is allowed. The stage buffer of a swizzled box is aligned to
/// swizzle_atom_bytes(S) (256 / 512 / 1024 B) by the stage ring.
template <class Box, porter::swizzle S>
struct swizzled : Box {
  static_assert(is_box<Box>::value && Box::swizzle_mode == porter::swizzle::none,
                "porter::swizzled: the first argument must be an unswizzled porter::box<T, dims...>.");
  static_assert(S != porter::swizzle::none, "porter::swizzled: give a swizzle mode (b32, b64 or b128); a plain box is unswizzled.");
  static_assert(Box::rank >= 2, "porter::swizzled: a swizzled box has at least 2 dimensions (swizzle permutes 16-byte chunks by row).");
  static_assert(Box::inner_bytes == std::size_t(swizzle_span(S)),
                "porter::swizzled: the box's innermost row must be exactly the swizzle span (32, 64 or 128 bytes): choose the mode "
                "that matches the row (e.g. 64 bf16 -> b128, 32 bf16 -> b64), or split a wider tile into several boxes.");
  /// The unswizzled box of the same shape.
  using dense_box = Box;
  static constexpr porter::swizzle swizzle_mode = S;
};

/// True for porter::box and porter::swizzled types.
template <class B> struct is_box : std::false_type {};
template <class T, int... D> struct is_box<box<T, D...>> : std::true_type {};
template <class B, porter::swizzle S> struct is_box<swizzled<B, S>> : std::true_type {};

/// A view of one landed box in shared memory: T(i0, ..., iR-1), outermost index first, read
/// through the box's swizzle mode. Holds only a pointer; valid between consumer_wait and
/// consumer_release of its stage.
template <class Box>
class tile_view {
 public:
  using element_type = typename Box::element_type;
  using box_type = Box;
  static constexpr int rank = Box::rank;
  /// The box's shared-memory swizzle mode (porter/swizzle.hpp).
  static constexpr porter::swizzle swizzle_mode = Box::swizzle_mode;
  PORTER_HOST_DEVICE explicit tile_view(element_type* p) : p_(p) {}
  /// Pointer to the buffer's first byte, as element_type: element (0, ..., 0) (swizzling never
  /// moves the first chunk). Aligned to swizzle_atom_bytes(swizzle_mode) (128 B for none). With a
  /// swizzle, the elements behind it are in the swizzled order: give this address and
  /// swizzle_mode to a consumer that addresses the tile itself (ldmatrix, a wgmma descriptor).
  PORTER_HOST_DEVICE element_type* data() const { return p_; }
  /// Box dimension d in elements.
  PORTER_HOST_DEVICE static constexpr int extent(int d) { return Box::dim(d); }
  /// Byte offset from data() of the element at the given box-relative indices (outermost first),
  /// swizzle applied. No bounds check.
  template <class... I>
  PORTER_HOST_DEVICE static std::uint32_t byte_offset(I... idx) {
    static_assert(sizeof...(I) == rank, "porter::tile_view: give one index per box dimension.");
    std::uint32_t off = 0;
    int d = 0;
    ((off = off * std::uint32_t(Box::dim(d++)) + std::uint32_t(idx)), ...);
    return swizzle_offset(swizzle_mode, off * std::uint32_t(sizeof(element_type)));
  }
  /// Byte offset from data() of element (row, col) of the box seen as a matrix of Box::rows rows
  /// (the outer dimensions flattened, outermost slowest) by Box::inner columns, swizzle applied:
  /// the view fragment loads and matrix descriptors address a tile of any rank >= 2 through.
  /// 0 <= row < Box::rows, 0 <= col < Box::inner; no bounds check.
  PORTER_HOST_DEVICE static constexpr std::uint32_t matrix_byte_offset(int row, int col) {
    return swizzle_offset(swizzle_mode, std::uint32_t(row) * std::uint32_t(Box::inner_bytes) +
                                            std::uint32_t(col) * std::uint32_t(sizeof(element_type)));
  }
  /// matrix_byte_offset(row8 + row_lo, col), split so that a compiler can share work between
  /// addresses: row8 a multiple of 8, row_lo >= 0, row8 + row_lo and col inside the box as above.
  /// A swizzled box's row is exactly its span (32, 64 or 128 bytes, a divisor of the 128-byte
  /// pattern line) and its pattern repeats every 8 rows, so the XOR is
  /// ((row_lo x inner_bytes) / 128 mod span/16) << 4 on the column bytes alone and row8 is a plain
  /// addend: loads at rows row8 + 16 i share one XOR and differ by an immediate offset
  /// (load_fragments passes row0's multiple of 8 and lane rows here: porter-bench's bf16 mma.sync
  /// GEMM computes one swizzled address per k-step for its 8 ldmatrix, not one XOR chain each).
  /// Returns bytes from data(). Source: the pattern of porter::swizzle_offset (porter/swizzle.hpp:
  /// the tensor-map swizzle modes, CUDA driver API CU_TENSOR_MAP_SWIZZLE_32B/64B/128B); the host
  /// test TileView.SplitMatrixByteOffsetIsThePlainOneForEveryModeAndElementSize holds the two equal.
  PORTER_HOST_DEVICE static constexpr std::uint32_t matrix_byte_offset(int row8, int row_lo, int col) {
    constexpr std::uint32_t ib = std::uint32_t(Box::inner_bytes);
    const std::uint32_t cb = std::uint32_t(col) * std::uint32_t(sizeof(element_type));
    const std::uint32_t rows = std::uint32_t(row8 + row_lo) * ib;
    if constexpr (swizzle_mode == porter::swizzle::none) {
      return rows + cb;
    } else {
      static_assert(ib <= 128 && 128 % ib == 0, "a swizzled box's row is its span: 32, 64 or 128 bytes");
      constexpr std::uint32_t mask = std::uint32_t(int(swizzle_mode) / 16 - 1);
      return rows + (cb ^ ((((std::uint32_t(row_lo) * ib) >> 7) & mask) << 4));
    }
  }
  /// Element at the given box-relative indices (outermost first). No bounds check.
  template <class... I>
  PORTER_HOST_DEVICE element_type& operator()(I... idx) const {
    return *reinterpret_cast<element_type*>(reinterpret_cast<unsigned char*>(p_) + byte_offset(idx...));
  }
  /// Element `e` of the box in dense row-major order (0 <= e < Box::elements), swizzle applied.
  PORTER_HOST_DEVICE element_type& element(std::size_t e) const {
    const std::uint32_t off = swizzle_offset(swizzle_mode, std::uint32_t(e * sizeof(element_type)));
    return *reinterpret_cast<element_type*>(reinterpret_cast<unsigned char*>(p_) + off);
  }

 private:
  element_type* p_;
};

}  // namespace porter
