// tools/porter-port/src/report.cpp — porter-port's text and JSON output (see porter_port/scanner.hpp).
#include <cstdio>
#include <set>
#include <sstream>

#include "porter_port/scanner.hpp"

namespace porter_port {
namespace {

void field(std::ostringstream& o, const char* name, const std::string& v, bool& first) {
  if (v.empty()) return;
  o << (first ? "" : "; ") << name << " " << v;
  first = false;
}

void site_text(std::ostringstream& o, const site& s) {
  o << s.file << ":" << s.line << ":" << s.column << ": " << s.idiom << " " << s.role << "  " << s.construct;
  if (!s.function.empty()) o << "  [in " << s.function << "]";
  o << "\n";
  std::ostringstream f;
  bool first = true;
  field(f, "bytes", s.bytes, first);
  field(f, "zero-fill", s.zero_fill, first);
  field(f, "alignment", s.alignment, first);
  field(f, "stages", s.stages, first);
  field(f, s.role == "wait-parity" ? "parity" : "count", s.count, first);
  field(f, "wrapper defined at", s.via_at, first);
  if (!first) o << "    " << f.str() << "\n";
  if (!s.completion.empty()) o << "    completion: " << s.completion << "\n";
  if (!s.porter.empty()) o << "    porter: " << s.porter << "\n";
}

std::string esc(const std::string& s) {
  std::string o;
  for (const unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o.push_back(char(c));
        }
    }
  }
  return o;
}
std::string str(const std::string& s) { return s.empty() ? "null" : "\"" + esc(s) + "\""; }
std::string strv(const std::vector<std::string>& v) {
  std::string o = "[";
  for (std::size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + std::string("\"") + esc(v[i]) + "\"";
  return o + "]";
}

std::string site_json(const site& s) {
  std::ostringstream o;
  o << "{\"file\": " << str(s.file) << ", \"line\": " << s.line << ", \"column\": " << s.column << ", \"idiom\": " << str(s.idiom)
    << ", \"role\": " << str(s.role) << ", \"construct\": " << str(s.construct) << ", \"function\": " << str(s.function)
    << ", \"in_wrapper\": " << (s.in_wrapper ? "true" : "false") << ", \"via\": " << str(s.via) << ", \"via_at\": " << str(s.via_at)
    << ", \"bytes\": " << str(s.bytes) << ", \"zero_fill\": " << str(s.zero_fill) << ", \"alignment\": " << str(s.alignment)
    << ", \"completion\": " << str(s.completion) << ", \"stages\": " << str(s.stages) << ", \"count\": " << str(s.count)
    << ", \"porter\": " << str(s.porter) << "}";
  return o.str();
}

}  // namespace

std::string to_text(const report& r, bool wrapped) {
  std::ostringstream o;
  std::set<std::string> kernels;
  for (const site& s : r.sites) kernels.insert(s.file + ":" + s.function);
  o << "porter-port: " << r.files.size() << (r.files.size() == 1 ? " file" : " files") << ", " << r.sites.size()
    << (r.sites.size() == 1 ? " site" : " sites") << " in " << kernels.size() << (kernels.size() == 1 ? " kernel" : " kernels")
    << ", " << r.wrappers.size() << " wrapper definition" << (r.wrappers.size() == 1 ? "" : "s") << ", " << r.hazards.size()
    << " hazard" << (r.hazards.size() == 1 ? "" : "s") << "\n";
  for (const std::string& w : r.warnings) o << "warning: " << w << "\n";
  if (!r.sites.empty()) o << "\nsites:\n";
  for (const site& s : r.sites) site_text(o, s);
  if (!r.hazards.empty()) o << "\nhazards:\n";
  for (const hazard& h : r.hazards) {
    o << h.file << ":" << h.line << ": " << h.id;
    if (!h.function.empty()) o << "  [in " << h.function << "]";
    o << "\n    " << h.message << "\n    porter: " << h.fix << "\n";
  }
  if (!r.wrappers.empty()) o << "\nwrapper definitions (not sites; their calls from kernels are):\n";
  for (const wrapper& w : r.wrappers) {
    o << w.file << ":" << w.line << ": " << (w.macro ? "macro " : "") << w.name << " wraps";
    for (std::size_t i = 0; i < w.idioms.size(); ++i) o << (i ? ", " : " ") << w.idioms[i];
    o << ":";
    for (std::size_t i = 0; i < w.roles.size(); ++i) o << (i ? ", " : " ") << w.roles[i];
    o << "\n";
  }
  if (wrapped && !r.wrapped.empty()) {
    o << "\ninside wrapper definitions:\n";
    for (const site& s : r.wrapped) site_text(o, s);
  }
  return o.str();
}

std::string to_json(const report& r) {
  std::ostringstream o;
  o << "{\n  \"tool\": \"porter-port\",\n  \"schema\": 1,\n  \"files\": " << strv(r.files) << ",\n  \"sites\": [";
  for (std::size_t i = 0; i < r.sites.size(); ++i) o << (i ? ",\n    " : "\n    ") << site_json(r.sites[i]);
  o << (r.sites.empty() ? "" : "\n  ") << "],\n  \"hazards\": [";
  for (std::size_t i = 0; i < r.hazards.size(); ++i) {
    const hazard& h = r.hazards[i];
    o << (i ? ",\n    " : "\n    ") << "{\"file\": " << str(h.file) << ", \"line\": " << h.line << ", \"id\": " << str(h.id)
      << ", \"function\": " << str(h.function) << ", \"message\": " << str(h.message) << ", \"porter\": " << str(h.fix) << "}";
  }
  o << (r.hazards.empty() ? "" : "\n  ") << "],\n  \"wrappers\": [";
  for (std::size_t i = 0; i < r.wrappers.size(); ++i) {
    const wrapper& w = r.wrappers[i];
    o << (i ? ",\n    " : "\n    ") << "{\"file\": " << str(w.file) << ", \"line\": " << w.line << ", \"name\": " << str(w.name)
      << ", \"macro\": " << (w.macro ? "true" : "false") << ", \"idioms\": " << strv(w.idioms) << ", \"roles\": " << strv(w.roles)
      << "}";
  }
  o << (r.wrappers.empty() ? "" : "\n  ") << "],\n  \"wrapped\": [";
  for (std::size_t i = 0; i < r.wrapped.size(); ++i) o << (i ? ",\n    " : "\n    ") << site_json(r.wrapped[i]);
  o << (r.wrapped.empty() ? "" : "\n  ") << "],\n  \"warnings\": " << strv(r.warnings) << "\n}\n";
  return o.str();
}

}  // namespace porter_port
