// PSI-MDU reader: files written here field by field in the order of the front ends' C structs
// (pTA M3, TDC T4 and T5; char arrays, int32s aligned to 4 as a C compiler lays them out),
// independently of the reader's offsets; the values they were written with come back, and
// damaged files are refused with one line naming the record or field.
#include <gtest/gtest.h>

#include <fstream>

#include "compute/core/error.hpp"
#include "compute/musr/psi_mdu.hpp"
#include "compute/musr/run_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct MduTag {
  std::string label;
  char type = 'P';
  std::int32_t min_bin = 0;
  std::vector<std::int32_t> counts;  // Histomaxb = min_bin + counts.size() − 1
  std::int32_t t0b = 0, tfb = 0, tlb = 0;
};

struct MduSpec {
  std::string id = "T4";
  std::int32_t run = 153, histo_resolution = 1, code = 25;  // code: TDC resolution or pTA timespan
  std::string title = "Sample    T=5K      B=7T      orient", subtitle = "a HAL-9500 test run", detectors = "";
  std::vector<MduTag> tags;
};

class Writer {
 public:
  Bytes b;
  void chars(const std::string& s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) b.push_back(i < s.size() ? static_cast<std::uint8_t>(s[i]) : 0);
  }
  void i32(std::int32_t v) {
    while (b.size() % 4) b.push_back(0);  // C's alignment of an int32 member
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i)));
  }
  void end_struct() {
    while (b.size() % 4) b.push_back(0);
  }
};

// One tag record: Label[12], Type, Rawminps, Rawmaxps, Rawminb, Rawmaxb, Histominps,
// Histomaxps, Histominb, Histomaxb, t0b, tfb, tlb.
void tag_record(Writer& w, const MduTag& t) {
  w.chars(t.label, 12);
  w.chars(std::string(1, t.type), 1);
  for (int i = 0; i < 6; ++i) w.i32(0);
  const auto max_bin = t.min_bin + static_cast<std::int32_t>(t.counts.size()) - 1;
  for (std::int32_t v : {t.min_bin, max_bin, t.t0b, t.tfb, t.tlb}) w.i32(v);
  w.end_struct();
}

MduTag no_histogram() {
  MduTag t;
  t.type = 'N';
  return t;
}

Bytes write_mdu(const MduSpec& s) {
  const int ntags = s.id == "T5" ? 32 : 16;
  Writer w;
  // FeFileHeaderRec
  w.chars(s.id.substr(0, 1), 1);
  w.chars(s.id.substr(1, 1), 1);
  w.chars("01-JAN-2014", 12);
  w.chars("08:45:30", 9);
  w.chars("01-JAN-2014", 12);
  w.chars("09:45:30", 9);
  w.i32(s.run);
  w.i32(1);
  w.chars(s.title, 41);
  w.chars(s.subtitle, 63);
  w.chars("PSI-BIN", 20);
  w.i32(s.histo_resolution);
  w.i32(0);
  w.i32(100);
  w.i32(static_cast<std::int32_t>(s.tags.size()));
  w.chars(s.detectors, 200);
  w.chars("5.0", 50);
  w.chars("0.1", 50);
  w.end_struct();
  const std::size_t fe_header = w.b.size();
  // pTAFileHeaderRec's tail: BinSize and the record sizes
  const std::int32_t settings = 13 * 4 + 60 * ntags, statistics = (14 + 2 * ntags + 4) * 4;
  for (std::int32_t v : {4, static_cast<std::int32_t>(fe_header + 20), settings, 60, statistics}) w.i32(v);
  // settings: mode, preps, posps, preb, posb, ecsps, ectps, ecsb, ectb, timespan or code, minrate, eortag, eorlim, tags
  for (int i = 0; i < 9; ++i) w.i32(0);
  w.i32(s.code);
  for (int i = 0; i < 3; ++i) w.i32(0);
  for (int i = 0; i < ntags; ++i) tag_record(w, i < static_cast<int>(s.tags.size()) ? s.tags[i] : no_histogram());
  for (int i = 0; i < statistics / 4; ++i) w.i32(0);
  for (int i = 0; i < ntags; ++i) {
    const MduTag t = i < static_cast<int>(s.tags.size()) ? s.tags[i] : no_histogram();
    tag_record(w, t);
    if (t.type == 'P' && t.counts.size() > 1)
      for (std::int32_t c : t.counts) w.i32(c);
  }
  return w.b;
}

