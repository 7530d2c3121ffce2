// TRIUMF's DB format as musrfit reads it (PRunDataHandler's DB reader): sections `TITLE` (the
// next line), `ABSTRACT`, `COMMENTS`, `LABELS` (one label a line) and `DATA tag1, tag2, …`; the
// points follow either as rows `v1, e1+, e1-, v2, …, runNo, , , title` or labelled, one
// `tag = value, error+, error-, \` line per column and a `runNo,,, title` line per point (the
// `run` column). Only the positive error is kept (1 where none is given, as musrfit). Lines
// starting with '#' or '%', blank lines and a `\-e` line after DATA are skipped. There must
// be as many labels as tags, and every column as many points as the others.
#include <cctype>
#include <string>
#include <unordered_map>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/xy_data.hpp"
#include "compute/musr/xy_text.hpp"

namespace tomo::musr {
namespace {

using namespace xy_text;

// The DATA line's tags, lower-cased, to their first column (a map: a file may have a million
// tags and as many labelled lines).
using TagIndex = std::unordered_map<std::string, int>;

std::string lowered(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int tag_index(const TagIndex& tags, std::string_view tag) {
  const auto it = tags.find(lowered(tag));
  return it == tags.end() ? -1 : it->second;
}

// `tag = value, error+, error-, \` (spaces ignored). As musrfit: 2 pieces after the tag keep
// the value with error 1, 3 or 4 pieces the value and error+ (a trailing `\` is a piece).
void labelled_line(XyData& d, const TagIndex& tags, std::string_view s, const std::string& where, int n) {
  std::string packed;
  for (char c : s)
    if (c != ' ' && c != '\t') packed += c;
  const auto t = tokens(packed, "=,");
  const std::string expect = ": expected 'tag = value, error+, error-, \\'";
  if (t.size() < 3 || t.size() > 5) throw InputError(at(where, n) + "data line " + quote_field(s) + expect);
  const int i = tag_index(tags, t[0]);
  if (i < 0) throw InputError(at(where, n) + "tag " + quote_field(t[0]) + " is not in the DATA line's tags");
  double v = 0.0, e = 1.0;
  if (!number(t[1], v)) throw InputError(at(where, n) + "value of " + quote_field(t[0]) + " " + quote_field(t[1]) + " is not a number");
  if (t.size() > 3 && !number(t[2], e))
    throw InputError(at(where, n) + "error of " + quote_field(t[0]) + " " + quote_field(t[2]) + " is not a number");
  d.columns[i].values.push_back(v);
  d.columns[i].errors.push_back(e);
}

// `v1, e1+, e1-, …, vN, eN+, eN-, title`: 3 pieces a tag and one more (commas with at least a
// space between them, as musrfit's tokenizer drops empty pieces).
void row_line(XyData& d, std::string_view s, const std::string& where, int n) {
  const auto t = tokens(s, ",");
  if (t.size() != 3 * d.columns.size() + 1)
    throw InputError(at(where, n) + "data row has " + std::to_string(t.size()) + " comma-separated fields, expected " +
                     std::to_string(3 * d.columns.size() + 1) + " (value, error+, error- for each of " +
                     std::to_string(d.columns.size()) + " tags, then the title; empty fields need a space: ', ,')");
  for (std::size_t j = 0; j < d.columns.size(); ++j) {
    double v = 0.0, e = 1.0;
    if (!number(t[3 * j], v))
      throw InputError(at(where, n) + "value of " + quote_field(d.columns[j].tag) + " " + quote_field(t[3 * j]) + " is not a number");
    if (!blank(t[3 * j + 1]) && !number(t[3 * j + 1], e))
      throw InputError(at(where, n) + "error of " + quote_field(d.columns[j].tag) + " " + quote_field(t[3 * j + 1]) + " is not a number");
    d.columns[j].values.push_back(v);
    d.columns[j].errors.push_back(e);
  }
}

}  // namespace

XyData parse_db_data(std::string_view text, const std::string& where) {
  XyData d;
  std::vector<std::string> labels;
  TagIndex tags;
  enum class Section { none, title, abstract, comments, labels, data } section = Section::none;
  enum class Layout { unknown, labelled, rows } layout = Layout::unknown;
  bool tags_read = false;
  int last = 0;
  for (const auto& [raw, n] : lines(text)) {
    last = n;
    if (!raw.empty() && (raw.front() == '#' || raw.front() == '%')) continue;
    if (blank(raw)) continue;
    const std::string_view s = trim(raw);
    if (starts_with_nocase(s, "title")) section = Section::title;
    else if (starts_with_nocase(s, "abstract")) section = Section::abstract;
    else if (starts_with_nocase(s, "comments")) section = Section::comments;
    else if (starts_with_nocase(s, "label")) section = Section::labels;
    else if (starts_with_nocase(s, "data") && !tags_read) {
      tags_read = true;
      section = Section::data;
      const auto t = tokens(s, " ,\t");
      for (std::size_t i = 1; i < t.size(); ++i) {
        tags.emplace(lowered(t[i]), static_cast<int>(d.columns.size()));
        d.columns.push_back({.tag = std::string(t[i]), .values = {}, .errors = {}});
      }
      if (d.columns.empty()) throw InputError(at(where, n) + "DATA line names no tags");
    } else {
      switch (section) {
        case Section::title: d.title = s; break;
        case Section::labels: labels.emplace_back(s); break;
        case Section::data:
          if (s.starts_with("\\-e") || s.starts_with("\\e") || s.starts_with("/-e") || s.starts_with("/e")) break;
          if (layout == Layout::unknown) {  // the first point decides, as musrfit
            double v = 0.0;
            const auto t = tokens(s, ",");
            layout = !t.empty() && number(t.front(), v) ? Layout::rows : Layout::labelled;
          }
          if (layout == Layout::rows) {
            row_line(d, s, where, n);
          } else if (std::isdigit(static_cast<unsigned char>(s.front()))) {  // `runNo,,, title`
            const int i = tag_index(tags, "run");
            if (i < 0) throw InputError(at(where, n) + "run line " + quote_field(s) + " but the DATA line has no 'run' tag");
            double v = 0.0;
            const auto t = tokens(s, ",");
            if (!number(t.front(), v)) throw InputError(at(where, n) + "run number " + quote_field(t.front()) + " is not a number");
            d.columns[i].values.push_back(v);
            d.columns[i].errors.push_back(1.0);
          } else {
            labelled_line(d, tags, s, where, n);
          }
          break;
        case Section::none:
          throw InputError(at(where, n) + "line " + quote_field(s) + " comes before any TITLE, ABSTRACT, COMMENTS, LABELS or DATA section");
        default: break;
      }
    }
  }
  if (!tags_read) throw InputError(where + ": no DATA line (DATA tag1, tag2, …)");
  if (labels.size() != d.columns.size())
    throw InputError(where + ": " + std::to_string(labels.size()) + " LABELS for " + std::to_string(d.columns.size()) +
                     " DATA tags (they must be equal)");
  for (const auto& c : d.columns)
    if (c.values.size() != d.columns.front().values.size())
      throw InputError(at(where, last) + "column " + quote_field(c.tag) + " has " + std::to_string(c.values.size()) + " points, " +
                       quote_field(d.columns.front().tag) + " has " + std::to_string(d.columns.front().values.size()));
  if (d.columns.front().values.empty()) throw InputError(where + ": no data points after the DATA line");
  return d;
}

XyData read_db_data(const std::filesystem::path& path) {
  return parse_db_data(io::input_file_bytes(path, kXyDataMaxBytes, "DB x-y data"), path.string());
}

}  // namespace tomo::musr
