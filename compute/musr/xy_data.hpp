// Non-μSR x-y data (fittype 8) as musrfit reads them: ASCII (x, y [, error y] columns after a
// `data` line), TRIUMF DB (named columns with value, positive and negative error) and DAT
// (msr2data's table: a header of column names, `…Err` columns holding the errors). Every reader
// passes the common input gate and refuses garbage with one line naming file, line and field.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tomo::musr {

// One named column: a value and its error per point (musrfit's error conventions: ASCII and DB
// use 1 where the file gives none, DAT 0 for a column without an error column).
struct XyColumn {
  std::string tag;
  std::vector<double> values, errors;
};

struct XyData {
  std::string title;
  // ASCII files have exactly x and y: musrfit takes column 1 as x and 2 as y whatever the
  // msr's `xy-data` says; DB and DAT columns are chosen by number or tag.
  bool positional = false;
  std::vector<XyColumn> columns;  // all of the same length (checked by the readers)
};

inline constexpr std::uintmax_t kXyDataMaxBytes = std::uintmax_t(64) << 20;

// Each reads the whole file through the input gate (a regular file of at most kXyDataMaxBytes);
// the parse_* functions take the text, `where` naming it in messages ("file.dat").
XyData read_ascii_data(const std::filesystem::path& path);
XyData read_db_data(const std::filesystem::path& path);
XyData read_dat_data(const std::filesystem::path& path);
XyData parse_ascii_data(std::string_view text, const std::string& where);
XyData parse_db_data(std::string_view text, const std::string& where);
XyData parse_dat_data(std::string_view text, const std::string& where);

// The reader of a RUN's x-y format token (ASCII, DB, DAT; any case); empty-handed formats throw.
XyData read_xy_file(const std::filesystem::path& path, const std::string& format);
// True for the tokens read_xy_file takes.
bool is_xy_format(const std::string& format);

}  // namespace tomo::musr
