// tools/porter-port/src/scanner.cpp — see porter_port/scanner.hpp.
//
// Per file: lex; split the directives off (each #define body becomes a unit of its own, owned by
// the macro); find the function definitions of the code (brace scopes: a `{` after `name(...)` at
// namespace or class scope opens a function, `__global__` before the name makes it a kernel);
// record the variables whose type matters (cuda::pipeline, cuda::barrier, aligned_size_t, byte
// pointers) and namespace aliases; then find the primitives. Across files: wrappers (functions and
// macros that hold primitives, then those that call wrappers, to a fixed point), the sites, and
// the hazards, which need the whole function (loop counters, stage count, fences).
#include "porter_port/scanner.hpp"

#include <cstdint>
#include <algorithm>
#include <functional>
#include <limits>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "porter_port/lexer.hpp"

namespace porter_port {
namespace {

using toks = std::vector<token>;

/// A function definition or a macro.
struct fn_def {
  std::string name;     ///< "" for a lambda at namespace scope
  bool global = false;  ///< __global__
  bool macro = false;
  int line = 0;
  std::size_t begin = 0, end = 0;      ///< body tokens [begin, end) in its unit
  std::vector<std::string> tparams;    ///< template parameter names
  int unit = 0;
  std::string ns;                      ///< enclosing namespaces, "a::b"
  bool member = false;                 ///< a member function (defined in its class, or as `C::name`)
  std::string cls;                     ///< member: its class's name ("" for an unnamed one)
};

/// A stretch of tokens scanned as code: the file's code (unit 0) or one macro body.
struct unit {
  toks t;
  std::vector<int> owner;  ///< per token: index into file_ctx::fns, or -1
  std::set<std::size_t> def_names;  ///< tokens that name a function being defined
};

/// One primitive or wrapper call found, with what the hazard checks need.
struct hit {
  site s;
  int fn = -1;
  int unit = 0;
  std::size_t tok = 0;
  std::vector<std::string> count;   ///< wait: count (or parity) expression tokens
  std::vector<std::string> dst;     ///< copies: destination expression tokens
  std::vector<std::vector<std::string>> args;  ///< call arguments (wrapper calls, hazards)
  std::string sync_obj;             ///< cuda::memcpy_async: the pipeline or barrier it completes on
};

struct file_ctx {
  std::string path;
  lexed lx;
  std::vector<unit> units;
  std::vector<fn_def> fns;
  std::vector<std::string> includes;
  std::map<std::string, std::string> ns_alias;  ///< namespace A = B::C;
  bool using_cg = false;                          ///< using namespace cooperative_groups;
  std::vector<std::string> using_cuda;            ///< using namespace cuda::ptx; (and cuda, cuda::device, ...)
  std::map<std::string, std::vector<std::string>> constants;   ///< #define N 4, constexpr int N = 4: the one number token
  /// Variables by kind, each with the functions that declare it (-1: file scope).
  std::map<std::string, std::set<int>> pipe_vars, barrier_vars, aligned_vars, byte_vars;
  std::set<std::string> barrier_types;
  std::map<std::string, std::string> string_macros;  ///< #define NAME "text" "more": the text
  /// CuTe: type names that are TiledCopy / Copy_Atom types (aliases whose definition names an atom,
  /// make_tiled_copy or Copy_Atom), variables of them (with the functions declaring them), and the
  /// cp.async atoms the file names (SM80_CP_ASYNC_*<T>, as written), for the cute::copy calls.
  std::set<std::string> cute_copy_types;
  std::map<std::string, std::set<int>> cute_copy_vars;
  std::vector<std::string> cute_cp_atoms;
  std::vector<hit> hits;
};

bool is_ident(const token& k) { return k.kind == tok::identifier; }

/// Is `name` a variable of this kind in function `fn` (declared there, or at file scope)?
bool has_var(const std::map<std::string, std::set<int>>& vars, const std::string& name, int fn) {
  auto it = vars.find(name);
  return it != vars.end() && (it->second.count(fn) || it->second.count(-1));
}
bool is(const token& k, std::string_view s) { return k.text == s && k.kind != tok::string && k.kind != tok::character; }
/// `asm`, `__asm__`, `__asm`: an inline-assembly statement begins here.
bool is_asm_keyword(const token& k) { return is(k, "asm") || is(k, "__asm__") || is(k, "__asm"); }
/// `=` and the compound assignments a store into an array element is written with.
bool is_store_op(const token& k) {
  static const std::set<std::string> ops = {"=", "+=", "-=", "*=", "/=", "|=", "&=", "^="};
  return ops.count(k.text) > 0 && k.kind != tok::string && k.kind != tok::character;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool stage_like(const std::string& name) { return name == "S" || lower(name).find("stage") != std::string::npos; }

const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype",
                                          "static_assert", "noexcept", "throw", "__launch_bounds__", "__attribute__",
                                          "alignas", "defined", "new", "delete", "typeid", "co_await", "requires"};
  return k;
}

/// Index of the bracket matching the opener at `i` ((, [, {), or t.size().
std::size_t match_fwd(const toks& t, std::size_t i) {
  const std::string open = t[i].text, close = open == "(" ? ")" : open == "[" ? "]" : "}";
  int d = 0;
  for (std::size_t j = i; j < t.size(); ++j) {
    if (is(t[j], open)) ++d;
    else if (is(t[j], close) && --d == 0) return j;
  }
  return t.size();
}
/// Index of the opener matching the closer at `i`, or SIZE_MAX.
std::size_t match_back(const toks& t, std::size_t i) {
  const std::string close = t[i].text, open = close == ")" ? "(" : close == "]" ? "[" : close == ">" ? "<" : "{";
  int d = 0;
  for (std::size_t j = i + 1; j-- > 0;) {
    if (is(t[j], close)) ++d;
    else if (is(t[j], open) && --d == 0) return j;
  }
  return SIZE_MAX;
}
/// Skip a template argument list starting at `<` (i); returns the index after its `>`.
std::size_t skip_angles(const toks& t, std::size_t i) {
  int d = 0;
  for (std::size_t j = i; j < t.size(); ++j) {
    if (is(t[j], "<")) ++d;
    else if (is(t[j], ">") && --d == 0) return j + 1;
    else if (is(t[j], "(") ) j = match_fwd(t, j);
    else if (is(t[j], ";") || is(t[j], "{") || is(t[j], "}")) return i;
  }
  return i;
}

/// The arguments of the call whose `(` is at `open`: token texts per top-level argument.
std::vector<std::vector<std::string>> args_at(const toks& t, std::size_t open) {
  std::vector<std::vector<std::string>> out;
  const std::size_t close = match_fwd(t, open);
  if (close >= t.size()) return out;
  std::vector<std::string> cur;
  int d = 0;
  for (std::size_t j = open + 1; j < close; ++j) {
    const std::string& x = t[j].text;
    if (t[j].kind != tok::string && t[j].kind != tok::character) {
      if (x == "(" || x == "[" || x == "{") ++d;
      else if (x == ")" || x == "]" || x == "}") --d;
      else if (x == "," && d == 0) {
        out.push_back(cur);
        cur.clear();
        continue;
      }
    }
    cur.push_back(x);
  }
  if (!cur.empty() || !out.empty()) out.push_back(cur);
  return out;
}

std::string join(const std::vector<std::string>& v) {
  static const std::set<std::string> binops = {"+",  "-",  "*",  "/",  "%",  "&",  "|",  "^",  "?",  ":",  "=",  "==", "!=",
                                               "<=", ">=", "&&", "||", "<<", "+=", "-=", "*=", "/=", "|=", "&=", "^="};
  auto word = [](const std::string& x) {
    const char c = x.empty() ? ' ' : x.back();
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '"' || c == '\'';
  };
  auto binary = [&](std::size_t j) {  // is v[j] a binary operator here?
    return binops.count(v[j]) && j > 0 && (word(v[j - 1]) || v[j - 1] == ")" || v[j - 1] == "]");
  };
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) {
      const bool a = word(v[i - 1]) && !v[i].empty() && (std::isalnum(static_cast<unsigned char>(v[i][0])) || v[i][0] == '_');
      if (a || binary(i) || binary(i - 1) || v[i - 1] == ",") s.push_back(' ');
    }
    s += v[i];
  }
  return s;
}

