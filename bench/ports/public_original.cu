// bench/ports/public_original.cu — times the public kernel's original in porter-bench, when the
// build has it: NVIDIA cuda-samples' globalToShmemAsyncCopy.cu, fetched by whoever runs the bench
// (bench/README.md, "ports") and named by PORTER_PORTS_ORIGINAL. This file holds none of the
// sample's code: it includes the fetched file (its main() renamed) and launches the sample's
// MatrixMulAsyncCopySingleStage<16> as the sample does (grid wB/16 x hA/16, 16 x 16 threads).
// Without PORTER_PORTS_ORIGINAL it compiles to a note saying why the row is missing.
#include <stdexcept>
#include <string>

#if defined(PB_PORTS_ORIGINAL_FILE)
#define main pb_cuda_sample_main  // the sample's main() is not porter-bench's
#include PB_PORTS_ORIGINAL_FILE
#undef main
#endif

#include "../baselines/manual_common.hpp"
#include "ports.hpp"

namespace pb {

void register_public_original(registry& r) {
  port_pair& pair = r.port("public-matmul");
#if defined(PB_PORTS_ORIGINAL_FILE)
  constexpr int bs = ports::matmul::block;
  auto* k = &MatrixMulAsyncCopySingleStage<bs>;
  pair.variants.insert(pair.variants.begin(),
                       {manual_desc("original", "cuda::pipeline (thread scope)", 0, 1, bs * bs, 2 * bs * bs * sizeof(float), 0, 0,
                                    reinterpret_cast<const void*>(k), "MatrixMulAsyncCopySingleStage"),
                        [k](const port_problem& p, int) -> launcher {
                          if (p.rows % bs || p.cols % bs || p.depth % bs)
                            throw std::invalid_argument("the sample needs every size a multiple of 16");
                          return [=](cudaStream_t s) {
                            // MatrixMulAsyncCopySingleStage(C, A, B, wA, wB), as the sample launches it.
                            k<<<dim3(p.cols / bs, p.rows / bs), dim3(bs, bs), 0, s>>>(p.out, p.a, p.b, p.depth, p.cols);
                            check_launch("MatrixMulAsyncCopySingleStage");
                          };
                        }});
  pair.note = std::string("original: ") + PB_PORTS_ORIGINAL_FILE;
#else
  pair.note = "the original (cuda-samples globalToShmemAsyncCopy.cu) is not in this build: configure with "
              "-DPORTER_PORTS_ORIGINAL=<path to the fetched file> (bench/README.md, \"ports\")";
#endif
}

}  // namespace pb
