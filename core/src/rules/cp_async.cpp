// core/src/rules/cp_async.cpp — the cp_async lowering's host rules: cp.async moves 4, 8 or 16 bytes.
//
// Source: PTX ISA 9.7.9.25.3 (cp.async: cp-size 4, 8 or 16; both addresses aligned to it).
#include <string>

#include "porter/cp_async/path.hpp"
#include "rules.hpp"

namespace porter::rules {
namespace {

void check_cp_async(const layout& l, support_report& r) {
  const source_desc& d = l.d;
  constexpr path_id p = path_id::cp_async;
  const unsigned w = l.widest;
  if (w < 4) {
    std::string why;
    if (l.addr % 4) why = "the global address is " + std::to_string(l.addr % 4) + " B past a 4-byte boundary";
    else if (l.inner_box_bytes % 4) why = "the box row is " + std::to_string(l.inner_box_bytes) + " B";
    else {
      for (int i = 0; i + 1 < d.rank; ++i)
        if ((std::uint64_t(d.stride[i]) * l.es) % 4) {
          why = "the stride of " + dim_name(i, d.rank) + " is " + std::to_string(std::uint64_t(d.stride[i]) * l.es) + " B";
          break;
        }
    }
    refuse(r, p, "cp_async.alignment_4",
           "cp.async moves 4, 8 or 16 bytes, but " + why + ", so rows are only " + std::to_string(w) + "-byte aligned");
    return;
  }
  r.cp_async_max_chunk = int(w);
  r.notes.push_back({p, "", "cp_async: chunks of up to " + std::to_string(w) + " B (" + (w == 16 ? "cp.async.cg" : "cp.async.ca") + ")" +
                                (d.elem_bytes < int(w) ? "; boxes starting at a less aligned column use narrower chunks" : "")});
}

}  // namespace

const lowering_rules cp_async_rules{path::cp_async::id, path::cp_async::name, "cp.async", path::cp_async::min_compute_capability,
                                    path::cp_async::nvidia_only, path::cp_async::role_min_compute_capability, &check_cp_async};

}  // namespace porter::rules
