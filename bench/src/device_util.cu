// bench/src/device_util.cu — GPU helpers of porter-bench (init, checks, ceilings, latency probe).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
#include <algorithm>
#include <cmath>

#include <cuda_bf16.h>

#include "device_util.hpp"

namespace pb {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__host__ __device__ inline std::uint64_t mix64(std::uint64_t z) {  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void k_fill(float* p, long long n, std::uint64_t seed, float lo, float hi) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + std::uint64_t(i));
    const float u = float(h >> 40) * (1.0f / 16777216.0f);  // 24 bits, [0, 1)
    p[i] = lo + (hi - lo) * u;
  }
}

__global__ void k_fill_bf16(__nv_bfloat16* p, long long n, std::uint64_t seed, float lo, float hi) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + std::uint64_t(i));
    const float u = float(h >> 40) * (1.0f / 16777216.0f);  // as k_fill
    p[i] = __float2bfloat16_rn(lo + (hi - lo) * u);
  }
}

__global__ void k_stream_errors(const float* x, const float* y, long long n, float a, float b, float tol,
                                unsigned long long* bad) {
  unsigned long long mine = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const float ref = a * x[i] + b;
    const float d = fabsf(y[i] - ref);
    if (!(d <= tol * fmaxf(1.0f, fabsf(ref)))) ++mine;
  }
  if (mine) atomicAdd(bad, mine);
}

__global__ void k_transpose_errors(const float* x, const float* y, int h, int w, unsigned long long* bad) {
  unsigned long long mine = 0;
  const long long n = (long long)h * w;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / w, c = i % w;
    if (__float_as_uint(y[c * h + r]) != __float_as_uint(x[i])) ++mine;
  }
  if (mine) atomicAdd(bad, mine);
}

__global__ void k_nonfinite(const float* p, long long n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (!isfinite(p[i])) ++mine;
  if (mine) atomicAdd(bad, mine);
}

__global__ void k_checksum(const float* p, long long n, unsigned long long* out) {
  std::uint64_t mine = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    mine += mix64((std::uint64_t(__float_as_uint(p[i])) << 32) ^ std::uint64_t(i));
  atomicAdd(out, (unsigned long long)mine);  // wrap-around sum: independent of order
}

__global__ void k_sqdiff(const float* c, const float* r, long long n, double* out) {
  double d2 = 0, r2 = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double d = double(c[i]) - double(r[i]);
    d2 += d * d;
    r2 += double(r[i]) * double(r[i]);
  }
  for (int o = 16; o > 0; o >>= 1) {
    d2 += __shfl_down_sync(0xffffffffu, d2, o);
    r2 += __shfl_down_sync(0xffffffffu, r2, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(out, d2);
    atomicAdd(out + 1, r2);
  }
}

__global__ void __launch_bounds__(copy_kernel_threads) pb_copy(const float4* __restrict__ src, float4* __restrict__ dst, long long n4) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const float4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n4; i += stride) dst[i] = src[i];
}

// Pointer chase: word j*32 (one per 128-byte line j) holds the index of the next line's word.
__global__ void k_chase_init(unsigned* buf, unsigned lines) {
  for (unsigned j = blockIdx.x * blockDim.x + threadIdx.x; j < lines; j += gridDim.x * blockDim.x) {
    // Full-period LCG modulo 2^k (Hull-Dobell: c odd, a = 1 mod 4): one cycle through every line.
    const unsigned next = (j * 1664525u + 1013904223u) & (lines - 1);
    buf[std::size_t(j) * 32] = next * 32u;
  }
}
/// `hops` dependent loads from the chain position in *cursor; the position reached is stored back,
/// so the next launch continues into lines no launch has touched (none is then an L2 hit).
__global__ void k_chase(const unsigned* buf, int hops, unsigned* cursor) {
  unsigned p = *cursor;
  for (int h = 0; h < hops; ++h) p = __ldcg(buf + p);  // .cg: skip L1, the measured hop is L2 or DRAM
  *cursor = p;
}

