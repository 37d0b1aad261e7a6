// bench/tools/kernel_name.cpp — see kernel_name.hpp.
#include "kernel_name.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>

#include "porter/cache_hint.hpp"

namespace pb {
namespace {

std::string demangle(const std::string& m) {
  int st = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(m.c_str(), nullptr, nullptr, &st), std::free);
  return st == 0 && d ? std::string(d.get()) : m;
}

/// Position of the '(' that opens the parameter list: the first '(' outside every template
/// argument list and every parenthesis. Angle brackets count only outside parentheses, where
/// they are the template's: inside, '<' and '>' may be comparisons of a value argument.
std::size_t parameter_list(const std::string& s) {
  int angle = 0, paren = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(') {
      if (angle == 0 && paren == 0) return i;
      ++paren;
    } else if (c == ')') {
      if (paren > 0) --paren;
    } else if (paren == 0 && c == '<') {
      ++angle;
    } else if (paren == 0 && c == '>') {
      if (angle > 0) --angle;
    }
  }
  return std::string::npos;
}

/// "(ns::E)N" in a template argument: porter::cache_hint's enumerator name, else "(E)N".
std::string readable_enum_casts(const std::string& s) {
  static const std::regex cast_re(R"(\(((?:[A-Za-z_]\w*::)*)([A-Za-z_]\w*)\)(-?[0-9]+))");
  std::string out;
  auto last = s.cbegin();
  for (std::sregex_iterator it(s.begin(), s.end(), cast_re), end; it != end; ++it) {
    const std::smatch& m = *it;
    out.append(last, m[0].first);
    last = m[0].second;
    const std::string ns = m[1].str(), type = m[2].str();
    const long value = std::strtol(m[3].str().c_str(), nullptr, 10);
    constexpr long hint_max = static_cast<long>(porter::cache_hint::evict_last);
    if (type == "cache_hint" && (ns.empty() || ns == "porter::") && value >= 0 && value <= hint_max) {
      out += porter::cache_hint_name(static_cast<porter::cache_hint>(value));
    } else {
      out += "(" + type + ")" + m[3].str();
    }
  }
  out.append(last, s.cend());
  return out;
}

}  // namespace

std::string short_demangled_name(std::string s) {
  static const std::regex anon_re(R"(_GLOBAL__N_[A-Za-z0-9_]*::)");  // nvcc's names for anonymous namespaces
  s = std::regex_replace(s, anon_re, "");
  for (const char* p : {"(anonymous namespace)::", "pb::", "porter::path::"}) {
    for (std::size_t i; (i = s.find(p)) != std::string::npos;) s.erase(i, std::strlen(p));
  }
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  const auto paren = parameter_list(s);
  if (paren != std::string::npos) s.resize(paren);
  return readable_enum_casts(s);
}

std::string short_kernel_name(const std::string& mangled) { return short_demangled_name(demangle(mangled)); }

}  // namespace pb
