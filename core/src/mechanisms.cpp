// core/src/mechanisms.cpp — the per-copy decision of each lowering, on the host (porter/mechanisms.hpp).
//
// Each function below mirrors one branch of a lowering's copy code; keep them in step:
//   tma box (2D-5D)   backends/tma/porter/tma/copy.hpp, copy_box: innermost coordinate * element
//                     bytes % 16 != 0 -> thread loads, else cp.async.bulk.tensor;
//   tma box (1D)      the same file: [lo, hi) inside the tensor goes through copy_bytes, the rest is
//                     stored as zero by the threads;
//   tma byte range    copy_bytes: source and destination disagree mod 16 -> thread loads; else
//                     head (to the next 16-byte boundary) and tail (< 16 B) thread loads, the body bulk;
//   cp_async box      backends/cp_async/porter/cp_async/copy.hpp, copy_box: chunk width
//                     detail::box_chunk_bytes (pointer | strides | box row | first column), 16/8/4
//                     cp.async, below 4 thread loads;
//   cp_async bytes    copy_bytes: width widest_access(src | dst); whole chunks cp.async, the rest
//                     thread loads;
//   staged            thread loads.
#include <cstdint>
#include <sstream>
#include <string>

#include "porter/detail/box_geometry.hpp"
#include "porter/error.hpp"
#include "porter/mechanisms.hpp"
#include "porter/source.hpp"
#include "rules/rules.hpp"