/// `passes` grid-stride reads of p[0 .. n4) through L2 (.cg), four 16-byte loads in flight per
/// thread; the XOR of every word read is stored only if it equals a value the fill cannot give, so
/// the loads stay and nothing is written.
__global__ void __launch_bounds__(256) k_l2_read(const float4* __restrict__ p, long long n4, int passes, unsigned* out) {
  unsigned x = 0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const auto bits = [](const float4 v) {
    return __float_as_uint(v.x) ^ __float_as_uint(v.y) ^ __float_as_uint(v.z) ^ __float_as_uint(v.w);
  };
  for (int r = 0; r < passes; ++r) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
      const float4 a = __ldcg(p + i), b = __ldcg(p + i + stride), c = __ldcg(p + i + 2 * stride), d = __ldcg(p + i + 3 * stride);
      x ^= bits(a) ^ bits(b) ^ bits(c) ^ bits(d);
    }
    for (; i < n4; i += stride) x ^= bits(__ldcg(p + i));
  }
  if (x == 0x7fc00001u) *out = x;  // a NaN payload fill_uniform never produces
}

int grid_for(long long n) { return int(std::min<long long>((n + 255) / 256, 4096)); }

}  // namespace

void fill_uniform(float* p, long long n, std::uint64_t seed, float lo, float hi, cudaStream_t s) {
  k_fill<<<grid_for(n), 256, 0, s>>>(p, n, seed, lo, hi);
  check(cudaGetLastError(), "fill_uniform");
}

void fill_uniform_bf16(void* p, long long n, std::uint64_t seed, float lo, float hi, cudaStream_t s) {
  k_fill_bf16<<<grid_for(n), 256, 0, s>>>(static_cast<__nv_bfloat16*>(p), n, seed, lo, hi);
  check(cudaGetLastError(), "fill_uniform_bf16");
}

