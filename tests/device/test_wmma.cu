// tests/device/test_wmma.cu — porter::load_matrix_sync / porter::store_matrix_sync (porter/wmma.hpp):
// nvcuda::wmma fragments read from and written to shared memory with the shared state space.
//
//   * OperandLoads: every supported operand fragment (matrix_a, matrix_b; m16n16k16, m32n8k16,
//     m8n32k16; __half, __nv_bfloat16; row_major, col_major) loaded by one warp at a random
//     32-byte-aligned place with a random leading dimension, by porter and by nvcuda::wmma's own
//     (generic) load of the same address: the registers must be equal bit for bit. nvcuda's fragment
//     layout is unspecified, so its own load is the reference for the registers.
//   * MmaThroughShared: D = A B + C with A, B and C loaded by porter, D stored by porter, for every
//     element type, shape and A/B layout, C and D in random row/column layouts and leading
//     dimensions: D against a CPU float64 reference (tolerance: fp32 accumulation of K exact
//     products), and every other byte of the shared buffer against its initial content (the store's
//     guard). This checks the layouts and leading dimensions independently of nvcuda.
// Fresh random data per case (PORTER_DEVICE_TEST_SEED repeats it), outputs poisoned (0xA5) before
// every launch. Built for the targets of PORTER_CUDA_ARCHITECTURES from sm_80 up (bf16 wmma
// fragments do not exist below it; tests/device/CMakeLists.txt), skipped on GPUs below 8.0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <porter/wmma.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "harness.hpp"

namespace pt = porter_test;

