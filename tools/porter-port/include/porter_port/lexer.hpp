// porter_port/lexer.hpp — a C/C++/CUDA lexer for porter-port: tokens with their physical lines.
//
// What it understands (each has a test in tests/port): backslash-newline splices anywhere (also
// inside comments, strings and identifiers), `//` and `/* */` comments, string and character
// literals with escapes and encoding prefixes (u8, u, U, L), raw strings R"d(...)d" (with prefixes),
// pp-numbers with digit separators (1'000), preprocessor directives (a `#` first on a logical line:
// every token up to the end of that logical line belongs to the directive), and `#include` header
// names. It does not expand macros or evaluate `#if`: porter-port scans every branch, because a
// port must see the code of every target.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace porter_port {

/// Kind of a token.
enum class tok {
  identifier,   ///< identifiers and keywords
  number,       ///< a pp-number: 16, 0x10, 1'000, 1.5e-3f
  string,       ///< a string literal; `value` holds its contents
  character,    ///< a character literal; `value` holds its contents
  punct,        ///< an operator or punctuator; `>>` is lexed as two `>` (template closers)
  header_name,  ///< the <...> or "..." of an #include; `value` holds the path
};

/// One token. `line` and `column` are 1-based and physical (where the token starts in the file,
/// before splicing). For string and character literals `value` is the contents between the quotes
/// (raw strings: between the parentheses), with the escapes \n \t \" \' \\ decoded.
struct token {
  tok kind = tok::punct;
  std::string text;         ///< the spelling, splices removed
  std::string value;        ///< literals and header names: the contents (see above)
  int line = 0;             ///< physical line of the first character
  int column = 0;           ///< physical column of the first character
  bool space_before = false;  ///< whitespace or a comment separates it from the previous token
  int directive = -1;       ///< index into lexed::directives, or -1 outside directives
};

/// A preprocessor directive: `tokens[first, end)` are its tokens, `#` first.
struct directive {
  std::string name;          ///< define, include, if, pragma, ... ("" for a null directive)
  int line = 0;              ///< physical line of the `#`
  std::size_t first = 0;     ///< index of the `#` token
  std::size_t end = 0;       ///< one past its last token
};

/// A problem the lexer found (an unterminated comment or literal); lexing goes on after it.
struct lex_diagnostic {
  int line = 0;
  std::string message;
};

/// The tokens of one file.
struct lexed {
  std::vector<token> tokens;
  std::vector<directive> directives;
  std::vector<lex_diagnostic> diagnostics;
};

/// Lex `source` (the whole file). Never throws on malformed input; see lexed::diagnostics.
lexed lex(std::string_view source);

}  // namespace porter_port
