// porter/choose.hpp — how `automatic` picks a path on the host: capability, then cost (host only).
//
// porter::launch<path::automatic> and explain() call choose_path with the paths that the device,
// the kernel binary and every tiled source of the launch allow. Among those, the capability order is
// tma, cp_async, staged; the cost model then demotes tma for boxes below the size at which, on the
// device, its per-copy cost (expect_tx + a bulk copy issued by one thread, completing through the
// copy engine) loses to per-thread cp.async. The break-even sizes are a table per compute
// capability (core/src/choose.cpp), each entry saying where its numbers come from: porter-bench's
// boxsize workload (`porter-bench --only boxsize`) times the stream kernel at box sizes 512 B .. 32 KiB
// on every path and prints the break-even per rank. On the H200 (sm_90 entry) 1D bulk copies lose to
// cp.async below 32 KiB; 2D tensor copies win from 512 B where the paths hold the same CTAs per SM.
// The table is per box size only: a kernel whose tma instantiation holds fewer CTAs per SM than its
// cp_async one (registers) can still run faster on cp_async (the transpose workload's 4 KiB boxes).
#pragma once
#include <string>

#include "porter/device.hpp"
#include "porter/path.hpp"
#include "porter/source.hpp"

namespace porter {

/// The path automatic runs, and why, in one sentence.
struct path_choice {
  path_id path = path_id::staged;
  std::string reason;
};

/// Measured break-even box sizes of one device class (see core/src/choose.cpp).
struct tma_break_even {
  int min_cc = 0;                 ///< applies to devices of this compute capability and newer (NVIDIA)
  int bulk_box_bytes = 0;         ///< 1D boxes (cp.async.bulk): tma from this many bytes per box
  int tensor_box_bytes = 0;       ///< 2D-5D boxes (cp.async.bulk.tensor): tma from this many bytes per copy
  const char* measured = "";      ///< where the numbers come from (command, device, date)
};

/// The break-even table entry for `caps` (the newest entry whose min_cc <= the device's).
const tma_break_even& break_even_for(const device_caps& caps);

/// Choose among `candidates` (path_bit mask; staged is always a candidate) for a kernel whose tiled
/// sources are `sources[0..nsources)` (their layouts; may be empty: byte-range copies only).
path_choice choose_path(unsigned candidates, const device_caps& caps, const source_desc* const* sources, int nsources);

}  // namespace porter
