// core/src/rules/staged.cpp — the staged lowering's host rules: none refuse; a note on the width.
//
// Plain loads and stores read any layout (down to 1-byte accesses); the note says how wide.
#include <string>

#include "porter/staged/path.hpp"
#include "rules.hpp"

namespace porter::rules {
namespace {

void check_staged(const layout& l, support_report& r) {
  r.notes.push_back({path_id::staged, "", "staged: vector loads of up to " + std::to_string(l.widest) + " B"});
}

}  // namespace

const lowering_rules staged_rules{path::staged::id, path::staged::name, "thread loads", path::staged::min_compute_capability,
                                  path::staged::nvidia_only, path::staged::role_min_compute_capability, &check_staged};

}  // namespace porter::rules