/// The leading decimal digits of `x` (digit separators skipped) as a number; nullopt when there are
/// none or the value does not fit a long (input is untrusted source text).
std::optional<long> leading_number(const std::string& x) {
  long v = 0;
  bool any = false;
  for (char c : x) {
    if (c == '\'') continue;
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (v > (std::numeric_limits<long>::max() - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
    any = true;
  }
  return any ? std::optional<long>(v) : std::nullopt;
}

/// The value of a constant expression: integers, + - * / % << >>, parentheses, names of `names`
/// (compile_time_names, or a file's single-valued constants); nullopt for anything else or an overflow.
std::optional<long> const_value(const std::vector<std::string>& e, const std::map<std::string, std::vector<std::string>>& names,
                                int depth = 0) {
  if (depth > 8) return std::nullopt;
  std::size_t i = 0;
  std::function<std::optional<long>()> expr, term, factor;
  factor = [&]() -> std::optional<long> {
    if (i >= e.size()) return std::nullopt;
    const std::string x = e[i++];
    if (x == "(") {
      const auto v = expr();
      if (!v || i >= e.size() || e[i] != ")") return std::nullopt;
      ++i;
      return v;
    }
    if (x == "-") {
      const auto v = factor();
      return v ? std::optional<long>(-*v) : std::nullopt;
    }
    if (!x.empty() && std::isdigit(static_cast<unsigned char>(x[0]))) {
      if (x.find_first_of(".eE") != std::string::npos && x.rfind("0x", 0) != 0 && x.rfind("0X", 0) != 0) return std::nullopt;
      if (x.rfind("0x", 0) == 0 || x.rfind("0X", 0) == 0) {
        long v = 0;
        for (std::size_t k = 2; k < x.size() && std::isxdigit(static_cast<unsigned char>(x[k])); ++k)
          if (__builtin_mul_overflow(v, 16L, &v) || __builtin_add_overflow(v, long(std::stoi(x.substr(k, 1), nullptr, 16)), &v))
            return std::nullopt;
        return v;
      }
      return leading_number(x);
    }
    if (const auto n = names.find(x); n != names.end()) return const_value(n->second, names, depth + 1);
    return std::nullopt;
  };
  term = [&]() -> std::optional<long> {
    auto v = factor();
    while (v && i < e.size() && (e[i] == "*" || e[i] == "/" || e[i] == "%" || e[i] == "<<" || e[i] == ">>")) {
      const std::string op = e[i++];
      const auto r = factor();
      if (!r) return std::nullopt;
      long out = 0;
      if (op == "*" && __builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
      if ((op == "/" || op == "%") && *r == 0) return std::nullopt;
      if ((op == "<<" || op == ">>") && (*r < 0 || *r > 62 || *v < 0)) return std::nullopt;
      if (op == "<<" && (*v >> (62 - *r)) != 0) return std::nullopt;
      v = op == "*" ? out : op == "/" ? *v / *r : op == "%" ? *v % *r : op == "<<" ? *v << *r : *v >> *r;
    }
    return v;
  };
  expr = [&]() -> std::optional<long> {
    auto v = term();
    while (v && i < e.size() && (e[i] == "+" || e[i] == "-")) {
      const bool plus = e[i++] == "+";
      const auto r = term();
      long out = 0;
      if (!r || (plus ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out))) return std::nullopt;
      v = out;
    }
    return v;
  };
  const auto v = expr();
  return i == e.size() ? v : std::nullopt;
}

/// `X`, `X + n`, `X - n`: the identifier X and the offset.
std::optional<std::pair<std::string, long>> symbolic(const std::vector<std::string>& e) {
  std::vector<std::string> v;
  for (const auto& x : e)
    if (x != "(" && x != ")") v.push_back(x);
  if (v.empty() || !(std::isalpha(static_cast<unsigned char>(v[0][0])) || v[0][0] == '_')) return std::nullopt;
  if (v.size() == 1) return std::make_pair(v[0], 0L);
  if (v.size() == 3 && (v[1] == "+" || v[1] == "-") && std::isdigit(static_cast<unsigned char>(v[2][0]))) {
    const auto n = leading_number(v[2]);
    if (!n) return std::nullopt;
    return std::make_pair(v[0], (v[1] == "-" ? -1L : 1L) * *n);
  }
  return std::nullopt;
}

/// The first identifier of an expression that names an object: skips &, *, casts, calls' names and
/// qualifiers. `smem_addr(dst)` gives dst; `&ring[s][0]` gives ring.
std::string root_of(const std::vector<std::string>& e) {
  static const std::set<std::string> skip = {"reinterpret_cast", "static_cast", "const_cast", "const", "unsigned",
                                             "char", "void", "float", "int", "uint8_t", "std", "cuda", "ptx", "size_t"};
  for (std::size_t i = 0; i < e.size(); ++i) {
    const std::string& x = e[i];
    if (x == "<") {  // a cast's type
      int d = 0;
      for (; i < e.size(); ++i) {
        if (e[i] == "<") ++d;
        else if (e[i] == ">" && --d == 0) break;
      }
      continue;
    }
    if (!(std::isalpha(static_cast<unsigned char>(x[0])) || x[0] == '_')) continue;
    if (skip.count(x)) continue;
    if (i + 1 < e.size() && (e[i + 1] == "(" || e[i + 1] == "::" || e[i + 1] == "<")) continue;
    return x;
  }
  return {};
}

bool byte_type_word(const std::string& w) {
  return w == "char" || w == "void" || w == "uint8_t" || w == "int8_t" || w == "byte" || w == "__nv_fp8_e4m3";
}

// ---- per file: units, functions, variables ------------------------------------------------------

/// The template parameter names in tokens (begin, name_at): the last `template <...>` before it.
std::vector<std::string> template_params(const toks& t, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < to; ++i) {
    if (!is(t[i], "template") || i + 1 >= to || !is(t[i + 1], "<")) continue;
    out.clear();
    int d = 0;
    for (std::size_t j = i + 1; j < to; ++j) {
      if (is(t[j], "<")) ++d;
      else if (is(t[j], ">")) {
        if (--d == 0) break;
      } else if (d == 1 && is_ident(t[j]) && j + 1 < to && (is(t[j + 1], ",") || is(t[j + 1], ">") || is(t[j + 1], "=")) &&
                 !is(t[j - 1], "<") && !is(t[j - 1], ",")) {
        out.push_back(t[j].text);
      }
    }
  }
  return out;
}

void find_functions(file_ctx& f, int ui) {
  unit& u = f.units[std::size_t(ui)];
  const toks& t = u.t;
  u.owner.assign(t.size(), -1);
  enum kind { ns, cls, fn, block, init };
  struct frame {
    kind k;
    int fn;
    std::string ns;   ///< the namespace path inside this frame
    std::string cls;  ///< cls: the class's name
  };
  std::vector<frame> stack{{ns, -1, "", ""}};
  std::set<std::string> classes;  // the classes defined so far: `C::name(...) {` defines a member of C
  std::size_t stmt_start = 0;  // first token of the current declaration at namespace/class scope
  for (std::size_t i = 0; i < t.size(); ++i) {
    const frame top = stack.back();
    u.owner[i] = top.fn;
    if (is(t[i], ";") && (top.k == ns || top.k == cls)) {
      stmt_start = i + 1;
      continue;
    }
    if (is(t[i], "}")) {
      if (stack.size() > 1) stack.pop_back();
      if (stack.back().k == ns || stack.back().k == cls) stmt_start = i + 1;
      continue;
    }
    if (!is(t[i], "{")) continue;
    if (top.k == fn || top.k == block) {
      stack.push_back({block, top.fn, top.ns, ""});
      continue;
    }
    // At namespace or class scope: what does this brace open?
    std::size_t j = i;
    auto prev = [&](std::size_t k) -> const token* { return k > stmt_start && k - 1 < t.size() ? &t[k - 1] : nullptr; };
    static const std::set<std::string> quals = {"const", "volatile", "noexcept", "override", "final", "mutable",
                                                "constexpr", "&", "&&", "__restrict__", "try"};
    bool progress = true;
    while (progress) {
      progress = false;
      while (prev(j) && quals.count(prev(j)->text)) --j, progress = true;
      if (prev(j) && is(*prev(j), ")")) {
        const std::size_t o = match_back(t, j - 1);
        if (o != SIZE_MAX && o > stmt_start && (is(t[o - 1], "noexcept") || is(t[o - 1], "throw") || is(t[o - 1], "__attribute__") ||
                                                is(t[o - 1], "decltype"))) {
          j = o - 1;
          progress = true;
        }
      }
      // A trailing return type: `) -> type {`.
      for (std::size_t k = j; k > stmt_start + 1 && k + 8 > j; --k) {
        if (is(t[k - 1], "->") && is(t[k - 2], ")")) {
          j = k - 1;
          progress = true;
          break;
        }
        if (is(t[k - 1], ")") || is(t[k - 1], ";")) break;
      }
      // A constructor's member initialisers: `) : a_(x), b_{y} {`.
      if (prev(j) && (is(*prev(j), ")") || is(*prev(j), "}"))) {
        std::size_t k = j;
        bool ok = false;
        while (k > stmt_start && (is(t[k - 1], ")") || is(t[k - 1], "}"))) {
          const std::size_t o = match_back(t, k - 1);
          if (o == SIZE_MAX || o < stmt_start + 2 || !is_ident(t[o - 1])) break;
          if (is(t[o - 2], ",")) {
            k = o - 2;
            continue;
          }
          if (is(t[o - 2], ":") && o >= 3 && is(t[o - 3], ")")) {
            ok = true;
            k = o - 2;
          }
          break;
        }
        if (ok) {
          j = k;
          progress = true;
        }
      }
    }
    if (prev(j) && is(*prev(j), ")")) {
      const std::size_t o = match_back(t, j - 1);
      if (o != SIZE_MAX && o > stmt_start) {
        const token& before = t[o - 1];
        const bool lambda = is(before, "]");
        std::string name;
        std::size_t name_at = o - 1;
        if (is_ident(before) && !keywords().count(before.text)) name = before.text;
        else if (is(before, ")") && o >= 3 && is(t[o - 2], "(") && is(t[o - 3], "operator")) name = "operator()", name_at = o - 3;
        else if (is(before, ">")) {  // a specialisation: name<...>(...)
          const std::size_t a = match_back(t, o - 1);
          if (a != SIZE_MAX && a > 0 && is_ident(t[a - 1])) name = t[a - 1].text, name_at = a - 1;
        }
        if (!name.empty() || lambda) {
          fn_def d;
          d.name = name;
          d.line = t[name_at].line;
          d.begin = i + 1;
          d.end = match_fwd(t, i);
          d.unit = ui;
          for (std::size_t k = stmt_start; k < name_at; ++k)
            if (is(t[k], "__global__")) d.global = true;
          d.tparams = template_params(t, stmt_start, name_at);
          d.ns = top.ns;
          if (top.k == cls) d.member = true, d.cls = top.cls;
          else if (!name.empty() && name_at >= 2 && is(t[name_at - 1], "::") && classes.count(t[name_at - 2].text))
            d.member = true, d.cls = t[name_at - 2].text;
          if (!name.empty()) u.def_names.insert(name_at);
          f.fns.push_back(d);
          for (std::size_t k = o; k < i; ++k) u.owner[k] = int(f.fns.size()) - 1;  // the parameters belong to it
          stack.push_back({fn, int(f.fns.size()) - 1, top.ns, ""});
          continue;
        }
      }
    }
    bool is_ns = false, is_cls = false;
    std::string ns_name = top.ns, cls_name;
    for (std::size_t k = stmt_start; k < i; ++k) {
      if (is(t[k], "namespace")) {
        for (std::size_t m = k + 1; m < i; ++m)
          if (is_ident(t[m]) && t[m].text != "inline") ns_name += (ns_name.empty() ? "" : "::") + t[m].text;
      }
      if (is(t[k], "namespace") || (is(t[k], "extern") && k + 1 < i && t[k + 1].kind == tok::string)) is_ns = true;
      if (is(t[k], "struct") || is(t[k], "class") || is(t[k], "union")) {
        is_cls = true;
        // Its name: the first word after the last such keyword that is no attribute (`template <class
        // T> struct alignas(16) ring`: ring).
        cls_name.clear();
        for (std::size_t m = k + 1; m < i && cls_name.empty(); ++m) {
          if (is(t[m], "(")) m = match_fwd(t, m);
          else if (is(t[m], ":") || is(t[m], "<")) break;
          else if (is_ident(t[m]) && !is(t[m], "alignas") && !is(t[m], "__align__") && !is(t[m], "__attribute__") &&
                   !is(t[m], "final"))
            cls_name = t[m].text;
        }
      }
      if (is(t[k], "=") || is(t[k], "enum")) {
        is_ns = is_cls = false;
        break;
      }
    }
    if (is_cls && !is_ns && !cls_name.empty()) classes.insert(cls_name);
    stack.push_back({is_ns ? ns : is_cls ? cls : init, top.fn, is_ns ? ns_name : top.ns, is_cls ? cls_name : ""});
    if (is_ns || is_cls) stmt_start = i + 1;
  }
}

/// Directives: macros become units; includes, constants.
void read_directives(file_ctx& f) {
  const toks& all = f.lx.tokens;
  for (const directive& d : f.lx.directives) {
    if (d.name == "include" && d.first + 2 < d.end + 1) {
      for (std::size_t i = d.first; i < d.end; ++i)
        if (all[i].kind == tok::header_name) f.includes.push_back(all[i].value);
      continue;
    }
    if (d.name != "define" || d.first + 2 >= d.end + 0 || d.first + 2 > d.end) continue;
    if (d.first + 2 >= d.end) continue;
    const token& name = all[d.first + 2];
    if (!is_ident(name)) continue;
    std::size_t body = d.first + 3;
    if (body < d.end && is(all[body], "(") && !all[body].space_before) {  // function-like
      int depth = 0;
      for (; body < d.end; ++body) {
        if (is(all[body], "(")) ++depth;
        else if (is(all[body], ")") && --depth == 0) {
          ++body;
          break;
        }
      }
    }
    if (body >= d.end) continue;
    // Object-like macro whose body is one number: a constant; only string literals: PTX text.
    if (body + 1 == d.end && all[body].kind == tok::number) f.constants[name.text] = {all[body].text};
    {
      std::string text;
      bool strings = true;
      for (std::size_t k = body; k < d.end; ++k) strings = strings && all[k].kind == tok::string, text += all[k].value;
      if (strings) f.string_macros[name.text] = text;
    }
    unit u;
    u.t.assign(all.begin() + long(body), all.begin() + long(d.end));
    fn_def m;
    m.name = name.text;
    m.macro = true;
    m.line = name.line;
    m.begin = 0;
    m.end = u.t.size();
    m.unit = int(f.units.size());
    f.fns.push_back(m);
    u.owner.assign(u.t.size(), int(f.fns.size()) - 1);
    f.units.push_back(std::move(u));
  }
}

/// Does `name` spell a CuTe copy type by its name alone (a TiledCopy template parameter, CUTLASS's
/// GmemTiledCopyA, cute::TiledCopy, a Copy_Atom)?
bool cute_copy_type_name(const std::string& name) {
  const std::string l = lower(name);
  return l.find("tiledcopy") != std::string::npos || l.find("tiled_copy") != std::string::npos || name == "Copy_Atom";
}

/// CuTe copies: the cp.async atoms a file names, the aliases that are copy types (`using G =
/// decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, T>{}, ...))`), and the
/// variables of those types (`typename Traits::G g;`, `TiledCopy copy_a` parameters, `auto g =
/// make_tiled_copy(...)`). Read before the sites, so that `cute::copy(g, src, dst)` is one.
void read_cute_copies(file_ctx& f) {
  for (const unit& u : f.units) {
    const toks& t = u.t;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (is_ident(t[i]) && t[i].text.rfind("SM80_CP_ASYNC_", 0) == 0 && !(i > 0 && (is(t[i - 1], "struct") || is(t[i - 1], "class")))) {
        std::string atom = t[i].text;
        if (i + 1 < t.size() && is(t[i + 1], "<")) {
          const std::size_t e = skip_angles(t, i + 1);
          for (std::size_t k = i + 1; k < e && k < t.size(); ++k) atom += t[k].text;
        }
        if (std::find(f.cute_cp_atoms.begin(), f.cute_cp_atoms.end(), atom) == f.cute_cp_atoms.end()) f.cute_cp_atoms.push_back(atom);
      }
      if (is(t[i], "using") && i + 3 < t.size() && is_ident(t[i + 1]) && is(t[i + 2], "=")) {
        for (std::size_t k = i + 3; k < t.size() && !is(t[k], ";"); ++k)
          if (is_ident(t[k]) && (t[k].text.rfind("SM80_CP_ASYNC_", 0) == 0 || is(t[k], "make_tiled_copy") || is(t[k], "Copy_Atom") ||
                                 is(t[k], "TiledCopy"))) {
            f.cute_copy_types.insert(t[i + 1].text);
            break;
          }
      }
    }
  }
  for (const unit& u : f.units) {
    const toks& t = u.t;
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
      if (!is_ident(t[i])) continue;
      const int fn = u.owner[i];
      // T v;  T v = ...;  T v{...};  T v,  T v)  (parameters), with T a copy type; not T::member.
      if ((f.cute_copy_types.count(t[i].text) || cute_copy_type_name(t[i].text)) && !(i > 0 && is(t[i - 1], "using"))) {
        std::size_t k = i + 1;
        while (k < t.size() && (is(t[k], "&") || is(t[k], "const") || is(t[k], "&&"))) ++k;
        if (k + 1 < t.size() && is_ident(t[k]) && !is(t[k + 1], "::") && !is(t[k + 1], "(") &&
            (is(t[k + 1], ";") || is(t[k + 1], "=") || is(t[k + 1], "{") || is(t[k + 1], ",") || is(t[k + 1], ")")))
          f.cute_copy_vars[t[k].text].insert(fn);
      }
      // v = make_tiled_copy(...)  (auto v = ..., or a later assignment)
      if (i + 2 < t.size() && is(t[i + 1], "=")) {
        std::size_t k = i + 2;
        while (k < t.size() && (is_ident(t[k]) || is(t[k], "::")) && !is(t[k], "make_tiled_copy")) ++k;
        if (k < t.size() && is(t[k], "make_tiled_copy")) f.cute_copy_vars[t[i].text].insert(fn);
      }
    }
  }
}

void read_variables(file_ctx& f) {
  read_cute_copies(f);
  for (const unit& u : f.units) {
    const toks& t = u.t;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const int fn = u.owner[i];
      // namespace A = B::C;  using namespace cooperative_groups;
      if (is(t[i], "namespace") && i + 3 < t.size() && is_ident(t[i + 1]) && is(t[i + 2], "=")) {
        std::string target;
        for (std::size_t k = i + 3; k < t.size() && !is(t[k], ";"); ++k) target += t[k].text;
        f.ns_alias[t[i + 1].text] = target;
      }
      if (is(t[i], "using") && i + 2 < t.size() && is(t[i + 1], "namespace")) {
        std::string target;
        for (std::size_t k = i + 2; k < t.size() && !is(t[k], ";"); ++k) target += t[k].text;
        if (target == "cooperative_groups" || target == "cg") f.using_cg = true;
        if (auto it = f.ns_alias.find(target); it != f.ns_alias.end()) target = it->second;  // using namespace ptx;
        if (target.rfind("::", 0) == 0) target = target.substr(2);
        if (target == "cuda" || target.rfind("cuda::", 0) == 0) f.using_cuda.push_back(target);
      }
      // constexpr int N = 4;  const int N = 4;
      if ((is(t[i], "constexpr") || is(t[i], "const")) && i + 4 < t.size()) {
        std::size_t k = i + 1;
        while (k < t.size() && is_ident(t[k]) && k + 1 < t.size() && is_ident(t[k + 1])) ++k;
        if (k + 3 < t.size() && is_ident(t[k]) && is(t[k + 1], "=") && t[k + 2].kind == tok::number && is(t[k + 3], ";"))
          f.constants[t[k].text] = {t[k + 2].text};
      }
      // using Alias = cuda::barrier<...>;
      if (is(t[i], "using") && i + 5 < t.size() && is_ident(t[i + 1]) && is(t[i + 2], "=")) {
        for (std::size_t k = i + 3; k < t.size() && !is(t[k], ";"); ++k)
          if (is(t[k], "barrier") && k >= 2 && is(t[k - 1], "::") && is(t[k - 2], "cuda")) f.barrier_types.insert(t[i + 1].text);
      }
      // Declarations of a type that matters: cuda::pipeline<...> X, cuda::barrier<...> X, aligned_size_t<N> X.
      const bool cuda_q = i >= 2 && is(t[i - 1], "::") && is(t[i - 2], "cuda");
      const bool q_pipe = cuda_q && is(t[i], "pipeline"), q_bar = (cuda_q && is(t[i], "barrier")) || f.barrier_types.count(t[i].text);
      const bool q_al = is(t[i], "aligned_size_t");
      if (q_pipe || q_bar || q_al) {
        std::size_t k = i + 1;
        if (k < t.size() && is(t[k], "<")) k = skip_angles(t, k);
        while (k < t.size() && (is(t[k], "&") || is(t[k], "*") || is(t[k], "const") || is(t[k], "&&"))) ++k;
        // Every declarator: `barrier full[2], empty[2];` declares both.
        while (k + 1 < t.size() && is_ident(t[k]) && !is(t[k + 1], "(") && !is(t[k + 1], "::")) {
          (q_pipe ? f.pipe_vars : q_bar ? f.barrier_vars : f.aligned_vars)[t[k].text].insert(fn);
          std::size_t n = k + 1;
          while (n < t.size() && is(t[n], "[")) n = match_fwd(t, n) + 1;
          if (n + 1 >= t.size() || !is(t[n], ",")) break;
          k = n + 1;
          while (k < t.size() && (is(t[k], "&") || is(t[k], "*"))) ++k;
        }
      }
      // X = ... make_pipeline / aligned_size_t ... ;
      if (is_ident(t[i]) && i + 1 < t.size() && is(t[i + 1], "=")) {
        for (std::size_t k = i + 2; k < t.size() && !is(t[k], ";") && !is(t[k], "{") && k < i + 40; ++k) {
          if (is(t[k], "make_pipeline")) f.pipe_vars[t[i].text].insert(fn);
          if (is(t[k], "aligned_size_t")) f.aligned_vars[t[i].text].insert(fn);
        }
      }
      // Byte pointers and byte arrays: char* X, void* X, unsigned char X[...], std::byte* X.
      if (byte_type_word(t[i].text) && is_ident(t[i])) {
        std::size_t k = i + 1;
        int stars = 0;
        while (k < t.size() && (is(t[k], "*") || is(t[k], "const") || is(t[k], "__restrict__") || is(t[k], "__restrict") ||
                                is(t[k], "volatile"))) {
          stars += is(t[k], "*");
          ++k;
        }
        if (k + 1 < t.size() && is_ident(t[k]) && (stars > 0 || is(t[k + 1], "[")) &&
            (is(t[k + 1], "=") || is(t[k + 1], ";") || is(t[k + 1], ",") || is(t[k + 1], ")") || is(t[k + 1], "[")))
          f.byte_vars[t[k].text].insert(fn);
      }
    }
  }
}

// ---- primitives ----------------------------------------------------------------------------------

/// A libcu++ name the scanner reads as a primitive (cuda::ptx::cp_async_bulk*, mbarrier_*, fences;
/// cuda::device TMA helpers; cuda::memcpy_async and the pipeline functions).
bool known_libcu_name(const std::string& q) {
  static const std::vector<std::string> ptx_prefixes = {"cp_async_bulk", "mbarrier_", "fence_proxy_async", "fence_mbarrier_init"};
  for (const char* ns : {"cuda::ptx::", "cuda::device::experimental::", "cuda::device::"})
    if (q.rfind(ns, 0) == 0) {
      const std::string tail = q.substr(std::string(ns).size());
      if (tail == "memcpy_async_tx" || tail == "barrier_arrive_tx") return true;
      for (const auto& p : ptx_prefixes)
        if (tail.rfind(p, 0) == 0) return true;
    }
  return q == "cuda::memcpy_async" || q == "cuda::make_pipeline" || q == "cuda::pipeline_consumer_wait_prior";
}

/// The qualified name ending at identifier i (`cuda::ptx::cp_async_bulk`), with aliases applied to
/// its first component; `begin` gets the index of its first token.
std::string qualified(const file_ctx& f, const toks& t, std::size_t i, std::size_t& begin) {
  std::vector<std::string> parts{t[i].text};
  std::size_t b = i;
  while (b >= 2 && is(t[b - 1], "::") && is_ident(t[b - 2])) {
    parts.insert(parts.begin(), t[b - 2].text);
    b -= 2;
  }
  if (b >= 1 && is(t[b - 1], "::")) --b;  // ::cuda::...
  begin = b;
  if (auto it = f.ns_alias.find(parts.front()); it != f.ns_alias.end()) parts.front() = it->second;
  std::string q;
  for (const auto& p : parts) q += (q.empty() ? "" : "::") + p;
  if (q.rfind("::", 0) == 0) q = q.substr(2);
  // An unqualified call under `using namespace cuda::ptx;` (or cuda, cuda::device, ...): the libcu++
  // name it resolves to, when that is one the scanner knows.
  if (parts.size() == 1 && b == i && !(i > 0 && (is(t[i - 1], ".") || is(t[i - 1], "->"))))
    for (const std::string& ns : f.using_cuda)
      if (const std::string c = ns + "::" + q; known_libcu_name(c)) return c;
  return q;
}

std::string completion_of(const std::string& idiom, const std::string& role) {
  if (idiom == "asm-cp-async")
    return role == "arrive" ? "cp.async.mbarrier.arrive: the thread's copies arrive on an mbarrier"
                            : "cp.async groups: commit_group, then wait_group N (this thread's copies; a CTA barrier shares them)";
  if (idiom == "pipeline-primitives") return "cp.async groups: __pipeline_commit, then __pipeline_wait_prior(N)";
  if (idiom == "cuda-pipeline") return "cuda::pipeline stages: producer_acquire/commit, consumer_wait/release";
  if (idiom == "cuda-barrier") return "cuda::barrier: the copy completes as part of a barrier phase (arrive_and_wait / wait)";
  if (idiom == "cuda-tma" || idiom == "asm-tma") return "mbarrier transaction bytes: expect_tx, then a parity wait";
  if (idiom == "cooperative-groups") return "cooperative_groups::wait / wait_prior<N> on the group";
  if (idiom == "cutlass") return "CUTLASS/CuTe: cp_async_fence / cp_async_wait<N> groups, or PipelineTmaAsync's mbarriers";
  return {};
}

