#!/usr/bin/env python3
"""porter-bench's Triton (and PyTorch) peers: the same problems as porter-bench, timed the same way.

porter-bench runs this script as a child process (bench/src/triton_client.cpp) when
`python3 -c "import triton, torch"` works, and merges the rows it prints into its own results. It
can also be run alone:

    python3 bench/peers/triton_peers.py [--quick] [--only stream,sgemm,bf16gemm] [--device N]
    python3 bench/peers/triton_peers.py --self-test      # no GPU, no triton needed

What each kernel computes (sizes in elements; every matrix is dense, without padding):

* stream (workload "stream", size "2^28 fp32"): y[i] = fma(1.5, x[i], -0.25) for n = 2^28 fp32, x
  and y contiguous 1D. The arithmetic of porter-bench's stream (bench/kernels/compute.cuh,
  stream_consume: fmaf(a, x, b) with a = 1.5, b = -0.25), written with tl.fma where this Triton
  has it (else x * a + b, which Triton contracts to one FMA by default). One tile of BLOCK elements
  per program (the structure of Triton's "Vector Addition" tutorial); BLOCK and num_warps are
  chosen by triton.autotune over BLOCK in {1024, 2048, 4096, 8192, 16384} x num_warps in {4, 8}.
  x is filled with porter-bench's own generator (bench/src/device_util.cu, k_fill: splitmix64 of
  seed * 0x9e3779b97f4a7c15 + i, 24 bits, uniform [-1, 1), seed 1), so y has the same bits as
  porter's stream rows and the checksums (k_checksum's definition) can be compared.
  Extra peers: "torch" = torch.add(b, x, alpha=a, out=y) (one elementwise kernel) and "torch-copy" =
  y.copy_(x) (cudaMemcpyAsync D2D: a cross-check of this script's timing against porter-bench's
  memcpy ceiling).
* sgemm (workload "sgemm", sizes "4096^3 x2", "8192^3": porter-bench's labels, see --l2-bytes):
  C = A B in fp32, M = N = K, with porter-bench's layout: A stored transposed, At[K][M] row-major
  (A[m][k] = At[k * M + m], i.e. strides (1, M)), B[K][N] row-major, C[M][N] row-major. The kernel
  follows the structure of Triton's "Matrix Multiplication" tutorial (a BLOCK_M x BLOCK_N tile of C
  per program, programs ordered in groups of GROUP_M rows of tiles for L2 reuse, a loop over K in
  BLOCK_K steps accumulating tl.dot in fp32), taking A through its strides so that it reads At as
  porter's kernels and cuBLAS do. The dot is exact fp32 (no TF32): tl.dot(..., input_precision=
  "ieee") on Triton 3.x, tl.dot(..., allow_tf32=False) on older ones. Autotuned over six
  BLOCK_M/N/K, GROUP_M, num_stages, num_warps configurations. Inputs: k_fill seeds 100 + 2s (At)
  and 101 + 2s (B) for buffer set s, as porter-bench's sgemm. Extra peer: "torch" =
  torch.matmul(At.t(), B, out=C) with TF32 off (cuBLAS SGEMM).
* bf16gemm (workload "bf16gemm", sizes "8192^3", "4096^3 xS"): C = A B^T with A M x K and B N x K,
  both bf16 row-major (the "TN" layout), fp32 accumulation, C M x N row-major in bf16 (the
  default; --bf16-out fp32 stores the fp32 accumulator instead). The same tutorial structure with B
  read through its strides (B^T[k][n] = B[n * K + k]); autotuned over seven configurations. Inputs:
  k_fill (seeds 300 + 2s for A, 301 + 2s for B) rounded to bf16. Extra peer: "torch" =
  torch.matmul(A, B.t(), out=C) (cuBLAS, bf16 out, fp32 accumulation: reduced-precision reductions
  switched off).

Buffer sets: as porter-bench's GEMMs, S = min(4, ceil(4 L2 / bytes of one set)) sets of (A, B, C)
are rotated between timed launches so that the working set is at least 4x the L2; the size label
gets " xS" when S > 1. L2 is --l2-bytes (porter-bench passes the runtime's value), else torch's.

Checks (once per implementation, before it is timed): the output is filled with NaN, the kernel
runs once (after autotuning, which writes the output itself), then
* stream: every element against (1.5 x - 0.25) computed exactly in fp64 and rounded to fp32 (which
  is fmaf's result): relative error <= 1e-6 passes, as porter-bench's check; the number of elements
  that are not bit-identical to fmaf is reported.
* sgemm: no NaN left; 16 entries (porter-bench's sample positions) against fp64
  (max |err| / sum |a b| <= 1e-5), and the whole C against torch.matmul in fp32
  (||C - C_torch|| / ||C_torch|| < 1e-4, porter-bench's bound against cuBLAS).
* bf16gemm: no NaN left; the whole C against torch.matmul of the same bf16 values in fp32
  (relative Frobenius error <= 4e-3 for bf16 output, about 2x the rounding of bf16; 1e-4 for fp32).
Every check reports the checksum of the output (porter-bench's k_checksum: the wrap-around sum of
splitmix64(bits << 32 ^ index) over the fp32 values; bf16 C is widened to fp32 first, exactly).

Timing: CUDA events (torch.cuda.Event) around every launch, launches queued back to back behind an
untimed one, warm-up apart, then the median (and min, p10, p90) of R launches, R from an estimate
of one launch so that about `target` ms are timed, clamped to [min, max]: porter-bench's
bench/src/timing.cpp (porter-bench passes its numbers with --timing; the defaults here are the
same). Not triton.testing.do_bench (which flushes the L2 and reports the mean of its own choice):
the autotuner uses do_bench to choose a configuration, the reported numbers come from the events.

Output: one line per result on stdout, "PBPEER " followed by a JSON object ("type": "row" | "meta" |
"note" | "skip"); progress on stderr. Without triton, torch or a GPU it prints one "skip" line with
the reason and exits 0.

Sources followed (structure and API, not code): Triton's documentation and its tutorials
"Vector Addition" (01) and "Matrix Multiplication" (03, the grouped program ordering and the
autotuned configurations), the triton.autotune / triton.Config / triton.language.dot reference,
and PyTorch's torch.cuda.Event and torch.backends.cuda.matmul documentation.
"""

