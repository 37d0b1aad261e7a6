// bench/tools/kernel_name.hpp — the short kernel names of porter-bench's lowering report
// (tools/lowering_report.cpp). Plain C++ (no CUDA): the host test bench/tests/kernel_name_test.cpp
// checks it without a GPU.
#pragma once
#include <string>

namespace pb {

/// The report's name of a demangled kernel name: the namespaces pb::, porter::path:: and the anonymous
/// ones dropped, the return type and the parameter list (the '(' at template depth 0) cut, and enum
/// casts in template arguments made readable: "(porter::cache_hint)2" -> "evict_first" (the
/// enumerator of porter/cache_hint.hpp), any other "(ns::some_enum)N" -> "(some_enum)N".
///   "void pb::pb_stream<porter::path::tma, 4, (porter::cache_hint)0>(float const*, float*, int)"
///     -> "pb_stream<tma, 4, none>"
std::string short_demangled_name(std::string demangled);

/// short_demangled_name of a mangled name (itself where it does not demangle).
std::string short_kernel_name(const std::string& mangled);

}  // namespace pb