std::vector<std::int32_t> ramp(int n, std::int32_t from) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = from + i;
  return v;
}

std::string refusal(const Bytes& b) {
  try {
    (void)parse_psi_mdu(b, "bad.mdu");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

MduSpec tdc_run() {
  MduSpec s;
  s.tags = {{.label = "Forw", .counts = ramp(12, 100), .t0b = 3, .tfb = 4, .tlb = 10},
            {.label = "Muon", .type = 'M', .counts = ramp(12, 1)},
            {.label = "Back", .min_bin = 2, .counts = ramp(10, 500), .t0b = 2, .tfb = 3, .tlb = 11},
            {.label = "Empty", .counts = {7}}};  // one bin: no histogram (musrfit's rule)
  return s;
}

TEST(MusrPsiMdu, TdcRunT4) {
  auto s = tdc_run();
  s.histo_resolution = 2;
  const Bytes b = write_mdu(s);
  EXPECT_EQ(b.size(), 512u + 1012u + 200u + 16u * 60u + 4u * 22u);
  const RunData f = parse_psi_mdu(b, "run.mdu");
  EXPECT_EQ(f.format, "PSI-MDU");
  EXPECT_EQ(f.run_number, 153);
  EXPECT_EQ(f.sample, "Sample");
  EXPECT_EQ(f.temperature, "T=5K");
  EXPECT_EQ(f.field, "B=7T");
  EXPECT_EQ(f.orientation, "orient");
  EXPECT_EQ(f.title, "a HAL-9500 test run");
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.0000244140625);  // 25 ps code: 24.4 ps
  ASSERT_EQ(f.histograms.size(), 2u);
  EXPECT_EQ(f.labels, (std::vector<std::string>{"Forw", "Back"}));
  EXPECT_EQ(f.histograms[0], ramp(12, 100));
  EXPECT_EQ(f.histograms[1], (std::vector<std::int32_t>{0, 0, 500, 501, 502, 503, 504, 505, 506, 507, 508, 509}));
  // t0 = (t0b + 1)·factor − 1, first good likewise, last good = tlb·factor (factor 2)
  EXPECT_EQ(f.t0, (std::vector<int>{7, 5}));
  EXPECT_EQ(f.first_good, (std::vector<int>{9, 7}));
  EXPECT_EQ(f.last_good, (std::vector<int>{20, 22}));
  EXPECT_EQ(f.events, (std::vector<std::int32_t>{109 + 110 + 111, 505 + 506 + 507 + 508 + 509}));
}

TEST(MusrPsiMdu, TdcRunT5HasThirtyTwoTags) {
  MduSpec s;
  s.id = "T5";
  s.code = 800;
  for (int i = 0; i < 20; ++i) {
    std::string label = "det";
    label += std::to_string(i);
    s.tags.push_back({.label = label, .counts = ramp(6, 10 * i), .t0b = 1, .tfb = 2, .tlb = 5});
  }
  const RunData f = parse_psi_mdu(write_mdu(s), "run.mdu");
  ASSERT_EQ(f.histograms.size(), 20u);
  EXPECT_EQ(f.histograms[19], ramp(6, 190));
  EXPECT_EQ(f.labels[19], "det19");
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.00078125);
  EXPECT_EQ(f.t0[0], 1);  // factor 1: (1 + 1)·1 − 1
}

// pTA (M3): only the detectors of the header's list, and the last stored bin is dropped.
TEST(MusrPsiMdu, PtaRunM3KeepsTheListedDetectors) {
  MduSpec s;
  s.id = "M3";
  s.code = 10;             // timespan 10: 0.3125 ns
  s.histo_resolution = 3;  // factor 2^(3 + 8 − 10) = 2
  s.detectors = "0 2";
  s.tags = {{.label = "F", .counts = ramp(8, 1), .t0b = 1, .tfb = 2, .tlb = 3},
            {.label = "X", .counts = ramp(8, 50)},
            {.label = "B", .counts = ramp(8, 20), .t0b = 0, .tfb = 1, .tlb = 3}};
  const RunData f = parse_psi_mdu(write_mdu(s), "run.mdu");
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.0003125);
  ASSERT_EQ(f.histograms.size(), 2u);
  EXPECT_EQ(f.histograms[0], ramp(7, 1));
  EXPECT_EQ(f.histograms[1], ramp(7, 20));
  EXPECT_EQ(f.t0, (std::vector<int>{3, 1}));
  EXPECT_EQ(f.last_good, (std::vector<int>{6, 6}));
}

