// bench/ports/before_cooperative_groups.cu — "before" of the cooperative_groups::memcpy_async
// idiom: the sum of every tile of 4096 floats (ports::tilesum), double-buffered: the block copies
// the next whole tile with cg::memcpy_async(block, dst, src, bytes), waits for the current one with
// cg::wait_prior<1> (cg::wait for the last), sums it (ports_compute.cuh tile_sum). Persistent grid.
// Static shared memory (2 x 16 KiB). Its port: after.cuh pb_port_tilesum. Needs n % 4096 == 0.
// Lowering: cp.async 16 B chunks where the addresses allow (sm_80+), plain copies on sm_75.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

#include <stdexcept>

#include "../baselines/manual_common.hpp"
#include "ports_compute.cuh"

namespace cg = cooperative_groups;

namespace pb::ports {
namespace {

__global__ void __launch_bounds__(tilesum::threads)
    pb_port_before_cooperative_groups(const float* __restrict__ x, float* __restrict__ sums, long long n) {
  using namespace tilesum;
  __shared__ alignas(128) float ring[stages][tile];
  __shared__ float warp_sums[threads / 32];
  auto block = cg::this_thread_block();
  const int steps = tiles_of_this_cta(n / tile);
  auto tile_of = [&](int i) { return static_cast<long long>(blockIdx.x) + static_cast<long long>(i) * gridDim.x; };
  if (steps > 0) cg::memcpy_async(block, ring[0], x + tile_of(0) * tile, sizeof(float) * tile);
  for (int i = 0; i < steps; ++i) {
    if (i + 1 < steps) {
      // ring[(i + 1) % 2] was summed at step i - 1; tile_sum's last barrier made it free.
      cg::memcpy_async(block, ring[(i + 1) % 2], x + tile_of(i + 1) * tile, sizeof(float) * tile);
      cg::wait_prior<1>(block);
    } else {
      cg::wait(block);
    }
    const float s = tile_sum(ring[i % 2], warp_sums);
    if (threadIdx.x == 0) sums[tile_of(i)] = s;
  }
}

}  // namespace

void register_before_cooperative_groups(registry& r) {
  using namespace tilesum;
  auto* k = &pb_port_before_cooperative_groups;
  r.port("cooperative-groups")
      .variants.push_back({manual_desc("before", "cg::memcpy_async", 0, stages, threads, sizeof(float) * tile, 0, 0,
                                       reinterpret_cast<const void*>(k), "pb_port_before_cooperative_groups"),
                           [k](const port_problem& p, int grid) -> launcher {
                             if (p.n % tile) throw std::invalid_argument("the cooperative-groups tile sum needs n % 4096 == 0");
                             return [=](cudaStream_t s) {
                               k<<<grid, threads, 0, s>>>(p.a, p.out, p.n);
                               check_launch("pb_port_before_cooperative_groups");
                             };
                           }});
}

}  // namespace pb::ports
