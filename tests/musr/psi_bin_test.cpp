// PSI-BIN: round trip through the writer and reader, byte offsets of the notes' layout, and
// refusals of files whose sizes do not match.
#include <gtest/gtest.h>

#include <cstring>

#include "compute/core/error.hpp"
#include "compute/musr/psi_bin.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

PsiBinFile sample() {
  PsiBinFile f;
  f.tdc_resolution = 5;
  f.bin_width_us = 0.0048828125;
  f.sample = "LSCO";
  f.temperature = "5.0K";
  f.field = "100.000G";
  f.orientation = "c";
  f.setup = "GPS";
  for (int h = 0; h < 3; ++h) {
    std::vector<std::int32_t> v(700);
    for (int i = 0; i < 700; ++i) v[i] = (h + 1) * 1000 + i * 7 - (i % 13) * h;
    f.histograms.push_back(v);
    f.t0.push_back(100 + h);
    f.first_good.push_back(110 + h);
    f.last_good.push_back(690 - h);
    f.labels.push_back(h == 0 ? "FW" : h == 1 ? "BW" : "UP");
  }
  return f;
}

TEST(MusrPsiBin, RoundTrip) {
  test::TempDir tmp("musr-psibin");
  const PsiBinFile f = sample();
  write_psi_bin(tmp.dir / "run.bin", f);
  const PsiBinFile g = read_psi_bin(tmp.dir / "run.bin");
  EXPECT_EQ(g.histograms, f.histograms);
  EXPECT_EQ(g.t0, f.t0);
  EXPECT_EQ(g.first_good, f.first_good);
  EXPECT_EQ(g.last_good, f.last_good);
  EXPECT_EQ(g.labels, f.labels);
  EXPECT_EQ(g.sample, "LSCO");
  EXPECT_EQ(g.field, "100.000G");
  EXPECT_DOUBLE_EQ(g.bin_width_us, 0.0048828125);
  EXPECT_EQ(g.tdc_resolution, 5);
  for (int h = 0; h < 3; ++h) {
    std::int64_t sum = 0;
    for (auto v : f.histograms[h]) sum += v;
    EXPECT_EQ(g.events[h], sum);
  }
}

TEST(MusrPsiBin, LayoutOfTheNotes) {
  auto b = encode_psi_bin(sample());
  auto i16 = [&](std::size_t o) { std::int16_t v; std::memcpy(&v, &b[o], 2); return v; };
  auto i32 = [&](std::size_t o) { std::int32_t v; std::memcpy(&v, &b[o], 4); return v; };
  EXPECT_EQ(b[0], '1');
  EXPECT_EQ(b[1], 'N');
  EXPECT_EQ(i16(28), 700);
  EXPECT_EQ(i16(30), 3);
  EXPECT_EQ(i16(458 + 2), 101);  // t0 of histogram 2
  EXPECT_EQ(i16(490 + 4), 112);  // first good of histogram 3
  EXPECT_EQ(i16(522), 690);
  const int lendaf = i16(130), kdafhi = i16(132);
  EXPECT_EQ(i32(1024 + 4 * (1 * kdafhi * lendaf + 5)), 2000 + 35 - 5);  // histogram 2, bin 5
  EXPECT_EQ(std::memcmp(&b[948], "FW  ", 4), 0);
  // No bin width stored: 0.125·625e-6·2^res µs.
  std::memset(&b[1012], 0, 4);
  EXPECT_DOUBLE_EQ(parse_psi_bin(b, "x").bin_width_us, 0.125 * 625e-6 * 32);
}

TEST(MusrPsiBin, RefusesFilesThatDoNotMatchTheirHeader) {
  const auto good = encode_psi_bin(sample());
  auto expect_refused = [](std::vector<std::uint8_t> b, const std::string& what) {
    try {
      parse_psi_bin(b, "bad.bin");
      ADD_FAILURE() << "accepted: " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_refused({good.begin(), good.begin() + 500}, "1024-byte header");
  expect_refused({good.begin(), good.end() - (768 - 700) * 4 - 4}, "need");  // last bin cut (records pad to 768)
  auto b = good;
  b[0] = 'X';
  expect_refused(b, "1N");
  b = good;
  std::int16_t v = 17;
  std::memcpy(&b[30], &v, 2);
  expect_refused(b, "histograms");
  b = good;
  v = 30000;
  std::memcpy(&b[28], &v, 2);
  expect_refused(b, "hold fewer");
  b = good;
  v = 0;
  std::memcpy(&b[130], &v, 2);
  expect_refused(b, "lendaf");
  b = good;
  float w = -1.0f;
  std::memcpy(&b[1012], &w, 4);
  expect_refused(b, "bin width");
  PsiBinFile f = sample();
  f.histograms[1].pop_back();
  EXPECT_THROW(encode_psi_bin(f), InputError);
  EXPECT_THROW(read_psi_bin("/nonexistent/run.bin"), InputError);
}

}  // namespace
}  // namespace tomo::musr
