// Scene text check before toml++: a small scanner of TOML's string and comment syntax.
#include "compute/core/toml_guard.hpp"

#include "compute/core/error.hpp"

namespace tomo {

void check_toml_text(std::string_view text, const std::string& source) {
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } in = In::Code;
  int line = 1, column = 0;
  auto starts = [&](std::size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      if (in == In::Comment || in == In::Basic || in == In::Literal) in = In::Code;  // the parser reports those
      continue;
    }
    switch (in) {
      case In::Code:
        if (static_cast<unsigned char>(c) >= 0x80)
          throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(column) +
                           ": malformed scene: a character outside ASCII may only stand in a string or a comment");
        if (c == '#') in = In::Comment;
        else if (starts(i, "\"\"\"")) in = In::MultiBasic, i += 2, column += 2;
        else if (starts(i, "'''")) in = In::MultiLiteral, i += 2, column += 2;
        else if (c == '"') in = In::Basic;
        else if (c == '\'') in = In::Literal;
        break;
      case In::Comment: break;
      case In::Basic:
        if (c == '\\') ++i, ++column;  // the escaped character cannot end the string
        else if (c == '"') in = In::Code;
        break;
      case In::Literal:
        if (c == '\'') in = In::Code;
        break;
      case In::MultiBasic:
        if (c == '\\') ++i, ++column;
        else if (starts(i, "\"\"\"")) in = In::Code, i += 2, column += 2;
        break;
      case In::MultiLiteral:
        if (starts(i, "'''")) in = In::Code, i += 2, column += 2;
        break;
    }
  }
}

}  // namespace tomo