import argparse
import json
import math
import os
import sys
import time

PREFIX = "PBPEER "
MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
STREAM_N = 1 << 28
STREAM_A, STREAM_B = 1.5, -0.25
# porter-bench's timing budget (bench/src/timing.cpp, budget_for): warm-up, min, max runs, target ms.
TIMING_QUICK = (1, 5, 30, 60.0)
TIMING_FULL = (2, 10, 100, 300.0)


# ---- output -----------------------------------------------------------------------------------------

def emit(kind, **fields):
    obj = {"type": kind}
    obj.update(fields)
    sys.stdout.write(PREFIX + json.dumps(obj) + "\n")
    sys.stdout.flush()


def progress(t0, msg):
    sys.stderr.write("[triton_peers %6.1f s] %s\n" % (time.time() - t0, msg))
    sys.stderr.flush()


# ---- pure helpers (also exercised by --self-test) ------------------------------------------------

def mix64(z):
    """splitmix64's finaliser on a Python int, as bench/src/device_util.cu's mix64."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def fill_value(seed, i, lo=-1.0, hi=1.0):
    """k_fill's element i (as a Python float; exact in fp32: a 24-bit fraction times 2, minus 1)."""
    h = mix64((seed * GOLDEN + i) & MASK64)
    u = (h >> 40) / 16777216.0
    return lo + (hi - lo) * u


def checksum_of_bits(bits):
    """k_checksum over a sequence of fp32 bit patterns (element i has index i)."""
    s = 0
    for i, b in enumerate(bits):
        s = (s + mix64(((b & 0xFFFFFFFF) << 32) ^ i)) & MASK64
    return s


def quantile(sorted_v, q):
    """bench/src/timing.cpp's quantile: linear interpolation between order statistics."""
    if not sorted_v:
        return 0.0
    pos = q * (len(sorted_v) - 1)
    i = int(math.floor(pos))
    f = pos - i
    return sorted_v[i] * (1 - f) + sorted_v[i + 1] * f if i + 1 < len(sorted_v) else sorted_v[i]


