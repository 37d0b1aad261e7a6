// porter/staged/role_protocol.hpp (AMD flavour) — producer/consumer roles are not lowered on AMD yet.
//
// The NVIDIA flavour completes a role-split stage on mbarriers. gfx9 has no such object and only
// a workgroup-wide s_barrier; a split ring there needs LDS counters with s_sleep polling, which has
// not been written or measured. Instantiating a role pipeline in a HIP build fails with the
// sentence below; the CTA-collective porter::pipeline is the AMD form.
#pragma once
#include "porter/roles.hpp"

namespace porter::backend {

template <class T> inline constexpr bool amd_roles_pending = false;

/// Not available on AMD (see the file comment): instantiation fails at compile time.
template <class Ring, class Roles>
class staged_role_protocol {
  static_assert(amd_roles_pending<Roles>,
                "porter::role_pipeline is not available in HIP builds yet (no mbarrier on AMD; LDS-counter roles are not "
                "written): use the CTA-collective porter::pipeline.");

 public:
  static constexpr int stages = Ring::stages;
};

}  // namespace porter::backend
