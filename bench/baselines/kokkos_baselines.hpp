// bench/baselines/kokkos_baselines.hpp — Kokkos versions of stream and stencil2d (when a
// CUDA-enabled Kokkos was found at configure time), behind a plain C++ interface so that the rest
// of porter-bench does not include Kokkos.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "../src/variants.hpp"

namespace pb::kokkos {

/// True when porter-bench was built with Kokkos (find_package(Kokkos) found a CUDA-enabled install).
bool built();
/// "Kokkos 4.6.1, CUDA backend" or why Kokkos is not there (for the report).
std::string status();
/// Kokkos::initialize on `device` (once); finalize at exit.
void initialize(int device);
void finalize();

/// y = a*x + b: parallel_for over RangePolicy<IndexType<int>> (one element per index; n < 2^31).
launcher stream(const stream_problem& p, cudaStream_t s);
/// The same stream through float4 Views: 16-byte accesses, n/4 indices (n % 4 == 0).
launcher stream_vec4(const stream_problem& p, cudaStream_t s);
/// Star stencil of radius 1 or 2 as parallel_for over MDRangePolicy<Rank<2>> (one point per index,
/// the contiguous column index mapped to threadIdx.x, tiles of 128 x 4).
launcher stencil_mdrange(const stencil_problem& p, int radius, cudaStream_t s);
/// The same with TeamPolicy: one team per 32 x 128 tile, the tile and its halo staged in team
/// scratch memory (level 0), team_barrier, then each thread computes from scratch.
launcher stencil_team(const stencil_problem& p, int radius, cudaStream_t s);

}  // namespace pb::kokkos
