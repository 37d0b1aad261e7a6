// core/src/rules/registry.cpp — the host registry of lowerings: one entry per path, in path_id order.
#include <stdexcept>
#include <string>

#include "rules.hpp"

namespace porter {
namespace rules {
namespace {
const lowering_rules* const registry[path_count] = {&tma_rules, &cp_async_rules, &staged_rules};
}  // namespace

const lowering_rules* const* all_rules() { return registry; }

const lowering_rules& rules_of(path_id p) {
  const int i = static_cast<int>(p);
  if (i < 0 || i >= path_count || registry[i]->id != p)
    throw std::logic_error("porter: the host registry has no lowering for path id " + std::to_string(i));
  return *registry[i];
}

void refuse(support_report& r, path_id p, const char* rule, const std::string& message) {
  r.mask &= ~path_bit(p);
  r.refusals.push_back({p, rule, message});
}

std::string dim_name(int d, int rank) {
  if (rank >= 2 && d == rank - 2) return "dimension " + std::to_string(d) + " (the row pitch)";
  return "dimension " + std::to_string(d);
}

std::string device_refusal(const lowering_rules& l, const device_caps* caps) {
  const std::string what = l.instructions;
  if (l.min_compute_capability == 0 && !l.nvidia_only) return "";
  if (!caps) return "no device to run " + what + " on";
  if (caps->hip && l.nvidia_only)
    return "device '" + caps->name + "' is an AMD GPU; " + what + " is an NVIDIA instruction family (sm_" +
           std::to_string(l.min_compute_capability) + "+)";
  if (caps->compute_capability() < l.min_compute_capability)
    return "device '" + caps->name + "' has no " + what + " (needs compute capability " +
           std::to_string(l.min_compute_capability / 10) + "." + std::to_string(l.min_compute_capability % 10) + "; it has " +
           std::to_string(caps->cc_major) + "." + std::to_string(caps->cc_minor) + ")";
  return "";
}
bool runs_here(const lowering_rules& l, const device_caps* caps) {
  if (PORTER_HIP && l.nvidia_only) return false;  // a HIP build runs on AMD GPUs only
  return device_refusal(l, caps).empty();
}
}  // namespace rules

const char* path_id_name(path_id p) { return rules::rules_of(p).name; }

}  // namespace porter