std::string porter_for(const std::string& role) {
  if (role == "copy" || role == "bulk-copy" || role == "tensor-copy")
    return "porter::async_copy(porter::buffer<I>(slot), src, coord) for a box of a porter::tiled_source "
           "(zero fill outside the tensor), or porter::async_copy(porter::buffer<I>(slot), ptr, bytes) for a byte range";
  if (role == "commit" || role == "arrive") return "pipe.producer_commit(slot)";
  if (role == "wait" || role == "wait-parity") return "auto ready = pipe.consumer_wait() (the token carries stage and phase)";
  if (role == "acquire") return "auto slot = pipe.producer_acquire()";
  if (role == "release") return "pipe.consumer_release(ready)";
  if (role == "init" || role == "state")
    return "porter::pipeline<Path, S, Box...> pipe(smem) (the ring, its barriers and their initialisation)";
  if (role == "expect-tx") return "nothing: porter's tma lowering counts each copy's bytes";
  if (role == "fence") return "nothing: a porter stage is filled by one proxy per copy; porter fences where it mixes them";
  if (role == "bulk-store") return "not a load pipeline: outside what porter-port maps";
  return {};
}

void add_hit(file_ctx& f, int ui, std::size_t ti, int line, int col, std::string idiom, std::string role, std::string construct,
             hit h = {}) {
  const unit& u = f.units[std::size_t(ui)];
  h.fn = u.owner[ti];
  if (h.fn < 0) return;  // not inside a function or macro body: a declaration, not a use
  h.unit = ui;
  h.tok = ti;
  h.s.file = f.path;
  h.s.line = line;
  h.s.column = col;
  h.s.idiom = std::move(idiom);
  h.s.role = std::move(role);
  h.s.construct = std::move(construct);
  h.s.function = f.fns[std::size_t(h.fn)].name;
  h.s.completion = completion_of(h.s.idiom, h.s.role);
  h.s.porter = porter_for(h.s.role);
  f.hits.push_back(std::move(h));
}

/// An asm statement's parts: the PTX template (its string literals concatenated, string macros
/// included), where each literal starts, its operand expressions and the closing `)`.
struct asm_parts {
  std::string tmpl;
  std::vector<std::pair<std::size_t, std::size_t>> where;  ///< (offset in tmpl, token index)
  std::vector<std::vector<std::string>> operands;          ///< "constraint"(expr), outputs then inputs
  std::size_t close = 0;                                   ///< index of the `)`; 0 when t[i] is no asm statement
};

/// Read the asm statement at t[i] (`asm`, `__asm__`).
asm_parts read_asm(const file_ctx& f, const toks& t, std::size_t i) {
  asm_parts a;
  std::size_t j = i + 1;
  while (j < t.size() && (is(t[j], "volatile") || is(t[j], "__volatile__") || is(t[j], "goto") || is(t[j], "inline"))) ++j;
  if (j >= t.size() || !is(t[j], "(")) return a;
  a.close = match_fwd(t, j);
  const std::size_t close = a.close;
  // The template: the string literals before the first top-level ':'; remember each one's line.
  // `::` (no outputs: `asm("..." :: "r"(x))`) is one token to the lexer: two section separators.
  std::size_t k = j + 1;
  for (; k < close && !is(t[k], ":") && !is(t[k], "::"); ++k)
    if (t[k].kind == tok::string) {
      a.where.emplace_back(a.tmpl.size(), k);
      a.tmpl += t[k].value;
    } else if (is_ident(t[k]) && f.string_macros.count(t[k].text)) {  // asm(PTX_TEXT ...)
      a.where.emplace_back(a.tmpl.size(), k);
      a.tmpl += f.string_macros.at(t[k].text);
    }
  // Operands: "constraint"(expr) in the output and input sections, numbered across both.
  int section = 0;
  for (; k < close; ++k) {
    if (is(t[k], ":") || is(t[k], "::")) {
      if ((section += is(t[k], "::") ? 2 : 1) > 2) break;
      continue;
    }
    if (t[k].kind == tok::string && k + 1 < close && is(t[k + 1], "(")) {
      const std::size_t e = match_fwd(t, k + 1);
      std::vector<std::string> ex;
      for (std::size_t m = k + 2; m < e; ++m) ex.push_back(t[m].text);
      a.operands.push_back(ex);
      k = e;
    }
  }
  return a;
}

/// One asm statement at t[i] (`asm`, `__asm__`): its PTX instructions.
void scan_asm(file_ctx& f, int ui, std::size_t i) {
  const toks& t = f.units[std::size_t(ui)].t;
  const asm_parts parts = read_asm(f, t, i);
  if (!parts.close) return;
  const std::string& tmpl = parts.tmpl;
  const auto& where = parts.where;
  const auto& operands = parts.operands;
  auto line_at = [&](std::size_t off) {
    std::size_t tk = where.empty() ? i : where.front().second;
    for (const auto& w : where)
      if (w.first <= off) tk = w.second;
    return std::make_pair(t[tk].line, t[tk].column);
  };
  auto operand_expr = [&](const std::string& op) -> std::vector<std::string> {
    if (op.size() > 1 && op[0] == '%' && std::isdigit(static_cast<unsigned char>(op[1]))) {
      const auto n = leading_number(op.substr(1));
      if (n && std::size_t(*n) < operands.size()) return operands[std::size_t(*n)];
    }
    return {op};
  };
  // Split into statements at ';' and newlines; each statement's first word is the opcode.
  std::size_t pos = 0;
  while (pos < tmpl.size()) {
    std::size_t end = tmpl.find_first_of(";\n", pos);
    if (end == std::string::npos) end = tmpl.size();
    std::string st = tmpl.substr(pos, end - pos);
    std::size_t s0 = st.find_first_not_of(" \t{}\r");
    const std::size_t at = pos + (s0 == std::string::npos ? 0 : s0);
    pos = end + 1;
    if (s0 == std::string::npos) continue;
    st = st.substr(s0);
    if (st[0] == '@') {  // predicate
      const std::size_t sp = st.find_first_of(" \t");
      if (sp == std::string::npos) continue;
      st = st.substr(st.find_first_not_of(" \t", sp));
    }
    const std::size_t sp = st.find_first_of(" \t");
    const std::string op = st.substr(0, sp);
    std::vector<std::string> ops;  // operand texts, brackets removed
    if (sp != std::string::npos) {
      std::string rest = st.substr(sp), cur;
      int depth = 0;
      for (char c : rest) {
        if (c == '[' || c == '{') ++depth;
        if (c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
          ops.push_back(cur);
          cur.clear();
        } else if (c != ' ' && c != '\t' && c != '[' && c != ']') {
          cur.push_back(c);
        }
      }
      if (!cur.empty()) ops.push_back(cur);
    }
    const auto [ln, cl] = line_at(at);
    auto starts = [&](const char* p) { return op.rfind(p, 0) == 0; };
    hit h;
    std::string idiom, role;
    if (starts("cp.async.bulk.tensor")) {
      idiom = "asm-tma";
      role = op.find(".global.shared") != std::string::npos ? "bulk-store" : "tensor-copy";
      h.s.zero_fill = "yes (the tensor map's out-of-bounds fill)";
      h.s.alignment = "128 B destination, 16 B strides (checked by the driver when the map is encoded)";
      if (!ops.empty()) h.dst = operand_expr(ops[0]);
    } else if (starts("cp.async.bulk.commit_group")) {
      idiom = "asm-tma", role = "commit";
    } else if (starts("cp.async.bulk.wait_group")) {
      idiom = "asm-tma", role = "wait";
      if (!ops.empty()) h.count = operand_expr(ops[0]);
    } else if (starts("cp.async.bulk.prefetch")) {
      continue;
    } else if (starts("cp.async.bulk")) {
      idiom = "asm-tma";
      role = op.find(".global.shared") != std::string::npos ? "bulk-store" : "bulk-copy";
      if (ops.size() > 2) h.s.bytes = join(operand_expr(ops[2]));
      h.s.zero_fill = "no";
      h.s.alignment = "16 B (addresses and size), not checked by a type";
      if (!ops.empty()) h.dst = operand_expr(ops[0]);
    } else if (starts("cp.async.commit_group")) {
      idiom = "asm-cp-async", role = "commit";
    } else if (starts("cp.async.wait_group")) {
      idiom = "asm-cp-async", role = "wait";
      if (!ops.empty()) h.count = operand_expr(ops[0]);
    } else if (starts("cp.async.wait_all")) {
      idiom = "asm-cp-async", role = "wait";
      h.count = {"0"};
    } else if (starts("cp.async.mbarrier.arrive")) {
      idiom = "asm-cp-async", role = "arrive";
    } else if (starts("cp.async.ca") || starts("cp.async.cg")) {
      idiom = "asm-cp-async", role = "copy";
      const bool hint = op.find("cache_hint") != std::string::npos;
      if (ops.size() > 2) h.s.bytes = join(operand_expr(ops[2]));
      const std::size_t plain = hint ? 4 : 3;
      h.s.zero_fill = ops.size() > plain ? "yes (src-size operand " + join(operand_expr(ops[3])) + ")" : "no";
      h.s.alignment = (ops.size() > 2 ? ops[2] : std::string("cp-size")) + " B required on both addresses, not checked by a type";
      if (!ops.empty()) h.dst = operand_expr(ops[0]);
    } else if (starts("mbarrier.init")) {
      idiom = "asm-tma", role = "init";
    } else if (starts("mbarrier.arrive.expect_tx") || starts("mbarrier.expect_tx")) {
      idiom = "asm-tma", role = "expect-tx";
    } else if (starts("mbarrier.try_wait.parity") || starts("mbarrier.test_wait.parity")) {
      idiom = "asm-tma", role = "wait-parity";
      if (ops.size() > 2) h.count = operand_expr(ops[2]);
    } else if (starts("mbarrier.try_wait") || starts("mbarrier.test_wait")) {
      idiom = "asm-tma", role = "wait";
    } else if (starts("mbarrier.arrive")) {
      idiom = "asm-tma", role = "arrive";
    } else if (starts("fence.proxy.async")) {
      idiom = "asm-tma", role = "fence";
    } else if (starts("fence.mbarrier_init")) {
      idiom = "asm-tma", role = "init";
    } else {
      continue;
    }
    h.s.count = join(h.count);
    add_hit(f, ui, i, ln, cl, idiom, role, op, std::move(h));
  }
}

/// The template argument text of `name<...>` at t[i] (i at the name), or "".
std::vector<std::string> template_arg(const toks& t, std::size_t i, int which = 0) {
  if (i + 1 >= t.size() || !is(t[i + 1], "<")) return {};
  const std::size_t e = skip_angles(t, i + 1);
  std::vector<std::string> cur;
  int n = 0, d = 0;
  for (std::size_t k = i + 2; k + 1 < e; ++k) {
    if (is(t[k], "<") || is(t[k], "(")) ++d;
    if (is(t[k], ">") || is(t[k], ")")) --d;
    if (is(t[k], ",") && d == 0) {
      if (n == which) return cur;
      cur.clear();
      ++n;
      continue;
    }
    cur.push_back(t[k].text);
  }
  return n == which ? cur : std::vector<std::string>{};
}

/// The `(` of a call of the name at t[i] (after an optional template argument list), or 0.
std::size_t call_paren(const toks& t, std::size_t i) {
  std::size_t k = i + 1;
  if (k < t.size() && is(t[k], "<")) k = skip_angles(t, k);
  return k < t.size() && k > i && is(t[k], "(") ? k : 0;
}

std::string bytes_of(const file_ctx& f, const std::vector<std::string>& size) {
  for (std::size_t k = 0; k + 2 < size.size(); ++k)
    if (size[k] == "aligned_size_t") {
      // cuda::aligned_size_t<N>(bytes): the bytes.
      std::size_t m = k + 1;
      int d = 0;
      for (; m < size.size(); ++m) {
        if (size[m] == "<") ++d;
        else if (size[m] == ">" && --d == 0) break;
      }
      if (m + 2 < size.size() && size[m + 1] == "(")
        return join(std::vector<std::string>(size.begin() + long(m) + 2, size.end() - 1));
    }
  (void)f;
  return join(size);
}

std::string alignment_of_size(const file_ctx& f, const std::vector<std::string>& size, bool byte_ptr, int fn) {
  for (std::size_t k = 0; k + 2 < size.size(); ++k)
    if (size[k] == "aligned_size_t") return "guaranteed " + size[k + 2] + " B by cuda::aligned_size_t";
  if (size.size() == 1 && has_var(f.aligned_vars, size[0], fn)) return "guaranteed by cuda::aligned_size_t (" + size[0] + ")";
  return byte_ptr ? "none: byte pointers and a plain size (CCCL copies byte by byte)"
                  : "alignof(element) only: a plain size, no cuda::aligned_size_t";
}

bool byte_expr(const file_ctx& f, const std::vector<std::string>& e, int fn) {
  for (std::size_t k = 0; k < e.size(); ++k) {
    if ((e[k] == "reinterpret_cast" || e[k] == "static_cast" || e[k] == "const_cast") && k + 1 < e.size() && e[k + 1] == "<") {
      bool byte = false;
      for (std::size_t m = k + 2; m < e.size() && e[m] != ">"; ++m) byte |= byte_type_word(e[m]);
      return byte;
    }
    if (e[k] == "(" && k + 2 < e.size() && byte_type_word(e[k + 1])) {  // C-style (char*)p
      std::size_t m = k + 1;
      while (m < e.size() && (byte_type_word(e[m]) || e[m] == "const" || e[m] == "unsigned" || e[m] == "std" || e[m] == "::")) ++m;
      if (m < e.size() && e[m] == "*") return true;
    }
  }
  const std::string r = root_of(e);
  return !r.empty() && has_var(f.byte_vars, r, fn);
}