namespace {
using namespace nvcuda;

constexpr unsigned poison_word = 0xA5A5A5A5u;

// ---- operand loads against nvcuda's ------------------------------------------------------------------

/// The shared buffer of `words` 32-bit words is filled from `in`; warp 0 loads fragment F at element
/// offset `off` with leading dimension `ldm`, by nvcuda::wmma (generic address) into out_nv and by
/// porter (shared state space) into out_pt, lane l's register r at [l * R + r].
template <class Use, int M, int N, int K, class T, class L>
__global__ void operand_kernel(const unsigned* in, unsigned words, unsigned off, unsigned ldm, unsigned* out_nv, unsigned* out_pt) {
  extern __shared__ __align__(128) unsigned smem_words[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) smem_words[i] = in[i];
  __syncthreads();
  if (threadIdx.x >= 32) return;
  const T* p = reinterpret_cast<const T*>(smem_words) + off;
  wmma::fragment<Use, M, N, K, T, L> nv, po;
  wmma::load_matrix_sync(nv, p, ldm);
  porter::load_matrix_sync(po, p, ldm);
  constexpr int R = int(sizeof(nv.x) / 4);
  unsigned a[R], b[R];
  std::memcpy(a, &nv.x[0], sizeof a);
  std::memcpy(b, &po.x[0], sizeof b);
  for (int r = 0; r < R; ++r) {
    out_nv[threadIdx.x * R + r] = a[r];
    out_pt[threadIdx.x * R + r] = b[r];
  }
}

template <int M_, int N_, int K_>
struct shape {
  static constexpr int M = M_, N = N_, K = K_;
};
using s16 = shape<16, 16, 16>;
using s32x8 = shape<32, 8, 16>;
using s8x32 = shape<8, 32, 16>;

template <class T> const char* type_name() { return std::is_same_v<T, __half> ? "half" : "bf16"; }
template <class L> const char* layout_name() { return std::is_same_v<L, wmma::row_major> ? "row" : "col"; }

/// Random words with no 16-bit half equal to the poison's (0xA5A5), so that no register a load
/// gathers from them, whatever halves it pairs, can equal the poisoned output word.
std::vector<unsigned> random_words(std::mt19937_64& rng, std::size_t n) {
  std::vector<unsigned> w(n);
  for (auto& x : w) do x = unsigned(rng()); while ((x & 0xFFFFu) == 0xA5A5u || (x >> 16) == 0xA5A5u);
  return w;
}

template <class Use, class S, class T, class L>
void run_operand(pt::test_tally& tt, int cases) {
  constexpr int M = S::M, N = S::N, K = S::K;
  using frag = wmma::fragment<Use, M, N, K, T, L>;
  constexpr int R = int(sizeof(frag{}.x) / 4);
  constexpr unsigned words = 4096;  // 16 KiB of shared memory
  const std::string label = std::string(std::is_same_v<Use, wmma::matrix_a> ? "a" : "b") + " m" + std::to_string(M) + "n" +
                            std::to_string(N) + "k" + std::to_string(K) + " " + type_name<T>() + " " + layout_name<L>();
  unsigned *d_in = nullptr, *d_nv = nullptr, *d_pt = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, words * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_nv, 32 * R * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_pt, 32 * R * 4), cudaSuccess);
  for (int c = 0; c < cases; ++c) {
    std::mt19937_64 rng(pt::case_seed("wmma operand " + label, c));
    const std::vector<unsigned> in = random_words(rng, words);
    // ldm: a multiple of 8 elements, at least the widest dimension (32); the matrix spans at most
    // 32 strides of it. off: a multiple of 16 elements (32 bytes).
    const unsigned ldm = 32 + 8 * unsigned(rng() % 8);
    const unsigned span = 32 * ldm + 32, room = 2 * words - span;
    const unsigned off = 16 * unsigned(rng() % (room / 16));
    ASSERT_EQ(cudaMemcpy(d_in, in.data(), words * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(d_nv, pt::poison_byte, 32 * R * 4), cudaSuccess);
    ASSERT_EQ(cudaMemset(d_pt, pt::poison_byte, 32 * R * 4), cudaSuccess);
    operand_kernel<Use, M, N, K, T, L><<<1, 64, words * 4>>>(d_in, words, off, ldm, d_nv, d_pt);
    std::string err;
    ASSERT_TRUE(pt::sync_launch("wmma operand kernel (" + label + ")", &err)) << err;
    std::vector<unsigned> nv(32 * R), po(32 * R);
    ASSERT_EQ(cudaMemcpy(nv.data(), d_nv, nv.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(po.data(), d_pt, po.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    bool ok = true;
    for (int i = 0; i < 32 * R && ok; ++i) {
      // Every register comes from the random buffer, which holds no poison half-word.
      if (po[i] != nv[i] || nv[i] == poison_word) {
        ok = false;
        if (tt.mismatch())
          ADD_FAILURE() << "porter::load_matrix_sync " << label << " ldm " << ldm << " offset " << off << ": lane " << i / R
                        << " register " << i % R << " porter 0x" << std::hex << po[i] << ", nvcuda 0x" << nv[i] << std::dec << "; "
                        << pt::seed_text();
      }
    }
    if (ok) tt.ran(1, 32 * R * 4);
  }
  cudaFree(d_in);
  cudaFree(d_nv);
  cudaFree(d_pt);
}

template <class Use, class S, class T>
void run_operand_layouts(pt::test_tally& tt, int cases) {
  run_operand<Use, S, T, wmma::row_major>(tt, cases);
  run_operand<Use, S, T, wmma::col_major>(tt, cases);
}
template <class S, class T>
void run_operand_uses(pt::test_tally& tt, int cases) {
  run_operand_layouts<wmma::matrix_a, S, T>(tt, cases);
  run_operand_layouts<wmma::matrix_b, S, T>(tt, cases);
}

/// 0: run; 1: skip (no GPU, or one below 8.0); 2: fail (the context is unusable). As
/// PORTER_DEVICE_TEST_REQUIRE, for the wmma kernels' own minimum.
int wmma_status(std::string* why) { return pt::path_status("wmma (f16 and bf16 fragments, built for sm_80+)", 80, why); }

TEST(Wmma, operand_loads_equal_nvcuda_bit_for_bit) {
  std::string why;
  if (const int st = wmma_status(&why); st == 1) GTEST_SKIP() << why;
  else if (st == 2) GTEST_FAIL() << why;
  pt::test_tally tt;
  const int n = pt::cases(6, 2);
  run_operand_uses<s16, __half>(tt, n);
  run_operand_uses<s16, __nv_bfloat16>(tt, n);
  run_operand_uses<s32x8, __half>(tt, n);
  run_operand_uses<s32x8, __nv_bfloat16>(tt, n);
  run_operand_uses<s8x32, __half>(tt, n);
  run_operand_uses<s8x32, __nv_bfloat16>(tt, n);
}

// ---- D = A B + C through shared memory, against the CPU --------------------------------------------

/// Where the four matrices sit in the shared buffer (element offsets of their own type) and their
/// leading dimensions; C and D layouts (true: row-major).
struct mma_place {
  unsigned a_off, b_off, c_off, d_off;  ///< a, b: 16-bit elements; c, d: floats
  unsigned lda, ldb, ldc, ldd;
  int c_row, d_row;
};

template <class T, int M, int N, int K, class LA, class LB>
__global__ void mma_kernel(const unsigned* in, unsigned words, mma_place pl, unsigned* out) {
  extern __shared__ __align__(128) unsigned smem_words[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) smem_words[i] = in[i];
  __syncthreads();
  if (threadIdx.x < 32) {
    const T* e16 = reinterpret_cast<const T*>(smem_words);
    float* e32 = reinterpret_cast<float*>(smem_words);
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> a;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> b;
    wmma::fragment<wmma::accumulator, M, N, K, float> c;
    porter::load_matrix_sync(a, e16 + pl.a_off, pl.lda);
    porter::load_matrix_sync(b, e16 + pl.b_off, pl.ldb);
    porter::load_matrix_sync(c, e32 + pl.c_off, pl.ldc, pl.c_row ? wmma::mem_row_major : wmma::mem_col_major);
    wmma::mma_sync(c, a, b, c);
    porter::store_matrix_sync(e32 + pl.d_off, c, pl.ldd, pl.d_row ? wmma::mem_row_major : wmma::mem_col_major);
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) out[i] = smem_words[i];
}

/// A random value of T on the host, as its bits and as a double (exactly representable).
template <class T>
std::uint16_t random_element(std::mt19937_64& rng, double* value) {
  // Integers over 64 in [-64, 64]: exact in bf16 (8 significant bits) and half; products and the
  // fp32 sums of 16 or 32 of them stay exact too, so the reference is exact up to C's rounding.
  const int v = int(rng() % 129) - 64;
  *value = v / 64.0;
  if constexpr (std::is_same_v<T, __half>) {
    const __half h = __float2half_rn(float(*value));
    std::uint16_t bits;
    std::memcpy(&bits, &h, 2);
    return bits;
  } else {
    const float f = float(*value);
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return std::uint16_t(u >> 16);  // exact: the value has at most 8 significant bits
  }
}

template <class T, class S, class LA, class LB>
void run_mma(pt::test_tally& tt, int cases) {
  constexpr int M = S::M, N = S::N, K = S::K;
  constexpr bool a_row = std::is_same_v<LA, wmma::row_major>, b_row = std::is_same_v<LB, wmma::row_major>;
  constexpr unsigned words = 8192;  // 32 KiB: four regions of 8 KiB
  const std::string label = std::string("m") + std::to_string(M) + "n" + std::to_string(N) + "k" + std::to_string(K) + " " +
                            type_name<T>() + " A " + layout_name<LA>() + " B " + layout_name<LB>();
  unsigned *d_in = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, words * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, words * 4), cudaSuccess);
  for (int cs = 0; cs < cases; ++cs) {
    std::mt19937_64 rng(pt::case_seed("wmma mma " + label, cs));
    std::vector<unsigned> in = random_words(rng, words);
    // Region r occupies bytes [8192 r, 8192 (r + 1)); the matrix starts at a random 32-byte step in it.
    auto ld16 = [&](int need) { return unsigned(need + 8 * int(rng() % 5)); };  // a multiple of 8
    auto ld32 = [&](int need) { return unsigned(need + 4 * int(rng() % 9)); };  // a multiple of 4
    mma_place pl{};
    pl.lda = ld16(a_row ? K : M);
    pl.ldb = ld16(b_row ? N : K);
    pl.c_row = int(rng() % 2);
    pl.d_row = int(rng() % 2);
    pl.ldc = ld32(pl.c_row ? N : M);
    pl.ldd = ld32(pl.d_row ? N : M);
    const unsigned span_a = 2 * (pl.lda * unsigned(a_row ? M : K)), span_b = 2 * (pl.ldb * unsigned(b_row ? K : N));
    const unsigned span_c = 4 * (pl.ldc * unsigned(pl.c_row ? M : N)), span_d = 4 * (pl.ldd * unsigned(pl.d_row ? M : N));
    auto start = [&](unsigned region, unsigned span) { return 8192 * region + 32 * unsigned(rng() % ((8192 - span) / 32 + 1)); };
    const unsigned a_byte = start(0, span_a), b_byte = start(1, span_b), c_byte = start(2, span_c), d_byte = start(3, span_d);
    pl.a_off = a_byte / 2;
    pl.b_off = b_byte / 2;
    pl.c_off = c_byte / 4;
    pl.d_off = d_byte / 4;
    // The matrices' values, written into the image; D's region keeps its random words (the store's guard).
    unsigned char* img = reinterpret_cast<unsigned char*>(in.data());
    std::vector<double> A(M * K), B(K * N), C(M * N);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) {
        const std::uint16_t bits = random_element<T>(rng, &A[i * K + k]);
        std::memcpy(img + a_byte + 2 * (a_row ? i * pl.lda + k : i + k * pl.lda), &bits, 2);
      }
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j) {
        const std::uint16_t bits = random_element<T>(rng, &B[k * N + j]);
        std::memcpy(img + b_byte + 2 * (b_row ? k * pl.ldb + j : k + j * pl.ldb), &bits, 2);
      }
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        const float v = float(int(rng() % 2001) - 1000) / 256.f;
        C[i * N + j] = v;
        std::memcpy(img + c_byte + 4 * (pl.c_row ? i * pl.ldc + j : i + j * pl.ldc), &v, 4);
      }
    ASSERT_EQ(cudaMemcpy(d_in, in.data(), words * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(d_out, pt::poison_byte, words * 4), cudaSuccess);
    mma_kernel<T, M, N, K, LA, LB><<<1, 64, words * 4>>>(d_in, words, pl, d_out);
    std::string err;
    ASSERT_TRUE(pt::sync_launch("wmma mma kernel (" + label + ")", &err)) << err;
    std::vector<unsigned> got(words);
    ASSERT_EQ(cudaMemcpy(got.data(), d_out, words * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    std::vector<char> is_d(words, 0);
    bool ok = true;
    for (int i = 0; i < M && ok; ++i)
      for (int j = 0; j < N && ok; ++j) {
        const unsigned w = pl.d_off + (pl.d_row ? unsigned(i) * pl.ldd + unsigned(j) : unsigned(i) + unsigned(j) * pl.ldd);
        is_d[w] = 1;
        double want = C[i * N + j], mag = std::fabs(C[i * N + j]);
        for (int k = 0; k < K; ++k) {
          want += A[i * K + k] * B[k * N + j];
          mag += std::fabs(A[i * K + k] * B[k * N + j]);
        }
        float have;
        std::memcpy(&have, &got[w], 4);
        if (!(std::fabs(double(have) - want) <= 1e-6 * mag + 1e-7)) {
          ok = false;
          if (tt.mismatch())
            ADD_FAILURE() << "D = A B + C " << label << " (C " << (pl.c_row ? "row" : "col") << " ldc " << pl.ldc << ", D "
                          << (pl.d_row ? "row" : "col") << " ldd " << pl.ldd << ", lda " << pl.lda << ", ldb " << pl.ldb << "): D(" << i
                          << ", " << j << ") = " << have << ", want " << want << "; " << pt::seed_text();
        }
      }
    for (unsigned w = 0; w < words && ok; ++w)
      if (!is_d[w] && got[w] != in[w]) {
        ok = false;
        if (tt.mismatch())
          ADD_FAILURE() << "D = A B + C " << label << ": shared word " << w << " outside D changed: 0x" << std::hex << got[w]
                        << ", was 0x" << in[w] << std::dec << "; " << pt::seed_text();
      }
    if (ok) tt.ran(1, words * 4);
  }
  cudaFree(d_in);
  cudaFree(d_out);
}

template <class T, class S>
void run_mma_layouts(pt::test_tally& tt, int cases) {
  run_mma<T, S, wmma::row_major, wmma::row_major>(tt, cases);
  run_mma<T, S, wmma::row_major, wmma::col_major>(tt, cases);
  run_mma<T, S, wmma::col_major, wmma::row_major>(tt, cases);
  run_mma<T, S, wmma::col_major, wmma::col_major>(tt, cases);
}

TEST(Wmma, mma_through_shared_against_the_cpu) {
  std::string why;
  if (const int st = wmma_status(&why); st == 1) GTEST_SKIP() << why;
  else if (st == 2) GTEST_FAIL() << why;
  pt::test_tally tt;
  const int n = pt::cases(6, 2);
  run_mma_layouts<__half, s16>(tt, n);
  run_mma_layouts<__nv_bfloat16, s16>(tt, n);
  run_mma_layouts<__half, s32x8>(tt, n);
  run_mma_layouts<__nv_bfloat16, s32x8>(tt, n);
  run_mma_layouts<__half, s8x32>(tt, n);
  run_mma_layouts<__nv_bfloat16, s8x32>(tt, n);
}

}  // namespace
