// tests/lowering/ptx_module.cpp — the PTX reader used by lowering_test (functions, calls, global strings).
#include "ptx_module.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace porter_test {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::size_t skip_space(const std::string& t, std::size_t i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  return i;
}

/// Index just past the bracket that closes the one at t[i] ('(' or '{').
std::size_t past_matching(const std::string& t, std::size_t i) {
  const char open = t[i], close = open == '(' ? ')' : '}';
  int depth = 0;
  for (; i < t.size(); ++i) {
    if (t[i] == open) ++depth;
    if (t[i] == close && --depth == 0) return i + 1;
  }
  throw std::runtime_error("PTX: unbalanced brackets");
}

std::string read_ident(const std::string& t, std::size_t& i) {
  const std::size_t b = i;
  while (i < t.size() && ident_char(t[i])) ++i;
  return t.substr(b, i - b);
}

/// The position of the next `kw` that stands as a word (".entry", ".func", "call") at or after `from`.
std::size_t find_word(const std::string& t, const std::string& kw, std::size_t from) {
  for (std::size_t k = t.find(kw, from); k != std::string::npos; k = t.find(kw, k + 1)) {
    const bool left = k == 0 || std::isspace(static_cast<unsigned char>(t[k - 1])) || t[k - 1] == ';' || t[k - 1] == '{';
    const std::size_t e = k + kw.size();
    const bool right = e < t.size() && (std::isspace(static_cast<unsigned char>(t[e])) || (kw == "call" && t[e] == '.'));
    if (left && right) return k;
  }
  return std::string::npos;
}

std::set<std::string> callees_of(const std::string& body) {
  std::set<std::string> out;
  for (std::size_t k = find_word(body, "call", 0); k != std::string::npos; k = find_word(body, "call", k + 4)) {
    std::size_t i = k + 4;
    while (i < body.size() && !std::isspace(static_cast<unsigned char>(body[i]))) ++i;  // .uni and friends
    i = skip_space(body, i);
    if (i < body.size() && body[i] == '(') {  // return parameters
      i = skip_space(body, past_matching(body, i));
      if (i < body.size() && body[i] == ',') i = skip_space(body, i + 1);
    }
    const std::string callee = read_ident(body, i);
    if (!callee.empty()) out.insert(callee);
  }
  return out;
}

/// `.global .align 1 .b8 NAME[N] = {b0, b1, ...};` lines: NAME -> the bytes as text.
void read_strings(const std::string& t, std::map<std::string, std::string>& out) {
  std::istringstream in(t);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(".global", 0) != 0) continue;
    const std::size_t b8 = line.find(".b8 "), br = line.find('['), eq = line.find("= {");
    if (b8 == std::string::npos || br == std::string::npos || eq == std::string::npos || br < b8) continue;
    std::size_t i = skip_space(line, b8 + 4);
    const std::string name = read_ident(line, i);
    std::string text;
    std::istringstream nums(line.substr(eq + 3));
    for (int v; nums >> v;) {
      if (v != 0) text.push_back(char(v));
      char sep;
      if (!(nums >> sep) || sep != ',') break;
    }
    out[name] = text;
  }
}

}  // namespace

ptx_module ptx_module::parse(const std::string& t) {
  ptx_module m;
  if (std::size_t k = t.find(".target "); k != std::string::npos) {
    std::size_t i = skip_space(t, k + 8);
    while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) m.target_.push_back(t[i++]);
  }
  read_strings(t, m.strings_);
  std::size_t p = 0;
  for (;;) {
    const std::size_t ke = find_word(t, ".entry", p), kf = find_word(t, ".func", p);
    const std::size_t k = ke < kf ? ke : kf;
    if (k == std::string::npos) break;
    ptx_function f;
    f.entry = k == ke;
    std::size_t i = skip_space(t, k + (f.entry ? 6 : 5));
    if (i < t.size() && t[i] == '(') i = skip_space(t, past_matching(t, i));  // .func return parameters
    f.name = read_ident(t, i);
    // The parameter list, then performance directives, then a body '{' or a declaration's ';'.
    int depth = 0;
    for (; i < t.size(); ++i) {
      if (t[i] == '(') ++depth;
      if (t[i] == ')') --depth;
      if (depth == 0 && (t[i] == '{' || t[i] == ';')) break;
    }
    if (i >= t.size()) break;
    if (t[i] == ';') {
      p = i + 1;
      continue;
    }
    const std::size_t end = past_matching(t, i);
    f.body = t.substr(i + 1, end - i - 2);
    f.callees = callees_of(f.body);
    m.order_.push_back(f.name);
    m.functions_[f.name] = std::move(f);
    p = end;
  }
  return m;
}

ptx_module ptx_module::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read PTX file " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return parse(s.str());
}

std::vector<std::string> ptx_module::entries() const {
  std::vector<std::string> out;
  for (const auto& n : order_)
    if (functions_.at(n).entry) out.push_back(n);
  return out;
}

const ptx_function* ptx_module::find(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

std::string ptx_module::closure(const std::string& name) const {
  std::string out;
  std::set<std::string> seen;
  std::vector<std::string> todo{name};
  while (!todo.empty()) {
    const std::string n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    const ptx_function* f = find(n);
    if (!f) continue;  // an external declaration (vprintf): no body here
    out += f->body;
    out += "\n";
    for (const auto& c : f->callees) todo.push_back(c);
  }
  return out;
}

std::vector<std::string> ptx_module::strings_used(const std::string& name) const {
  const std::string body = closure(name);
  std::set<std::string> names;
  for (std::size_t i = 0; i < body.size();) {
    if (body[i] == '$' || std::isalpha(static_cast<unsigned char>(body[i])) || body[i] == '_') {
      std::size_t j = i;
      while (j < body.size() && (std::isalnum(static_cast<unsigned char>(body[j])) || body[j] == '_' || body[j] == '$')) ++j;
      const std::string tok = body.substr(i, j - i);
      if (strings_.count(tok)) names.insert(tok);
      i = j;
    } else {
      ++i;
    }
  }
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(strings_.at(n));
  return out;
}

}  // namespace porter_test
