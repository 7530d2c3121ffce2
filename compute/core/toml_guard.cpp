// Scene text check before toml++: a small scanner of TOML's string and comment syntax.
#include "compute/core/toml_guard.hpp"

#include "compute/core/error.hpp"

namespace tomo {

void check_toml_text(std::string_view text, const std::string& source) {
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } in = In::Code;
  int line = 1, column = 0;
  // A quote opens a string only where TOML has a key or a value: a key at the start of a line,
  // after [ { , or a dot between keys; a value after = [ ,.
  char before = '\n';  // the last character of code on this line other than a space or tab
  bool value = false;   // after a key's '=' (until the line or the inline table's entry ends)
  // A bare value (number, date, boolean or a malformed one) is scanned by toml++ to the next
  // space, tab, , ] } # or line end, quotes and brackets included (`88[[["x`, `8="x`).
  bool token = false;
  std::string brackets; // the [ and { open in code
  auto starts = [&](std::size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  auto refuse = [&](const char* what) {
    throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": malformed scene: " + what);
  };
  // After a backslash toml++ asks whether the next character is whitespace (a line-ending
  // backslash, which also drops the indentation of the next line): the same undefined
  // behaviour for characters outside ASCII there, so they are refused (write \uXXXX).
  auto escape = [&](std::size_t& j) {
    std::size_t k = j + 1;
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r' || text[k] == '\n')) ++k;
    const bool continued = k > j + 1;
    if (k < text.size() && static_cast<unsigned char>(text[continued ? k : j + 1]) >= 0x80)
      refuse("a character outside ASCII right after a backslash in a string (write it as \\uXXXX)");
    if (!continued) ++j, ++column;  // the escaped character cannot end the string
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      if (in == In::Comment || in == In::Basic || in == In::Literal) in = In::Code;  // the parser reports those
      token = false;
      if (brackets.empty()) value = false, before = '\n';  // inside [ or { a line break changes nothing
      continue;
    }
    switch (in) {
      case In::Code:
        if (static_cast<unsigned char>(c) >= 0x80) refuse("a character outside ASCII may only stand in a string or a comment");
        if (token) {
          if (std::string_view(" \t\r,]}#").find(c) == std::string_view::npos) {
            before = c;
            break;
          }
          token = false;
        }
        if (c == '#') {
          in = In::Comment;
        } else if ((c == '"' || c == '\'') &&
                   std::string_view(value ? "=[," : "\n[{,.").find(before) != std::string_view::npos) {
          if (starts(i, "\"\"\"")) in = In::MultiBasic, i += 2, column += 2;
          else if (starts(i, "'''")) in = In::MultiLiteral, i += 2, column += 2;
          else in = c == '"' ? In::Basic : In::Literal;
          before = c;
        } else if (c != ' ' && c != '\t' && c != '\r') {
          // A second '=' in a value (`a = 1 b = "x"`) is past toml++'s error: no string starts there.
          const bool second_equals = c == '=' && value;
          if (value && !second_equals && std::string_view("=[]{},").find(c) == std::string_view::npos) token = true;
          if (c == '=') value = true;
          if (c == '[' || c == '{') brackets.push_back(c);
          if ((c == ']' || c == '}') && !brackets.empty()) brackets.pop_back();
          if (c == '{' || (c == ',' && !brackets.empty() && brackets.back() == '{')) value = false;  // a key comes next
          before = second_equals ? '0' : c;
        }
        break;
      case In::Comment: break;
      case In::Basic:
        if (c == '\\') escape(i);  // the escaped character cannot end the string
        else if (c == '"') in = In::Code;
        break;
      case In::Literal:
        if (c == '\'') in = In::Code;
        break;
      case In::MultiBasic:
        if (c == '\\') escape(i);
        else if (starts(i, "\"\"\"")) in = In::Code, i += 2, column += 2;
        break;
      case In::MultiLiteral:
        if (starts(i, "'''")) in = In::Code, i += 2, column += 2;
        break;
    }
  }
}

}  // namespace tomo