TEST(MusrPsiMdu, DamagedFilesAreRefusedNamingTheField) {
  const Bytes good = write_mdu(tdc_run());
  EXPECT_EQ(refusal({good.begin(), good.begin() + 100}), "PSI-MDU 'bad.mdu': file has 100 bytes, less than the 512-byte header");
  auto b = good;
  b[1] = '9';
  EXPECT_EQ(refusal(b), "PSI-MDU 'bad.mdu': format id 'T9' is not M3, T4 or T5 (not a PSI-MDU file)");
  b = good;
  b[504] = 61;
  EXPECT_EQ(refusal(b), "PSI-MDU 'bad.mdu': NumBytesTag 61 is not this format's 60");
  b = good;
  b[512 + 36] = 30;
  EXPECT_EQ(refusal(b), "PSI-MDU 'bad.mdu': TDC resolution code 30 is not 25, 100, 200 or 800");
  EXPECT_EQ(refusal({good.begin(), good.end() - 4}), "PSI-MDU 'bad.mdu': tag record 15 at byte 2712 is beyond the end of the file");
  EXPECT_EQ(refusal({good.begin(), good.begin() + 1972}),
            "PSI-MDU 'bad.mdu': tag 2 histogram of 10 bins at byte 1952 runs past the end of the file");
  EXPECT_EQ(refusal({good.begin(), good.begin() + 1850}), "PSI-MDU 'bad.mdu': tag record 1 at byte 1832 is beyond the end of the file");
  auto s = tdc_run();
  s.tags[0].counts[5] = -3;
  EXPECT_EQ(refusal(write_mdu(s)), "PSI-MDU 'bad.mdu': tag 0 histogram bin 5 has a negative count (-3)");
  s = tdc_run();
  s.tags[2].min_bin = 3;
  EXPECT_EQ(refusal(write_mdu(s)), "PSI-MDU 'bad.mdu': tag 2 histogram has 13 bins, the first one 12");
  s = tdc_run();
  s.tags[0].min_bin = -1;
  EXPECT_EQ(refusal(write_mdu(s)), "PSI-MDU 'bad.mdu': tag 0 histogram bins -1..10 are not inside 0..16777215");
  s = tdc_run();
  s.histo_resolution = -1;
  EXPECT_EQ(refusal(write_mdu(s)), "PSI-MDU 'bad.mdu': HistoResolution -1 is not 0..1048576");
  s = tdc_run();
  s.tags = {{.label = "Muon", .type = 'M', .counts = ramp(12, 1)}};
  EXPECT_EQ(refusal(write_mdu(s)), "PSI-MDU 'bad.mdu': holds no positron histogram");
  s.id = "M3";
  s.code = 11;
  s.tags = {{.label = "F", .counts = ramp(8, 1)}};
  s.detectors = "3";
  EXPECT_EQ(refusal(write_mdu(s)), "PSI-MDU 'bad.mdu': holds no positron histogram of the header's detector list");
}

TEST(MusrPsiMdu, RunLineReadsTheMduFile) {
  test::TempDir tmp("musr-mdu");
  const Bytes b = write_mdu(tdc_run());
  std::ofstream(tmp.dir / "run_00153.mdu", std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  MsrFile msr;
  msr.path = tmp.dir / "fit.msr";
  MsrRun run;
  run.file = "run_00153";
  run.format = "PSI-MDU";
  run.line = 3;
  const auto p = find_run_file(msr, run);
  EXPECT_EQ(p, tmp.dir / "run_00153.mdu");
  const RunData f = read_run_file(p, "psi-mdu");
  EXPECT_EQ(f.format, "PSI-MDU");
  EXPECT_EQ(f.histograms.size(), 2u);
  // A PSI-BIN file under the PSI-MDU token is read as PSI-BIN (musrfit's reader looks at "1N").
  PsiBinFile bin;
  bin.bin_width_us = 0.000625;
  bin.histograms = {ramp(20, 1)};
  bin.t0 = {3};
  write_psi_bin(tmp.dir / "run_00154.mdu", bin);
  EXPECT_EQ(read_run_file(tmp.dir / "run_00154.mdu", "PSI-MDU").format, "PSI-BIN");
  try {
    (void)read_run_file(tmp.dir, "PSI-MDU");
    ADD_FAILURE() << "a folder was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PSI-MDU data"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomo::musr
