// core/src/explain.cpp — porter::explain: which paths can read a source on a device, and why not.
#include <sstream>
#include <string>

#include "porter/choose.hpp"
#include "porter/source.hpp"
#include "rules/rules.hpp"

namespace porter {
namespace {
template <class T>
void list(std::ostringstream& o, const T* v, int n) {
  for (int i = 0; i < n; ++i) o << (i ? ", " : "") << v[i];
}
}  // namespace

std::string explain(const source_desc& d, const device_caps* caps, const support_report* report) {
  const support_report& r = report ? *report : detail::report_for(d);
  std::ostringstream o;
  o << "tiled source: rank " << d.rank << ", " << d.elem_bytes << "-byte elements, extents [";
  list(o, d.extent, d.rank);
  o << "], strides [";
  list(o, d.stride, d.rank);
  o << "] elements, box [";
  list(o, d.box, d.rank);
  o << "]";
  if (d.swizzle) o << ", " << d.swizzle << " B swizzle (16-byte chunks XORed with the 128-byte row index, on every path)";
  o << "\n";
  o << "device: " << (caps ? caps->describe() : std::string("none (no usable GPU)")) << "\n";
  const rules::lowering_rules* const* all = rules::all_rules();
  unsigned mask = r.mask;
  for (int i = 0; i < path_count; ++i) {
    const rules::lowering_rules& l = *all[i];
    const bool layout_ok = r.supports(l.id);
    // The device in `caps`, as it is (a HIP build's launch refuses the NVIDIA paths separately).
    const std::string device_why = rules::device_refusal(l, caps);
    if (!device_why.empty()) mask &= ~path_bit(l.id);
    o << l.name << ": " << (layout_ok && device_why.empty() ? "yes" : "refused") << "\n";
    for (const auto& v : r.refusals)
      if (v.path == l.id) o << "  - " << v.message << " [rule " << v.rule << "]\n";
    // Without a device, "no device" is said once, in the header, not once per path.
    if (!device_why.empty() && caps) o << "  - " << device_why << " [rule " << l.name << ".device]\n";
    if (!device_why.empty() && !caps) o << "  - needs a device with " << l.instructions << " [rule " << l.name << ".device]\n";
    for (const auto& v : r.notes)
      if (v.path == l.id && layout_ok && device_why.empty()) o << "  - " << v.message << "\n";
  }
  if (caps) {
    const source_desc* one = &d;
    const path_choice c = choose_path(mask, *caps, &one, 1);
    o << "automatic: " << path_id_name(c.path) << "\n  - " << c.reason << "\n";
  } else {
    o << "automatic: staged\n  - without a device only staged can run\n";
  }
  return o.str();
}

}  // namespace porter
