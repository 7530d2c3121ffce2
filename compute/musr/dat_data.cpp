// msr2data's DAT table as musrfit reads it (PRunDataHandler's DAT reader): the first line that
// is not blank or a comment ('#', '%') names the columns; a name ending in `Err` (PosErr, NegErr
// included) is an error column and belongs to the data column just before it (only the first
// error column after a data column is kept: the positive error); every further line holds one
// number per column, separated by spaces or tabs. A data column without an error column gets
// errors 0, as musrfit (the fit refuses such a column as y).
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/xy_data.hpp"
#include "compute/musr/xy_text.hpp"

namespace tomo::musr {

XyData parse_dat_data(std::string_view text, const std::string& where) {
  using namespace xy_text;
  XyData d;
  std::vector<int> owner;  // per file column: its data column, or −1 (a data column itself: −2)
  std::vector<bool> has_error;
  for (const auto& [raw, n] : lines(text)) {
    if (!raw.empty() && (raw.front() == '#' || raw.front() == '%')) continue;
    if (blank(raw)) continue;
    const auto t = tokens(raw, " \t\r");
    if (owner.empty()) {  // the header
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (!t[i].ends_with("Err")) {
          owner.push_back(-2);
          d.columns.push_back({.tag = std::string(t[i]), .values = {}, .errors = {}});
          has_error.push_back(false);
        } else if (i == 0) {
          throw InputError(at(where, n) + "the first column " + quote_field(t[i]) + " is an error column (a name ending in 'Err')");
        } else if (owner[i - 1] == -2 && !has_error[d.columns.size() - 1]) {
          owner.push_back(static_cast<int>(d.columns.size()) - 1);
          has_error.back() = true;
        } else {
          owner.push_back(-1);  // a second error column (NegErr): not used, as musrfit
        }
      }
      continue;
    }
    if (t.size() != owner.size())
      throw InputError(at(where, n) + "line has " + std::to_string(t.size()) + " fields, the header names " +
                       std::to_string(owner.size()) + " columns");
    int data_col = -1;
    for (std::size_t i = 0; i < t.size(); ++i) {
      double v = 0.0;
      if (!number(t[i], v)) throw InputError(at(where, n) + "column " + std::to_string(i + 1) + " " + quote_field(t[i]) + " is not a number");
      if (owner[i] == -2) {
        ++data_col;
        d.columns[data_col].values.push_back(v);
        if (!has_error[data_col]) d.columns[data_col].errors.push_back(0.0);
      } else if (owner[i] >= 0) {
        d.columns[owner[i]].errors.push_back(v);
      }
    }
  }
  if (owner.empty()) throw InputError(where + ": no header line naming the columns");
  if (d.columns.front().values.empty()) throw InputError(where + ": no data lines after the header");
  return d;
}

XyData read_dat_data(const std::filesystem::path& path) {
  return parse_dat_data(io::input_file_bytes(path, kXyDataMaxBytes, "DAT x-y data"), path.string());
}

}  // namespace tomo::musr
