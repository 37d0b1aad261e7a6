// tests/device/test_fragment.cu — warp-level fragment loads (porter::load_fragments) against a CPU
// model of the fragment layout written from PTX ISA 9.7.14.5.15 "ldmatrix", bit for bit.
//
// One case is one warp's fragment load at one (row0, col0) of a landed tile, for one region shape
// (8x8, 16x8, 8x16, 16x16, 32x8, 8x32 elements: ldmatrix .x1, .x2, .x4) with and without .trans,
// its matrices taken down the columns (the default) or along the rows (porter::along_rows):
// every valid position of every shape (row0 any row, col0 every multiple of 8) is loaded and its
// 32 lanes x N registers compared with the model. The tile is a 2-byte box, dense or swizzled 32,
// 64 and 128 B, rank 2 and 3, landed
//   * through a real pipeline on each concrete path (tma swizzles in hardware, cp_async and staged
//     compute swizzled destinations): "fragments on every path";
//   * by the threads storing through tile_view, without a pipeline ("view"): the fragment load
//     against porter's own view of the tile, independent of the copies.
// Fresh random data per launch (PORTER_DEVICE_TEST_SEED repeats it), a random box origin inside a
// larger tensor with padded rows, the output poisoned (0xA5) before the launch.
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "runners.cuh"

namespace pt = porter_test;

