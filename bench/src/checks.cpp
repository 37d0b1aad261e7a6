// bench/src/checks.cpp — see checks.hpp.
#include "checks.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "../kernels/shapes.hpp"

namespace pb {
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
}  // namespace

std::string hex64(unsigned long long v) {
  char b[32];
  std::snprintf(b, sizeof b, "%016llx", v);
  return b;
}

verdict check_stencil_blocks(const float* d_in, const float* d_out, int h, int w, int radius) {
  const int bh = std::min(64, h), bw = std::min(256, w);
  const int starts[5][2] = {{0, 0}, {0, w - bw}, {h - bh, 0}, {h - bh, w - bw}, {(h - bh) / 2, (w - bw) / 2}};
  double max_err = 0;
  for (const auto& st : starts) {
    const int r0 = st[0], c0 = st[1];
    const int ih = bh + 2 * radius, iw = bw + 2 * radius;
    std::vector<float> in(std::size_t(ih) * iw, 0.0f), out(std::size_t(bh) * bw);
    // Rows/columns of the input window that lie inside the grid (the rest stays zero).
    const int gr0 = std::max(0, r0 - radius), gr1 = std::min(h, r0 + bh + radius);
    const int gc0 = std::max(0, c0 - radius), gc1 = std::min(w, c0 + bw + radius);
    check(cudaMemcpy2D(in.data() + std::size_t(gr0 - (r0 - radius)) * iw + (gc0 - (c0 - radius)), iw * sizeof(float),
                       d_in + std::size_t(gr0) * w + gc0, std::size_t(w) * sizeof(float), std::size_t(gc1 - gc0) * sizeof(float),
                       gr1 - gr0, cudaMemcpyDeviceToHost),
          "cudaMemcpy2D (input block)");
    check(cudaMemcpy2D(out.data(), bw * sizeof(float), d_out + std::size_t(r0) * w + c0, std::size_t(w) * sizeof(float),
                       bw * sizeof(float), bh, cudaMemcpyDeviceToHost),
          "cudaMemcpy2D (output block)");
    auto at = [&](int r, int c) { return in[std::size_t(r + radius) * iw + (c + radius)]; };  // block coordinates
    for (int r = 0; r < bh; ++r)
      for (int c = 0; c < bw; ++c) {
        float ref;
        if (radius == 1) {
          ref = 0.25f * ((at(r - 1, c) + at(r + 1, c)) + (at(r, c - 1) + at(r, c + 1)));
        } else {
          ref = std::fma(star<2>::w2, (at(r - 2, c) + at(r + 2, c)) + (at(r, c - 2) + at(r, c + 2)),
                         std::fma(star<2>::w1, (at(r - 1, c) + at(r + 1, c)) + (at(r, c - 1) + at(r, c + 1)),
                                  star<2>::w0 * at(r, c)));
        }
        const double e = std::fabs(double(out[std::size_t(r) * bw + c]) - double(ref));
        if (!(e <= max_err)) max_err = std::isfinite(e) ? e : INFINITY;
      }
  }
  verdict v;
  v.ok = max_err <= 1e-5;
  char b[160];
  std::snprintf(b, sizeof b, "5 blocks of %dx%d (corners, centre) vs CPU: max |err| %.2g", bh, bw, max_err);
  v.what = b;
  return v;
}

}  // namespace pb