template <class K, class... A>
static long long count_with(K k, long long n, cudaStream_t s, A... a) {
  unsigned long long* d = nullptr;
  check(cudaMallocAsync(&d, sizeof(*d), s), "cudaMallocAsync");
  check(cudaMemsetAsync(d, 0, sizeof(*d), s), "cudaMemsetAsync");
  k<<<grid_for(n), 256, 0, s>>>(a..., d);
  check(cudaGetLastError(), "check kernel");
  unsigned long long h = 0;
  check(cudaMemcpyAsync(&h, d, sizeof(h), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
  check(cudaFreeAsync(d, s), "cudaFreeAsync");
  check(cudaStreamSynchronize(s), "check kernel (run)");
  return (long long)h;
}

long long count_stream_errors(const float* x, const float* y, long long n, float a, float b, float tol, cudaStream_t s) {
  return count_with(k_stream_errors, n, s, x, y, n, a, b, tol);
}
long long count_transpose_errors(const float* x, const float* y, int h, int w, cudaStream_t s) {
  return count_with(k_transpose_errors, (long long)h * w, s, x, y, h, w);
}
long long count_nonfinite(const float* p, long long n, cudaStream_t s) { return count_with(k_nonfinite, n, s, p, n); }
std::uint64_t checksum(const float* p, long long n, cudaStream_t s) {
  return std::uint64_t(count_with(k_checksum, n, s, p, n));
}

double relative_frobenius_error(const float* c, const float* r, long long n, cudaStream_t s) {
  double* d = nullptr;
  check(cudaMallocAsync(&d, 2 * sizeof(double), s), "cudaMallocAsync");
  check(cudaMemsetAsync(d, 0, 2 * sizeof(double), s), "cudaMemsetAsync");
  k_sqdiff<<<grid_for(n), 256, 0, s>>>(c, r, n, d);
  check(cudaGetLastError(), "k_sqdiff");
  double h[2] = {0, 0};
  check(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
  check(cudaFreeAsync(d, s), "cudaFreeAsync");
  check(cudaStreamSynchronize(s), "k_sqdiff (run)");
  return h[1] > 0 ? std::sqrt(h[0] / h[1]) : std::sqrt(h[0]);
}

void launch_copy_kernel(const float4* src, float4* dst, long long n4, int grid, cudaStream_t s) {
  pb_copy<<<grid, copy_kernel_threads, 0, s>>>(src, dst, n4);
  check(cudaGetLastError(), "pb_copy");
}
const void* copy_kernel_func() { return reinterpret_cast<const void*>(&pb_copy); }

double pointer_chase_latency_ns(void* scratch, std::size_t bytes, std::size_t l2_bytes, int hops, cudaStream_t s) {
  unsigned lines = 1;
  while (std::size_t(lines) * 2 * 128 <= bytes) lines *= 2;  // a power of two for the LCG
  if (lines < 128) return -1;
  hops = int(std::min<long long>(hops, (lines - 64) / 3));  // the four launches never wrap the cycle
  unsigned* buf = static_cast<unsigned*>(scratch);
  unsigned* out = nullptr;
  check(cudaMallocAsync(&out, sizeof(unsigned), s), "cudaMallocAsync");
  check(cudaMemsetAsync(out, 0, sizeof(unsigned), s), "cudaMemsetAsync");
  k_chase_init<<<1024, 256, 0, s>>>(buf, lines);
  check(cudaGetLastError(), "k_chase_init");
  // The init's last writes (an L2's worth of the chain) are still in L2: write twice the L2 of
  // other memory, so the chain's lines leave it before the first timed load.
  if (l2_bytes > 0) {
    void* flush = nullptr;
    check(cudaMallocAsync(&flush, 2 * l2_bytes, s), "cudaMallocAsync (L2 flush)");
    check(cudaMemsetAsync(flush, 0x5a, 2 * l2_bytes, s), "cudaMemsetAsync (L2 flush)");
    check(cudaFreeAsync(flush, s), "cudaFreeAsync (L2 flush)");
  }
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  std::vector<double> ns;
  k_chase<<<1, 1, 0, s>>>(buf, 64, out);  // warm-up: module load (its 64 lines are not timed again)
  for (int r = 0; r < 3; ++r) {
    check(cudaEventRecord(e0, s), "cudaEventRecord");
    k_chase<<<1, 1, 0, s>>>(buf, hops, out);
    check(cudaEventRecord(e1, s), "cudaEventRecord");
    check(cudaEventSynchronize(e1), "k_chase");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    ns.push_back(double(ms) * 1e6 / hops);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  check(cudaFreeAsync(out, s), "cudaFreeAsync");
  check(cudaStreamSynchronize(s), "k_chase");
  std::sort(ns.begin(), ns.end());
  return ns[1];
}

double l2_read_gbs(void* scratch, std::size_t bytes, int sms, int passes, cudaStream_t s) {
  if (bytes < (std::size_t(1) << 20) || bytes % 16 != 0 || sms < 1 || passes < 1) return -1;
  const float4* p = static_cast<const float4*>(scratch);
  const long long n4 = (long long)(bytes / 16);
  unsigned* out = nullptr;
  check(cudaMallocAsync(&out, sizeof(unsigned), s), "cudaMallocAsync");
  fill_uniform(static_cast<float*>(scratch), n4 * 4, 0x12fa3u, -1.f, 1.f, s);
  const int grid = 4 * sms;
  k_l2_read<<<grid, 256, 0, s>>>(p, n4, passes, out);  // untimed: module load, buffer into L2
  check(cudaGetLastError(), "k_l2_read");
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  std::vector<double> gbs;
  for (int r = 0; r < 5; ++r) {
    check(cudaEventRecord(e0, s), "cudaEventRecord");
    k_l2_read<<<grid, 256, 0, s>>>(p, n4, passes, out);
    check(cudaEventRecord(e1, s), "cudaEventRecord");
    check(cudaEventSynchronize(e1), "k_l2_read");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    if (ms > 0) gbs.push_back(double(bytes) * passes / (double(ms) * 1e-3) / 1e9);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  check(cudaFreeAsync(out, s), "cudaFreeAsync");
  check(cudaStreamSynchronize(s), "k_l2_read");
  if (gbs.size() < 5) return -1;
  std::sort(gbs.begin(), gbs.end());
  return gbs[2];
}

}  // namespace pb