namespace {

using u16 = std::uint16_t;
template <class B, porter::swizzle S> using sw = porter::swizzled<B, S>;
constexpr porter::swizzle b32 = porter::swizzle::b32, b64 = porter::swizzle::b64, b128 = porter::swizzle::b128;

/// Landing "view": the threads store the box through tile_view (no pipeline, no path).
struct by_view {
  static constexpr const char* name = "view";
};

// ---- the region shapes, in one order for the kernel and the host -------------------------------------

struct shape {
  int rows, cols;
  bool trans;
  bool along_rows;  ///< matrices taken along the rows first (porter::along_rows)
};
constexpr int shape_count = 24;
PORTER_HOST_DEVICE constexpr shape shape_of(int i) {
  constexpr int r[6] = {8, 16, 8, 16, 32, 8}, c[6] = {8, 8, 16, 16, 8, 32};
  return shape{r[i % 6], c[i % 6], (i / 6) % 2 == 1, i >= 12};
}
/// Valid (row0, col0) positions of shape i in Box (0 when the region does not fit).
template <class Box>
PORTER_HOST_DEVICE constexpr int positions(int i) {
  const shape s = shape_of(i);
  if (s.rows > int(Box::rows) || s.cols > Box::inner) return 0;
  return (int(Box::rows) - s.rows + 1) * ((Box::inner - s.cols) / 8 + 1);
}
/// Output words of shape i (32 lanes x matrices per position) and where they start.
template <class Box>
PORTER_HOST_DEVICE constexpr std::size_t words_of(int i) {
  const shape s = shape_of(i);
  return std::size_t(positions<Box>(i)) * 32u * std::size_t(s.rows * s.cols / 64);
}
template <class Box>
PORTER_HOST_DEVICE constexpr std::size_t offset_of(int i) {
  std::size_t o = 0;
  for (int j = 0; j < i; ++j) o += words_of<Box>(j);
  return o;
}

// ---- device side ----------------------------------------------------------------------------------------

/// Every warp of the CTA loads its share of the positions of shape I; lane l of position p writes
/// register m at out[(p * 32 + l) * N + m].
template <class Box, int I>
__device__ void load_every_position(porter::tile_view<Box> tile, std::uint32_t* out) {
  constexpr shape s = shape_of(I);
  if constexpr (positions<Box>(I) > 0) {
    constexpr int N = s.rows * s.cols / 64;
    constexpr int col_steps = (Box::inner - s.cols) / 8 + 1;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    std::uint32_t* o = out + offset_of<Box>(I);
    for (int p = int(warp); p < positions<Box>(I); p += int(warps)) {
      const int row0 = p / col_steps, col0 = 8 * (p % col_steps);
      porter::fragment<N> f;
      if constexpr (s.along_rows) f = porter::load_fragments<s.rows, s.cols, s.trans>(tile, row0, col0, porter::along_rows);
      else f = porter::load_fragments<s.rows, s.cols, s.trans>(tile, row0, col0);
      for (int m = 0; m < N; ++m) o[(std::size_t(p) * 32 + lane) * N + m] = f.reg[m];
    }
  }
}
template <class Box, int... I>
__device__ void load_every_shape(porter::tile_view<Box> tile, std::uint32_t* out, std::integer_sequence<int, I...>) {
  (load_every_position<Box, I>(tile, out), ...);
}

/// Land the box at `at` (through Landing's pipeline, or from `dense` through tile_view), then load
/// every shape at every position. Block: whole warps, 1D.
template <class Landing, class Box>
__global__ void fragment_kernel(const __grid_constant__ porter::tiled_source<Box> src, porter::coord<Box::rank> at, const u16* dense,
                                std::uint32_t* out) {
  extern __shared__ unsigned char smem[];
  if constexpr (std::is_same_v<Landing, by_view>) {
    const std::size_t pad = (1024 - (reinterpret_cast<std::uintptr_t>(smem) & 1023)) & 1023;
    const porter::tile_view<Box> tile(reinterpret_cast<u16*>(smem + pad));
    for (int e = int(threadIdx.x); e < int(Box::elements); e += int(blockDim.x))
      *reinterpret_cast<u16*>(smem + pad + porter::tile_view<Box>::matrix_byte_offset(e / Box::inner, e % Box::inner)) = dense[e];
    __syncthreads();
    load_every_shape(tile, out, std::make_integer_sequence<int, shape_count>{});
  } else {
    porter::pipeline<Landing, 1, Box> pipe(smem);
    auto slot = pipe.producer_acquire();
    porter::async_copy(slot, src, at);
    pipe.producer_commit(slot);
    auto ready = pipe.consumer_wait();
    load_every_shape(ready.tile(), out, std::make_integer_sequence<int, shape_count>{});
    pipe.consumer_release(ready);
  }
}

// ---- host side ------------------------------------------------------------------------------------------

/// The CPU model (PTX ISA 9.7.14.5.15): lane l, matrix m of the region at (row0, col0), matrices
/// taken down the columns first (or along the rows first); A(r, c) is the box as a Box::rows x inner
/// matrix (dense).
std::uint32_t model_register(const std::vector<u16>& a, int inner, const shape& s, int row0, int col0, int m, int l) {
  const int br = s.along_rows ? m / (s.cols / 8) : m % (s.rows / 8);
  const int bc = s.along_rows ? m % (s.cols / 8) : m / (s.rows / 8);
  const int r0 = row0 + 8 * br, c0 = col0 + 8 * bc;
  const int i = l / 4, j = 2 * (l % 4);
  auto A = [&](int r, int c) { return std::uint32_t(a[std::size_t(r) * inner + c]); };
  if (!s.trans) return A(r0 + i, c0 + j) | A(r0 + i, c0 + j + 1) << 16;
  return A(r0 + j, c0 + i) | A(r0 + j + 1, c0 + i) << 16;
}

template <class Landing, class Box>
void run_fragment_cases(pt::test_tally& tt, int launches) {
  constexpr int R = Box::rank;
  static_assert(R == 2 || R == 3, "this test builds rank-2 and rank-3 tensors");
  std::string why;
  // The tensor: the box plus a margin in every dimension, rows padded by 8 elements (16 bytes), so the
  // layout is TMA-legal (every stride a multiple of 16 bytes, the allocation on 256 bytes).
  std::int64_t ext[R], str[R - 1];
  for (int d = 0; d < R; ++d) ext[d] = Box::dim(d) + 1 + d;
  const std::int64_t pitch = (ext[R - 1] + 7) / 8 * 8 + 8;  // a multiple of 8 elements: 16-byte rows
  str[R - 2] = pitch;
  if (R == 3) str[0] = pitch * ext[1];
  const std::size_t tensor_elems = std::size_t(ext[0]) * std::size_t(str[0]);
  std::size_t total_words = 0;
  for (int i = 0; i < shape_count; ++i) total_words += words_of<Box>(i);

  u16 *d_tensor = nullptr, *d_dense = nullptr;
  std::uint32_t* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_tensor, tensor_elems * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_dense, Box::elements * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, total_words * 4), cudaSuccess);
  const porter::tiled_source<Box> src = porter::make_tiled_source<Box>(d_tensor, ext, str, Box{});

  for (int launch = 0; launch < launches; ++launch) {
    std::mt19937_64 rng(pt::case_seed(std::string("fragment ") + Landing::name, launch * 131 + int(Box::bytes)));
    std::vector<u16> tensor(tensor_elems);
    for (auto& v : tensor) v = u16(rng());
    int at[R];
    for (int d = 0; d < R; ++d) at[d] = int(rng() % std::uint64_t(ext[d] - Box::dim(d) + 1));
    // The box as a dense Box::rows x inner matrix.
    std::vector<u16> box(Box::elements);
    for (std::size_t e = 0; e < Box::elements; ++e) {
      std::size_t rem = e, off = 0;
      for (int d = R - 1; d >= 0; --d) {
        const std::size_t idx = rem % std::size_t(Box::dim(d));
        rem /= std::size_t(Box::dim(d));
        off += (idx + std::size_t(at[d])) * (d == R - 1 ? 1 : std::size_t(str[d]));
      }
      box[e] = tensor[off];
    }
    ASSERT_EQ(cudaMemcpy(d_tensor, tensor.data(), tensor_elems * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_dense, box.data(), Box::elements * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(d_out, pt::poison_byte, total_words * 4), cudaSuccess);
    porter::coord<R> c{};
    for (int d = 0; d < R; ++d) c[d] = at[d];
    const dim3 block(32u * unsigned(1 + launch % 4));  // 1 to 4 warps
    if constexpr (std::is_same_v<Landing, by_view>) {
      fragment_kernel<by_view, Box><<<1, block, Box::bytes + 1024>>>(src, c, d_dense, d_out);
    } else {
      constexpr std::size_t smem = porter::pipeline<Landing, 1, Box>::shared_bytes;
      porter::launch<Landing>(&fragment_kernel<Landing, Box>, dim3(1), block, smem, nullptr, src, c, d_dense, d_out);
    }
    std::string err;
    ASSERT_TRUE(pt::sync_launch(std::string("fragment kernel (") + Landing::name + ")", &err)) << err;
    std::vector<std::uint32_t> got(total_words);
    ASSERT_EQ(cudaMemcpy(got.data(), d_out, total_words * 4, cudaMemcpyDeviceToHost), cudaSuccess);

    for (int i = 0; i < shape_count; ++i) {
      const shape s = shape_of(i);
      const int N = s.rows * s.cols / 64, col_steps = (Box::inner - s.cols) / 8 + 1;
      const std::uint32_t* g = got.data() + offset_of<Box>(i);
      for (int p = 0; p < positions<Box>(i); ++p) {
        const int row0 = p / col_steps, col0 = 8 * (p % col_steps);
        bool ok = true;
        for (int l = 0; l < 32 && ok; ++l)
          for (int m = 0; m < N && ok; ++m) {
            const std::uint32_t want = model_register(box, Box::inner, s, row0, col0, m, l);
            const std::uint32_t have = g[(std::size_t(p) * 32 + l) * N + m];
            if (have != want) {
              ok = false;
              if (tt.mismatch())
                ADD_FAILURE() << Landing::name << " box " << Box::rows << "x" << Box::inner << " swizzle "
                              << porter::swizzle_span(Box::swizzle_mode) << ": load_fragments<" << s.rows << ", " << s.cols
                              << (s.trans ? ", trans" : "") << (s.along_rows ? ", along_rows" : "") << "> at (" << row0 << ", " << col0 << ") lane " << l << " reg " << m
                              << ": got 0x" << std::hex << have << ", want 0x" << want << std::dec << "; " << pt::seed_text();
            }
          }
        if (!ok) continue;
        tt.ran(1, 32 * N * 4);
      }
    }
  }
  cudaFree(d_tensor);
  cudaFree(d_dense);
  cudaFree(d_out);
}