def buffer_sets(l2_bytes, set_bytes):
    """porter-bench's rotation rule: at least 4x the L2 in flight, at most 4 sets."""
    return max(1, min(4, (4 * l2_bytes + set_bytes - 1) // set_bytes))


def gemm_size_label(n, nsets):
    """porter-bench's size column for an n^3 GEMM over nsets rotated buffer sets."""
    return "%d^3" % n + (" x%d" % nsets if nsets > 1 else "")


def sample_positions(m, n, samples):
    """porter-bench's spot_check_gemm positions (32-bit unsigned arithmetic)."""
    out = []
    for s in range(samples):
        i = ((1103515245 * (s + 1) + 12345) & 0xFFFFFFFF) % m
        j = ((2654435761 * (s + 7)) & 0xFFFFFFFF) % n
        out.append((i, j))
    return out


def reps_for(estimate_ms, timing):
    _, lo, hi, target = timing
    reps = int(math.ceil(target / estimate_ms)) if estimate_ms > 0 else hi
    return max(lo, min(hi, reps))


# ---- self-test (no GPU, no triton) ----------------------------------------------------------------

def self_test(args):
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    # splitmix64: state 0 advanced by the golden gamma gives 0xe220a8397b1dcdaf, then 0x6e789e6aa1b965f4.
    expect(mix64(GOLDEN) == 0xE220A8397B1DCDAF, "mix64(golden) != splitmix64's first output")
    expect(mix64((2 * GOLDEN) & MASK64) == 0x6E789E6AA1B965F4, "mix64(2 golden) != splitmix64's second output")
    v = [fill_value(1, i) for i in range(1000)]
    expect(all(-1.0 <= x < 1.0 for x in v), "fill values outside [-1, 1)")
    expect(all((x + 1.0) * 8388608.0 == int((x + 1.0) * 8388608.0) for x in v), "fill values not multiples of 2^-23")
    expect(quantile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5, "quantile")
    expect(quantile([5.0], 0.9) == 5.0, "quantile of one")
    l2 = args.l2_bytes or (60 << 20)
    expect(gemm_size_label(8192, buffer_sets(l2, 3 * 4 * 8192 * 8192)) == "8192^3", "8192^3 label")
    expect(gemm_size_label(4096, buffer_sets(60 << 20, 3 * 4 * 4096 * 4096)) == "4096^3 x2", "4096^3 x2 label (60 MiB L2)")
    expect(buffer_sets(1 << 40, 1) == 4, "at most 4 sets")
    expect(reps_for(0.5, TIMING_FULL) == 100 and reps_for(1000.0, TIMING_QUICK) == 5, "reps clamp")
    # 1103527590 mod 8192 = 7846; 2654435761 * 7 = 18581050327 = 1401181143 mod 2^32, mod 8192 = 5079.
    expect(sample_positions(8192, 8192, 1) == [(7846, 5079)], "sample positions (porter's spot_check_gemm)")
    # The rows porter-bench parses, through the same emitter as a measured run (marked self_test).
    emit("meta", key="triton", value="self-test")
    emit("meta", key="torch", value="self-test")
    cs = "%016x" % checksum_of_bits([0x3F800000, 0xBF800000, 0])
    emit("row", self_test=True, workload="stream", size="2^28 fp32", impl="triton", kernel="self-test",
         config="BLOCK=4096, num_warps=8", status="ok", check="self-test row, not a measurement", checksum=cs,
         ms_median=0.5, ms_min=0.49, ms_p10=0.495, ms_p90=0.51, reps=30, bytes=2.0 * 4 * STREAM_N, flops=0.0,
         rate=2.0 * 4 * STREAM_N / 0.5e-3 / 1e9, unit="GB/s", ceiling="")
    for n in (4096, 8192):
        label = gemm_size_label(n, buffer_sets(l2, 3 * 4 * n * n))
        emit("row", self_test=True, workload="sgemm", size=label, impl="triton", kernel="self-test",
             config="BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, GROUP_M=8, num_warps=8, num_stages=3", status="ok",
             check="self-test row, not a measurement", checksum=cs, ms_median=25.0, ms_min=24.0, ms_p10=24.5,
             ms_p90=26.0, reps=10, bytes=4.0 * 3 * n * n, flops=2.0 * n ** 3, rate=2.0 * n ** 3 / 25e-3 / 1e12,
             unit="TFLOP/s", ceiling="")
    for n in (8192, 4096):
        label = gemm_size_label(n, buffer_sets(l2, 2 * 2 * n * n + 2 * n * n))
        for impl in ("triton", "torch"):
            emit("row", self_test=True, workload="bf16gemm", size=label, impl=impl, kernel="self-test",
                 config="" if impl == "torch" else "BLOCK_M=128, BLOCK_N=256, BLOCK_K=64", status="ok",
                 check="self-test row, not a measurement", checksum=cs, ms_median=2.0 if impl == "triton" else 1.9,
                 ms_min=1.9, ms_p10=1.95, ms_p90=2.1, reps=20, bytes=2.0 * 3 * n * n, flops=2.0 * n ** 3,
                 rate=2.0 * n ** 3 / (2.0e-3 if impl == "triton" else 1.9e-3) / 1e12, unit="TFLOP/s",
                 ceiling="cuBLAS (torch.matmul)" if impl == "torch" else "", ceiling_stand_in=impl == "torch")
    emit("row", self_test=True, workload="sgemm", size="8192^3", impl="torch", kernel="self-test", status="skipped: self-test")
    emit("note", text='self-test: a "quoted \\"note\\"" with a tab\tand unicode \u00d7')
    if failures:
        sys.stderr.write("triton_peers.py --self-test: FAILED: %s\n" % "; ".join(failures))
        return 1
    sys.stderr.write("triton_peers.py --self-test: passed\n")
    return 0


# ---- the GPU part ----------------------------------------------------------------------------------

def load_gpu_modules():
    """torch, or None and the reason why the peers cannot run here (no torch, no triton, no GPU)."""
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        return None, "cannot import torch: %s" % e
    if triton is None:
        return None, TRITON_IMPORT_ERROR
    if not torch.cuda.is_available():
        return None, "torch %s sees no CUDA GPU (torch.cuda.is_available() is False)" % torch.__version__
    return torch, ""


# ---- the Triton kernels --------------------------------------------------------------------------
# At module level: a kernel finds the jit functions it calls among its globals. Without triton the
# module still imports (for --self-test and the one-line skip).
try:
    import triton
    import triton.language as tl
    TRITON_IMPORT_ERROR = ""
except Exception as _e:  # ImportError, or a broken install
    triton = tl = None
    TRITON_IMPORT_ERROR = "cannot import triton: %s" % _e

KERNELS = {}
if triton is not None:
    import inspect

    try:
        dot_params = inspect.signature(tl.dot).parameters
    except (TypeError, ValueError):
        dot_params = {}
    ieee_kw = "input_precision" in dot_params  # Triton 3.x; older: allow_tf32
    has_fma = hasattr(tl, "fma")

    @triton.jit
    def mix64_dev(z):
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB
        return z ^ (z >> 31)

    @triton.jit
    def fill_kernel(p, n, base_ptr, lo, hi, BLOCK: tl.constexpr):
        # base = seed * 0x9e3779b97f4a7c15 mod 2^64, computed on the host, read as uint64.
        pid = tl.program_id(0)
        i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        base = tl.load(base_ptr).to(tl.uint64, bitcast=True)
        h = mix64_dev(base + i.to(tl.uint64))
        u = (h >> 40).to(tl.float32) * (1.0 / 16777216.0)
        tl.store(p + i, lo + (hi - lo) * u, mask=i < n)

    @triton.jit
    def checksum_kernel(p, n, partial, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        bits = tl.load(p + i, mask=m, other=0.0).to(tl.uint32, bitcast=True).to(tl.uint64)
        h = mix64_dev((bits << 32) ^ i.to(tl.uint64))
        h = tl.where(m, h, tl.zeros_like(h))
        tl.store(partial + pid, tl.sum(h, axis=0).to(tl.int64, bitcast=True))

    stream_configs = [triton.Config({"BLOCK": b}, num_warps=w) for b in (1024, 2048, 4096, 8192, 16384) for w in (4, 8)]

    @triton.autotune(configs=stream_configs, key=["n"])
    @triton.jit
    def stream_kernel(x_ptr, y_ptr, n, a, b, BLOCK: tl.constexpr, USE_FMA: tl.constexpr):
        # One tile of BLOCK elements per program; n < 2^31 (2^28 here), so 32-bit offsets suffice.
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        if USE_FMA:
            y = tl.fma(x, a, b)
        else:
            y = x * a + b
        tl.store(y_ptr + offs, y, mask=m)

    def mm_config(bm, bn, bk, stages, warps, group=8):
        return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": group},
                             num_stages=stages, num_warps=warps)

    # fp32 without tensor cores (FMA dots): 16..32-deep K steps, 64..256-wide tiles.
    sgemm_configs = [
        mm_config(128, 128, 32, 3, 8),
        mm_config(128, 128, 16, 4, 8),
        mm_config(128, 64, 32, 4, 4),
        mm_config(64, 128, 32, 4, 4),
        mm_config(128, 256, 16, 3, 8),
        mm_config(64, 64, 32, 5, 4),
    ]
    # bf16 on tensor cores: the tutorial's kind of configurations for 16-bit inputs.
    bf16_configs = [
        mm_config(128, 256, 64, 3, 8),
        mm_config(256, 128, 64, 3, 8),
        mm_config(128, 128, 64, 4, 8),
        mm_config(64, 256, 32, 4, 4),
        mm_config(128, 128, 32, 4, 4),
        mm_config(128, 64, 32, 4, 4),
        mm_config(64, 128, 32, 4, 4),
    ]

    def even_k(args):
        return args["K"] % args["BLOCK_K"] == 0

    @triton.jit
    def matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                    EVEN_K: tl.constexpr, IEEE: tl.constexpr, IEEE_KW: tl.constexpr):
        # Which tile of C: programs walk GROUP_M tile rows down one tile column before moving right,
        # so that consecutive programs share A rows and B columns in the L2.
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BLOCK_M)
        tiles_n = tl.cdiv(N, BLOCK_N)
        per_group = GROUP_M * tiles_n
        group = pid // per_group
        row0 = group * GROUP_M
        rows_here = tl.minimum(tiles_m - row0, GROUP_M)
        tm = row0 + (pid % per_group) % rows_here
        tn = (pid % per_group) // rows_here
        # Row and column indices of the tile; wrapped into range for the loads (edge tiles compute
        # some rows twice and store them masked), with hints that they are contiguous runs.
        rm = tl.max_contiguous(tl.multiple_of((tm * BLOCK_M + tl.arange(0, BLOCK_M)) % M, BLOCK_M), BLOCK_M)
        rn = tl.max_contiguous(tl.multiple_of((tn * BLOCK_N + tl.arange(0, BLOCK_N)) % N, BLOCK_N), BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
        b_ptrs = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kt in range(0, tl.cdiv(K, BLOCK_K)):
            if EVEN_K:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
            else:
                left = K - kt * BLOCK_K
                a = tl.load(a_ptrs, mask=rk[None, :] < left, other=0.0)
                b = tl.load(b_ptrs, mask=rk[:, None] < left, other=0.0)
            if IEEE:
                if IEEE_KW:
                    acc += tl.dot(a, b, input_precision="ieee")
                else:
                    acc += tl.dot(a, b, allow_tf32=False)
            else:
                acc += tl.dot(a, b)
            a_ptrs += BLOCK_K * s_ak
            b_ptrs += BLOCK_K * s_bk
        cm = tm * BLOCK_M + tl.arange(0, BLOCK_M)
        cn = tn * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + cm[:, None] * s_cm + cn[None, :] * s_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))

    @triton.autotune(configs=sgemm_configs, key=["M", "N", "K"])
    @triton.heuristics({"EVEN_K": even_k})
    @triton.jit
    def sgemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                     EVEN_K: tl.constexpr, IEEE_KW: tl.constexpr):
        matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                    BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, EVEN_K, True, IEEE_KW)

    @triton.autotune(configs=bf16_configs, key=["M", "N", "K"])
    @triton.heuristics({"EVEN_K": even_k})
    @triton.jit
    def bf16_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                    EVEN_K: tl.constexpr, IEEE_KW: tl.constexpr):
        matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                    BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, EVEN_K, False, IEEE_KW)

    KERNELS = {
        "fill": fill_kernel, "checksum": checksum_kernel, "stream": stream_kernel, "sgemm": sgemm_kernel,
        "bf16": bf16_kernel, "ieee_kw": ieee_kw, "has_fma": has_fma,
    }


