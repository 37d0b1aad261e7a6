// bench/baselines/kokkos_main.cpp — porter-bench-kokkos: the Kokkos baselines of porter-bench, run as
// its child process (see bench/src/kokkos_client.cpp for why and for the output format).
// Same inputs (seeds), same checks and same timing budget as porter-bench.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

#include "../src/checks.hpp"
#include "../src/device_util.hpp"
#include "../src/timing.hpp"
#include "kokkos_baselines.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "porter-bench-kokkos: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

std::string clean(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n') c = ' ';
  return s;
}

void emit(const char* workload, const char* impl, const char* kernel, const std::string& status, const std::string& what,
          const pb::timing& t) {
  std::printf("PBROW\t%s\t%s\t%s\t%s\t%s\t%.6f\t%.6f\t%.6f\t%.6f\t%d\n", workload, impl, kernel, clean(status).c_str(),
              clean(what).c_str(), t.median_ms, t.min_ms, t.p10_ms, t.p90_ms, t.reps);
  std::fflush(stdout);
}

/// Poison, run once, check, then time.
void measure(const char* workload, const char* impl, const char* kernel, const pb::launcher& l, cudaStream_t s,
             const pb::timing_budget& b, const std::function<void()>& poison, const std::function<pb::verdict()>& verify) {
  pb::timing t;
  try {
    poison();
    l(s);
    check(cudaStreamSynchronize(s), "first run");
    const pb::verdict v = verify();
    if (!v.ok) {
      emit(workload, impl, kernel, "FAILED: " + v.what, v.what, t);
      return;
    }
    t = pb::time_launches([&](int) { l(s); }, s, b);
    emit(workload, impl, kernel, "ok", v.what, t);
  } catch (const std::exception& e) {
    emit(workload, impl, kernel, std::string("FAILED: ") + e.what(), "", t);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0;
  bool quick = false, do_stream = true, do_stencil = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc) device = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--no-stream")) do_stream = false;
    else if (!std::strcmp(argv[i], "--no-stencil")) do_stencil = false;
  }
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  pb::kokkos::initialize(device);
  const pb::timing_budget b = pb::budget_for(quick);
  {
    const std::size_t n = std::size_t(1) << 28, bytes = n * sizeof(float);
    float *x = nullptr, *y = nullptr;
    check(cudaMalloc(&x, bytes), "cudaMalloc");
    check(cudaMalloc(&y, bytes), "cudaMalloc");
    if (do_stream) {
      pb::fill_uniform(x, (long long)n, 1, -1.f, 1.f, s);
      const float a = 1.5f, bb = -0.25f;
      const pb::stream_problem p{x, y, (long long)n, a, bb};
      auto poison = [&] { check(cudaMemsetAsync(y, 0xff, bytes, s), "poison"); };
      auto verify = [&] {
        const long long bad = pb::count_stream_errors(x, y, (long long)n, a, bb, 1e-6f, s);
        return pb::verdict{bad == 0, bad == 0 ? "all elements = a*x+b (rel. err <= 1e-6)" : std::to_string(bad) + " elements wrong or unwritten"};
      };
      measure("stream", "kokkos-range", "pb_kokkos_stream", pb::kokkos::stream(p, s), s, b, poison, verify);
      measure("stream", "kokkos-range-vec4", "pb_kokkos_stream_vec4", pb::kokkos::stream_vec4(p, s), s, b, poison, verify);
    }
    if (do_stencil) {
      const int h = 16384, w = 16384;
      for (int r = 1; r <= 2; ++r) {
        pb::fill_uniform(x, (long long)h * w, 2 + r, -1.f, 1.f, s);
        const pb::stencil_problem p{x, y, h, w};
        const std::string wl = "stencil2d-r" + std::to_string(r);
        auto poison = [&] { check(cudaMemsetAsync(y, 0xff, bytes, s), "poison"); };
        auto verify = [&] {
          const long long bad = pb::count_nonfinite(y, (long long)h * w, s);
          if (bad) return pb::verdict{false, std::to_string(bad) + " outputs not written (NaN poison left)"};
          pb::verdict v = pb::check_stencil_blocks(x, y, h, w, r);
          v.what += "; checksum " + pb::hex64(pb::checksum(y, (long long)h * w, s));
          return v;
        };
        measure(wl.c_str(), "kokkos-mdrange", "pb_kokkos_stencil_mdrange", pb::kokkos::stencil_mdrange(p, r, s), s, b, poison, verify);
        measure(wl.c_str(), "kokkos-team", "pb_kokkos_stencil_team", pb::kokkos::stencil_team(p, r, s), s, b, poison, verify);
      }
    }
    cudaFree(x);
    cudaFree(y);
  }
  pb::kokkos::finalize();
  cudaStreamDestroy(s);
  return 0;
}