void scan_unit(file_ctx& f, int ui) {
  const toks& t = f.units[std::size_t(ui)].t;
  const unit& u = f.units[std::size_t(ui)];
  for (std::size_t i = 0; i < t.size(); ++i) {
    const token& k = t[i];
    if (!is_ident(k)) continue;
    if (is_asm_keyword(k)) {
      scan_asm(f, ui, i);
      continue;
    }
    if (u.def_names.count(i)) continue;  // the name of a function being defined
    const bool member = i > 0 && (is(t[i - 1], ".") || is(t[i - 1], "->"));
    const std::size_t paren = call_paren(t, i);
    auto args = [&] { return paren ? args_at(t, paren) : std::vector<std::vector<std::string>>{}; };
    auto arg = [&](const std::vector<std::vector<std::string>>& a, std::size_t n) { return n < a.size() ? a[n] : std::vector<std::string>{}; };
    if (member) {
      // Member calls on a cuda::pipeline variable (cuda::barrier members are found after memcpy_async).
      const std::string obj = i >= 2 ? t[i - 2].text : "";
      static const std::map<std::string, std::string> pipe_roles = {
          {"producer_acquire", "acquire"}, {"producer_commit", "commit"},  {"consumer_wait", "wait"},
          {"consumer_wait_for", "wait"},   {"consumer_wait_until", "wait"}, {"consumer_release", "release"}};
      if (has_var(f.pipe_vars, obj, u.owner[i]) && pipe_roles.count(k.text) && paren)
        add_hit(f, ui, i, k.line, k.column, "cuda-pipeline", pipe_roles.at(k.text), obj + t[i - 1].text + k.text);
      continue;
    }
    std::size_t qb = i;
    const std::string q = qualified(f, t, i, qb);
    const int line = t[qb].line, col = t[qb].column;
    hit h;
    // ---- <cuda_pipeline_primitives.h>
    if (q == "__pipeline_memcpy_async" && paren) {
      const auto a = args();
      h.dst = arg(a, 0);
      h.s.bytes = join(arg(a, 2));
      h.s.zero_fill = a.size() > 3 ? "yes (zfill argument " + join(a[3]) + ")" : "no";
      h.s.alignment = h.s.bytes + " B required (4, 8 or 16), not checked by a type";
      add_hit(f, ui, i, line, col, "pipeline-primitives", "copy", q, std::move(h));
    } else if (q == "__pipeline_commit" && paren) {
      add_hit(f, ui, i, line, col, "pipeline-primitives", "commit", q);
    } else if (q == "__pipeline_wait_prior" && paren) {
      h.count = arg(args(), 0);
      h.s.count = join(h.count);
      add_hit(f, ui, i, line, col, "pipeline-primitives", "wait", q, std::move(h));
    } else if (q == "__pipeline_arrive_on" && paren) {
      add_hit(f, ui, i, line, col, "pipeline-primitives", "arrive", q);
    }
    // ---- libcu++: cuda::memcpy_async with a pipeline or a barrier; pipelines; TMA helpers
    else if ((q == "cuda::memcpy_async" || q == "cuda::device::memcpy_async_tx") && paren) {
      const auto a = args();
      const bool tx = q == "cuda::device::memcpy_async_tx";
      const std::size_t d0 = (!tx && a.size() == 5) ? 1 : 0;  // memcpy_async(group, dst, src, size, pipe)
      h.dst = arg(a, d0);
      h.args = a;
      const auto size = arg(a, d0 + 2);
      const auto sync = arg(a, d0 + 3);
      const std::string obj = root_of(sync);
      const bool bytes = byte_expr(f, arg(a, d0), u.owner[i]) || byte_expr(f, arg(a, d0 + 1), u.owner[i]);
      h.s.bytes = bytes_of(f, size);
      h.s.alignment = alignment_of_size(f, size, bytes, u.owner[i]);
      h.s.zero_fill = "no";
      std::string idiom;
      if (tx) idiom = "cuda-tma";
      else if (has_var(f.pipe_vars, obj, u.owner[i])) idiom = "cuda-pipeline";
      else if (has_var(f.barrier_vars, obj, u.owner[i])) idiom = "cuda-barrier";
      else idiom = lower(obj).find("bar") != std::string::npos ? "cuda-barrier" : "cuda-pipeline";
      h.sync_obj = obj;
      add_hit(f, ui, i, line, col, idiom, tx ? "bulk-copy" : "copy", q, std::move(h));
    } else if (q == "cuda::make_pipeline" && paren) {
      add_hit(f, ui, i, line, col, "cuda-pipeline", "state", q);
    } else if (q == "cuda::pipeline_shared_state") {
      h.s.stages = join(template_arg(t, i, 1));
      add_hit(f, ui, i, line, col, "cuda-pipeline", "state", q, std::move(h));
    } else if ((q == "cuda::pipeline_consumer_wait_prior") && paren) {
      h.count = template_arg(t, i, 0);
      h.s.count = join(h.count);
      add_hit(f, ui, i, line, col, "cuda-pipeline", "wait", q, std::move(h));
    } else if (q == "cuda::device::barrier_arrive_tx" && paren) {
      add_hit(f, ui, i, line, col, "cuda-tma", "expect-tx", q);
    } else if ((q.rfind("cuda::ptx::", 0) == 0 || q.rfind("cuda::device::experimental::", 0) == 0 ||
                q.rfind("cuda::device::", 0) == 0) && paren) {
      const std::string n = q.substr(q.rfind("::") + 2);
      const auto a = args();
      std::string role;
      if (n.rfind("cp_async_bulk_tensor", 0) == 0) {
        role = n.find("shared_to_global") != std::string::npos ? "bulk-store" : "tensor-copy";
        h.dst = arg(a, q.rfind("cuda::ptx::", 0) == 0 ? 2 : 0);
        h.s.zero_fill = "yes (the tensor map's out-of-bounds fill)";
      } else if (n == "cp_async_bulk_commit_group") role = "commit";
      else if (n.rfind("cp_async_bulk_wait_group", 0) == 0) role = "wait", h.count = template_arg(t, i, 0);
      else if (n.rfind("cp_async_bulk", 0) == 0) {
        const bool store = a.size() > 1 && join(a[0]).find("global") != std::string::npos &&
                           join(a[1]).find("shared") != std::string::npos;
        role = store ? "bulk-store" : "bulk-copy";
        h.dst = arg(a, 2);
        h.s.bytes = join(arg(a, 4));
        h.s.zero_fill = "no";
      } else if (n == "mbarrier_init" || n == "fence_mbarrier_init") role = "init";
      else if (n == "mbarrier_arrive_expect_tx" || n == "mbarrier_expect_tx") role = "expect-tx";
      else if (n == "mbarrier_try_wait_parity" || n == "mbarrier_test_wait_parity") role = "wait-parity", h.count = arg(a, a.size() > 2 ? a.size() - 1 : 1);
      else if (n == "mbarrier_try_wait" || n == "mbarrier_test_wait") role = "wait";
      else if (n == "mbarrier_arrive") role = "arrive";
      else if (n.rfind("fence_proxy_async", 0) == 0) role = "fence";
      if (!role.empty()) {
        h.s.count = join(h.count);
        h.args = a;
        add_hit(f, ui, i, line, col, "cuda-tma", role, q, std::move(h));
      }
    }
    // ---- cooperative groups
    else if ((q == "cooperative_groups::memcpy_async" || (f.using_cg && q == "memcpy_async")) && paren) {
      const auto a = args();
      h.dst = arg(a, 1);
      const bool five = a.size() == 5;  // memcpy_async(group, dst, dst_size, src, src_size)
      const auto size = arg(a, five ? 4 : 3);
      const bool bytes = byte_expr(f, arg(a, 1), u.owner[i]) || byte_expr(f, arg(a, five ? 3 : 2), u.owner[i]);
      h.s.bytes = bytes_of(f, size);
      h.s.alignment = alignment_of_size(f, size, bytes, u.owner[i]);
      h.s.zero_fill = five ? "yes (dst_size beyond src_size is zero-filled)" : "no";
      h.args = a;
      add_hit(f, ui, i, line, col, "cooperative-groups", "copy", "cooperative_groups::memcpy_async", std::move(h));
    } else if ((q == "cooperative_groups::wait" || (f.using_cg && q == "wait" && qb == i)) && paren) {
      h.count = {"0"};
      h.s.count = "0";
      add_hit(f, ui, i, line, col, "cooperative-groups", "wait", "cooperative_groups::wait", std::move(h));
    } else if ((q == "cooperative_groups::wait_prior" || (f.using_cg && q == "wait_prior")) && paren) {
      h.count = template_arg(t, i, 0);
      h.s.count = join(h.count);
      add_hit(f, ui, i, line, col, "cooperative-groups", "wait", "cooperative_groups::wait_prior", std::move(h));
    }
    // ---- CUTLASS / CuTe
    else if ((k.text == "cp_async_fence") && paren) {
      add_hit(f, ui, i, line, col, "cutlass", "commit", q);
    } else if ((k.text == "cp_async_wait") && paren) {
      h.count = template_arg(t, i, 0);
      h.s.count = join(h.count);
      add_hit(f, ui, i, line, col, "cutlass", "wait", q, std::move(h));
    } else if ((q == "cutlass::arch::cp_async" || q == "cutlass::arch::cp_async_zfill" || q == "arch::cp_async" ||
                q == "arch::cp_async_zfill") && paren) {
      h.s.bytes = join(template_arg(t, i, 0));
      h.s.zero_fill = k.text == "cp_async_zfill" ? "yes (cp_async_zfill)" : "no";
      h.dst = arg(args(), 0);
      add_hit(f, ui, i, line, col, "cutlass", "copy", q, std::move(h));
    } else if (k.text.rfind("SM80_CP_ASYNC_", 0) == 0 && !(i > 0 && (is(t[i - 1], "struct") || is(t[i - 1], "class")))) {
      h.s.zero_fill = k.text.find("ZFILL") != std::string::npos ? "yes (ZFILL atom)" : "no";
      h.s.bytes = join(template_arg(t, i, 0));
      add_hit(f, ui, i, line, col, "cutlass", "copy", k.text, std::move(h));
    } else if ((k.text.rfind("SM90_TMA_LOAD", 0) == 0 || k.text.rfind("SM90_BULK_COPY", 0) == 0) &&
               !(i > 0 && (is(t[i - 1], "struct") || is(t[i - 1], "class")))) {
      h.s.zero_fill = k.text.rfind("SM90_TMA", 0) == 0 ? "yes (the tensor map's out-of-bounds fill)" : "no";
      add_hit(f, ui, i, line, col, "cutlass", k.text.rfind("SM90_TMA", 0) == 0 ? "tensor-copy" : "bulk-copy", k.text, std::move(h));
    } else if ((q == "cute::copy" || q == "copy") && paren && args().size() == 3 &&
               (has_var(f.cute_copy_vars, root_of(args()[0]), u.owner[i]) ||
                (!args()[0].empty() && args()[0][0] == "make_tiled_copy"))) {
      // cute::copy(tiled_copy, src, dst): the copies of a TiledCopy, one atom per thread per value
      // group. What it moves is the atom's: the cp.async atoms this file names.
      std::string atoms, bytes;
      for (const auto& a : f.cute_cp_atoms) {
        atoms += (atoms.empty() ? "" : ", ") + a;
        const std::string b = a.find("uint128_t") != std::string::npos ? "16"
                              : a.find("uint64_t") != std::string::npos ? "8"
                              : a.find("uint32_t") != std::string::npos ? "4"
                                                                        : "?";
        if (bytes.find(b) == std::string::npos) bytes += (bytes.empty() ? "" : " or ") + b;
      }
      h.s.bytes = atoms.empty() ? "" : bytes + " per atom (one cp.async per thread per value group)";
      h.s.zero_fill = atoms.find("ZFILL") != std::string::npos ? "yes (ZFILL atom)" : "no";
      h.args = args();
      h.dst = arg(h.args, 2);
      add_hit(f, ui, i, line, col, "cutlass", "copy",
              "cute::copy (TiledCopy" + (atoms.empty() ? std::string() : " of " + atoms) + ")", std::move(h));
    } else if (k.text == "PipelineTmaAsync" || k.text == "PipelineAsync") {
      h.s.stages = join(template_arg(t, i, 0));
      add_hit(f, ui, i, line, col, "cutlass", "state", q, std::move(h));
    }
  }
}

/// cuda::barrier members and init() on the barriers that complete a cuda::memcpy_async.
void scan_barrier_members(file_ctx& f) {
  std::set<std::pair<int, std::string>> used;  // (function, barrier) pairs that complete a copy
  std::set<int> tma_fns;                        // functions with a cuda::device::memcpy_async_tx
  for (const hit& h : f.hits) {
    if (h.s.idiom == "cuda-barrier" && h.s.role == "copy") used.insert({h.fn, h.sync_obj});
    if (h.s.construct == "cuda::device::memcpy_async_tx") tma_fns.insert(h.fn);
  }
  if (used.empty() && tma_fns.empty()) return;
  for (int ui = 0; ui < int(f.units.size()); ++ui) {
    const toks& t = f.units[std::size_t(ui)].t;
    for (std::size_t i = 2; i < t.size(); ++i) {
      if (!is_ident(t[i]) || !call_paren(t, i)) continue;
      const int fn = f.units[std::size_t(ui)].owner[i];
      if (!(is(t[i - 1], ".") || is(t[i - 1], "->"))) {
        if (t[i].text == "init" && !is(t[i - 1], "::")) {
          const auto a = args_at(t, call_paren(t, i));
          if (!a.empty() && used.count({fn, root_of(a[0])})) add_hit(f, ui, i, t[i].line, t[i].column, "cuda-barrier", "init", "init");
        }
        continue;
      }
      // The object: `bar.m(...)` or `bar[s].m(...)`.
      std::size_t o = i - 2;
      std::string index;
      if (is(t[o], "]")) {
        const std::size_t b = match_back(t, o);
        if (b == SIZE_MAX || b == 0) continue;
        index = "[...]";
        o = b - 1;
      }
      const std::string obj = t[o].text;
      const std::string& m = t[i].text;
      if (used.count({fn, obj})) {
        const std::string role = m == "arrive_and_wait" || m == "wait" ? "wait" : m == "arrive" ? "arrive" : "";
        if (!role.empty()) add_hit(f, ui, i, t[i].line, t[i].column, "cuda-barrier", role, obj + index + t[i - 1].text + m);
      } else if (tma_fns.count(fn) && has_var(f.barrier_vars, obj, fn)) {
        // A cuda::barrier of a bulk-copy (TMA) ring: its arrivals release stages (the EMPTY side) or
        // complete FULL's arrival count; its waits wait for a phase.
        const std::string role = m == "arrive" ? "arrive" : m == "wait" || m == "wait_parity" || m == "arrive_and_wait" ? "wait" : "";
        if (!role.empty()) add_hit(f, ui, i, t[i].line, t[i].column, "cuda-tma", role, obj + index + t[i - 1].text + m);
      }
    }
  }
}

// ---- whole function facts ------------------------------------------------------------------------

struct fn_facts {
  std::set<std::string> loop_vars;   ///< for (int i = ...) and variables computed from them
  std::map<std::string, std::vector<std::pair<std::size_t, std::size_t>>> loop_scope;  ///< token ranges where each is live
  std::string stages;                ///< stage count as written ("" unknown)
  std::string stage_symbol;          ///< the identifier the stage count is named by ("" for a literal)
};

fn_facts facts_of(const file_ctx& f, int fi, const std::vector<const hit*>& hits) {
  fn_facts r;
  const fn_def& d = f.fns[std::size_t(fi)];
  const toks& t = f.units[std::size_t(d.unit)].t;
  const std::size_t b = d.begin, e = std::min(d.end, t.size());
  for (std::size_t i = b; i + 2 < e; ++i) {
    if (is(t[i], "for") && is(t[i + 1], "(")) {
      const std::size_t c = match_fwd(t, i + 1);
      for (std::size_t k = i + 2; k < c && !is(t[k], ";"); ++k)
        if (is_ident(t[k]) && k + 1 < c && (is(t[k + 1], "=") || is(t[k + 1], ":") || is(t[k + 1], "{"))) {
          r.loop_vars.insert(t[k].text);
          std::size_t end = c + 1;
          if (end < e && is(t[end], "{")) end = match_fwd(t, end);
          else
            for (int d = 0; end < e; ++end) {
              if (is(t[end], "(") || is(t[end], "{")) ++d;
              else if (is(t[end], ")") || is(t[end], "}")) --d;
              else if (is(t[end], ";") && d <= 0) break;
            }
          r.loop_scope[t[k].text].emplace_back(i, end);
          break;
        }
    }
  }
  // One level of derivation: `x = ... i ...;` with i a loop variable.
  for (std::size_t i = b; i + 2 < e; ++i) {
    if (!is_ident(t[i]) || !is(t[i + 1], "=") || r.loop_vars.count(t[i].text)) continue;
    for (std::size_t k = i + 2; k < e && !is(t[k], ";") && !is(t[k], ","); ++k)
      if (r.loop_vars.count(t[k].text)) {
        r.loop_vars.insert(t[i].text);
        for (const auto& sc : r.loop_scope[t[k].text])
          if (sc.first <= i && i < sc.second) r.loop_scope[t[i].text].emplace_back(i, sc.second);
        break;
      }
  }
  // Stage count: a cuda::pipeline_shared_state / PipelineTmaAsync argument, a ring index `% X`, a
  // stage-named template parameter, or a stage-named constant used in the body.
  for (const hit* h : hits)
    if (!h->s.stages.empty()) r.stages = h->s.stages;
  auto symbol_ok = [&](const std::string& x) {
    return stage_like(x) || std::find(d.tparams.begin(), d.tparams.end(), x) != d.tparams.end();
  };
  if (r.stages.empty())
    for (std::size_t i = b; i + 1 < e; ++i)
      if (is(t[i], "%") && is_ident(t[i + 1]) && stage_like(t[i + 1].text) && !(i + 2 < e && is(t[i + 2], "("))) {
        r.stages = t[i + 1].text;
        break;
      }
  if (r.stages.empty())
    for (const auto& p : d.tparams)
      if (stage_like(p)) r.stages = p;
  if (r.stages.empty())
    for (std::size_t i = b; i < e; ++i)
      if (is_ident(t[i]) && stage_like(t[i].text) && f.constants.count(t[i].text)) {
        r.stages = t[i].text;
        break;
      }
  (void)symbol_ok;
  if (!r.stages.empty() && !const_value({r.stages}, {}).has_value()) r.stage_symbol = r.stages;
  return r;
}

std::string stages_text(const file_ctx& f, const fn_facts& x) {
  if (x.stages.empty()) return {};
  if (auto v = const_value({x.stages}, f.constants); v && !x.stage_symbol.empty()) return x.stages + " = " + std::to_string(*v);
  return x.stages;
}

/// Does `e` use a loop counter of a loop that encloses token `at`? Lambda arguments (with a body) are skipped.
bool mentions(const std::vector<std::string>& e, const fn_facts& x, std::size_t at, std::string* which) {
  if (std::find(e.begin(), e.end(), "{") != e.end()) return false;
  for (const auto& v : e) {
    auto it = x.loop_scope.find(v);
    if (it == x.loop_scope.end()) continue;
    for (const auto& sc : it->second)
      if (sc.first <= at && at < sc.second) {
        if (which) *which = v;
        return true;
      }
  }
  return false;
}

/// The token range [begin, end) of the statement holding t[i]: back to the previous `;`, `{` or
/// `}` at the same depth, forward to the next `;` (brackets skipped), within [lo, hi).
std::pair<std::size_t, std::size_t> statement_around(const toks& t, std::size_t i, std::size_t lo, std::size_t hi) {
  std::size_t b = i;
  for (int d = 0; b > lo; --b) {
    const token& k = t[b - 1];
    if (is(k, ")") || is(k, "]")) ++d;
    else if ((is(k, "(") || is(k, "[")) && d > 0) --d;
    else if (d == 0 && (is(k, ";") || is(k, "{") || is(k, "}"))) break;
  }
  std::size_t e = i;
  for (; e < hi; ++e) {
    if (is(t[e], "(") || is(t[e], "[")) e = match_fwd(t, e);
    else if (is(t[e], ";") || is(t[e], "{") || is(t[e], "}")) break;  // `while (!wait(...)) {}` ends at its body
  }
  return {b, std::min(e + 1, hi)};
}

