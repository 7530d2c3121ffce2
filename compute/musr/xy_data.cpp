// The helpers the x-y readers share (xy_text.hpp) and the dispatch of the x-y format tokens.
#include "compute/musr/xy_data.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/xy_text.hpp"

namespace tomo::musr {
namespace xy_text {

std::vector<Line> lines(std::string_view text) {
  std::vector<Line> out;
  int n = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view l = text.substr(0, eol);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back({l, ++n});
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

static char low(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (low(s[i]) != low(prefix[i])) return false;
  return true;
}

bool equal_nocase(std::string_view a, std::string_view b) { return a.size() == b.size() && starts_with_nocase(a, b); }

bool blank(std::string_view s) {
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

std::vector<std::string_view> tokens(std::string_view s, std::string_view delims) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t j = s.find_first_of(delims, i);
    const std::size_t end = j == std::string_view::npos ? s.size() : j;
    if (end > i) out.push_back(s.substr(i, end - i));
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return out;
}

bool number(std::string_view s, double& out) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, std::chars_format::general);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(out);
}

std::string at(const std::string& where, int line) { return where + ":" + std::to_string(line) + ": "; }

std::string quote_field(std::string_view s) { return "'" + quoted_excerpt(s) + "'"; }

}  // namespace xy_text

bool is_xy_format(const std::string& format) {
  using xy_text::equal_nocase;
  return equal_nocase(format, "ASCII") || equal_nocase(format, "DB") || equal_nocase(format, "DAT");
}

XyData read_xy_file(const std::filesystem::path& path, const std::string& format) {
  using xy_text::equal_nocase;
  if (equal_nocase(format, "ASCII")) return read_ascii_data(path);
  if (equal_nocase(format, "DB")) return read_db_data(path);
  if (equal_nocase(format, "DAT")) return read_dat_data(path);
  throw InputError("data file '" + path.string() + "': data-file-format " + format + " is not an x-y format (ASCII, DB, DAT)");
}

}  // namespace tomo::musr
