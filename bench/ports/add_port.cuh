// bench/ports/add_port.cuh — registering a porter port in a `ports` pair: one row per path and
// `automatic` (porter::kernel_family through porter::launch<path::automatic>). Shared by the ports'
// translation units (after.cu; public_bf16gemm.cu, which is compiled only for targets with bf16
// tensor cores). Each includer gets its own copy (internal linkage): the registrations are per TU.
#pragma once
#include <porter/planner.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

#include "../kernels/porter_register.cuh"

namespace pb {
namespace ports {
namespace {

template <class P>
using concrete_or_staged = std::conditional_t<std::is_same_v<P, porter::path::automatic>, porter::path::staged, P>;

/// Register the port `fam` on path P (a concrete path or automatic) in pair `pair`. `Pipe` is the
/// kernel's pipeline on P (staged for automatic: the descriptions read its sizes, which are the
/// same on every path). `plan(p, resident)` returns the launch grid and the kernel's arguments for
/// problem p when `resident` CTAs fit on the device at once. `min_cc`: the compute capability the
/// kernel's own code needs besides the path (80 for bf16 tensor cores; 0: the path's only).
/// `Pipe` only needs `stages`, `shared_bytes` (the launch's dynamic shared memory) and
/// `ring::stage_bytes`: a kernel with several rings passes a type that says so (public_bf16gemm.cu).
/// `options`: the launch's attributes (porter::launch_options; e.g. clusters for a multicast port).
template <class P, class Pipe, class Fam, class Plan>
void add_port(registry& r, const char* pair, const char* name, dim3 block, Fam fam, Plan plan, const char* impl = "porter",
              int min_cc = 0, porter::launch_options options = {}) {
  constexpr bool automatic = std::is_same_v<P, porter::path::automatic>;
  const int threads = int(block.x * block.y * block.z);
  const void* func = reinterpret_cast<const void*>(fam.make(concrete_or_staged<P>{}));
  variant<port_problem> v;
  v.d = porter_desc<P, Pipe>(threads, func, name, sched_mode::planned);
  v.d.impl = impl;
  if (min_cc > v.d.min_cc) v.d.min_cc = min_cc;
  const std::size_t smem = Pipe::shared_bytes;
  // The arguments only carry the sources the choice reads; plan them for one CTA per SM (a planned
  // schedule refuses fewer resident CTAs than SMs: rule planner.ctas_per_sm, which a resident count
  // of 1 hit on the H200 and left the automatic rows of the persistent pairs refused).
  auto choose = [fam, plan](const port_problem& p) {
    const int one_per_sm = porter::require_device().sm_count;
    return std::apply([&](const auto&... a) { return porter::choose_path_for(fam, a...); }, std::get<1>(plan(p, one_per_sm)));
  };
  v.bind = [=](const port_problem& p, int grid) -> launcher {
    int resident = grid;
    if constexpr (automatic) {
      const porter::path_choice c = choose(p);
      porter::lowerings::for_each_path(porter::lowerings::all{}, [&](auto q) {
        if (decltype(q)::id == c.path) resident = resident_grid(reinterpret_cast<const void*>(fam.make(q)), threads, smem);
      });
    }
    const auto planned = plan(p, resident);
    const dim3 g = planned.first;
    const auto args = planned.second;
    return [=](cudaStream_t s) {
      std::apply([&](const auto&... a) { porter::launch<P>(options, fam, g, block, smem, s, a...); }, args);
    };
  };
  if constexpr (automatic) v.resolved = [choose](const port_problem& p) { return describe(choose(p)); };
  r.port(pair).variants.push_back(std::move(v));
}

}  // namespace
}  // namespace ports
}  // namespace pb
