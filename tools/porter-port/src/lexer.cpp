// tools/porter-port/src/lexer.cpp — see porter_port/lexer.hpp.
#include "porter_port/lexer.hpp"

#include <algorithm>
#include <cctype>

namespace porter_port {
namespace {

/// The source after translation phase 2 (backslash-newline removed), with the physical line and
/// column of every remaining character.
struct spliced {
  std::string text;
  std::vector<int> line, column;
};

spliced splice(std::string_view s) {
  spliced out;
  out.text.reserve(s.size());
  out.line.reserve(s.size() + 1);
  out.column.reserve(s.size() + 1);
  int line = 1, col = 1;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\') {
      // A backslash followed by optional spaces and a newline is a splice (GCC accepts the spaces).
      std::size_t j = i + 1;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
      if (j < s.size() && (s[j] == '\n' || s[j] == '\r')) {
        if (s[j] == '\r' && j + 1 < s.size() && s[j + 1] == '\n') ++j;
        i = j;
        ++line;
        col = 1;
        continue;
      }
    }
    if (c == '\r') {  // CRLF and lone CR read as a newline
      if (i + 1 < s.size() && s[i + 1] == '\n') continue;
      out.text.push_back('\n');
    } else {
      out.text.push_back(c);
    }
    out.line.push_back(line);
    out.column.push_back(col);
    if (c == '\n' || c == '\r') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  out.line.push_back(line);
  out.column.push_back(col);
  return out;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || (c & 0x80); }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

bool is_encoding_prefix(std::string_view p) { return p == "u8" || p == "u" || p == "U" || p == "L"; }

/// Decode the escapes that matter for reading PTX text; everything else is kept as written.
std::string decode(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size()) {
      const char e = body[++i];
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case '"': out.push_back('"'); break;
        case '\'': out.push_back('\''); break;
        case '\\': out.push_back('\\'); break;
        default: out.push_back('\\'); out.push_back(e); break;
      }
    } else {
      out.push_back(body[i]);
    }
  }
  return out;
}

// Punctuators, longest first. `>>` and `>>=` are deliberately absent: `>` is lexed alone, so that
// template argument lists close the way the scanner expects.
constexpr const char* puncts[] = {"<=>", "...", "<<=", "->*", "::", "->", "++", "--", "<<", "<=", ">=", "==", "!=", "&&",
                                  "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*"};

}  // namespace