/// Does this PTX read shared memory through the generic proxy (ld.shared / ld.*.shared, ldmatrix,
/// ldu is global only)?
bool generic_shared_load(const std::string& ptx) {
  if (ptx.find("ldmatrix") != std::string::npos) return true;
  for (std::size_t p = ptx.find("ld."); p != std::string::npos; p = ptx.find("ld.", p + 3)) {
    if (p > 0 && (std::isalnum(static_cast<unsigned char>(ptx[p - 1])) || ptx[p - 1] == '.' || ptx[p - 1] == '_')) continue;
    const std::size_t e = ptx.find_first_of(" \t", p);
    const std::string op = ptx.substr(p, e == std::string::npos ? std::string::npos : e - p);
    if (op.find(".shared") != std::string::npos) return true;
  }
  return false;
}

/// A name declared in a function or at file scope: its array rank (`float t[2][64]`: 2) and whether
/// its type has a `*` (a pointer, or an array of pointers). `scalar`: rank 0, no `*`, not `auto`
/// (an index or a count: never a stage).
struct decl_info {
  int rank = 0;
  bool pointer = false;
  bool scalar = false;
};

bool decl_keyword(const std::string& w) {
  static const std::set<std::string> k = {"return", "case", "else", "goto", "new", "delete", "throw", "sizeof", "alignof",
                                          "decltype", "co_return", "co_yield", "do", "typename", "using", "namespace"};
  return k.count(w) > 0;
}

/// Declarations in t[lo, hi): a name that follows type tokens (words, `::`, `*`, `&`, template
/// arguments, `alignas(...)`-style attributes) which start at a statement or parameter boundary.
std::map<std::string, decl_info> declarations(const toks& t, std::size_t lo, std::size_t hi) {
  std::map<std::string, decl_info> out;
  for (std::size_t i = lo + 1; i < hi; ++i) {
    if (!is_ident(t[i]) || decl_keyword(t[i].text)) continue;
    if (i + 1 < hi && (is(t[i + 1], "(") || is(t[i + 1], "::") || is(t[i + 1], "<"))) continue;
    bool pointer = false, autos = false;
    int words = 0;
    std::size_t j = i;
    bool boundary = false;
    while (j > lo) {
      const token& k = t[j - 1];
      if (is(k, "*")) pointer = true;
      if (is(k, ">")) {  // a template argument list: skip it
        int d = 0;
        std::size_t m = j - 1;
        for (; m > lo; --m) {
          if (is(t[m], ">")) ++d;
          else if (is(t[m], "<") && --d == 0) break;
          else if (is(t[m], ";") || is(t[m], "{") || is(t[m], "}")) break;
        }
        if (!is(t[m], "<")) break;
        j = m;
        continue;
      }
      if (is(k, ")")) {  // alignas(128), __align__(16), __attribute__((...))
        const std::size_t m = match_back(t, j - 1);
        if (m == SIZE_MAX || m == 0 || m < lo + 1) break;
        const std::string& w = t[m - 1].text;
        if (w != "alignas" && w != "__align__" && w != "__attribute__" && w != "__declspec" && w != "__launch_bounds__") break;
        j = m - 1;
        continue;
      }
      if (is_ident(k) && !decl_keyword(k.text)) {
        ++words;
        if (k.text == "auto") autos = true;
        --j;
        continue;
      }
      if (is(k, "::") || is(k, "*") || is(k, "&") || is(k, "&&")) {
        --j;
        continue;
      }
      boundary = is(k, ";") || is(k, "{") || is(k, "}") || is(k, "(") || is(k, ",") || is(k, ":");
      break;
    }
    if (j == lo) boundary = true;
    if (!boundary || words == 0) continue;
    decl_info d;
    d.pointer = pointer;
    for (std::size_t k = i + 1; k < hi && is(t[k], "["); k = match_fwd(t, k) + 1) ++d.rank;
    d.scalar = d.rank == 0 && !pointer && !autos;
    out[t[i].text] = d;
  }
  return out;
}

/// Whether t[b, e) (a function or lambda body) holds an inline asm that loads shared memory through
/// the generic proxy (ld.shared, ldmatrix).
bool holds_generic_shared_load(const file_ctx& f, const toks& t, std::size_t b, std::size_t e) {
  for (std::size_t i = b; i < e; ++i)
    if (is_asm_keyword(t[i])) {
      const asm_parts a = read_asm(f, t, i);
      if (a.close && generic_shared_load(a.tmpl)) return true;
    }
  return false;
}

/// Whether a function or lambda body t[b, end) reads an element through one of the pointer or array
/// parameters declared in t(open, close) (`p[i]` not assigned to, `*p`, `*(p + i)`), as a helper
/// `consume(&buf[s][0])` does.
bool reads_through_params(const toks& t, std::size_t open, std::size_t close, std::size_t b, std::size_t end) {
  std::set<std::string> params;
  for (std::size_t k = open + 1; k < close; ++k)
    if (is_ident(t[k]) && (is(t[k + 1], ",") || is(t[k + 1], ")") || is(t[k + 1], "[")) && (is(t[k - 1], "*") || is(t[k + 1], "[")))
      params.insert(t[k].text);
  if (params.empty()) return false;
  for (std::size_t i = std::max<std::size_t>(b, 2); i + 1 < end; ++i) {
    if (!is_ident(t[i]) || !params.count(t[i].text) || is(t[i - 1], ".") || is(t[i - 1], "->") || is(t[i - 1], "&")) continue;
    if (is(t[i + 1], "[")) {
      const std::size_t after = match_fwd(t, i + 1) + 1;
      if (!(after < end && is_store_op(t[after]))) return true;
    } else if (is(t[i - 1], "*") || (is(t[i - 1], "(") && is(t[i - 2], "*"))) {
      // *p or *(p + i), not a declaration's `T* p` nor a product `a * p`.
      const std::size_t star = is(t[i - 1], "*") ? i - 1 : i - 2;
      const token& before = t[star - 1];
      const bool unary = is(before, "=") || is(before, "(") || is(before, ",") || is(before, "return") || is(before, "+=") ||
                         is(before, "{") || is(before, ";") || is(before, "+") || is(before, "-");
      std::size_t after = i + 1;
      if (is(t[i - 1], "(")) after = match_fwd(t, i - 1) + 1;
      if (unary && !(after < end && is_store_op(t[after]))) return true;
    }
  }
  return false;
}

/// The arrays declared `extern __shared__` in t[lo, hi) (`extern __shared__ __align__(128)
/// unsigned char smem[];`): the dynamic shared memory that kernels carve into regions.
std::set<std::string> extern_shared_arrays(const toks& t, std::size_t lo, std::size_t hi) {
  std::set<std::string> out;
  for (std::size_t i = lo; i < hi; ++i) {
    if (!is(t[i], "extern")) continue;
    bool shared = false;
    for (std::size_t k = i + 1; k < hi && !is(t[k], ";") && !is(t[k], "{") && !is(t[k], "}"); ++k) {
      if (is(t[k], "__shared__")) shared = true;
      else if (is(t[k], "(")) k = match_fwd(t, k);
      else if (is(t[k], "[")) {
        if (shared && is_ident(t[k - 1])) out.insert(t[k - 1].text);
        break;
      }
    }
  }
  return out;
}

/// The region of one of `arrays` that expression `e` names: `X`, `X + off` or `&X[off]`, in
/// parentheses or a reinterpret_cast / static_cast (`reinterpret_cast<float*>(smem + OFF)`). Returns
/// the array and the offset's tokens (none for `X`); nullopt for any other expression
/// (`reinterpret_cast<float*>(smem) + n`, a conditional, a call) and for the bare `X`, which is
/// another name for the whole array (`unsigned char* base = smem`).
std::optional<std::pair<std::string, std::vector<std::string>>> region_expr(std::vector<std::string> e,
                                                                            const std::set<std::string>& arrays) {
  auto close_of = [&](std::size_t i) {  // the closer matching e[i] ((, [, <), or e.size()
    const std::string open = e[i], close = open == "(" ? ")" : open == "[" ? "]" : ">";
    int d = 0;
    for (std::size_t j = i; j < e.size(); ++j) {
      if (e[j] == open) ++d;
      else if (e[j] == close && --d == 0) return j;
    }
    return e.size();
  };
  bool cast = false;
  for (;;) {
    if (e.size() >= 2 && e.front() == "(" && close_of(0) == e.size() - 1) {
      e = std::vector<std::string>(e.begin() + 1, e.end() - 1);
      continue;
    }
    if (e.size() >= 5 && (e[0] == "reinterpret_cast" || e[0] == "static_cast") && e[1] == "<") {
      const std::size_t a = close_of(1);
      if (a + 1 < e.size() && e[a + 1] == "(" && close_of(a + 1) == e.size() - 1) {
        e = std::vector<std::string>(e.begin() + std::ptrdiff_t(a) + 2, e.end() - 1);
        cast = true;
        continue;
      }
    }
    break;
  }
  std::string array;
  std::vector<std::string> off;
  if (e.size() == 1 && arrays.count(e[0])) {
    if (!cast) return std::nullopt;
    array = e[0];
  } else if (e.size() > 2 && arrays.count(e[0]) && e[1] == "+") {
    array = e[0];
    off.assign(e.begin() + 2, e.end());
  } else if (e.size() > 4 && e[0] == "&" && arrays.count(e[1]) && e[2] == "[" && close_of(2) == e.size() - 1) {
    array = e[1];
    off.assign(e.begin() + 3, e.end() - 1);
  } else {
    return std::nullopt;
  }
  int d = 0;  // `X + a ? b : c`, `X + a, b`: not an offset
  for (const std::string& x : off) {
    if (x == "(" || x == "[") ++d;
    else if (x == ")" || x == "]") --d;
    else if (d == 0 && (x == "?" || x == ":" || x == "," || x == "=" || x == "&&" || x == "||")) return std::nullopt;
  }
  return std::make_pair(array, off);
}

/// Compile-time names of a file, for region offsets: `constexpr` names, `const` names at namespace
/// or class scope, object-like macros; each with its definition's tokens.
std::map<std::string, std::vector<std::string>> compile_time_names(const file_ctx& f) {
  std::map<std::string, std::vector<std::string>> out;
  const unit& u = f.units[0];
  const toks& t = u.t;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is(t[i], "constexpr") && !(is(t[i], "const") && u.owner[i] == -1)) continue;
    std::size_t k = i + 1;
    while (k < t.size() && !is(t[k], "=") && !is(t[k], ";") && !is(t[k], "{") && !is(t[k], "(") && !is(t[k], ")")) ++k;
    if (k >= t.size() || !is(t[k], "=") || !is_ident(t[k - 1])) continue;
    std::vector<std::string> e;
    for (std::size_t j = k + 1; j < t.size() && !is(t[j], ";") && !is(t[j], ",") && !is(t[j], "{") && !is(t[j], "}"); ++j)
      e.push_back(t[j].text);
    out[t[k - 1].text] = e;
  }
  for (const fn_def& m : f.fns)
    if (m.macro) {
      std::vector<std::string> e;
      for (const token& k : f.units[std::size_t(m.unit)].t) e.push_back(k.text);
      if (!e.empty() && e[0] != "(") out[m.name] = e;  // a function-like macro's body starts after its parameters
    }
  return out;
}

/// Where a region's offset `off` starts, as a key: its terms (split at the top-level + and -) less
/// those that hold a run-time name (a stage index, a run-time size: `s * STAGE_BYTES` counts as 0),
/// valued by const_value() when it can, else written out. Compile-time names: `names`, the
/// function's template parameters `tparams`, qualified names, sizeof / alignof.
std::string offset_start(const std::vector<std::string>& off, const std::map<std::string, std::vector<std::string>>& names,
                         const std::vector<std::string>& tparams) {
  std::vector<std::string> kept;
  std::vector<std::string> term;
  bool run_time = false;
  std::string sign = "+";
  auto flush = [&] {
    if (!term.empty() && !run_time) {
      kept.push_back(sign);
      kept.insert(kept.end(), term.begin(), term.end());
    }
    term.clear();
    run_time = false;
  };
  int d = 0;
  for (std::size_t i = 0; i < off.size(); ++i) {
    const std::string& x = off[i];
    const bool word = !x.empty() && (std::isalpha(static_cast<unsigned char>(x[0])) || x[0] == '_');
    if (d == 0 && (x == "+" || x == "-") && !term.empty()) {
      flush();
      sign = x;
      continue;
    }
    if (x == "(" || x == "[") ++d;
    else if (x == ")" || x == "]") --d;
    term.push_back(x);
    if (!word) continue;
    if ((x == "sizeof" || x == "alignof") && i + 1 < off.size() && off[i + 1] == "(") {  // not evaluated: a constant
      std::size_t k = i + 1;
      for (int m = 0; k < off.size(); ++k) {
        if (off[k] == "(") ++m;
        else if (off[k] == ")" && --m == 0) break;
      }
      for (std::size_t j = i + 1; j <= k && j < off.size(); ++j) term.push_back(off[j]);
      i = k;
      continue;
    }
    const bool qualified = (i + 1 < off.size() && off[i + 1] == "::") || (i > 0 && off[i - 1] == "::");
    const bool fixed = names.count(x) || std::find(tparams.begin(), tparams.end(), x) != tparams.end() || qualified;
    if (!fixed || (i + 1 < off.size() && off[i + 1] == "(")) run_time = true;
  }
  flush();
  if (kept.empty()) return "0";
  if (const auto v = const_value(std::vector<std::string>(kept.begin() + 1, kept.end()), names)) {
    // The leading sign is +; const_value reads the rest (a leading - is a unary minus).
    if (kept[0] == "+") return std::to_string(*v);
  }
  if (kept[0] == "-") {
    if (const auto v = const_value(kept, names)) return std::to_string(*v);
  }
  std::string key;
  for (const std::string& x : kept)
    if (x != "(" && x != ")") key += (key.empty() ? "" : " ") + x;
  return key;
}

/// A lambda expression: its parameter list's parentheses (both 0 when it has none) and its body's braces.
struct lambda_span {
  std::size_t params_open = 0, params_close = 0, body_open = 0, body_close = 0;
};

/// The lambda expression whose introducer `[` is t[i] (`[&](const float* p) mutable -> void {...}`,
/// `[=] __device__ (int s) {...}`, `[] {...}`), its body closing before `end`; nullopt when t[i]
/// opens none. The caller knows that a `[` there cannot be an index (after `=`, or an argument's start).
std::optional<lambda_span> lambda_at(const toks& t, std::size_t i, std::size_t end) {
  if (i >= end || !is(t[i], "[")) return std::nullopt;
  lambda_span l;
  std::size_t k = match_fwd(t, i) + 1;
  if (k < end && is(t[k], "<")) k = skip_angles(t, k);  // []<class T>(T x) {...}
  while (k < end && (is(t[k], "__device__") || is(t[k], "__host__"))) ++k;
  if (k < end && is(t[k], "(")) {
    l.params_open = k;
    l.params_close = match_fwd(t, k);
    k = l.params_close + 1;
  }
  // mutable, constexpr, noexcept(...), __attribute__((...)), -> T: up to the body's `{`.
  for (; k < end && !is(t[k], "{"); ++k) {
    if (is(t[k], ";") || is(t[k], ",") || is(t[k], ")") || is(t[k], "}")) return std::nullopt;
    if (is(t[k], "(")) k = match_fwd(t, k);
  }
  if (k >= end) return std::nullopt;
  l.body_open = k;
  l.body_close = match_fwd(t, k);
  if (l.body_close >= end) return std::nullopt;
  return l;
}

/// The token ranges [begin, end) of the top-level arguments of the call whose `(` is at `open`.
std::vector<std::pair<std::size_t, std::size_t>> arg_ranges(const toks& t, std::size_t open) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::size_t close = match_fwd(t, open);
  if (close >= t.size()) return out;
  std::size_t b = open + 1;
  for (std::size_t j = open + 1; j < close; ++j) {
    if (is(t[j], "(") || is(t[j], "[") || is(t[j], "{")) j = match_fwd(t, j);
    else if (is(t[j], ",")) out.emplace_back(b, j), b = j + 1;
  }
  if (b < close || !out.empty()) out.emplace_back(b, close);
  return out;
}

/// What proxy_read_hazard reads from a whole file's code unit: each part computed on first need and
/// kept for the file's other functions.
struct file_facts {
  std::optional<std::map<std::string, decl_info>> decls;  ///< declarations()
  std::optional<std::set<std::string>> shared_arrays;     ///< extern_shared_arrays()
  std::optional<std::map<std::string, std::vector<std::string>>> constants;  ///< compile_time_names()
};

/// The `extern __shared__` arrays of file `f`'s code, read once into `x`.
const std::set<std::string>& file_shared_arrays(const file_ctx& f, file_facts& x) {
  if (!x.shared_arrays) x.shared_arrays = extern_shared_arrays(f.units[0].t, 0, f.units[0].t.size());
  return *x.shared_arrays;
}

