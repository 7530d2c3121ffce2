// Line and number handling shared by the x-y data readers (ascii_data.cpp, db_data.cpp,
// dat_data.cpp): lines with their numbers, musrfit's tokenizer, strict numbers.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tomo::musr::xy_text {

// The text's lines (LF or CRLF), each with its 1-based number.
struct Line {
  std::string_view text;
  int number = 0;
};
std::vector<Line> lines(std::string_view text);

// `s` without leading and trailing spaces and tabs.
std::string_view trim(std::string_view s);
// True when `s` starts with `prefix`, ASCII case ignored.
bool starts_with_nocase(std::string_view s, std::string_view prefix);
bool equal_nocase(std::string_view a, std::string_view b);
bool blank(std::string_view s);

// Splits at any of `delims`, dropping empty pieces (as ROOT's TString::Tokenize, which musrfit
// uses: ",," gives no empty token).
std::vector<std::string_view> tokens(std::string_view s, std::string_view delims);

// A finite decimal number (leading/trailing blanks allowed); false for anything else.
bool number(std::string_view s, double& out);

// "file:LINE: " for messages; text quoted at most 40 bytes with control bytes escaped.
std::string at(const std::string& where, int line);
std::string quote_field(std::string_view s);

}  // namespace tomo::musr::xy_text
