// bench/kernels/wgmma_consumer.cuh — the warpgroup tensor-core consumer of porter-bench's bf16 GEMM on
// sm_90a: wgmma.mma_async reading both operands from landed, 128 B-swizzled porter tiles through
// porter::wgmma_descriptor. Inline PTX of the bench kernels lives here and in mma_consumer.cuh only
// (bench/README.md): the kernels that use it (bf16gemm_wgmma.cuh) stay free of PTX and architecture
// conditionals.
//
// Instructions (PTX ISA 9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"; sm_90a):
//   wgmma.fence.sync.aligned                   9.7.15.7.1: orders this warpgroup's register accesses
//                                              of the accumulators before the wgmma that follow
//   wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 d, adesc, bdesc, p, 1, 1, 0, 0
//                                              9.7.15.5.2: D (64 x 256, fp32) = A (64 x 16) * B^T
//                                              (B: 256 x 16) + (p ? D : 0); A and B K-major in shared
//                                              memory (transpose flags 0), given by 64-bit matrix
//                                              descriptors (porter/matrix_descriptor.hpp)
//   wgmma.commit_group.sync.aligned            9.7.15.7.2: the wgmma issued so far form one group
//   wgmma.wait_group.sync.aligned N            9.7.15.7.3: wait until at most N groups are pending
// All four are warpgroup-collective: the 128 threads of an aligned warpgroup, converged.
//
// Accumulator layout of m64nNk16 with fp32 D (PTX ISA 9.7.15.5.1.1, the register fragment figure
// of D): thread r of the warpgroup, warp w = r / 32, lane l, g = l / 4, t = l % 4; for each
// 8-column block j (0 .. N/8 - 1):
//   d[4j + 0], d[4j + 1] = D(16 w + g,     8 j + 2 t), D(16 w + g,     8 j + 2 t + 1)
//   d[4j + 2], d[4j + 3] = D(16 w + g + 8, 8 j + 2 t), D(16 w + g + 8, 8 j + 2 t + 1)
// (the mma.sync m16n8 C layout of mma_consumer.cuh, repeated along N, one warp per 16 rows).
//
// The accumulators are in flight between mma_async and the wait that covers its group: nothing
// else may read or write them. wgmma_fence_operands ties them with an empty asm so that the
// compiler neither moves nor copies them across a wgmma (CUTLASS's warpgroup_fence_operand).
//
// Outside sm_90a (wgmma is an arch-specific feature: not sm_90, not sm_100a) the functions compile
// to a trap with a message (PORTER_ARCH_HAS_WGMMA); porter-bench builds the kernels that use them
// for sm_90a only and skips their rows on any device that is not 9.0 (kernel_desc::only_cc).
#pragma once
#include <cstdint>

#include <porter/config.hpp>
#include <porter/detail/trap.hpp>

namespace pb {

/// Accumulators of one warpgroup's m64n256k16 fp32 D: 128 per thread (layout in the file comment).
constexpr int wgmma_n256_accumulators = 128;

/// Keep the compiler from moving or copying the accumulators across an asynchronous wgmma: an
/// empty asm that reads and writes each of them. Registers only, no instruction.
__device__ __forceinline__ void wgmma_fence_operands(float (&d)[wgmma_n256_accumulators]) {
#pragma unroll
  for (int i = 0; i < wgmma_n256_accumulators; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/// wgmma.fence.sync.aligned (PTX ISA 9.7.15.7.1): before the first wgmma of a batch, after the
/// warpgroup last touched the accumulators with other instructions. Warpgroup-collective.
__device__ __forceinline__ void wgmma_fence() {
#if PORTER_ARCH_HAS_WGMMA
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
  porter::detail::trap("wgmma.fence.sync.aligned needs sm_90a");
#endif
}

/// wgmma.commit_group.sync.aligned (PTX ISA 9.7.15.7.2): the wgmma issued since the last commit
/// form one group. Warpgroup-collective.
__device__ __forceinline__ void wgmma_commit() {
#if PORTER_ARCH_HAS_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
  porter::detail::trap("wgmma.commit_group.sync.aligned needs sm_90a");
#endif
}

/// wgmma.wait_group.sync.aligned N (PTX ISA 9.7.15.7.3): returns when at most N committed groups
/// of this warpgroup are pending; the shared-memory operands and the accumulators of the others
/// are then free. Warpgroup-collective. N in 0..7.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
#if PORTER_ARCH_HAS_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#else
  porter::detail::trap("wgmma.wait_group.sync.aligned needs sm_90a");
#endif
}

/// d = A * B^T + (accumulate ? d : 0) for one m64n256k16 step (PTX ISA 9.7.15.5.2):
/// wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16, scale-a = scale-b = 1, both operands
/// K-major (transpose flags 0). `a`: descriptor of A's 64 (M) x 16 (K) bf16 block, `b`: of B's 256
/// (N) x 16 (K) block (porter::wgmma_descriptor of a landed swizzled tile); `d`: 128 fp32 per
/// thread (file comment). Asynchronous: issue between wgmma_fence and wgmma_commit, and read d only
/// after a wgmma_wait covers its group. Warpgroup-collective.
__device__ __forceinline__ void wgmma_m64n256k16_bf16(float (&d)[wgmma_n256_accumulators], std::uint64_t a, std::uint64_t b,
                                                      bool accumulate) {
#if PORTER_ARCH_HAS_WGMMA
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a), "l"(b), "r"(int(accumulate)));
#else
  (void)d, (void)a, (void)b, (void)accumulate;
  porter::detail::trap("wgmma.mma_async.sync.aligned.m64n256k16 needs sm_90a");
#endif
}

}  // namespace pb
