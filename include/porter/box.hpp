// porter/box.hpp — tile shapes (boxes), coordinates and the shared-memory view of a landed tile.
//
// Conventions (used everywhere in porter):
//   * Extents, strides, coordinates and box dimensions are listed OUTERMOST FIRST, like a C array
//     declaration: box<float, 32, 128> is `float tile[32][128]` (32 rows of 128 contiguous floats).
//     The tensor-map encoder reverses them (CUDA driver API lists innermost first).
//   * All extents and coordinates are in elements; sizes in bytes say so in their name.
//   * A tile lands in shared memory densely packed, row-major, unswizzled: element (i0, ..., iR-1)
//     of the box is at offset ((i0 * B1 + i1) * B2 + ...) elements. This layout is identical on
//     every path, which is what makes tiles bit-identical across paths.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "porter/config.hpp"

namespace porter {

/// The highest tensor and box rank porter moves: TMA tensor copies are 1D-5D (PTX ISA 9.7.9.27,
/// cp.async.bulk.tensor; cuTensorMapEncodeTiled's tensorRank <= 5). Every rank limit names this.
inline constexpr int max_rank = 5;

/// Coordinates of a box's first element in a rank-R tensor, in elements, outermost first.
/// May be negative or reach past the tensor: elements outside the tensor read as zero.
/// TMA takes 32-bit signed coordinates (PTX ISA 9.7.9.27, cp.async.bulk.tensor), so porter does too.
template <int R>
struct coord {
  static_assert(R >= 1 && R <= max_rank, "porter::coord: rank must be 1..5 (TMA tensor copies are 1D-5D).");
  int v[R];
  PORTER_HOST_DEVICE constexpr int operator[](int d) const { return v[d]; }
  PORTER_HOST_DEVICE constexpr int& operator[](int d) { return v[d]; }
};
template <class... I> coord(I...) -> coord<sizeof...(I)>;

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
};

template <class B> struct is_box : std::false_type {};
template <class T, int... D> struct is_box<box<T, D...>> : std::true_type {};

/// A view of one landed box in shared memory: T(i0, ..., iR-1), outermost index first.
/// Holds only a pointer; valid between consumer_wait and consumer_release of its stage.
template <class Box>
class tile_view {
 public:
  using element_type = typename Box::element_type;
  static constexpr int rank = Box::rank;
  PORTER_HOST_DEVICE explicit tile_view(element_type* p) : p_(p) {}
  /// Pointer to element (0, ..., 0); 128-byte aligned.
  PORTER_HOST_DEVICE element_type* data() const { return p_; }
  /// Box dimension d in elements.
  PORTER_HOST_DEVICE static constexpr int extent(int d) { return Box::dim(d); }
  /// Element at the given box-relative indices (outermost first). No bounds check.
  template <class... I>
  PORTER_HOST_DEVICE element_type& operator()(I... idx) const {
    static_assert(sizeof...(I) == rank, "porter::tile_view: give one index per box dimension.");
    std::size_t off = 0;
    int d = 0;
    ((off = off * std::size_t(Box::dim(d++)) + std::size_t(idx)), ...);
    return p_[off];
  }

 private:
  element_type* p_;
};

}  // namespace porter
