// bench/src/device_util.hpp — data initialisation, result checks and probes that run on the GPU
// (host wrappers; the kernels are in device_util.cu). All enqueue on `s` and synchronise before
// returning a value.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace pb {

/// p[i] = uniform in [lo, hi) from a counter-based hash of (seed, i). Never all zeros.
void fill_uniform(float* p, long long n, std::uint64_t seed, float lo, float hi, cudaStream_t s);
/// p[i] = the fp32 value fill_uniform(seed, lo, hi) would give, rounded to bf16 (nearest even);
/// p points to n 2-byte elements (__nv_bfloat16).
void fill_uniform_bf16(void* p, long long n, std::uint64_t seed, float lo, float hi, cudaStream_t s);
/// Elements with |y - (a*x + b)| > tol * max(1, |a*x + b|), or not finite.
long long count_stream_errors(const float* x, const float* y, long long n, float a, float b, float tol, cudaStream_t s);
/// Elements with y[c][r] != x[r][c] bitwise (x is h x w, y is w x h, both row-major).
long long count_transpose_errors(const float* x, const float* y, int h, int w, cudaStream_t s);
/// Non-finite elements (NaN poison left behind means an element was not written).
long long count_nonfinite(const float* p, long long n, cudaStream_t s);
/// Order-independent 64-bit hash of the bit patterns of p[0..n) and their positions: equal for
/// bit-identical arrays.
std::uint64_t checksum(const float* p, long long n, cudaStream_t s);
/// sqrt(sum (c - r)^2 / sum r^2) in double; NaN if c has a NaN.
double relative_frobenius_error(const float* c, const float* r, long long n, cudaStream_t s);
/// Device-to-device copy kernel (the vectorized-copy ceiling): float4 loads and stores, 4 per
/// thread in flight, grid-stride. n4 = number of float4.
void launch_copy_kernel(const float4* src, float4* dst, long long n4, int grid, cudaStream_t s);
const void* copy_kernel_func();
constexpr int copy_kernel_threads = 256;

/// Median latency of dependent loads over `bytes` of device memory (a chain through one word per
/// 128-byte line, visiting the lines in a full-period LCG order), in ns per load. The warm-up and
/// the timed launches walk consecutive, disjoint parts of the cycle (64 + 3 x hops lines; the cycle
/// has bytes / 128 lines rounded down to a power of two), and twice the L2 of other memory is
/// written after the chain's init, so no timed load finds its line in L2. (With every launch
/// restarting at line 0, launches 2 and 3 re-read lines the first had left in L2 and the median was
/// the L2 hit latency: 150 ns on the H200, 2026-12-01.) Uses `scratch` (at least `bytes`);
/// `l2_bytes` is the device's L2 (device_caps::l2_bytes; 0: no flush). Returns < 0 on failure.
double pointer_chase_latency_ns(void* scratch, std::size_t bytes, std::size_t l2_bytes, int hops, cudaStream_t s);

/// Rate at which every SM together reads an L2-resident buffer, in GB/s: the first `bytes` of
/// `scratch` (keep it well inside the L2: a quarter of it) read `passes` times per launch with
/// 16-byte ld.global.cg (L1 bypassed, as TMA and cp.async.cg bypass it) by `sms` x 4 CTAs of 256
/// threads, four loads in flight per thread. One untimed launch brings the buffer into L2; the
/// median of 5 timed launches is returned. This is the planner's fill rate for copies served by L2
/// (porter::stage_plan_request::fill_bytes_per_second_per_sm = it / SMs). Returns < 0 on failure
/// (bytes < 1 MiB or not a multiple of 16).
double l2_read_gbs(void* scratch, std::size_t bytes, int sms, int passes, cudaStream_t s);

}  // namespace pb
