// MUD reader: values of musrfit's example runs (each histogram's bins sum to the header's event
// count, a check independent of the reader), the RUN-line lookup, and refusals of damaged files.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/musr/mud.hpp"
#include "compute/musr/run_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

const std::filesystem::path kExamples = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit";

std::vector<std::uint8_t> bytes_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string refusal(const std::vector<std::uint8_t>& b) {
  try {
    (void)parse_mud(b, "bad.msr");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

TEST(MusrMud, TriumfTimeDifferentialRun) {
  const RunData f = read_mud(kExamples / "data/000100.msr");
  EXPECT_EQ(f.format, "MUD");
  EXPECT_EQ(f.run_number, 100);
  EXPECT_EQ(f.title, "MgB12H12 No2 ZF T=150");
  EXPECT_EQ(f.lab, "TRIUMF");
  EXPECT_EQ(f.area, "M20");
  EXPECT_EQ(f.sample, "MgB12H12_No2");
  EXPECT_EQ(f.temperature, "150.47(0.06)K");
  EXPECT_EQ(f.field, "0.132(0.024)G");
  ASSERT_EQ(f.histograms.size(), 4u);
  EXPECT_EQ(f.bins(), 12800);
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.00078125);  // fsPerBin 781250 fs
  EXPECT_EQ(f.t0, (std::vector<int>{430, 430, 430, 430}));
  EXPECT_EQ(f.first_good, (std::vector<int>{435, 440, 439, 439}));
  EXPECT_EQ(f.last_good, (std::vector<int>{12800, 12800, 12800, 12800}));
  EXPECT_EQ(f.events, (std::vector<std::int32_t>{12186451, 9456481, 4513268, 3955490}));
  for (std::size_t h = 0; h < 4; ++h)
    EXPECT_EQ(std::accumulate(f.histograms[h].begin(), f.histograms[h].end(), std::int64_t(0)), f.events[h]) << h;
  EXPECT_EQ(f.histograms[0][430], 4652);
  EXPECT_EQ(f.histograms[0][432], 5126);
  EXPECT_EQ(f.histograms[1][1000], 2613);
  EXPECT_EQ(f.histograms[3][12799], 29);
}

TEST(MusrMud, BetaNmrRunWithAnEmptyHistogram) {
  const RunData f = read_mud(kExamples / "BNMRlibs/045674.msr");
  EXPECT_EQ(f.run_number, 45674);
  EXPECT_EQ(f.area, "BNQR");
  ASSERT_EQ(f.histograms.size(), 10u);
  EXPECT_EQ(f.bins(), 910);
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.01);  // fsPerBin 1e7 fs, read as musrfit reads it
  EXPECT_EQ(f.histograms[0][0], 25748459);
  EXPECT_EQ(f.histograms[2][2], 9);
  EXPECT_EQ(f.histograms[6][909], 740);
  EXPECT_EQ(std::accumulate(f.histograms[1].begin(), f.histograms[1].end(), 0), 0);  // one run of 910 zero bins
}

TEST(MusrMud, BinWidthCodes) {
  EXPECT_DOUBLE_EQ(mud_bin_width_us(0), 0.078125e-3);
  EXPECT_DOUBLE_EQ(mud_bin_width_us(3), 0.625e-3);
  EXPECT_DOUBLE_EQ(mud_bin_width_us(16), 0.048828125e-3);
  EXPECT_DOUBLE_EQ(mud_bin_width_us(781250), 0.78125e-3);
}

TEST(MusrMud, RunLineFindsTheFileByItsFormatsExtension) {
  MsrFile msr;
  msr.path = kExamples / "test-asy-MUD.msr";
  MsrRun run;
  run.file = "data/000100";
  run.format = "MUD";
  run.line = 7;
  const auto p = find_run_file(msr, run);
  EXPECT_EQ(p, kExamples / "data/000100.msr");
  EXPECT_EQ(read_run_file(p, "mud").run_number, 100);
  run.file = "data/000101";
  try {
    (void)find_run_file(msr, run);
    ADD_FAILURE() << "a missing file was found";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":7: data file 'data/000101.msr' not found"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run_format_extension("nexus", ""), "NXS");
  EXPECT_EQ(run_format_extension("ROOT-NPP", ""), "root");
  EXPECT_EQ(run_format_extension("WKM", "mue4"), "nemu");
  EXPECT_EQ(run_format_extension("ZIP", ""), "");
}

TEST(MusrMud, DamagedFilesAreRefusedNamingTheField) {
  const auto good = bytes_of(kExamples / "data/000100.msr");
  ASSERT_EQ(good.size(), 79656u);
  EXPECT_EQ(refusal({good.begin(), good.begin() + 8}), "MUD 'bad.msr': section at byte 0 is cut short (8 bytes left)");
  auto b = good;
  put32(b, 0, 0xFFFFFF00u);
  EXPECT_EQ(refusal(b), "MUD 'bad.msr': section at byte 0 has size 4294967040 (79656 bytes left)");
  b = good;
  put32(b, 16, 0x7FFFFFFFu);  // the top group's member bytes
  EXPECT_EQ(refusal(b), "MUD 'bad.msr': group at byte 0 has 2147483647 member bytes (79588 left)");
  b = good;
  b.resize(40000);  // histograms 3 and 4 cut away
  EXPECT_NE(refusal(b).find("MUD 'bad.msr': "), std::string::npos);
  EXPECT_NE(refusal(b), "accepted");
  b = good;
  // Histogram 1's header section: its id and instance after a size of 62..199 bytes (the
  // group's index repeats id and instance after an offset of 0).
  std::size_t hdr = 0;
  for (std::size_t i = 0; i + 12 <= b.size(); ++i)
    if (b[i] >= 62 && b[i] < 200 && b[i + 1] == 0 && b[i + 4] == 0x02 && b[i + 5] == 0x00 && b[i + 6] == 0x02 && b[i + 7] == 0x01 && b[i + 8] == 1 && b[i + 9] == 0) {
      hdr = i;
      break;
    }
  ASSERT_GT(hdr, 0u);
  put32(b, hdr + 12 + 8, 0x7FFFFFFFu);
  EXPECT_EQ(refusal(b), "MUD 'bad.msr': histogram 1 has 2147483647 bins (1..16777216)");
  put32(b, hdr + 12 + 8, 12800);
  put32(b, hdr + 12 + 12, 3);
  EXPECT_EQ(refusal(b), "MUD 'bad.msr': histogram 1 bytes per bin 3 is not 0, 1, 2 or 4");
  put32(b, hdr + 12 + 12, 4);  // fixed 4-byte bins need 51200 bytes; the packed data hold 21001
  EXPECT_EQ(refusal(b), "MUD 'bad.msr': histogram 1: 12800 bins of 4 bytes need 51200 bytes, its data section holds 21001");
  EXPECT_NE(refusal({}), "accepted");
}

TEST(MusrMud, NotARegularFile) {
  test::TempDir tmp("musr-mud");
  EXPECT_THROW((void)read_mud(tmp.dir), InputError);
  EXPECT_THROW((void)read_mud(tmp.dir / "none.msr"), InputError);
}

}  // namespace
}  // namespace tomo::musr
