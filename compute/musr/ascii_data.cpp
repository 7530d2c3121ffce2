// musrfit's ASCII x-y format (PRunDataHandler's ASCII reader): lines starting with '#' or '%'
// are comments; an optional `header` section of `TITLE:`, `X-AXIS-TITLE:`, `Y-AXIS-TITLE:`,
// `SETUP:`, `FIELD:`, `TEMP:`, `ENERGY:` lines (the last three numbers); a `data` line, then
// one point per line: x, y [, error y] separated by spaces, commas or tabs (error 1 if absent).
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/xy_data.hpp"
#include "compute/musr/xy_text.hpp"

namespace tomo::musr {

XyData parse_ascii_data(std::string_view text, const std::string& where) {
  using namespace xy_text;
  XyData d;
  d.positional = true;
  d.columns = {{.tag = "x", .values = {}, .errors = {}}, {.tag = "y", .values = {}, .errors = {}}};
  enum class Section { none, header, data } section = Section::none;
  for (const auto& [raw, n] : lines(text)) {
    if (!raw.empty() && (raw.front() == '#' || raw.front() == '%')) continue;
    const std::string_view s = trim(raw);
    if (starts_with_nocase(s, "header")) {
      section = Section::header;
      continue;
    }
    if (starts_with_nocase(s, "data")) {
      section = Section::data;
      continue;
    }
    if (s.empty()) continue;  // (musrfit refuses a blank line before the first section)
    if (section == Section::header) {
      const std::size_t colon = s.find(':');
      const std::string_view key = s.substr(0, colon), value = colon == std::string_view::npos ? "" : trim(s.substr(colon + 1));
      bool known = colon != std::string_view::npos;
      if (known && equal_nocase(key, "title")) d.title = value;
      else if (known && (equal_nocase(key, "field") || equal_nocase(key, "temp") || equal_nocase(key, "energy"))) {
        double v = 0.0;
        if (!number(value, v)) throw InputError(at(where, n) + std::string(key) + " " + quote_field(value) + " is not a number");
      } else if (!(known && (equal_nocase(key, "x-axis-title") || equal_nocase(key, "y-axis-title") || equal_nocase(key, "setup"))))
        throw InputError(at(where, n) + "header line " + quote_field(s) +
                         " is not one of TITLE:, X-AXIS-TITLE:, Y-AXIS-TITLE:, SETUP:, FIELD:, TEMP:, ENERGY:");
      continue;
    }
    if (section == Section::none)
      throw InputError(at(where, n) + "line " + quote_field(s) + " is neither a comment nor in a 'header' or 'data' section");
    const auto t = tokens(s, " ,\t");
    if (t.size() != 2 && t.size() != 3)
      throw InputError(at(where, n) + "data line " + quote_field(s) + " has " + std::to_string(t.size()) +
                       " fields, expected x, y [, error y]");
    double x = 0.0, y = 0.0, e = 1.0;
    if (!number(t[0], x)) throw InputError(at(where, n) + "x " + quote_field(t[0]) + " is not a number");
    if (!number(t[1], y)) throw InputError(at(where, n) + "y " + quote_field(t[1]) + " is not a number");
    if (t.size() == 3 && !number(t[2], e)) throw InputError(at(where, n) + "error y " + quote_field(t[2]) + " is not a number");
    d.columns[0].values.push_back(x);
    d.columns[0].errors.push_back(1.0);
    d.columns[1].values.push_back(y);
    d.columns[1].errors.push_back(e);
  }
  if (d.columns[0].values.empty()) throw InputError(where + ": no data points (a 'data' line followed by lines x, y [, error y])");
  return d;
}

XyData read_ascii_data(const std::filesystem::path& path) {
  return parse_ascii_data(io::input_file_bytes(path, kXyDataMaxBytes, "ASCII x-y data"), path.string());
}

}  // namespace tomo::musr