/// Every swizzle mode, ranks 2 and 3, for one landing.
template <class Landing>
void run_all_boxes(pt::test_tally& tt) {
  const int n = pt::cases(3, 1);
  run_fragment_cases<Landing, porter::box<u16, 32, 64>>(tt, n);              // dense, 128 B rows
  run_fragment_cases<Landing, porter::box<u16, 2, 12, 24>>(tt, n);           // dense, 48 B rows, rank 3
  run_fragment_cases<Landing, sw<porter::box<u16, 24, 16>, b32>>(tt, n);
  run_fragment_cases<Landing, sw<porter::box<u16, 32, 32>, b64>>(tt, n);
  run_fragment_cases<Landing, sw<porter::box<u16, 2, 8, 32>, b64>>(tt, n);   // rank 3
  run_fragment_cases<Landing, sw<porter::box<u16, 32, 64>, b128>>(tt, n);
  run_fragment_cases<Landing, sw<porter::box<u16, 2, 16, 64>, b128>>(tt, n); // rank 3
}

template <class P>
class Fragments : public ::testing::Test {};
TYPED_TEST_SUITE(Fragments, pt::concrete_paths, pt::path_names);

// The box lands through a pipeline of path P; fragments are loaded from the landed stage.
TYPED_TEST(Fragments, every_shape_position_and_swizzle_against_the_model) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  run_all_boxes<TypeParam>(tt);
}

// The box is stored through tile_view (no copy involved): the loads against porter's own view.
TEST(FragmentsView, every_shape_position_and_swizzle_against_the_model) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::staged);
  pt::test_tally tt;
  run_all_boxes<by_view>(tt);
}

}  // namespace