/// generic-read-before-bulk-refill in function `d` (its primitives `hs`): a buffer that a bulk copy
/// refills in a loop, read through the generic proxy, then released by an mbarrier arrival with no
/// fence.proxy.async (and no CTA barrier: that hand-off is not reported) between the last read and
/// the arrival. Returns the arrival's line and the message, or nothing. `roles_of`: a primitive's
/// role, or the roles a called wrapper holds; `is_loader`: a function of the scanned files that
/// reads shared memory through the generic proxy (an asm ld.shared / ldmatrix). `member_wrapper`:
/// the wrapper that a member call `obj.name(...)` names (a member function of a hand-written type
/// that holds primitives), or nullptr. `file`: what is read from the whole file (file_facts).
/// Reads through a lambda: a lambda declared `auto f = [...](...) {...}` or written inline as a call
/// argument, that reads through a pointer or array parameter, holds an ld.shared / ldmatrix asm or
/// calls a reading function, reads the stage a call hands it (`consume(&buf[s][0])`,
/// `with_stage(buf[s], [&](const float* p) {... p[i] ...})`); a lambda's body reads what it captures
/// in place. Releases and fences through a lambda `auto f = [...]...{...}` count at each use of its
/// name (a call, or a hand-over as an argument), not where it is declared; through a member function
/// `obj.release(s)` / `p->release(s)`, at the call.
std::optional<std::pair<int, std::string>> proxy_read_hazard(const file_ctx& f, const fn_def& d, const std::vector<const hit*>& hs,
                                                             const std::function<std::vector<std::string>(const hit*)>& roles_of,
                                                             const std::function<bool(const std::string&)>& is_loader,
                                                             const std::function<const wrapper*(const std::string&)>& member_wrapper,
                                                             file_facts& file) {
  const toks& t = f.units[std::size_t(d.unit)].t;
  const std::size_t lo = d.begin, end = std::min(d.end, t.size());
  auto has_role = [&](const hit* h, const char* r) {
    const auto v = roles_of(h);
    return std::find(v.begin(), v.end(), r) != v.end();
  };
  // Loop bodies: a bulk copy there refills its buffer.
  std::vector<std::pair<std::size_t, std::size_t>> loops;
  for (std::size_t i = lo; i < end; ++i) {
    if (is(t[i], "for") || is(t[i], "while")) {
      if (i + 1 >= end || !is(t[i + 1], "(")) continue;
      std::size_t b = match_fwd(t, i + 1) + 1;
      if (b >= end) continue;
      std::size_t e = b;
      if (is(t[b], "{")) e = match_fwd(t, b);
      else
        for (; e < end && !is(t[e], ";"); ++e)
          if (is(t[e], "(") || is(t[e], "[")) e = match_fwd(t, e);
      loops.emplace_back(i, std::min(e, end));
    } else if (is(t[i], "do") && i + 1 < end && is(t[i + 1], "{")) {
      loops.emplace_back(i, std::min(match_fwd(t, i + 1), end));
    }
  }
  auto in_loop = [&](std::size_t i) {
    return std::any_of(loops.begin(), loops.end(), [&](const auto& r) { return r.first <= i && i <= r.second; });
  };
  std::vector<const hit*> copies;
  for (const hit* h : hs)
    if (h->unit == d.unit && (has_role(h, "bulk-copy") || has_role(h, "tensor-copy")) && in_loop(h->tok)) copies.push_back(h);
  if (copies.empty()) return std::nullopt;

  // Names: declarations (file scope and this function), then local aliases `name = <expr>`.
  if (!file.decls) file.decls = declarations(f.units[0].t, 0, f.units[0].t.size());
  std::map<std::string, decl_info> decls = *file.decls;
  for (const auto& [n, di] : declarations(t, lo, end)) decls[n] = di;
  auto value_indexes = [&](const std::string& n) {
    const auto it = decls.find(n);
    return it == decls.end() ? 1 : it->second.rank + (it->second.pointer ? 1 : 0);
  };
  auto scalar = [&](const std::string& n) {
    const auto it = decls.find(n);
    return it != decls.end() && it->second.scalar;
  };
  auto indexes_after = [&](std::size_t i, std::size_t* next) {
    int n = 0;
    std::size_t k = i + 1;
    while (k < t.size() && is(t[k], "[")) {
      k = match_fwd(t, k) + 1;
      ++n;
    }
    if (next) *next = k;
    return n;
  };
  std::map<std::string, std::vector<std::string>> alias;  // name -> the objects its initializer points into (below)
  static const std::set<std::string> type_words = {"reinterpret_cast", "static_cast", "const_cast", "const", "volatile",
                                                   "unsigned", "signed", "char", "void", "float", "double", "int", "long",
                                                   "short", "bool", "auto", "std", "cuda", "ptx"};
  // Objects whose address an expression t[b, e) carries: `&x[...]`, an array or pointer not indexed
  // down to an element (`tile[s]`, `smem + off`), not an index, a callee, a member or a scalar.
  auto addresses_in = [&](std::size_t b, std::size_t e) {
    std::vector<std::string> out;
    for (std::size_t k = b; k < e; ++k) {
      if (is(t[k], "[")) {  // an index: not an address
        k = match_fwd(t, k);
        continue;
      }
      if (is(t[k], "<") && k > b && (is(t[k - 1], "reinterpret_cast") || is(t[k - 1], "static_cast") || is(t[k - 1], "const_cast"))) {
        k = skip_angles(t, k) - 1;
        continue;
      }
      if (!is_ident(t[k]) || type_words.count(t[k].text) || decl_keyword(t[k].text)) continue;
      if (k + 1 < e && (is(t[k + 1], "(") || is(t[k + 1], "::") || is(t[k + 1], "<"))) continue;
      if (k > b && (is(t[k - 1], ".") || is(t[k - 1], "->") || is(t[k - 1], "::"))) continue;
      if (scalar(t[k].text) && !alias.count(t[k].text)) continue;  // an index or a count (a shared address held in an
                                                                   // integer, `unsigned a = smem_u32(tile[s])`, has an alias)
      const bool address_of = k > b && is(t[k - 1], "&");
      const int n = indexes_after(k, nullptr);
      if (address_of || n < value_indexes(t[k].text) || (n == 0 && alias.count(t[k].text))) out.push_back(t[k].text);
    }
    return out;
  };
  std::vector<std::pair<std::size_t, std::size_t>> assigns;  // `name = <expr>`: name's token, the expression's end
  for (std::size_t i = lo; i + 2 < end; ++i) {
    if (!is_ident(t[i]) || !is(t[i + 1], "=")) continue;
    std::size_t k = i + 2;
    for (int depth = 0; k < end; ++k) {
      if (is(t[k], "(") || is(t[k], "[") || is(t[k], "{")) ++depth;
      else if (is(t[k], ")") || is(t[k], "]") || is(t[k], "}")) {
        if (--depth < 0) break;
      } else if (depth == 0 && (is(t[k], ";") || is(t[k], ","))) break;
    }
    assigns.emplace_back(i, k);
    for (const std::string& x : addresses_in(i + 2, k))
      if (x != t[i].text) alias[t[i].text].push_back(x);
  }
  // Regions of an `extern __shared__` array: a pointer declared from the array and an offset
  // (`float* scratch = reinterpret_cast<float*>(smem + OFF)`, region_expr) is a region of its own,
  // and names declared with the same array and an offset that starts at the same place
  // (offset_start: `smem + s * STAGE_BYTES` and `smem` both start at 0) are one region (the first
  // name stands for it). A name also assigned otherwise, or declared again with another offset, is
  // no region: it stands for the whole array. Only an array carved into two regions or more is
  // split; what a name derived from a region (`a_tiles + s * N`) points into is that region.
  struct region_ref {
    std::string name, array;  ///< the region's first name, its array
  };
  std::map<std::string, region_ref> region_of;
  {
    std::set<std::string> arrays = file_shared_arrays(f, file);
    for (const std::string& a : extern_shared_arrays(t, lo, end)) arrays.insert(a);
    if (!arrays.empty() && !file.constants) file.constants = compile_time_names(f);  // read only when arrays is not empty
    std::map<std::string, std::optional<std::pair<std::string, std::string>>> key_of;  // name -> (array, start); nullopt: none
    std::vector<std::string> order;  // the names in the order first assigned
    for (const auto& [i, k] : assigns) {
      if (arrays.empty()) break;
      const std::string& n = t[i].text;
      const bool declared = i > lo && ((is_ident(t[i - 1]) && !decl_keyword(t[i - 1].text)) || is(t[i - 1], "*") || is(t[i - 1], "&"));
      const bool member = i > lo && (is(t[i - 1], ".") || is(t[i - 1], "->") || is(t[i - 1], "::"));
      std::optional<std::pair<std::string, std::string>> key;
      if (declared && !member) {
        std::vector<std::string> e;
        for (std::size_t j = i + 2; j < k; ++j) e.push_back(t[j].text);
        if (const auto r = region_expr(e, arrays)) key = std::make_pair(r->first, offset_start(r->second, *file.constants, d.tparams));
      }
      const auto it = key_of.find(n);
      if (it == key_of.end()) {
        key_of[n] = key;
        order.push_back(n);
      } else if (it->second != key) {
        it->second = std::nullopt;
      }
    }
    std::map<std::pair<std::string, std::string>, std::string> first;  // (array, offset) -> its first name
    std::map<std::string, int> regions;                               // array -> how many regions
    for (const std::string& n : order)
      if (const auto& key = key_of[n]; key && !arrays.count(n) && first.emplace(*key, n).second) ++regions[key->first];
    for (const std::string& n : order)
      if (const auto& key = key_of[n]; key && !arrays.count(n) && regions[key->first] >= 2) region_of[n] = {first[*key], key->first};
  }
  // The objects a name stands for: the ends of its alias chains.
  std::map<std::string, std::set<std::string>> base_memo;
  std::function<const std::set<std::string>&(const std::string&, int)> base = [&](const std::string& n, int depth) -> const std::set<std::string>& {
    if (const auto it = base_memo.find(n); it != base_memo.end()) return it->second;
    std::set<std::string> r;
    if (const auto g = region_of.find(n); g != region_of.end()) return base_memo[n] = {g->second.name};  // a region
    const auto a = alias.find(n);
    if (a == alias.end() || depth > 16) {
      r.insert(n);
    } else {
      base_memo[n] = {n};  // cycle guard
      for (const std::string& x : a->second)
        for (const std::string& y : base(x, depth + 1)) r.insert(y);
    }
    return base_memo[n] = r;
  };
  std::set<std::string> stage_objects;
  std::string stage_label;
  for (const hit* h : copies) {
    std::vector<std::string> names;
    if (h->s.role == "call") {
      // A wrapper's destination may be any argument (tma_load(&map, &full[s], &tile[s][0], x, y)):
      // every object an argument points into counts (a barrier or a tensor map is never read as data).
      if (const std::size_t p = call_paren(t, h->tok)) names = addresses_in(p + 1, match_fwd(t, p));
    } else if (const std::string n = root_of(h->dst); !n.empty()) {
      names.push_back(n);  // `&tile[s][0]`, `smem_u32(ring[s])`, `dst`: tile, ring, dst
    }
    for (const std::string& n : names)
      for (const std::string& y : base(n, 0)) {
        stage_objects.insert(y);
        if (stage_label.empty()) stage_label = y;
      }
  }
  // A region overlaps its array; the array (written without a region's name) overlaps its regions.
  std::set<std::string> arrays_in_stage;  // the arrays that a stage region is carved out of
  for (const auto& [n, g] : region_of)
    if (stage_objects.count(g.name)) arrays_in_stage.insert(g.array);
  auto overlaps_stage = [&](const std::string& y) {
    if (stage_objects.count(y) || arrays_in_stage.count(y)) return true;
    const auto g = region_of.find(y);
    return g != region_of.end() && stage_objects.count(g->second.array) > 0;
  };
  auto stage_name = [&](const std::string& n) {
    for (const std::string& y : base(n, 0))
      if (overlaps_stage(y)) return true;
    return false;
  };
  auto mentions_stage = [&](std::size_t b, std::size_t e) {
    for (const std::string& x : addresses_in(b, e))
      if (stage_name(x)) return true;
    return false;
  };

  // Statements that are primitives (the copies, waits, ...): uses there are no reads.
  std::vector<std::pair<std::size_t, std::size_t>> prim_stmts;
  for (const hit* h : hs)
    if (h->unit == d.unit) prim_stmts.push_back(statement_around(t, h->tok, lo, end));
  auto in_prim = [&](std::size_t i) {
    return std::any_of(prim_stmts.begin(), prim_stmts.end(), [&](const auto& r) { return r.first <= i && i < r.second; });
  };
  // sizeof / alignof / decltype / static_assert operands are not evaluated.
  std::vector<std::pair<std::size_t, std::size_t>> unevaluated;
  for (std::size_t i = lo; i + 1 < end; ++i)
    if ((is(t[i], "sizeof") || is(t[i], "alignof") || is(t[i], "decltype") || is(t[i], "static_assert")) && is(t[i + 1], "("))
      unevaluated.emplace_back(i, match_fwd(t, i + 1));
  auto in_unevaluated = [&](std::size_t i) {
    return std::any_of(unevaluated.begin(), unevaluated.end(), [&](const auto& r) { return r.first <= i && i <= r.second; });
  };
  // A store, or a shift / increment that writes the element back: not a pure read.
  auto writes = [&](std::size_t k) { return k < end && (is_store_op(t[k]) || is(t[k], "<<=") || is(t[k], ">>=") || is(t[k], "++") || is(t[k], "--")); };
  static const std::set<std::string> unary_before = {"=", "(", ",", "return", "{", ";", "+", "-", "*", "/", "+=", "-=", "*=",
                                                     "/=", "?", ":", "<<", ">>", "&&", "||", "!", "[", "<", ">", "==", "!="};

  // Lambdas of this function that read through a pointer or array parameter, or hold an ld.shared /
  // ldmatrix asm, or call a reading function (`auto consume = [&](const float* p) { ... p[i] ... };`):
  // a call of one with the stage is a read, as a named helper's is. The same test makes a lambda
  // written inline as a call argument a reading one.
  std::set<std::string> lambda_loaders;
  auto lambda_reads = [&](const lambda_span& l) {
    bool r = (l.params_open && reads_through_params(t, l.params_open, l.params_close, l.body_open + 1, l.body_close)) ||
             holds_generic_shared_load(f, t, l.body_open + 1, l.body_close);
    for (std::size_t k = l.body_open + 1; k < l.body_close && !r; ++k)
      r = is_ident(t[k]) && call_paren(t, k) && (is_loader(t[k].text) || lambda_loaders.count(t[k].text));
    return r;
  };
  struct named_lambda {
    std::string name;
    lambda_span span;
  };
  std::vector<named_lambda> named_lambdas;  // `name = [...](...) {...}`, in the order written
  for (std::size_t i = lo; i + 3 < end; ++i) {
    if (!is_ident(t[i]) || !is(t[i + 1], "=")) continue;
    const auto l = lambda_at(t, i + 2, end);
    if (!l) continue;
    named_lambdas.push_back({t[i].text, *l});
    if (lambda_reads(*l)) lambda_loaders.insert(t[i].text);
  }
  // A call with a lambda argument that reads (above) and another argument that points into the
  // stage (`with_stage(&buf[s][0], [&](const float* p) { ... p[i] ... })`): the call reads the
  // stage. `lambda_arg`: the call has a lambda argument (its body is scanned in place).
  auto reads_by_lambda_argument = [&](std::size_t open, bool* lambda_arg) {
    const auto args = arg_ranges(t, open);
    std::vector<bool> is_lambda(args.size(), false);
    bool reading = false;
    for (std::size_t n = 0; n < args.size(); ++n)
      if (const auto l = lambda_at(t, args[n].first, args[n].second); l && l->body_close + 1 == args[n].second) {
        is_lambda[n] = *lambda_arg = true;
        reading = reading || lambda_reads(*l);
      }
    for (std::size_t n = 0; n < args.size() && reading; ++n)
      if (!is_lambda[n] && mentions_stage(args[n].first, args[n].second)) return true;
    return false;
  };

  std::vector<std::pair<std::size_t, int>> reads;  // (token, line)
  std::vector<std::size_t> cta_barriers;
  for (std::size_t i = lo; i < end; ++i) {
    if (is_asm_keyword(t[i])) {
      const asm_parts a = read_asm(f, t, i);
      if (!a.close) continue;
      if (a.tmpl.find("bar.sync") != std::string::npos || a.tmpl.find("barrier.sync") != std::string::npos ||
          a.tmpl.find("barrier.cta.sync") != std::string::npos)
        cta_barriers.push_back(i);
      if (generic_shared_load(a.tmpl) && mentions_stage(i, a.close)) reads.emplace_back(i, t[i].line);
      i = a.close;
      continue;
    }
    if (is(t[i], "__syncthreads") || is(t[i], "__syncthreads_count") || is(t[i], "__syncthreads_and") || is(t[i], "__syncthreads_or")) {
      cta_barriers.push_back(i);
      continue;
    }
    if (in_prim(i) || in_unevaluated(i)) continue;
    if (is_ident(t[i]) && !keywords().count(t[i].text))
      if (const std::size_t p = call_paren(t, i)) {
        const std::size_t close = match_fwd(t, p);
        // A call that hands the stage to a reading lambda argument.
        bool lambda_arg = false;
        if (reads_by_lambda_argument(p, &lambda_arg)) reads.emplace_back(i, t[i].line);
        // A call of a function that loads shared memory through the generic proxy (ldmatrix4(...)).
        const bool member = i > lo && (is(t[i - 1], ".") || is(t[i - 1], "->"));
        if (!member && (is_loader(t[i].text) || lambda_loaders.count(t[i].text))) {
          if (mentions_stage(p + 1, close)) reads.emplace_back(i, t[i].line);
          if (!lambda_arg) {  // a lambda argument's body is read on: what it captures, it reads in place
            i = close;
            continue;
          }
        }
      }
    // A dereference: *(p + i), *reinterpret_cast<const float4*>(&buf[s][4 * i]), *p.
    if (is(t[i], "*") && i > lo && unary_before.count(t[i - 1].text) && i + 1 < end) {
      std::size_t b = i + 1, e = b;
      if (is(t[b], "(")) e = match_fwd(t, b);
      else if (is(t[b], "reinterpret_cast") || is(t[b], "static_cast") || is(t[b], "const_cast")) {
        const std::size_t p = b + 1 < end && is(t[b + 1], "<") ? skip_angles(t, b + 1) : b + 1;
        e = p < end && is(t[p], "(") ? match_fwd(t, p) : p;
      } else if (is_ident(t[b])) {
        e = b;
      }
      if (e < end && !(e + 1 < end && writes(e + 1) && !is(t[e + 1], "++") && !is(t[e + 1], "--"))) {
        bool stage = false;
        if (b == e) stage = stage_name(t[b].text) && indexes_after(b, nullptr) == 0;
        else stage = mentions_stage(b, e + 1);
        if (stage) reads.emplace_back(i, t[i].line);
      }
      continue;
    }
    // A cast's result indexed: reinterpret_cast<const float4*>(&buf[s][0])[i], ((T*)p)[i].
    if (is(t[i], ")") && i + 1 < end && is(t[i + 1], "[")) {
      const std::size_t open = match_back(t, i);
      if (open != SIZE_MAX && open >= lo && mentions_stage(open + 1, i) && !writes(match_fwd(t, i + 1) + 1))
        reads.emplace_back(i, t[i].line);
      continue;
    }
    if (!is_ident(t[i]) || !stage_name(t[i].text)) continue;
    if (i > lo && (is(t[i - 1], ".") || is(t[i - 1], "->") || is(t[i - 1], "::") || is(t[i - 1], "&"))) continue;
    if (i > lo && is_ident(t[i - 1]) && !is(t[i - 1], "return")) continue;  // its declaration
    std::size_t next = 0;
    const int n = indexes_after(i, &next);
    if (n == 0 || n < value_indexes(t[i].text)) continue;  // an address, not an element
    if (writes(next)) continue;  // a store (generic-store-before-bulk-copy's business)
    reads.emplace_back(i, t[i].line);
  }
  if (reads.empty()) return std::nullopt;
  std::sort(reads.begin(), reads.end());

  // Releases: mbarrier arrivals (PTX, cuda::ptx, cuda::barrier) and calls of wrappers of them;
  // fences: fence.proxy.async and calls of wrappers holding one (a release helper that fences,
  // then arrives, is fenced: its fence is at the arrival's own position). Member calls of such
  // wrappers count at the call; what a named lambda's body holds counts at each use of its name.
  struct event {
    std::size_t tok;
    int line;
    std::string construct;
    bool arrive, fence;
  };
  auto arrives = [](const std::string& idiom, const std::vector<std::string>& roles) {
    auto has = [&](const char* r) { return std::find(roles.begin(), roles.end(), r) != roles.end(); };
    return has("arrive") && idiom != "asm-cp-async" && idiom != "pipeline-primitives" && !has("copy");
  };
  std::vector<event> events;
  std::set<std::size_t> primitive_toks;
  for (const hit* h : hs) {
    if (h->unit != d.unit) continue;
    primitive_toks.insert(h->tok);
    const bool fence = has_role(h, "fence"), arrive = arrives(h->s.idiom, roles_of(h));
    if (fence || arrive) events.push_back({h->tok, h->s.line, h->s.construct, arrive, fence});
  }
  for (std::size_t i = lo + 1; i < end; ++i) {  // obj.release(s), rings[b].release(s), p->release(s)
    if (!is_ident(t[i]) || !(is(t[i - 1], ".") || is(t[i - 1], "->")) || !call_paren(t, i) || primitive_toks.count(i)) continue;
    const wrapper* w = member_wrapper(t[i].text);
    if (!w) continue;
    const bool fence = std::find(w->roles.begin(), w->roles.end(), "fence") != w->roles.end();
    const bool arrive = arrives(w->idioms.empty() ? "" : w->idioms.front(), w->roles);
    if (!fence && !arrive) continue;
    std::size_t ob = i - 1;  // the object expression's first token
    while (ob > lo) {
      const token& k = t[ob - 1];
      if (is(k, "]") || is(k, ")")) {
        const std::size_t m = match_back(t, ob - 1);
        if (m == SIZE_MAX || m <= lo) break;
        ob = m;
      } else if (is_ident(k) || is(k, ".") || is(k, "->") || is(k, "::")) {
        --ob;
      } else {
        break;
      }
    }
    std::string obj, roles;
    for (std::size_t k = ob; k < i; ++k) obj += t[k].text;
    for (const auto& r : w->roles) roles += (roles.empty() ? "" : ", ") + r;
    events.push_back({i, t[i].line, obj + t[i].text + "() wraps " + roles, arrive, fence});
  }
  auto in_body = [](const named_lambda& l, std::size_t k) { return l.span.body_open < k && k < l.span.body_close; };
  auto in_named_lambda = [&](std::size_t k) {
    return std::any_of(named_lambdas.begin(), named_lambdas.end(), [&](const named_lambda& l) { return in_body(l, k); });
  };
  {
    // What each named lambda holds (in the order written: a lambda calls those declared before it),
    // then each use of its name outside the named lambdas' bodies stands for it.
    std::vector<event> held(named_lambdas.size(), event{0, 0, "", false, false});
    auto absorb = [](event& into, const event& e) {  // into holds e too; its construct: the first arrival's
      if (e.arrive && !into.arrive) into.construct = e.construct;
      into.arrive = into.arrive || e.arrive;
      into.fence = into.fence || e.fence;
    };
    for (std::size_t n = 0; n < named_lambdas.size(); ++n) {
      const named_lambda& l = named_lambdas[n];
      for (const event& e : events)
        if (in_body(l, e.tok)) absorb(held[n], e);
      for (std::size_t m = 0; m < n; ++m)
        for (std::size_t k = l.span.body_open + 1; k < l.span.body_close; ++k)
          if (is(t[k], named_lambdas[m].name) && !(is(t[k - 1], ".") || is(t[k - 1], "->") || is(t[k - 1], "::")))
            absorb(held[n], held[m]);
    }
    events.erase(std::remove_if(events.begin(), events.end(), [&](const event& e) { return in_named_lambda(e.tok); }), events.end());
    for (std::size_t n = 0; n < named_lambdas.size(); ++n) {
      if (!held[n].arrive && !held[n].fence) continue;
      const named_lambda& l = named_lambdas[n];
      for (std::size_t k = l.span.body_close + 1; k < end; ++k)
        if (is_ident(t[k]) && t[k].text == l.name && !(is(t[k - 1], ".") || is(t[k - 1], "->") || is(t[k - 1], "::")) &&
            !(k + 1 < end && is(t[k + 1], "=")) && !in_named_lambda(k))
          events.push_back({k, t[k].line, l.name + "() (a lambda holding " + (held[n].arrive ? held[n].construct : "a fence") + ")",
                            held[n].arrive, held[n].fence});
    }
  }
  struct release_point {
    std::size_t tok;
    int line;
    std::string construct;
  };
  std::vector<release_point> arrivals;
  std::vector<std::size_t> fences;
  for (const event& e : events) {
    if (e.fence) fences.push_back(e.tok);
    if (e.arrive) arrivals.push_back({e.tok, e.line, e.construct});
  }
  std::sort(arrivals.begin(), arrivals.end(), [](const release_point& a, const release_point& b) { return a.tok < b.tok; });
  auto hazard = [&](const std::pair<std::size_t, int>& read, const release_point& a, const char* when) {
    return std::make_pair(a.line, "`" + stage_label + "` is filled by a bulk copy, read through the generic proxy (line " +
                                       std::to_string(read.second) + ") and released" + when + " by the mbarrier arrival " +
                                       a.construct +
                                         " with no fence.proxy.async between: the mbarrier orders the generic proxy only, so the "
                                         "next bulk refill may overwrite the stage under the reads");
  };
  for (const release_point& a : arrivals) {
    const std::pair<std::size_t, int>* last = nullptr;
    for (const auto& r : reads)
      if (r.first < a.tok) last = &r;
    if (!last) continue;
    auto between = [&](const std::vector<std::size_t>& v) {
      return std::any_of(v.begin(), v.end(), [&](std::size_t x) { return last->first < x && x <= a.tok; });
    };
    if (between(fences) || between(cta_barriers)) continue;
    return hazard(*last, a, "");
  }
  // Loop-carried: the release at the top of the next iteration (`if (k > 0) arrive(&empty[prev])`,
  // then wait, then read). An arrival in a loop body is that release when the body reads the stage
  // after it and makes no other arrival after its last read; the path from that read runs to the
  // end of the body and from the body's start to the arrival.
  for (const release_point& a : arrivals) {
    const std::pair<std::size_t, std::size_t>* body = nullptr;  // the innermost loop holding the arrival
    for (const auto& r : loops)
      if (r.first < a.tok && a.tok <= r.second && (!body || r.first > body->first)) body = &r;
    if (!body) continue;
    const std::pair<std::size_t, int>* last = nullptr;
    for (const auto& r : reads)
      if (a.tok < r.first && r.first <= body->second) last = &r;
    if (!last) continue;
    const bool released_after = std::any_of(arrivals.begin(), arrivals.end(), [&](const release_point& b) {
      return last->first < b.tok && b.tok <= body->second;
    });
    if (released_after) continue;  // that arrival is the release (checked above)
    auto on_path = [&](const std::vector<std::size_t>& v) {
      return std::any_of(v.begin(), v.end(), [&](std::size_t x) {
        return (last->first < x && x <= body->second) || (body->first <= x && x <= a.tok);
      });
    };
    if (on_path(fences) || on_path(cta_barriers)) continue;
    return hazard(*last, a, " on the loop's next iteration");
  }
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& idiom_names() {
  static const std::vector<std::string> v = {"asm-cp-async", "asm-tma",           "pipeline-primitives", "cuda-pipeline",
                                             "cuda-barrier", "cuda-tma",          "cooperative-groups",  "cutlass"};
  return v;
}

/// generic-wmma-load-of-shared in t[lo, hi) (a function's body): an operand load,
/// nvcuda::wmma::load_matrix_sync(frag, p, ldm) with three arguments (not porter's; the accumulator
/// form has a fourth, the layout, and nvcc does give it .shared where it sees the array), whose
/// pointer argument names shared memory: a `__shared__`
/// array (`file_shared`: the file's `extern __shared__` arrays; the body's own, extern or not), or a
/// name declared or assigned from an expression that names one, to a fixpoint
/// (`const T* tile_ptr = &shmem[i][k]`, then `p = tile_ptr + 16`). Returns (line, call, pointer
/// argument, the shared array it comes from) per such call.
std::vector<std::tuple<int, std::string, std::string, std::string>> generic_wmma_accesses(const toks& t, std::size_t lo, std::size_t hi,
                                                                                        const std::set<std::string>& file_shared) {
  std::vector<std::tuple<int, std::string, std::string, std::string>> out;
  hi = std::min(hi, t.size());
  bool any_call = false;
  for (std::size_t i = lo; i < hi && !any_call; ++i) any_call = is(t[i], "load_matrix_sync");
  if (!any_call) return out;
  std::map<std::string, std::string> from;  // a name that points into shared memory -> its array
  for (const std::string& a : file_shared) from[a] = a;
  for (std::size_t i = lo; i < hi; ++i) {  // the body's own __shared__ arrays (extern or not)
    if (!is(t[i], "__shared__")) continue;
    for (std::size_t k = i + 1; k < hi && !is(t[k], ";") && !is(t[k], "{") && !is(t[k], "}") && !is(t[k], "="); ++k) {
      if (is(t[k], "(")) k = match_fwd(t, k);
      else if (is(t[k], "[")) {
        if (is_ident(t[k - 1])) from[t[k - 1].text] = t[k - 1].text;
        break;
      }
    }
  }
  for (bool grew = true; grew;) {  // names declared or assigned from a shared name
    grew = false;
    for (std::size_t i = lo + 1; i + 1 < hi; ++i) {
      if (!is_ident(t[i]) || !is(t[i + 1], "=") || from.count(t[i].text)) continue;
      if (is(t[i - 1], ".") || is(t[i - 1], "->") || is(t[i - 1], "::")) continue;
      // The initializer or right-hand side, to its `;` or a `,` outside brackets; names inside
      // brackets count (`&shmem[i][k]`, `reinterpret_cast<float*>(smem + off)`), members do not.
      int depth = 0;
      for (std::size_t k = i + 2; k < hi; ++k) {
        if (is(t[k], "(") || is(t[k], "[") || is(t[k], "{")) ++depth;
        else if (is(t[k], ")") || is(t[k], "]") || is(t[k], "}")) {
          if (--depth < 0) break;
        } else if (is(t[k], ";") || (depth == 0 && is(t[k], ","))) break;
        else if (is_ident(t[k]) && from.count(t[k].text) && !is(t[k - 1], ".") && !is(t[k - 1], "->")) {
          from[t[i].text] = from[t[k].text];
          grew = true;
          break;
        }
      }
    }
  }
  for (std::size_t i = lo; i + 1 < hi; ++i) {
    if (!is(t[i], "load_matrix_sync") || !is(t[i + 1], "(")) continue;
    if (i >= 2 && is(t[i - 1], "::") && is(t[i - 2], "porter")) continue;  // porter's: the shared state space
    const auto args = args_at(t, i + 1);
    const std::size_t a = 1;
    if (args.size() != 3) continue;  // an accumulator load (four arguments) is not reported
    for (std::size_t j = 0; j < args[a].size(); ++j) {
      const std::string& x = args[a][j];
      if (!from.count(x) || (j > 0 && (args[a][j - 1] == "." || args[a][j - 1] == "->"))) continue;
      std::string call = t[i].text;
      if (i >= 2 && is(t[i - 1], "::")) call = t[i - 2].text + "::" + call;
      out.emplace_back(t[i].line, call, join(args[a]), from.at(x));
      break;
    }
  }
  return out;
}

const std::vector<std::string>& hazard_names() {
  static const std::vector<std::string> v = {"parity-from-loop-counter", "wait-count-mismatch", "generic-store-before-bulk-copy",
                                             "generic-read-before-bulk-refill", "untyped-memcpy-async",
                                             "generic-wmma-load-of-shared"};
  return v;
}

report scan(const std::vector<source_file>& files) {
  report rep;
  std::vector<file_ctx> ctx(files.size());
  for (std::size_t n = 0; n < files.size(); ++n) {
    file_ctx& f = ctx[n];
    f.path = files[n].path;
    rep.files.push_back(f.path);
    f.lx = lex(files[n].text);
    for (const auto& dg : f.lx.diagnostics) rep.warnings.push_back(f.path + ":" + std::to_string(dg.line) + ": " + dg.message);
    unit code;
    for (const token& k : f.lx.tokens)
      if (k.directive < 0) code.t.push_back(k);
    f.units.push_back(std::move(code));
    find_functions(f, 0);
    read_directives(f);
    read_variables(f);
    for (int ui = 0; ui < int(f.units.size()); ++ui) scan_unit(f, ui);
    scan_barrier_members(f);
  }

  // ---- visibility: a file sees its own wrappers and those of the scanned files it includes
  auto norm = [](std::string p) {
    std::replace(p.begin(), p.end(), '\\', '/');
    return p;
  };
  std::vector<std::set<std::size_t>> sees(ctx.size());
  for (std::size_t a = 0; a < ctx.size(); ++a) {
    std::vector<std::size_t> todo{a};
    sees[a].insert(a);
    while (!todo.empty()) {
      const std::size_t x = todo.back();
      todo.pop_back();
      for (const std::string& inc : ctx[x].includes) {
        const std::string want = norm(inc);
        for (std::size_t b = 0; b < ctx.size(); ++b) {
          const std::string p = norm(ctx[b].path);
          const bool match = p == want || (p.size() > want.size() && p.compare(p.size() - want.size(), want.size(), want) == 0 &&
                                            p[p.size() - want.size() - 1] == '/');
          if (match && sees[a].insert(b).second) todo.push_back(b);
        }
      }
    }
  }

  // ---- wrappers, to a fixed point
  struct wkey {
    std::size_t file;
    int fn;
  };
  std::map<std::pair<std::size_t, int>, wrapper> wraps;  // (file, fn) -> wrapper
  auto can_wrap = [&](std::size_t fi, int fn) {
    const fn_def& d = ctx[fi].fns[std::size_t(fn)];
    return !d.global && (d.macro || !d.name.empty());
  };
  auto note = [](std::vector<std::string>& v, const std::string& x) {
    if (!x.empty() && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  };
  for (std::size_t fi = 0; fi < ctx.size(); ++fi)
    for (const hit& h : ctx[fi].hits)
      if (can_wrap(fi, h.fn)) {
        wrapper& w = wraps[{fi, h.fn}];
        const fn_def& d = ctx[fi].fns[std::size_t(h.fn)];
        w.file = ctx[fi].path, w.line = d.line, w.name = d.name, w.macro = d.macro;
        note(w.idioms, h.s.idiom);
        note(w.roles, h.s.role);
      }
  // Calls of wrappers: a name (not a member, not a definition) followed by `(`, or a macro name.
  std::set<std::tuple<std::size_t, int, std::size_t>> primitive_at;  // (file, unit, token) of every primitive
  for (std::size_t fi = 0; fi < ctx.size(); ++fi)
    for (const hit& h : ctx[fi].hits) primitive_at.insert({fi, h.unit, h.tok});
  std::vector<hit> calls_found;
  for (bool changed = true; changed;) {
    changed = false;
    calls_found.clear();
    std::map<std::string, std::vector<std::pair<std::size_t, int>>> by_name;
    for (const auto& [key, w] : wraps) {
      // porter's own API (namespace porter) is what a port is written in: calling it is no site.
      const std::string& ns = ctx[key.first].fns[std::size_t(key.second)].ns;
      if (ns == "porter" || ns.rfind("porter::", 0) == 0) continue;
      by_name[w.name].push_back(key);
    }
    for (std::size_t fi = 0; fi < ctx.size(); ++fi) {
      file_ctx& f = ctx[fi];
      for (int ui = 0; ui < int(f.units.size()); ++ui) {
        const unit& u = f.units[std::size_t(ui)];
        const toks& t = u.t;
        for (std::size_t i = 0; i < t.size(); ++i) {
          if (!is_ident(t[i]) || u.def_names.count(i) || u.owner[i] < 0 || primitive_at.count({fi, ui, i})) continue;
          if (i > 0 && (is(t[i - 1], ".") || is(t[i - 1], "->"))) continue;
          auto it = by_name.find(t[i].text);
          if (it == by_name.end()) continue;
          const wrapper* w = nullptr;
          std::pair<std::size_t, int> wk{};
          for (const auto& key : it->second)
            if (sees[fi].count(key.first)) {
              const fn_def& wd = ctx[key.first].fns[std::size_t(key.second)];
              // A member function is called unqualified only from its class's own members (or as
              // `C::name(...)`); elsewhere the name is another function's or a lambda's.
              const fn_def& caller = f.fns[std::size_t(u.owner[i])];
              if (wd.member && !(caller.member && caller.cls == wd.cls) && !(i >= 2 && is(t[i - 1], "::") && t[i - 2].text == wd.cls))
                continue;
              if (!(key.first == fi && key.second == u.owner[i])) {  // not a recursive use inside itself
                const std::size_t p = call_paren(t, i);
                if (wd.macro || p) {
                  w = &wraps.at(key);
                  wk = key;
                  break;
                }
              }
            }
          if (!w) continue;
          hit h;
          h.fn = u.owner[i];
          h.unit = ui;
          h.tok = i;
          std::size_t qb = i;
          (void)qualified(f, t, i, qb);
          h.s.file = f.path;
          h.s.line = t[qb].line;
          h.s.column = t[qb].column;
          h.s.idiom = w->idioms.empty() ? "" : w->idioms.front();
          h.s.role = "call";
          h.s.construct = t[i].text + (w->macro ? " (macro)" : "()");
          h.s.function = f.fns[std::size_t(h.fn)].name;
          h.s.via = w->name;
          h.s.via_at = w->file + ":" + std::to_string(w->line);
          if (const std::size_t p = call_paren(t, i)) h.args = args_at(t, p);
          if (!h.args.empty()) h.dst = h.args[0];
          {
            std::string roles;
            for (const auto& r : w->roles) roles += (roles.empty() ? "" : ", ") + r;
            h.s.completion = completion_of(h.s.idiom, w->roles.empty() ? "" : w->roles.front());
            const bool copies = std::any_of(w->roles.begin(), w->roles.end(), [](const std::string& r) {
              return r == "copy" || r == "bulk-copy" || r == "tensor-copy";
            });
            const bool waits = std::any_of(w->roles.begin(), w->roles.end(), [](const std::string& r) {
              return r == "wait" || r == "wait-parity";
            });
            const bool loop = waits && std::any_of(w->roles.begin(), w->roles.end(), [](const std::string& r) {
              return r == "commit" || r == "call";
            });
            h.s.porter = loop ? "porter::run_pipeline(pipe, steps, issue, body) (or porter::for_each_tile): the whole multistage loop"
                              : porter_for(copies ? "copy" : w->roles.empty() ? "" : w->roles.front());
            h.s.construct += " wraps " + roles;
          }
          calls_found.push_back(h);
          if (can_wrap(fi, h.fn) && !wraps.count({fi, h.fn})) {
            wrapper nw;
            const fn_def& d = f.fns[std::size_t(h.fn)];
            nw.file = f.path, nw.line = d.line, nw.name = d.name, nw.macro = d.macro;
            for (const auto& x : w->idioms) note(nw.idioms, x);
            note(nw.roles, "call");
            for (const auto& x : w->roles) note(nw.roles, x);
            wraps[{fi, h.fn}] = nw;
            changed = true;
          } else if (can_wrap(fi, h.fn)) {
            wrapper& ow = wraps.at({fi, h.fn});
            const std::size_t before = ow.idioms.size() + ow.roles.size();
            for (const auto& x : w->idioms) note(ow.idioms, x);
            note(ow.roles, "call");
            for (const auto& x : w->roles) note(ow.roles, x);
            if (ow.idioms.size() + ow.roles.size() != before) changed = true;
          }
        }
      }
    }
  }
  for (hit& c : calls_found)
    for (file_ctx& f : ctx)
      if (f.path == c.s.file) {
        f.hits.push_back(c);
        break;
      }

  // ---- functions and macros that read shared memory through the generic proxy (an asm ld.shared
  // or ldmatrix, or a call of such a function), by name per file, to a fixed point
  // Plain C++ helpers count too: a function that reads an element through one of its pointer or
  // array parameters (`p[i]` not assigned to, `*p`, `*(p + i)`), as `consume(&buf[s][0])` does.
  std::vector<std::set<std::string>> loaders(ctx.size());
  for (std::size_t fi = 0; fi < ctx.size(); ++fi)
    for (const fn_def& d : ctx[fi].fns) {
      if (d.global || d.name.empty()) continue;
      const toks& t = ctx[fi].units[std::size_t(d.unit)].t;
      const std::size_t end = std::min(d.end, t.size());
      bool reads = holds_generic_shared_load(ctx[fi], t, d.begin, end);
      if (!reads && !d.macro && d.begin >= 2) {
        // The parameter list: the last `)` before the body's `{`.
        std::size_t close = d.begin - 1;
        while (close > 0 && !is(t[close], ")")) --close;
        const std::size_t open = match_back(t, close);
        if (open != SIZE_MAX) reads = reads_through_params(t, open, close, d.begin, end);
      }
      if (reads) loaders[fi].insert(d.name);
    }
  auto loader_visible = [&](std::size_t fi, const std::string& name) {
    return std::any_of(sees[fi].begin(), sees[fi].end(), [&](std::size_t b) { return loaders[b].count(name) > 0; });
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t fi = 0; fi < ctx.size(); ++fi)
      for (const fn_def& d : ctx[fi].fns) {
        if (d.global || d.name.empty() || loaders[fi].count(d.name)) continue;
        const toks& t = ctx[fi].units[std::size_t(d.unit)].t;
        for (std::size_t i = d.begin; i < std::min(d.end, t.size()); ++i)
          if (is_ident(t[i]) && t[i].text != d.name && call_paren(t, i) && loader_visible(fi, t[i].text)) {
            loaders[fi].insert(d.name);
            changed = true;
            break;
          }
      }
  }

  // ---- sites, wrapped primitives and hazards, per function
  // The wrapper a call in file fi names (the last visible one of that name), or nullptr.
  auto wrapper_named = [&](std::size_t fi, const std::string& name) {
    const wrapper* w = nullptr;
    for (const auto& [key, ww] : wraps)
      if (ww.name == name && sees[fi].count(key.first)) w = &ww;
    return w;
  };
  // The wrapper a member call `obj.name(...)` in file fi names: a visible member function of a
  // hand-written type (not porter's) that holds primitives, by its name; nullptr when none.
  auto member_wrapper_named = [&](std::size_t fi, const std::string& name) {
    const wrapper* w = nullptr;
    for (const auto& [key, ww] : wraps) {
      const fn_def& d = ctx[key.first].fns[std::size_t(key.second)];
      if (ww.name == name && d.member && sees[fi].count(key.first) && d.ns != "porter" && d.ns.rfind("porter::", 0) != 0) w = &ww;
    }
    return w;
  };
  for (std::size_t fi = 0; fi < ctx.size(); ++fi) {
    file_ctx& f = ctx[fi];
    file_facts facts;  // proxy_read_hazard's, once per file
    std::map<int, std::vector<const hit*>> per_fn;
    for (const hit& h : f.hits) per_fn[h.fn].push_back(&h);
    for (auto& [fn, hs] : per_fn) {
      const fn_facts x = facts_of(f, fn, hs);
      const bool wrapped = wraps.count({fi, fn}) > 0;
      const std::string where = f.fns[std::size_t(fn)].name;
      auto hazard_at = [&](int line, std::string id, std::string msg, std::string fix) {
        rep.hazards.push_back({f.path, line, std::move(id), where, std::move(msg), std::move(fix)});
      };
      bool fenced = false;
      for (const hit* h : hs) {
        if (h->s.role == "fence") fenced = true;
        if (h->s.role == "call") {
          const wrapper* w = wrapper_named(fi, h->s.via);
          if (w && std::find(w->roles.begin(), w->roles.end(), "fence") != w->roles.end()) fenced = true;
        }
      }
      {  // a member call of a wrapper that fences (ring.release_fenced(s)) fences too
        const fn_def& d = f.fns[std::size_t(fn)];
        const toks& t = f.units[std::size_t(d.unit)].t;
        for (std::size_t i = d.begin + 1; i < std::min(d.end, t.size()) && !fenced; ++i)
          if (is_ident(t[i]) && (is(t[i - 1], ".") || is(t[i - 1], "->")) && call_paren(t, i))
            if (const wrapper* w = member_wrapper_named(fi, t[i].text))
              fenced = std::find(w->roles.begin(), w->roles.end(), "fence") != w->roles.end();
      }
      std::set<std::string> bulk_roots;
      for (const hit* h : hs) {
        site s = h->s;
        s.in_wrapper = wrapped;
        s.stages = stages_text(f, x);
        // parity-from-loop-counter
        const wrapper* w = s.role == "call" ? wrapper_named(fi, s.via) : nullptr;
        auto wraps_role = [&](const char* r) { return w && std::find(w->roles.begin(), w->roles.end(), r) != w->roles.end(); };
        std::string var;
        if (s.role == "wait-parity" && mentions(h->count, x, h->tok, &var)) {
          hazard_at(s.line, "parity-from-loop-counter",
                    "the wait parity `" + join(h->count) + "` is computed from the loop counter `" + var +
                        "`: it is right only while every step waits exactly once per pass, in order",
                    "porter's consumer_wait() returns a token that carries the stage and its phase; no parity is written");
        } else if (s.role == "call" && wraps_role("wait-parity") && h->args.size() > 1) {
          for (std::size_t a = 1; a < h->args.size(); ++a)
            if (mentions(h->args[a], x, h->tok, &var)) {
              hazard_at(s.line, "parity-from-loop-counter",
                        "the parity argument `" + join(h->args[a]) + "` of " + s.via + " (a wait on an mbarrier phase) is computed from the loop counter `" +
                            var + "`",
                        "porter's consumer_wait() returns a token that carries the stage and its phase; no parity is written");
              break;
            }
        }
        // wait-count-mismatch
        if (s.role == "wait" && !h->count.empty() && !x.stages.empty()) {
          const auto wv = const_value(h->count, f.constants);
          const auto sv = const_value({x.stages}, f.constants);
          const auto ws = symbolic(h->count);
          std::string why;
          if (wv && sv && *wv >= *sv && *wv > 0)
            why = "waits until at most " + std::to_string(*wv) + " groups are pending, but the ring has " + std::to_string(*sv) +
                  " stages: the oldest stage is never waited for";
          else if (wv && !sv && *wv > 0)
            why = "is the constant " + std::to_string(*wv) + " while the stage count is " + x.stages +
                  ": it matches one value of " + x.stages + " only";
          else if (!wv && ws && ws->first == x.stages && ws->second >= 0)
            why = "is `" + join(h->count) + "`: with " + x.stages + " stages at least " + x.stages +
                  " groups may stay pending, so the oldest stage is never waited for";
          else if (!wv && ws && !sv && ws->first != x.stages && !stage_like(ws->first) && !f.constants.count(ws->first) &&
                   std::find(f.fns[std::size_t(fn)].tparams.begin(), f.fns[std::size_t(fn)].tparams.end(), ws->first) ==
                       f.fns[std::size_t(fn)].tparams.end())
            why.clear();
          if (!why.empty())
            hazard_at(s.line, "wait-count-mismatch", "the wait count of " + s.construct + " " + why,
                      "porter's consumer_wait() waits for exactly the oldest stage; the count follows the pipeline's stages");
        }
        // untyped-memcpy-async
        if ((s.construct == "cuda::memcpy_async" || s.construct == "cooperative_groups::memcpy_async") &&
            s.alignment.rfind("none:", 0) == 0)
          hazard_at(s.line, "untyped-memcpy-async",
                    s.construct + " on a void*/char* buffer with a plain size (" + s.bytes +
                        "): no cuda::aligned_size_t, so CCCL copies byte by byte (no cp.async)",
                    "porter's copies take the alignment from the tiled_source's layout and the box type; 16-byte chunks when both sides allow");
        // generic-store-before-bulk-copy: remember the destinations of bulk copies
        if (s.role == "bulk-copy" || s.role == "tensor-copy" || (s.role == "call" && (wraps_role("bulk-copy") || wraps_role("tensor-copy")))) {
          const std::string r = root_of(h->dst);
          if (!r.empty()) bulk_roots.insert(r);
        }
        (wrapped ? rep.wrapped : rep.sites).push_back(std::move(s));
      }
      if (!bulk_roots.empty() && !fenced) {
        const fn_def& d = f.fns[std::size_t(fn)];
        const toks& t = f.units[std::size_t(d.unit)].t;
        for (std::size_t i = d.begin; i + 1 < std::min(d.end, t.size()); ++i) {
          if (!is_ident(t[i]) || !bulk_roots.count(t[i].text) || (i > 0 && (is(t[i - 1], ".") || is(t[i - 1], "->") || is(t[i - 1], "::"))))
            continue;
          std::size_t k = i + 1;
          bool indexed = false;
          while (k < t.size() && is(t[k], "[")) {
            k = match_fwd(t, k) + 1;
            indexed = true;
          }
          if (indexed && k < t.size() && is_store_op(t[k])) {
            hazard_at(t[i].line, "generic-store-before-bulk-copy",
                      "`" + t[i].text + "` is written with generic stores and refilled by a bulk copy, and this " +
                          (d.macro ? "macro" : "function") + " has no fence.proxy.async between the two proxies",
                      "porter's tma lowering fences (fence.proxy.async) wherever its own thread stores share a stage with bulk copies");
            break;
          }
        }
      }
      // generic-read-before-bulk-refill (proxy_read_hazard, above)
      {
        auto roles_of = [&](const hit* h) -> std::vector<std::string> {
          if (h->s.role != "call") return {h->s.role};
          const wrapper* w = wrapper_named(fi, h->s.via);
          return w ? w->roles : std::vector<std::string>{};
        };
        auto is_loader = [&](const std::string& name) { return loader_visible(fi, name); };
        auto member_wrapper = [&](const std::string& name) { return member_wrapper_named(fi, name); };
        if (const auto hz = proxy_read_hazard(f, f.fns[std::size_t(fn)], hs, roles_of, is_loader, member_wrapper, facts))
          hazard_at(hz->first, "generic-read-before-bulk-refill", hz->second,
                    "porter's tma consumer_release runs fence.proxy.async.shared::cta before its EMPTY arrival (without it the H200 "
                    "computed wrong results in 20 of 20 runs of a warp-specialized GEMM)");
      }
      // generic-wmma-load-of-shared
      {
        const fn_def& d = f.fns[std::size_t(fn)];
        for (const auto& [line, call, ptr, array] : generic_wmma_accesses(f.units[std::size_t(d.unit)].t, d.begin, d.end, file_shared_arrays(f, facts)))
          hazard_at(line, "generic-wmma-load-of-shared",
                    call + " reads `" + ptr + "`, which points into the __shared__ array `" + array +
                        "`: nvcc 13 emits wmma operand loads through a generic address (LD through the LSU's local/global path; "
                        "cuda-samples' bf16TensorCoreGemm spends 29% of its warp-stall samples there)",
                    "porter::load_matrix_sync (porter/wmma.hpp) takes the same arguments and loads with the shared state space "
                    "(wmma.load .shared): the same fragment registers");
      }
    }
  }
  for (const auto& [key, w] : wraps) rep.wrappers.push_back(w);
  auto by_pos = [](const auto& a, const auto& b) { return std::tie(a.file, a.line) < std::tie(b.file, b.line); };
  auto by_site = [](const site& a, const site& b) { return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column); };
  std::stable_sort(rep.sites.begin(), rep.sites.end(), by_site);
  std::stable_sort(rep.wrapped.begin(), rep.wrapped.end(), by_site);
  std::stable_sort(rep.wrappers.begin(), rep.wrappers.end(), by_pos);
  std::stable_sort(rep.hazards.begin(), rep.hazards.end(), by_pos);
  return rep;
}

}  // namespace porter_port
