// The x-y data readers (ASCII, DB, DAT) on the files of musrfit's examples and on damaged
// text: every bad input is one InputError naming file, line and field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compute/core/error.hpp"
#include "compute/musr/run_file.hpp"
#include "compute/musr/xy_data.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

std::filesystem::path suite() {
  const char* e = std::getenv("TOMO_SOURCE_DIR");
  return (e && *e ? std::filesystem::path(e) : std::filesystem::path(TOMO_SOURCE_DIR)) / "tests/musr/musrfit";
}

std::string refusal(const auto& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(MusrXyData, AsciiOfMusrfitsGapIntegralsExample) {
  const XyData d = read_ascii_data(suite() / "BMWlibs/data/libGapIntegrals-test.dat");
  EXPECT_TRUE(d.positional);
  EXPECT_EQ(d.title, "Test superconductor data");
  ASSERT_EQ(d.columns.size(), 2u);
  ASSERT_EQ(d.columns[0].values.size(), 22u);
  EXPECT_DOUBLE_EQ(d.columns[0].values[0], 0.0318411);
  EXPECT_DOUBLE_EQ(d.columns[1].values[0], 7.77455);
  EXPECT_DOUBLE_EQ(d.columns[1].errors[0], 0.2);
  EXPECT_DOUBLE_EQ(d.columns[0].values[21], 4.30518);
  EXPECT_DOUBLE_EQ(d.columns[1].errors[21], 0.08);
  EXPECT_DOUBLE_EQ(d.columns[0].errors[5], 1.0);
  // No error column: error 1 (musrfit's equal weights); tabs and CRLF are fine.
  const XyData e = parse_ascii_data("DATA\r\n1\t2\r\n3, 4\r\n", "a.dat");
  EXPECT_EQ(e.columns[1].values, (std::vector<double>{2, 4}));
  EXPECT_EQ(e.columns[1].errors, (std::vector<double>{1, 1}));
}

TEST(MusrXyData, AsciiGarbageIsOneLineNamingFileLineAndField) {
  EXPECT_EQ(refusal([] { parse_ascii_data("data\n1 2 3 4\n", "a.dat"); }),
            "a.dat:2: data line '1 2 3 4' has 4 fields, expected x, y [, error y]");
  EXPECT_EQ(refusal([] { parse_ascii_data("data\n1 2\nx1 2\n", "a.dat"); }), "a.dat:3: x 'x1' is not a number");
  EXPECT_EQ(refusal([] { parse_ascii_data("data\n1 nan\n", "a.dat"); }), "a.dat:2: y 'nan' is not a number");
  EXPECT_EQ(refusal([] { parse_ascii_data("data\n1 2 1e999\n", "a.dat"); }), "a.dat:2: error y '1e999' is not a number");
  EXPECT_EQ(refusal([] { parse_ascii_data("header\nFIELD: high\n", "a.dat"); }), "a.dat:2: FIELD 'high' is not a number");
  EXPECT_NE(refusal([] { parse_ascii_data("header\nCOLOUR: red\n", "a.dat"); }).find("a.dat:2: header line 'COLOUR: red' is not one of"),
            std::string::npos);
  EXPECT_EQ(refusal([] { parse_ascii_data("1 2\n", "a.dat"); }),
            "a.dat:1: line '1 2' is neither a comment nor in a 'header' or 'data' section");
  EXPECT_EQ(refusal([] { parse_ascii_data("# only\n", "a.dat"); }),
            "a.dat: no data points (a 'data' line followed by lines x, y [, error y])");
  EXPECT_EQ(refusal([] { parse_ascii_data("data\n1 \x1b[31m\n", "a.dat"); }), "a.dat:2: y '\\x1b[31m' is not a number");
}

TEST(MusrXyData, DbOfMusrfitsMeanFieldsExampleLabelledColumns) {
  const XyData d = read_db_data(suite() / "BMWlibs/data/Meissner-1L_160nm_TF95G_h12.db");
  EXPECT_FALSE(d.positional);
  EXPECT_EQ(d.title, "Superconducting thin film in the Meissner state (SIMULATION)");
  ASSERT_EQ(d.columns.size(), 22u);
  EXPECT_EQ(d.columns[2].tag, "dataE");
  EXPECT_EQ(d.columns[5].tag, "field");
  ASSERT_EQ(d.columns[5].values.size(), 10u);
  EXPECT_EQ(d.columns[2].values, (std::vector<double>{2, 5, 7.5, 10, 12, 16, 18, 20, 22, 24}));
  EXPECT_DOUBLE_EQ(d.columns[5].values[0], 94.3346);
  EXPECT_DOUBLE_EQ(d.columns[5].errors[0], 0.04165);  // the positive error
  EXPECT_EQ(d.columns[21].tag, "RUN");
  EXPECT_DOUBLE_EQ(d.columns[21].values[9], 19.0);
}

TEST(MusrXyData, DbRowsAndLabelledVariants) {
  const std::string rows = "TITLE\nfake\n\nLABELS\nA\nB\nrun\n\nDATA a, b, run\n"
                           "1.5, 0.1, 0.2,  7, , ,  1001, , , run 1001\n"
                           "2.5, 0.3, 0.3,  8, 0.5, ,  1002, , , run 1002\n";
  const XyData d = parse_db_data(rows, "r.db");
  EXPECT_EQ(d.columns[0].values, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(d.columns[0].errors, (std::vector<double>{0.1, 0.3}));
  EXPECT_EQ(d.columns[1].errors, (std::vector<double>{1.0, 0.5}));  // blank error: 1
  EXPECT_EQ(d.columns[2].values, (std::vector<double>{1001, 1002}));
  // Labelled: `tag = v,,,` keeps error 1; `tag = v, e, e, \` keeps e; tags are matched ignoring case.
  const XyData l = parse_db_data("LABELS\nA\nB\nDATA a b\n\\-e\nA = 1,,,\\\nb = 2, 0.5, 0.6,\\\na = 3, 0.1,,\\\nb = 4,,,\\\n", "l.db");
  EXPECT_EQ(l.columns[0].values, (std::vector<double>{1, 3}));
  EXPECT_EQ(l.columns[0].errors, (std::vector<double>{1, 0.1}));
  EXPECT_EQ(l.columns[1].errors, (std::vector<double>{0.5, 1}));
}

TEST(MusrXyData, DbGarbageIsOneLineNamingFileLineAndField) {
  EXPECT_EQ(refusal([] { parse_db_data("LABELS\nA\nDATA a, b\na = 1,,,\\\nb = 2,,,\\\n", "x.db"); }),
            "x.db: 1 LABELS for 2 DATA tags (they must be equal)");
  EXPECT_EQ(refusal([] { parse_db_data("LABELS\nA\nB\nDATA a, b\na = 1,,,\\\nb = 2,,,\\\na = 3,,,\\\n", "x.db"); }),
            "x.db:7: column 'b' has 1 points, 'a' has 2");
  EXPECT_EQ(refusal([] { parse_db_data("LABELS\nA\nDATA a\nc = 1,,,\\\n", "x.db"); }), "x.db:4: tag 'c' is not in the DATA line's tags");
  EXPECT_EQ(refusal([] { parse_db_data("LABELS\nA\nDATA a\na = one,,,\\\n", "x.db"); }),
            "x.db:4: value of 'a' 'one' is not a number");
  EXPECT_EQ(refusal([] { parse_db_data("LABELS\nA\nDATA a\na = 1,,,\\\n17,,, title\n", "x.db"); }),
            "x.db:5: run line '17,,, title' but the DATA line has no 'run' tag");
  EXPECT_NE(refusal([] { parse_db_data("LABELS\nA\nB\nDATA a, b\n1, 2, 3, 4,, 5, t\n", "x.db"); })
                .find("x.db:5: data row has 6 comma-separated fields, expected 7"),
            std::string::npos);
  EXPECT_EQ(refusal([] { parse_db_data("1 2\n", "x.db"); }),
            "x.db:1: line '1 2' comes before any TITLE, ABSTRACT, COMMENTS, LABELS or DATA section");
  EXPECT_EQ(refusal([] { parse_db_data("TITLE\nt\n", "x.db"); }), "x.db: no DATA line (DATA tag1, tag2, …)");
  EXPECT_EQ(refusal([] { parse_db_data("LABELS\nDATA\n", "x.db"); }), "x.db:2: DATA line names no tags");
  EXPECT_EQ(refusal([] { parse_db_data("LABELS\nA\nDATA a\n,,,,\n", "x.db"); }),
            "x.db:4: data line ',,,,': expected 'tag = value, error+, error-, \\'");
}

TEST(MusrXyData, DatOfMusrfitsDepthProfileExample) {
  const XyData d = read_dat_data(suite() / "DepthProfiles/1300Ar/data/1300Ar_PECVD_Escan_260K_5G_withDiaFrac.dat");
  EXPECT_FALSE(d.positional);
  auto col = [&](const std::string& tag) -> const XyColumn& {
    for (const auto& c : d.columns)
      if (c.tag == tag) return c;
    throw std::runtime_error("no column " + tag);
  };
  EXPECT_EQ(d.columns[0].tag, "dataT");
  EXPECT_EQ(d.columns[1].tag, "dataB");  // dataTErr is dataT's error
  ASSERT_EQ(col("dataE").values.size(), 15u);
  EXPECT_DOUBLE_EQ(col("dataE").values[0], 6.998);
  EXPECT_DOUBLE_EQ(col("dataE").errors[0], 0.0);  // no dataEErr column: 0, as musrfit
  EXPECT_DOUBLE_EQ(col("AsymCorrected").values[0], 0.0565);
  EXPECT_DOUBLE_EQ(col("AsymCorrected").errors[0], 0.0012);
  EXPECT_DOUBLE_EQ(col("Asym_Mu").errors[5], 0.0039);  // Asym_MuPosErr; NegErr is dropped
  EXPECT_DOUBLE_EQ(col("dataT").errors[1], 0.005);
}

TEST(MusrXyData, DatGarbageIsOneLineNamingFileLineAndField) {
  EXPECT_EQ(refusal([] { parse_dat_data("a aErr b\n1 2\n", "d.dat"); }), "d.dat:2: line has 2 fields, the header names 3 columns");
  EXPECT_EQ(refusal([] { parse_dat_data("a aErr b\n1 2 zz\n", "d.dat"); }), "d.dat:2: column 3 'zz' is not a number");
  EXPECT_EQ(refusal([] { parse_dat_data("aErr b\n1 2\n", "d.dat"); }),
            "d.dat:1: the first column 'aErr' is an error column (a name ending in 'Err')");
  EXPECT_EQ(refusal([] { parse_dat_data("# c\n\n", "d.dat"); }), "d.dat: no header line naming the columns");
  EXPECT_EQ(refusal([] { parse_dat_data("a b\n", "d.dat"); }), "d.dat: no data lines after the header");
}

TEST(MusrXyData, FilesPassTheInputGateAndTheHistogramDispatchNamesFittype8) {
  test::TempDir tmp("musr-xy");
  std::filesystem::create_directory(tmp.dir / "dir.dat");
  EXPECT_NE(refusal([&] { read_ascii_data(tmp.dir / "dir.dat"); }).find("is a folder"), std::string::npos);
  EXPECT_NE(refusal([&] { read_dat_data(tmp.dir / "dir.dat"); }).find("is a folder"), std::string::npos);
  { std::ofstream(tmp.dir / "big.db") << "x"; }
  std::filesystem::resize_file(tmp.dir / "big.db", kXyDataMaxBytes + 1);
  const auto msg = refusal([&] { read_db_data(tmp.dir / "big.db"); });
  EXPECT_NE(msg.find("DB x-y data '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is larger than the 64.0 MiB"), std::string::npos) << "[" << msg << "]";
  EXPECT_EQ(refusal([&] { read_run_file(tmp.dir / "big.db", "DB"); }),
            "data file '" + (tmp.dir / "big.db").string() + "': data-file-format DB holds x-y data for fittype 8 RUNs, not histograms");
  EXPECT_EQ(read_xy_file(suite() / "BMWlibs/data/libGapIntegrals-test.dat", "ascii").columns[0].values.size(), 22u);
}

}  // namespace
}  // namespace tomo::musr
