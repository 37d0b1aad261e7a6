// core/src/choose.cpp — automatic's choice: capability order, then the measured break-even of tma.
#include "porter/choose.hpp"

#include <string>

namespace porter {
namespace {

// Newest last. Until a device class has been measured, the entry before it applies.
// sm_90: porter-bench --only boxsize on an H200, 2026-12-02 (bench/results/h200-2026-12-02-session18/
// run3_boxsize): the stream kernel at box sizes 512 B .. 32 KiB, 4 stages, every path, the planner's
// grid. tma / the faster of cp_async and staged:
//   1D (cp.async.bulk):  512 B 0.355, 1 KiB 0.396, 2 KiB 0.615, 4 KiB 0.841, 8 KiB 1.017, 16 KiB 0.980,
//                        32 KiB 0.991 -- the same CTAs per SM on tma and cp_async at every size; tma
//                        keeps >= 0.99x at every larger size only from 32 KiB (the stream workload's
//                        16 KiB boxes: tma 0.976x, cp_async 0.997x cudaMemcpy in the same runs).
//   2D (.tensor, 16 rows): 512 B 1.015, 1 KiB 1.034, 2 KiB 1.330, 4 KiB 0.873, 8 KiB 0.842, 16 KiB 0.996.
//                        At 4 and 8 KiB the sweep kernel's tma instantiation held 4 CTAs per SM (59
//                        registers) against cp_async's 8 and 6, an occupancy difference of that kernel,
//                        not a per-copy cost; with 2D boxes of 4 KiB (sgemm) and 1 KiB (smallgemm) tma
//                        is the fastest path (1.12x and 1.47x cp_async). The 512 B point was ahead in
//                        all three runs (1.015, 1.171, 1.172: runs 3-5), so 2D starts at 512 B (it
//                        was 1 KiB until 2026-12-02's session 19); below 512 B nothing was measured.
const tma_break_even table[] = {
    {90, 32768, 512,
     "porter-bench --only boxsize, H200, 2026-12-02: 1D bulk copies behind cp.async at 512 B - 16 KiB boxes (0.36x - 0.98x, "
     "except 1.02x at 8 KiB), even from 32 KiB; 2D tensor copies ahead from 512 B (1.02x - 1.17x in three runs)"},
};

std::string bytes_str(long long b) { return std::to_string(b) + " B"; }

/// Bytes one TMA instruction moves for `d`'s box (1D: the box; 2D+: one copy of the split box).
long long tma_copy_bytes(const source_desc& d, int split_rows) {
  long long b = d.elem_bytes;
  for (int i = 0; i < d.rank; ++i) b *= (i == 0 && d.rank >= 2) ? split_rows : d.box[i];
  return b;
}

}  // namespace

const tma_break_even& break_even_for(const device_caps& caps) {
  const tma_break_even* best = &table[0];
  for (const auto& e : table)
    if (caps.compute_capability() >= e.min_cc) best = &e;
  return *best;
}

path_choice choose_path(unsigned candidates, const device_caps& caps, const source_desc* const* sources, int nsources) {
  candidates |= path_bit(path_id::staged);
  const bool tma_ok = (candidates & path_bit(path_id::tma)) != 0;
  const bool cpa_ok = (candidates & path_bit(path_id::cp_async)) != 0;
  if (tma_ok) {
    const tma_break_even& be = break_even_for(caps);
    // The smallest copy decides: every box of the kernel goes through the one path.
    for (int i = 0; i < nsources; ++i) {
      const source_desc& d = *sources[i];
      const support_report& r = detail::report_for(d);
      const long long bytes = tma_copy_bytes(d, r.tma_split_rows > 0 ? r.tma_split_rows : d.box[0]);
      const long long need = d.rank == 1 ? be.bulk_box_bytes : be.tensor_box_bytes;
      if (bytes < need) {
        const path_id alt = cpa_ok ? path_id::cp_async : path_id::staged;
        return {alt, std::string(path_id_name(alt)) + ": tma is allowed, but source " + std::to_string(i) + "'s " +
                         (d.rank == 1 ? "1D box" : "box copy") + " is " + bytes_str(bytes) + ", below the " + bytes_str(need) +
                         " from which tma beats " + (cpa_ok ? "cp.async" : "thread loads") + " on " + caps.describe() +
                         " (break-even: " + be.measured + ")"};
      }
    }
    return {path_id::tma, "tma: the device, the binary and every source allow it, and every box is at least the break-even size"};
  }
  if (cpa_ok) return {path_id::cp_async, "cp_async: the best path the device, the binary and every source allow (tma is not)"};
  return {path_id::staged, "staged: neither tma nor cp_async is allowed by the device, the binary and every source"};
}

}  // namespace porter
