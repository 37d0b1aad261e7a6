// bench/src/checks.hpp — correctness checks shared by porter-bench and porter-bench-kokkos.
#pragma once
#include <string>

namespace pb {

/// What a correctness check found: ok, and a sentence for the report.
struct verdict {
  bool ok = true;
  std::string what;
};

/// The stencil of radius 1 or 2 on 5 blocks of 64 x 256 outputs (the four corners and the centre)
/// of an h x w grid, against the CPU in the same float operation order; passes at max |err| <= 1e-5
/// (fused multiply-adds on the GPU may differ in the last bit for radius 2).
verdict check_stencil_blocks(const float* d_in, const float* d_out, int h, int w, int radius);

/// "%016llx".
std::string hex64(unsigned long long v);

}  // namespace pb
