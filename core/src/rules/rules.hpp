// core/src/rules/rules.hpp — the host side of each lowering: its layout rules, its device
// requirements, its name (internal to porter_core).
//
// One rules file per path (tma.cpp, cp_async.cpp, staged.cpp) defines one `lowering_rules`; the
// host registry (registry.cpp) lists them. Adding a lowering adds one rules file and one registry
// entry here, beside its folder under backends/ and its entry in the device registry.
#pragma once
#include <cstdint>
#include <string>

#include "porter/device.hpp"
#include "porter/path.hpp"
#include "porter/source.hpp"

namespace porter::rules {

/// What the rules of every path look at, computed once per validation.
struct layout {
  const source_desc& d;
  std::uint64_t es;               ///< element bytes
  std::uint64_t addr;             ///< the global address (only its low 4 bits matter to any rule)
  std::uint64_t inner_box_bytes;  ///< bytes of one innermost box row
  unsigned widest;                ///< widest aligned access (1..16 B) of address, outer strides and box row
};

/// The host side of one lowering.
struct lowering_rules {
  path_id id;
  const char* name;
  const char* instructions;       ///< what the device must have, in words: "TMA", "cp.async"
  int min_compute_capability;     ///< 0: any device
  bool nvidia_only;               ///< an NVIDIA instruction family (never on AMD)
  int role_min_compute_capability;  ///< what porter::role_pipeline on this path needs (the tag's)
  /// Add this path's refusals and notes for `l` to `r` (r.mask starts with every path allowed).
  void (*check)(const layout& l, support_report& r);
};

extern const lowering_rules tma_rules;
extern const lowering_rules cp_async_rules;
extern const lowering_rules staged_rules;

/// Every lowering's host side, in path_id order (registry.cpp).
const lowering_rules* const* all_rules();
/// The host side of path `p`.
const lowering_rules& rules_of(path_id p);

/// Remove `p` from r.mask and record why (a sentence naming the value; `rule` its stable id).
void refuse(support_report& r, path_id p, const char* rule, const std::string& message);
/// "dimension 0 (the row pitch)" for the second-innermost dimension, else "dimension d".
std::string dim_name(int d, int rank);
/// Why device `caps` (nullptr: none) cannot run lowering `l`, or "" when it can.
std::string device_refusal(const lowering_rules& l, const device_caps* caps);
/// Whether this program can run lowering `l` on `caps` (nullptr: none): the device can
/// (device_refusal is empty) and, in a HIP build, `l` is not an NVIDIA instruction family.
bool runs_here(const lowering_rules& l, const device_caps* caps);

}  // namespace porter::rules