def describe_config(kernel):
    """'BLOCK_M=128, ..., num_warps=8, num_stages=3' of the configuration the autotuner kept."""
    cfg = getattr(kernel, "best_config", None)
    if cfg is None:
        cache = getattr(kernel, "cache", {}) or {}
        cfg = next(iter(cache.values()), None) if len(cache) == 1 else None
    if cfg is None:
        return "unknown (this triton's Autotuner has no best_config)"
    parts = ["%s=%s" % (k, v) for k, v in sorted(getattr(cfg, "kwargs", {}).items())]
    for attr in ("num_warps", "num_stages", "num_ctas"):
        if getattr(cfg, attr, None) is not None:
            parts.append("%s=%s" % (attr, getattr(cfg, attr)))
    return ", ".join(parts)


class Runner:
    def __init__(self, torch, args):
        self.torch, self.triton, self.args = torch, triton, args
        self.t0 = time.time()
        self.dev = torch.device("cuda", args.device)
        torch.cuda.set_device(self.dev)
        self.k = KERNELS
        self.timing = tuple(args.timing) if args.timing else (TIMING_QUICK if args.quick else TIMING_FULL)
        props = torch.cuda.get_device_properties(self.dev)
        self.l2 = args.l2_bytes or int(getattr(props, "L2_cache_size", 0) or (50 << 20))
        self.device_name = props.name
        self.versions = {"triton": triton.__version__, "torch": torch.__version__}

    # -- device helpers --
    def fill(self, t, seed):
        base = (seed * GOLDEN) & MASK64
        base_signed = base - (1 << 64) if base >= (1 << 63) else base
        base_t = self.torch.tensor([base_signed], dtype=self.torch.int64, device=self.dev)
        n = t.numel()
        block = 1024
        self.k["fill"][(self.triton.cdiv(n, block),)](t, n, base_t, -1.0, 1.0, BLOCK=block)

    def checksum(self, t):
        f = t if t.dtype == self.torch.float32 else t.float()
        f = f.contiguous().view(-1)
        n = f.numel()
        block = 4096
        grid = self.triton.cdiv(n, block)
        partial = self.torch.empty(grid, dtype=self.torch.int64, device=self.dev)
        self.k["checksum"][(grid,)](f, n, partial, BLOCK=block)
        return "%016x" % (int(partial.sum().item()) & MASK64)

    def self_check_helpers(self):
        """The device fill and checksum against their pure-Python definitions (a few thousand elements)."""
        torch = self.torch
        t = torch.empty(5000, dtype=torch.float32, device=self.dev)
        self.fill(t, 7)
        host = t.cpu().tolist()
        idx = list(range(0, 5000, 97)) + [4999]
        bad = [i for i in idx if host[i] != fill_value(7, i)]
        if bad:
            raise RuntimeError("device fill differs from k_fill's definition at %d of %d sampled elements (first: %d)"
                               % (len(bad), len(idx), bad[0]))
        bits = t.view(torch.int32).cpu().tolist()
        want = "%016x" % checksum_of_bits(bits)
        got = self.checksum(t)
        if got != want:
            raise RuntimeError("device checksum %s differs from k_checksum's definition %s" % (got, want))

    def time_launches(self, launch):
        torch = self.torch
        warm, _, _, _ = self.timing
        for i in range(warm):
            launch(i)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        launch(0)
        e1.record()
        e1.synchronize()
        reps = reps_for(e0.elapsed_time(e1), self.timing)
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
        launch(1)  # keeps the GPU busy while the timed launches are queued behind it
        for r in range(reps):
            ev[r][0].record()
            launch(r)
            ev[r][1].record()
        ev[-1][1].synchronize()
        ms = sorted(s.elapsed_time(e) for s, e in ev)
        return {"ms_median": quantile(ms, 0.5), "ms_min": ms[0], "ms_p10": quantile(ms, 0.1),
                "ms_p90": quantile(ms, 0.9), "reps": reps}

    def over_budget(self):
        return self.args.budget > 0 and time.time() - self.t0 > self.args.budget

    def run_one(self, base, impl, kernel, launch, poison, verify, tune=None, autotuned=None):
        """Tune (triton), poison, run once, check, time; print the row."""
        row = dict(base)
        row.update(impl=impl, kernel=kernel, config="", status="ok", check="", checksum="")
        row.update(self.versions)
        label = "%s %s %s" % (base["workload"], base["size"], impl)
        try:
            if tune is not None:
                t = time.time()
                tune()
                self.torch.cuda.synchronize()
                row["config"] = describe_config(autotuned)
                row["tune_s"] = round(time.time() - t, 1)
                progress(self.t0, "%s: autotuned in %.1f s: %s" % (label, time.time() - t, row["config"]))
            poison()
            launch(0)
            self.torch.cuda.synchronize()
            ok, what, cs = verify()
            row["check"], row["checksum"] = what, cs
            if not ok:
                row["status"] = "FAILED: " + what
                progress(self.t0, "%s: FAILED: %s" % (label, what))
            else:
                row.update(self.time_launches(launch))
                s = row["ms_median"] * 1e-3
                row["rate"] = (row["bytes"] if row["unit"] == "GB/s" else row["flops"]) / s / (1e9 if row["unit"] == "GB/s" else 1e12)
                progress(self.t0, "%s: %.3f ms (%.2f %s, %d runs)" % (label, row["ms_median"], row["rate"], row["unit"], row["reps"]))
        except Exception as e:  # a refused config, out of memory, a compiler error: the row says so
            row["status"] = "FAILED: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            progress(self.t0, "%s: %s" % (label, row["status"]))
        emit("row", **row)
        return row

    def skipped(self, base, impls, why):
        for impl in impls:
            row = dict(base)
            row.update(impl=impl, kernel="", config="", status="skipped: " + why, check="", checksum="")
            row.update(self.versions)
            emit("row", **row)

    # -- stream --
    def run_stream(self):
        torch = self.torch
        n = STREAM_N
        base = {"workload": "stream", "size": "2^28 fp32", "bytes": 2.0 * 4 * n, "flops": 0.0, "unit": "GB/s",
                "ceiling": "", "rate": 0.0}
        if self.over_budget():
            return self.skipped(base, ("triton", "torch", "torch-copy"), "time budget of the peer run used up")
        x = torch.empty(n, dtype=torch.float32, device=self.dev)
        y = torch.empty_like(x)
        self.fill(x, 1)
        a, b = STREAM_A, STREAM_B
        # fmaf(a, x, b) exactly: a x + b is exact in fp64 (x is a multiple of 2^-23 in [-1, 1)), and one
        # rounding to fp32 is what a fused multiply-add gives.
        ref = torch.empty_like(x)
        chunk = 1 << 24
        for s in range(0, n, chunk):
            ref[s:s + chunk] = (x[s:s + chunk].double() * a + b).float()

        def poison():
            y.fill_(float("nan"))

        def verify_axpb():
            bad = 0
            not_bitwise = 0
            for s in range(0, n, chunk):
                yy, rr = y[s:s + chunk], ref[s:s + chunk]
                err = (yy - rr).abs()
                tol = 1e-6 * torch.clamp(rr.abs(), min=1.0)
                bad += int((~(err <= tol)).sum().item())
                not_bitwise += int((yy.view(torch.int32) != rr.view(torch.int32)).sum().item())
            cs = self.checksum(y)
            if bad:
                return False, "%d of %d elements wrong or unwritten" % (bad, n), cs
            return True, ("all elements = a*x+b (rel. err <= 1e-6); %s; checksum %s"
                          % ("bit-identical to fmaf(a, x, b)" if not_bitwise == 0
                             else "%d elements differ from fmaf(a, x, b) in their bits" % not_bitwise, cs)), cs

        def verify_copy():
            same = bool(torch.equal(y.view(torch.int32), x.view(torch.int32)))
            cs = self.checksum(y)
            return same, ("y == x exactly" if same else "y differs from x") + "; checksum " + cs, cs

        kern = self.k["stream"]
        use_fma = self.k["has_fma"]
        grid = lambda meta: (self.triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731

        def launch_triton(_rep):
            kern[grid](x, y, n, a, b, USE_FMA=use_fma)

        self.run_one(base, "triton", "stream_kernel (tl.fma)" if use_fma else "stream_kernel (x * a + b, fp fusion)",
                     launch_triton, poison, verify_axpb, tune=lambda: launch_triton(0), autotuned=kern)
        bt = torch.tensor(b, dtype=torch.float32, device=self.dev)
        self.run_one(base, "torch", "torch.add(b, x, alpha=a, out=y)",
                     lambda _r: torch.add(bt, x, alpha=a, out=y), poison, verify_axpb)
        copy_base = dict(base, ceiling="cudaMemcpy D2D (torch copy_)", ceiling_stand_in=True)
        self.run_one(copy_base, "torch-copy", "Tensor.copy_ (cudaMemcpyAsync D2D)",
                     lambda _r: y.copy_(x), poison, verify_copy)
        del x, y, ref
        torch.cuda.empty_cache()

    # -- GEMMs --
    def gemm_nsets(self, n, dtype, out_dtype):
        esz = self.torch.tensor([], dtype=dtype).element_size()
        osz = self.torch.tensor([], dtype=out_dtype).element_size()
        return buffer_sets(self.l2, 2 * esz * n * n + osz * n * n)

    def gemm_sets(self, n, dtype, out_dtype, seed0, nsets):
        torch = self.torch
        sets = []
        for s in range(nsets):
            a = torch.empty(n * n, dtype=torch.float32, device=self.dev)
            b = torch.empty(n * n, dtype=torch.float32, device=self.dev)
            self.fill(a, seed0 + 2 * s)
            self.fill(b, seed0 + 1 + 2 * s)
            a, b = a.view(n, n).to(dtype), b.view(n, n).to(dtype)
            sets.append((a, b, torch.empty(n, n, dtype=out_dtype, device=self.dev)))
        return sets

    def run_sgemm(self, n):
        torch = self.torch
        torch.backends.cuda.matmul.allow_tf32 = False
        if hasattr(torch, "set_float32_matmul_precision"):
            torch.set_float32_matmul_precision("highest")
        nsets = self.gemm_nsets(n, torch.float32, torch.float32)
        base = {"workload": "sgemm", "size": gemm_size_label(n, nsets), "flops": 2.0 * n ** 3,
                "bytes": 4.0 * 3 * n * n, "unit": "TFLOP/s", "ceiling": "", "rate": 0.0}
        if self.over_budget():
            return self.skipped(base, ("triton", "torch"), "time budget of the peer run used up")
        sets = self.gemm_sets(n, torch.float32, torch.float32, 100, nsets)  # (At[K][M], B[K][N], C[M][N])
        at0, b0, c0 = sets[0]
        cref = torch.matmul(at0.t(), b0)
        pos = sample_positions(n, n, 16)

        def poison():
            c0.fill_(float("nan"))

        def fp64_check(c):
            worst = 0.0
            for i, j in pos:
                col_a, col_b = at0[:, i].double(), b0[:, j].double()
                prod = col_a * col_b
                ref, mag = float(prod.sum().item()), float(prod.abs().sum().item())
                e = abs(float(c[i, j].item()) - ref) / (mag if mag > 0 else 1.0)
                worst = max(worst, e) if math.isfinite(e) else math.inf
            return worst

        def verify(is_ref):
            def v():
                nan = int((~torch.isfinite(c0)).sum().item())
                cs = self.checksum(c0)
                if nan:
                    return False, "%d outputs not written (NaN poison left)" % nan, cs
                worst = fp64_check(c0)
                what = "16 entries vs fp64: max |err| / sum|a*b| = %.2g" % worst
                ok = worst <= 1e-5
                if not is_ref:
                    fro = float(torch.linalg.norm((c0 - cref).double()) / torch.linalg.norm(cref.double()))
                    what += "; ||C - C_torch|| / ||C_torch|| = %.2fe-6" % (fro * 1e6)
                    ok = ok and fro < 1e-4
                return ok, what + "; checksum " + cs, cs
            return v

        kern = self.k["sgemm"]
        ieee_kw = self.k["ieee_kw"]
        grid = lambda meta: (self.triton.cdiv(n, meta["BLOCK_M"]) * self.triton.cdiv(n, meta["BLOCK_N"]),)  # noqa: E731

        def launch_triton(rep):
            at, b, c = sets[rep % nsets]
            # A[m][k] = At[k][m]: strides (1, M); B[k][n]: (N, 1); C[m][n]: (N, 1).
            kern[grid](at, b, c, n, n, n, at.stride(1), at.stride(0), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                       IEEE_KW=ieee_kw)

        prec = 'input_precision="ieee"' if ieee_kw else "allow_tf32=False"
        self.run_one(base, "triton", "sgemm_kernel (tl.dot %s, At[K][M] through strides)" % prec, launch_triton, poison,
                     verify(False), tune=lambda: launch_triton(0), autotuned=kern)

        def launch_torch(rep):
            at, b, c = sets[rep % nsets]
            torch.matmul(at.t(), b, out=c)

        self.run_one(dict(base, ceiling="cuBLAS (torch.matmul)", ceiling_stand_in=True), "torch",
                     "torch.matmul(At.t(), B, out=C) (cuBLAS, TF32 off)", launch_torch, poison, verify(True))
        del sets, cref, at0, b0, c0
        torch.cuda.empty_cache()

    def run_bf16gemm(self, n):
        torch = self.torch
        out_dtype = torch.float32 if self.args.bf16_out == "fp32" else torch.bfloat16
        if hasattr(torch.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction"):
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
        nsets = self.gemm_nsets(n, torch.bfloat16, out_dtype)
        osz = 4 if out_dtype == torch.float32 else 2
        base = {"workload": "bf16gemm", "size": gemm_size_label(n, nsets), "flops": 2.0 * n ** 3,
                "bytes": 2.0 * 2 * n * n + osz * n * n, "unit": "TFLOP/s", "ceiling": "", "rate": 0.0}
        if self.over_budget():
            return self.skipped(base, ("triton", "torch"), "time budget of the peer run used up")
        sets = self.gemm_sets(n, torch.bfloat16, out_dtype, 300, nsets)  # (A[M][K], B[N][K], C[M][N])
        a0, b0, c0 = sets[0]
        cref = torch.matmul(a0.float(), b0.float().t())  # fp32 reference of the same bf16 values
        tol = 1e-4 if out_dtype == torch.float32 else 4e-3
        cref_norm = torch.linalg.norm(cref.double())

        def poison():
            c0.fill_(float("nan"))

        def verify(c):
            def v():
                nan = int((~torch.isfinite(c)).sum().item())
                cs = self.checksum(c)
                if nan:
                    return False, "%d outputs not written (NaN poison left)" % nan, cs
                fro = float(torch.linalg.norm((c.float() - cref).double()) / cref_norm)
                return fro <= tol, ("||C - C_fp32|| / ||C_fp32|| = %.3g (bound %.0e, %s out) vs torch.matmul in fp32; checksum %s"
                                    % (fro, tol, self.args.bf16_out, cs)), cs
            return v

        kern = self.k["bf16"]
        grid = lambda meta: (self.triton.cdiv(n, meta["BLOCK_M"]) * self.triton.cdiv(n, meta["BLOCK_N"]),)  # noqa: E731

        def launch_triton(rep):
            a, b, c = sets[rep % nsets]
            # B^T[k][n] = B[n][k]: strides (1, K).
            kern[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(1), b.stride(0), c.stride(0), c.stride(1),
                       IEEE_KW=self.k["ieee_kw"])

        self.run_one(base, "triton", "bf16_kernel (A M x K, B N x K, %s out, fp32 accumulate)" % self.args.bf16_out,
                     launch_triton, poison, verify(c0), tune=lambda: launch_triton(0), autotuned=kern)
        # torch.matmul gives bf16 C for bf16 inputs: its own C buffers when the Triton rows store fp32.
        tsets = sets if out_dtype == torch.bfloat16 else [(a, b, torch.empty(n, n, dtype=torch.bfloat16, device=self.dev))
                                                          for a, b, _ in sets]
        tc0 = tsets[0][2]

        def launch_torch(rep):
            a, b, c = tsets[rep % nsets]
            torch.matmul(a, b.t(), out=c)

        tbase = dict(base, ceiling="cuBLAS (torch.matmul)", ceiling_stand_in=True, bytes=2.0 * 3 * n * n)
        self.run_one(tbase, "torch", "torch.matmul(A, B.t(), out=C) (cuBLAS, bf16 out, fp32 accumulate)", launch_torch,
                     lambda: tc0.fill_(float("nan")), verify(tc0))
        del sets, tsets, cref, a0, b0, c0, tc0
        torch.cuda.empty_cache()


def main(argv):
    p = argparse.ArgumentParser(description="Triton and PyTorch peers of porter-bench (rows on stdout)")
    p.add_argument("--quick", action="store_true", help="fewer repetitions (porter-bench's quick budget)")
    p.add_argument("--only", default="stream,sgemm,bf16gemm", help="comma-separated: stream, sgemm, bf16gemm")
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--l2-bytes", type=int, default=0, help="L2 size for the buffer-set rule (default: torch's)")
    p.add_argument("--budget", type=float, default=0, help="seconds after which no new workload starts (0: none)")
    p.add_argument("--timing", type=lambda s: [float(v) if i == 3 else int(v) for i, v in enumerate(s.split(","))],
                   help="warmup,min_reps,max_reps,target_ms (default: porter-bench's for the mode)")
    p.add_argument("--bf16-out", choices=("bf16", "fp32"), default="bf16", help="the Triton bf16gemm's C type")
    p.add_argument("--sizes", default="", help="GEMM sizes, comma-separated (default: 4096,8192 as porter-bench)")
    p.add_argument("--self-test", action="store_true", help="check the pure helpers, print a fake row set, exit")
    args = p.parse_args(argv)
    if args.self_test:
        return self_test(args)
    only = [w for w in args.only.split(",") if w]
    for w in only:
        if w not in ("stream", "sgemm", "bf16gemm"):
            p.error("--only takes stream, sgemm, bf16gemm (got %s)" % w)
    sizes = [int(s) for s in args.sizes.split(",") if s] or [4096, 8192]
    for n in sizes:
        if n <= 0 or n % 256:
            p.error("--sizes: %d is not a positive multiple of 256 (the largest tile; the kernels' contiguity hints need it)" % n)
    mods, why = load_gpu_modules()
    if mods is None:
        emit("skip", reason=why)
        return 0
    torch = mods
    r = Runner(torch, args)
    emit("meta", key="triton", value=triton.__version__)
    emit("meta", key="torch", value="%s (CUDA %s)" % (torch.__version__, torch.version.cuda))
    emit("meta", key="triton peers device", value="%s (cuda:%d), L2 %d bytes" % (r.device_name, args.device, r.l2))
    emit("meta", key="triton peers timing",
         value="CUDA events per launch (torch.cuda.Event), back to back; warm-up %d, median of %d..%d runs aiming at %g ms"
               % r.timing)
    emit("meta", key="triton sgemm dot", value='tl.dot(input_precision="ieee")' if r.k["ieee_kw"] else "tl.dot(allow_tf32=False)")
    try:
        r.self_check_helpers()
    except Exception as e:
        emit("note", text="Triton peers not run: %s" % e)
        return 0
    if "stream" in only:
        r.run_stream()
    if "sgemm" in only:
        for n in sizes:
            r.run_sgemm(n)
    if "bf16gemm" in only:
        for n in sorted(sizes, reverse=True):
            r.run_bf16gemm(n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
