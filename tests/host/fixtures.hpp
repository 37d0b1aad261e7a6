// tests/host/fixtures.hpp — host-test helpers: hand-made device_caps (H200, A100, T4, MI250X), source_desc builders, message checks.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "porter/device.hpp"
#include "porter/error.hpp"
#include "porter/source.hpp"

namespace porter_test {

/// A device as query_device would describe it; only the fields the host rules read are set.
inline porter::device_caps fake_device(const char* name, int major, int minor, bool hip, std::size_t smem_optin,
                                       int sms) {
  porter::device_caps c;
  c.device = 0;
  c.name = name;
  c.cc_major = major;
  c.cc_minor = minor;
  c.hip = hip;
  c.arch = hip ? std::string() : "sm_" + std::to_string(major * 10 + minor);  // as query_device sets it
  c.sm_count = sms;
  c.warp_size = hip ? 64 : 32;
  c.smem_per_block_optin = smem_optin;
  return c;
}
inline porter::device_caps h200() { return fake_device("NVIDIA H200", 9, 0, false, 232448, 132); }
inline porter::device_caps a100() { return fake_device("NVIDIA A100-SXM4-80GB", 8, 0, false, 166912, 108); }
inline porter::device_caps t4() { return fake_device("Tesla T4", 7, 5, false, 65536, 40); }
/// gfx90a reports compute capability 9.0 through HIP: only the hip flag keeps TMA away from it.
inline porter::device_caps mi250x() {
  auto c = fake_device("AMD Instinct MI250X", 9, 0, true, 65536, 110);
  c.arch = "gfx90a";
  return c;
}

/// A source description. `strides` lists every dimension (outermost first, innermost last).
/// `addr` is a fake global address: validate_source never dereferences it.
inline porter::source_desc desc(int elem_bytes, std::initializer_list<std::int64_t> extents,
                                std::initializer_list<std::int64_t> strides, std::initializer_list<int> box,
                                std::uintptr_t addr = 0x100000) {
  porter::source_desc d;
  d.rank = int(extents.size());
  d.elem_bytes = elem_bytes;
  d.ptr = reinterpret_cast<const void*>(addr);
  int i = 0;
  for (auto e : extents) d.extent[i++] = e;
  i = 0;
  for (auto s : strides) d.stride[i++] = s;
  i = 0;
  for (auto b : box) d.box[i++] = b;
  return d;
}

/// The refusal of path `p` under `rule`, or nullptr.
inline const porter::path_verdict* refusal(const porter::support_report& r, porter::path_id p, const std::string& rule) {
  for (const auto& v : r.refusals)
    if (v.path == p && v.rule == rule) return &v;
  return nullptr;
}

/// Number of refusals of path `p`.
inline int refusals_of(const porter::support_report& r, porter::path_id p) {
  int n = 0;
  for (const auto& v : r.refusals) n += v.path == p;
  return n;
}

/// The note of path `p` (first one), or nullptr.
inline const porter::path_verdict* note(const porter::support_report& r, porter::path_id p) {
  for (const auto& v : r.notes)
    if (v.path == p) return &v;
  return nullptr;
}

/// Success when `part` occurs in `text`; the failure message shows both.
inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" not found in:\n" << text;
}

/// The porter::error that `f()` throws; records a failure (and returns nullopt) if it throws nothing.
template <class F>
std::optional<porter::error> thrown(F&& f) {
  try {
    f();
  } catch (const porter::error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a porter::error, nothing was thrown";
  return std::nullopt;
}

}  // namespace porter_test