lexed lex(std::string_view source) {
  const spliced sp = splice(source);
  const std::string& t = sp.text;
  lexed out;
  std::size_t i = 0;
  bool line_start = true;   // only whitespace/comments so far on this logical line
  bool space = false;
  int dir = -1;             // index of the directive being lexed
  bool include_next = false;  // the previous token was `include` right after `#`
  auto push = [&](tok kind, std::size_t begin, std::size_t end, std::string value = {}) {
    token k;
    k.kind = kind;
    k.text = t.substr(begin, end - begin);
    k.value = std::move(value);
    k.line = sp.line[begin];
    k.column = sp.column[begin];
    k.space_before = space;
    k.directive = dir;
    out.tokens.push_back(std::move(k));
    space = false;
    line_start = false;
  };
  auto diag = [&](std::size_t at, std::string msg) { out.diagnostics.push_back({sp.line[at], std::move(msg)}); };
  auto end_directive = [&] {
    if (dir >= 0) out.directives[std::size_t(dir)].end = out.tokens.size();
    dir = -1;
    include_next = false;
  };

  while (i < t.size()) {
    const char c = t[i];
    if (c == '\n') {
      end_directive();
      line_start = true;
      space = true;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
      space = true;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i < t.size() && t[i] != '\n') ++i;  // a spliced `//` comment already runs on
      space = true;
      continue;
    }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      const std::size_t close = t.find("*/", i + 2);
      if (close == std::string::npos) {
        diag(i, "unterminated /* comment");
        i = t.size();
      } else {
        i = close + 2;
      }
      space = true;
      continue;
    }
    // A directive: `#` first on a logical line.
    if (c == '#' && line_start && dir < 0) {
      end_directive();
      directive d;
      d.line = sp.line[i];
      d.first = out.tokens.size();
      out.directives.push_back(d);
      dir = int(out.directives.size()) - 1;
      push(tok::punct, i, i + 1);
      ++i;
      // Its name: the next identifier on the line.
      std::size_t j = i;
      while (j < t.size() && (t[j] == ' ' || t[j] == '\t')) ++j;
      std::size_t k = j;
      while (k < t.size() && ident_char(t[k])) ++k;
      out.directives.back().name = t.substr(j, k - j);
      include_next = out.directives.back().name == "include" || out.directives.back().name == "include_next" ||
                     out.directives.back().name == "import";
      if (k > j) {
        space = j > i;
        push(tok::identifier, j, k);
        i = k;
      }
      continue;
    }
    if (include_next && (c == '<' || c == '"')) {
      const char close = c == '<' ? '>' : '"';
      std::size_t j = i + 1;
      while (j < t.size() && t[j] != close && t[j] != '\n') ++j;
      push(tok::header_name, i, std::min(j + 1, t.size()), t.substr(i + 1, j - i - 1));
      i = std::min(j + 1, t.size());
      include_next = false;
      continue;
    }
    include_next = false;
    // Identifiers, and the prefixes of string and character literals.
    if (ident_start(c)) {
      std::size_t j = i;
      while (j < t.size() && ident_char(t[j])) ++j;
      const std::string_view word(t.data() + i, j - i);
      if (j < t.size() && t[j] == '"' && !word.empty() && word.back() == 'R' &&
          (word == "R" || is_encoding_prefix(word.substr(0, word.size() - 1)))) {
        // Raw string: R"delim( ... )delim"
        const std::size_t open = t.find('(', j + 1);
        if (open == std::string::npos || open - j - 1 > 16) {
          diag(i, "malformed raw string literal");
          push(tok::identifier, i, j);
          i = j;
          continue;
        }
        const std::string delim = t.substr(j + 1, open - j - 1);
        const std::string closer = ")" + delim + "\"";
        const std::size_t close = t.find(closer, open + 1);
        if (close == std::string::npos) {
          diag(i, "unterminated raw string literal");
          push(tok::string, i, t.size(), t.substr(open + 1));
          i = t.size();
          continue;
        }
        push(tok::string, i, close + closer.size(), t.substr(open + 1, close - open - 1));
        i = close + closer.size();
        continue;
      }
      if (j < t.size() && (t[j] == '"' || t[j] == '\'') && is_encoding_prefix(word)) {
        i = j;  // fall through to the literal below, remembering where the prefix began
        const std::size_t begin = j - word.size();
        const char q = t[i];
        std::size_t k = i + 1;
        while (k < t.size() && t[k] != q && t[k] != '\n') k += (t[k] == '\\') ? 2 : 1;
        if (k >= t.size() || t[k] != q) diag(begin, "unterminated literal");
        const std::size_t end = std::min(k + 1, t.size());
        push(q == '"' ? tok::string : tok::character, begin, end, decode(std::string_view(t).substr(i + 1, std::min(k, t.size()) - i - 1)));
        i = end;
        continue;
      }
      push(tok::identifier, i, j);
      i = j;
      continue;
    }
    // pp-numbers, with digit separators.
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1])))) {
      std::size_t j = i + 1;
      while (j < t.size()) {
        const char d = t[j];
        if ((d == '+' || d == '-') && (t[j - 1] == 'e' || t[j - 1] == 'E' || t[j - 1] == 'p' || t[j - 1] == 'P')) {
          ++j;
        } else if (d == '\'' && j + 1 < t.size() && ident_char(t[j + 1])) {
          j += 2;
        } else if (ident_char(d) || d == '.') {
          ++j;
        } else {
          break;
        }
      }
      push(tok::number, i, j);
      i = j;
      continue;
    }
    if (c == '"' || c == '\'') {
      std::size_t k = i + 1;
      while (k < t.size() && t[k] != c && t[k] != '\n') k += (t[k] == '\\') ? 2 : 1;
      if (k >= t.size() || t[k] != c) diag(i, "unterminated literal");
      const std::size_t end = std::min(k + 1, t.size());
      push(c == '"' ? tok::string : tok::character, i, end, decode(std::string_view(t).substr(i + 1, std::min(k, t.size()) - i - 1)));
      i = end;
      continue;
    }
    std::size_t len = 1;
    for (const char* p : puncts) {
      const std::string_view ps(p);
      if (t.compare(i, ps.size(), ps) == 0) {
        len = ps.size();
        break;
      }
    }
    push(tok::punct, i, i + len);
    i += len;
  }
  end_directive();
  return out;
}

}  // namespace porter_port
