// tests/fail/fragment_drift.cu — must not compile: fragment loads whose load takes the registers by
// pointer (`std::uint32_t* r`) where the reference takes an array of N (`std::uint32_t (&r)[N]`).
#include "backends/conformance.hpp"
#include "porter/fragments/load.hpp"

struct drifted {
  static constexpr const char* instruction = porter::backend::fragment_loads::instruction;
  template <int N, bool Trans, class At>
  static __device__ void load(std::uint32_t* r, const At& at) {
    porter::backend::fragment_loads::load<N, Trans>(*reinterpret_cast<std::uint32_t(*)[N]>(r), at);
  }
  static __device__ std::uint32_t shared_address(const void* p) { return porter::backend::fragment_loads::shared_address(p); }
};
static_assert(porter::backend::check_fragment_conformance<drifted>(), "the drifted fragment loads are caught");