namespace porter {

const char* mechanism_name(mechanism m) {
  switch (m) {
    case mechanism::tma_tensor: return "tma tensor";
    case mechanism::bulk: return "bulk";
    case mechanism::cp_async_16: return "cp.async 16";
    case mechanism::cp_async_8: return "cp.async 8";
    case mechanism::cp_async_4: return "cp.async 4";
    case mechanism::thread_loads: return "thread loads";
    case mechanism::zero_fill: return "zero fill";
  }
  return "?";
}

namespace {

std::string pct(double f) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << 100.0 * f << "%";
  return o.str();
}

std::string coord_text(const int* at, int rank) {
  std::string s = "(";
  for (int d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(at[d]);
  return s + ")";
}

/// One copy's bytes per mechanism (before it is added to a total).
struct one_copy {
  long long bytes[mechanism_count] = {};
  std::string fallback_why;  ///< why thread loads move some of it (tma, cp_async), else empty
  void add(mechanism m, long long b) { bytes[int(m)] += b; }
};

void account(mechanism_counts& c, const one_copy& k, const std::string& where) {
  c.total_copies++;
  for (int m = 0; m < mechanism_count; ++m) {
    if (k.bytes[m] > 0) c.copies[m]++;
    c.bytes[m] += k.bytes[m];
    c.total_bytes += k.bytes[m];
  }
  if (c.path != path_id::staged && k.bytes[int(mechanism::thread_loads)] > 0) {
    if (c.fallback_copies++ == 0) c.first_fallback = where + ": " + k.fallback_why;
  }
}

/// tma copy_bytes (backends/tma/porter/tma/copy.hpp).
void tma_bytes(one_copy& k, std::uint64_t s, std::uint64_t dd, std::uint64_t bytes) {
  if (bytes == 0) return;
  if (((s ^ dd) & 15u) != 0) {
    k.add(mechanism::thread_loads, (long long)bytes);
    k.fallback_why = "the source address is " + std::to_string(s & 15u) + " B and the destination " + std::to_string(dd & 15u) +
                     " B past a 16-byte boundary; cp.async.bulk needs them to agree modulo 16";
    return;
  }
  std::uint64_t head = (16u - (s & 15u)) & 15u;
  head = head > bytes ? bytes : head;
  const std::uint64_t body = (bytes - head) & ~std::uint64_t(15);
  const std::uint64_t tail = bytes - head - body;
  if (body) k.add(mechanism::bulk, (long long)body);
  if (head + tail) {
    k.add(mechanism::thread_loads, (long long)(head + tail));
    k.fallback_why = std::to_string(head) + " B before the first 16-byte boundary and " + std::to_string(tail) +
                     " B after the last one move with thread loads (cp.async.bulk moves whole 16-byte units)";
  }
}

/// cp_async copy_bytes (backends/cp_async/porter/cp_async/copy.hpp).
void cp_async_bytes(one_copy& k, std::uint64_t s, std::uint64_t dd, std::uint64_t bytes) {
  if (bytes == 0) return;
  const unsigned w = detail::widest_access(s | dd);
  std::uint64_t done = 0;
  if (w >= 4) {
    done = bytes / w * w;
    if (done) k.add(w == 16 ? mechanism::cp_async_16 : w == 8 ? mechanism::cp_async_8 : mechanism::cp_async_4, (long long)done);
  }
  if (done < bytes) {
    k.add(mechanism::thread_loads, (long long)(bytes - done));
    k.fallback_why = w < 4 ? "the source and destination addresses are only " + std::to_string(w) +
                                 "-byte aligned together; cp.async moves 4, 8 or 16 bytes"
                           : "the last " + std::to_string(bytes - done) + " B are less than one " + std::to_string(w) +
                                 "-byte cp.async chunk";
  }
}

/// A box of `d` at `at` on path `p` (see the file comment).
void box_copy(one_copy& k, const source_desc& d, const int* at, path_id p) {
  const int R = d.rank;
  const std::int64_t es = d.elem_bytes;
  std::int64_t box_bytes = es;
  for (int i = 0; i < R; ++i) box_bytes *= d.box[i];
  const std::uint64_t addr = reinterpret_cast<std::uintptr_t>(d.ptr);
  if (p == path_id::staged) {
    k.add(mechanism::thread_loads, box_bytes);
    return;
  }
  if (p == path_id::tma) {
    if (R == 1) {
      const std::int64_t B = d.box[0];
      std::int64_t lo = -std::int64_t(at[0]), hi = d.extent[0] - std::int64_t(at[0]);
      lo = lo < 0 ? 0 : (lo > B ? B : lo);
      hi = hi < lo ? lo : (hi > B ? B : hi);
      if (B - (hi - lo) > 0) k.add(mechanism::zero_fill, (B - (hi - lo)) * es);
      if (hi > lo)
        tma_bytes(k, addr + std::uint64_t((std::int64_t(at[0]) + lo) * es), std::uint64_t(lo * es), std::uint64_t((hi - lo) * es));
      return;
    }
    const std::int64_t col = std::int64_t(at[R - 1]) * es;
    if (col % 16 != 0) {
      k.add(mechanism::thread_loads, box_bytes);
      k.fallback_why = "the innermost coordinate is " + std::to_string(at[R - 1]) + " elements = " + std::to_string(col) +
                       " B, not a multiple of 16 B; cp.async.bulk.tensor needs 16-byte aligned inner coordinates";
      return;
    }
    k.add(mechanism::tma_tensor, box_bytes);
    return;
  }
  // cp_async: detail::box_chunk_bytes, written for a source_desc (the pointer and stride bits are
  // the host's tiled_source::chunk_bits).
  const std::uint64_t bits = detail::chunk_bits_of(d.ptr, d.stride, R, d.elem_bytes) | std::uint64_t(std::int64_t(d.box[R - 1]) * es) |
                             (std::uint64_t(std::int64_t(at[R - 1])) * std::uint64_t(es));
  const unsigned w = detail::widest_access(bits);
  if (w >= 4) {
    k.add(w == 16 ? mechanism::cp_async_16 : w == 8 ? mechanism::cp_async_8 : mechanism::cp_async_4, box_bytes);
    return;
  }
  k.add(mechanism::thread_loads, box_bytes);
  k.fallback_why = "the innermost coordinate is " + std::to_string(at[R - 1]) + " elements = " +
                   std::to_string(std::int64_t(at[R - 1]) * es) + " B, so the box's rows are only " + std::to_string(w) +
                   "-byte aligned; cp.async moves 4, 8 or 16 bytes";
}

}  // namespace

std::string mechanism_counts::describe() const {
  std::ostringstream o;
  o << total_copies << (total_copies == 1 ? " copy, " : " copies, ") << total_bytes << " B:";
  bool any = false;
  for (int m = 0; m < mechanism_count; ++m) {
    if (bytes[m] == 0 && copies[m] == 0) continue;
    o << (any ? ", " : " ") << mechanism_name(mechanism(m)) << " " << pct(fraction(mechanism(m))) << " (" << copies[m]
      << (copies[m] == 1 ? " copy)" : " copies)");
    any = true;
  }
  if (!any) o << " nothing";
  return o.str();
}

mechanism_counts& mechanism_counts::operator+=(const mechanism_counts& o) {
  for (int m = 0; m < mechanism_count; ++m) { copies[m] += o.copies[m]; bytes[m] += o.bytes[m]; }
  total_copies += o.total_copies;
  total_bytes += o.total_bytes;
  if (fallback_copies == 0 && o.fallback_copies > 0) first_fallback = o.first_fallback;
  fallback_copies += o.fallback_copies;
  return *this;
}

long long copy_pattern::size() const {
  if (!is_grid) return rank > 0 ? (long long)(list.size() / std::size_t(rank)) : 0;
  long long n = 1;
  for (int d = 0; d < rank; ++d) n *= count[d] > 0 ? count[d] : 0;
  return n;
}

void copy_pattern::at(long long i, int* out) const {
  if (!is_grid) {
    for (int d = 0; d < rank; ++d) out[d] = list[std::size_t(i) * std::size_t(rank) + std::size_t(d)];
    return;
  }
  for (int d = rank - 1; d >= 0; --d) {
    const long long idx = count[d] > 0 ? i % count[d] : 0;
    i = count[d] > 0 ? i / count[d] : 0;
    out[d] = int(std::int64_t(origin[d]) + idx * std::int64_t(step[d]));
  }
}

std::string copy_pattern::describe() const {
  if (!is_grid) return "list of " + std::to_string(size()) + " coordinates";
  std::string s = "grid of ";
  for (int d = 0; d < rank; ++d) s += (d ? " x " : "") + std::to_string(count[d]);
  s += " tiles from " + coord_text(origin, rank) + " step " + coord_text(step, rank);
  return s;
}

mechanism_counts copy_mechanisms(const source_desc& d, const copy_pattern& pattern, path_id p) {
  const support_report& r = detail::report_for(d);  // throws for inputs no path can read
  if (pattern.rank != d.rank)
    throw error(errc::invalid_argument, "mechanisms.pattern_rank",
                "the copy pattern has rank " + std::to_string(pattern.rank) + " but the source has rank " + std::to_string(d.rank));
  if (!r.supports(p)) {
    std::string why;
    for (const auto& v : r.refusals)
      if (v.path == p) why += "\n  - " + v.message + " [rule " + v.rule + "]";
    throw error(errc::path_unsupported, "mechanisms.path_refused",
                std::string("path ") + path_id_name(p) + " cannot read this source, so none of its copies take it:" + why);
  }
  mechanism_counts c;
  c.path = p;
  const long long n = pattern.size();
  int at[max_rank] = {};
  for (long long i = 0; i < n; ++i) {
    pattern.at(i, at);
    one_copy k;
    box_copy(k, d, at, p);
    if (p != path_id::staged && k.bytes[int(mechanism::thread_loads)] > 0 && c.fallback_copies == 0)
      account(c, k, "the box at " + coord_text(at, d.rank) + " (copy " + std::to_string(i) + ")");
    else
      account(c, k, std::string());
  }
  return c;
}

mechanism_counts byte_range_mechanisms(path_id p, std::uintptr_t src, std::uintptr_t dst, std::size_t bytes) {
  mechanism_counts c;
  c.path = p;
  one_copy k;
  if (p == path_id::tma) tma_bytes(k, src, dst, bytes);
  else if (p == path_id::cp_async) cp_async_bytes(k, src, dst, bytes);
  else if (bytes) k.add(mechanism::thread_loads, (long long)bytes);
  account(c, k, "the range of " + std::to_string(bytes) + " B");
  return c;
}

std::string explain(const source_desc& d, const device_caps* caps, const copy_pattern& pattern) {
  const support_report& r = detail::report_for(d);
  std::string s = explain(d, caps, &r);
  s += "copies of " + pattern.describe() + ":\n";
  const rules::lowering_rules* const* all = rules::all_rules();
  for (int i = 0; i < path_count; ++i) {
    const path_id p = all[i]->id;
    if (!r.supports(p)) {
      s += std::string(all[i]->name) + ": refused by the layout (above)\n";
      continue;
    }
    const mechanism_counts c = copy_mechanisms(d, pattern, p);
    s += std::string(all[i]->name) + ": " + c.describe() + "\n";
    if (c.falls_back()) s += "  - first fallback: " + c.first_fallback + "\n";
  }
  return s;
}

void check_strict_paths(path_id p, const source_desc& d, const copy_pattern& pattern, int index) {
  const mechanism_counts c = copy_mechanisms(d, pattern, p);
  if (!c.falls_back()) return;
  const long long tb = c.bytes[int(mechanism::thread_loads)];
  throw error(errc::path_unsupported, "launch.strict_paths",
              std::string("strict paths: path ") + path_id_name(p) + " would move " + std::to_string(c.fallback_copies) + " of " +
                  std::to_string(c.total_copies) + " copies of kernel argument " + std::to_string(index) + " (" + std::to_string(tb) +
                  " B, " + pct(c.fraction(mechanism::thread_loads)) + " of the bytes) with thread loads; " + c.first_fallback +
                  " (copies of " + pattern.describe() + ")");
}

}  // namespace porter
