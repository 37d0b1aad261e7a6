// bench/ports/public_bf16gemm.cu — registers the port of cuda-samples' bf16TensorCoreGemm
// (public_bf16gemm.cuh) in the ports pair `public-bf16gemm`, on every path and `automatic`:
//   porter             S = 1, the sample's skewed shared pitch (box 128 x 144)   — the sample's schedule
//   porter-overlapped  S = 2, the same boxes (one step in flight while one is consumed)
//   porter-dense       S = 1, dense 128 x 128 boxes (wmma ldm 128: the bank conflicts the skew avoids)
//   porter-nvcuda-loads S = 1 as `porter`, with nvcuda::wmma's own (generic) fragment loads and stores
//                      instead of porter::load_matrix_sync: what the shared state space is worth
// Each on the sample's grid: SMs x this kernel's occupancy CTAs, persistent over the 128 x 128 tiles.
// Built only for the targets of PORTER_CUDA_ARCHITECTURES that have bf16 tensor cores (sm_80+;
// bench/CMakeLists.txt), so its rows need compute capability 8.0 (min_cc 80); when that list has
// no such target (PB_BF16GEMM_NO_TARGETS) it compiles to a note saying why the rows are missing.
#include <stdexcept>

#include "add_port.cuh"
#if !defined(PB_BF16GEMM_NO_TARGETS)
#include "public_bf16gemm.cuh"
#endif

namespace pb {
namespace ports {
#if !defined(PB_BF16GEMM_NO_TARGETS)
namespace {

/// What add_port reads of a kernel's pipelines: the A/B ring's stages and stage bytes, and the
/// launch's dynamic shared memory (both rings: the shared_layout).
template <class R>
struct bf16gemm_shared {
  using ring = typename R::ab::ring;
  static constexpr int stages = R::ab::stages;
  static constexpr std::size_t shared_bytes = R::layout::bytes;
};

template <class P, int S, int Pitch, bool PorterLoads = true>
void add_bf16gemm(registry& r, const char* impl) {
  using namespace bf16gemm;
  using Q = concrete_or_staged<P>;
  auto fam = porter::kernel_family{[](auto q) { return &pb_port_bf16gemm<decltype(q), S, Pitch, PorterLoads>; }};
  add_port<P, bf16gemm_shared<rings<Q, S, Pitch>>>(
      r, "public-bf16gemm", "pb_port_bf16gemm", dim3(threads), fam,
      [](const port_problem& p, int resident) {
        if (p.depth < 1 || p.cols % 4) throw std::invalid_argument("the bf16 GEMM port needs k >= 1 and n % 4 == 0");
        const std::int64_t ea[2] = {p.rows, p.depth}, eb[2] = {p.cols, p.depth}, ec[2] = {p.rows, p.cols};
        const auto* a = static_cast<const __nv_bfloat16*>(p.a16);
        const auto* b = static_cast<const __nv_bfloat16*>(p.b16);
        return std::make_pair(dim3(resident), std::make_tuple(porter::make_tiled_source<ab_box<Pitch>>(a, ea),
                                                              porter::make_tiled_source<ab_box<Pitch>>(b, eb),
                                                              porter::make_tiled_source<c_box>(p.c, ec), p.out, p.rows,
                                                              p.cols, p.depth, alpha, beta));
      },
      impl, 80);
}

template <class P>
void add_bf16gemm_on(registry& r) {
  add_bf16gemm<P, 1, bf16gemm::chunk_k + bf16gemm::skew>(r, "porter");
  add_bf16gemm<P, 2, bf16gemm::chunk_k + bf16gemm::skew>(r, "porter-overlapped");
  add_bf16gemm<P, 1, bf16gemm::chunk_k>(r, "porter-dense");
  add_bf16gemm<P, 1, bf16gemm::chunk_k + bf16gemm::skew, false>(r, "porter-nvcuda-loads");
}

}  // namespace
#endif

void register_public_bf16gemm_port(registry& r) {
#if defined(PB_BF16GEMM_NO_TARGETS)
  r.port("public-bf16gemm").note = "the bf16 tensor-core port is not in this build: PORTER_CUDA_ARCHITECTURES has no target >= 80";
#else
  add_bf16gemm_on<porter::path::tma>(r);
  add_bf16gemm_on<porter::path::cp_async>(r);
  add_bf16gemm_on<porter::path::staged>(r);
  add_bf16gemm_on<porter::path::automatic>(r);
#endif
}

}  // namespace ports
}  // namespace pb
