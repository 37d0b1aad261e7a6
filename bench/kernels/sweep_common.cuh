// bench/kernels/sweep_common.cuh — instantiate porter kernels at every stage count 1..8 except the
// default one (default_kernels.cu has it), for the stage sweep.
#pragma once
#include <type_traits>
#include <utility>

#include "porter_register.cuh"

namespace pb {

template <int Skip, int S, class Add>
void call_unless(Add& add) {
  if constexpr (S != Skip) add(std::integral_constant<int, S>{});
}
template <int Skip, class Add, int... I>
void for_stages(Add& add, std::integer_sequence<int, I...>) {
  (call_unless<Skip, I + 1>(add), ...);
}
/// Calls add(std::integral_constant<int, S>{}) for S = 1..8 except Skip.
template <int Skip, class Add>
void for_sweep_stages(Add add) {
  for_stages<Skip>(add, std::make_integer_sequence<int, 8>{});
}

}  // namespace pb

namespace pb {
/// The sgemm sweep of one path (one translation unit per path, so that they compile in parallel).
template <class Path>
void register_sweep_sgemm(registry& r) {
  for_sweep_stages<default_stages_sgemm>([&r](auto s) { for_each_schedule([&](sched_mode m) { add_sgemm<Path, decltype(s)::value>(r, m); }); });
}
}  // namespace pb
