// ROOT runs: musrfit's MusrRoot and LEM (ROOT-NPP) examples read into the common run (bin
// values cross-checked by decoding the zlib blocks apart from the reader), and refusals of
// damaged files naming the key or field.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/musr/root_file.hpp"
#include "compute/musr/root_run.hpp"
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
    (void)parse_root_run(b, "bad.root");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::int64_t total(const std::vector<std::int32_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t(0)); }

TEST(MusrRoot, MusrRootRunHeaderAndRedGreenHistograms) {
  const RunData f = read_run_file(kExamples / "data/lem12_his_2466.root", "MUSR-ROOT");
  EXPECT_EQ(f.format, "MUSR-ROOT");
  EXPECT_EQ(f.run_number, 2466);
  EXPECT_EQ(f.lab, "PSI");
  EXPECT_EQ(f.area, "LEM");
  EXPECT_EQ(f.sample, "LSCO x=0.02 (224-227)");
  EXPECT_EQ(f.temperature, "11.999 +- 0.009 K");
  EXPECT_EQ(f.field, "49.11 +- 0.02 G");
  EXPECT_EQ(f.title.rfind("LSCO x=0.02 (224-227), T=12.00 (K)", 0), 0u) << f.title;
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.1953125e-3);
  // RedGreen offsets 0 and 20 of 8 histograms: numbers 1..8 and 21..28, 9..20 empty.
  ASSERT_EQ(f.histograms.size(), 28u);
  EXPECT_EQ(f.bins(), 66601);
  EXPECT_EQ(f.t0[0], 2741);
  EXPECT_EQ(f.first_good[0], 2741);
  EXPECT_EQ(f.last_good[0], 66600);
  EXPECT_EQ(f.labels[0], "e+ Left D(F) Run lem12_2466");
  EXPECT_EQ(total(f.histograms[0]), 521957);
  EXPECT_EQ(f.histograms[0][2740], 67);
  EXPECT_EQ(f.histograms[0][2742], 50);
  EXPECT_EQ(f.histograms[0][3418], 51);
  EXPECT_EQ(total(f.histograms[10]), 0);
  EXPECT_GT(total(f.histograms[27]), 0);
  EXPECT_EQ(f.histograms[27].size(), 66601u);
}

TEST(MusrRoot, LemRunHeaderAndPostPileupHistograms) {
  const RunData f = read_run_file(kExamples / "data/lem08_his_2279.root", "ROOT-NPP");
  EXPECT_EQ(f.format, "ROOT-NPP");
  EXPECT_EQ(f.run_number, 2279);
  EXPECT_EQ(f.temperature, "4.58956 K");  // the header's text entry rounds it: "Sample T: 4.59"
  EXPECT_EQ(f.field, "28.0366 G");        // "Sample B: 28.04(0.13)"
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.1953125e-3);
  ASSERT_EQ(f.histograms.size(), 24u);  // 4 histograms, their post-pile-up copies at 21..24
  EXPECT_EQ(f.bins(), 66601);
  EXPECT_EQ(f.t0, (std::vector<int>{3419, 3419, 3419, 3419, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3419, 3419, 3419, 3419}));
  EXPECT_EQ(f.first_good[0], 3419);
  EXPECT_EQ(f.last_good[0], 66600);
  EXPECT_EQ(total(f.histograms[0]), 1337921);
  EXPECT_EQ(f.histograms[0][2740], 2);
  EXPECT_EQ(f.histograms[0][3419], 111);
  EXPECT_EQ(total(f.histograms[4]), 0);
  // TLemRunHeader version 5 (one field more) in another example.
  const RunData g = read_run_file(kExamples / "ASlibs/data/lem10_his_0825.root", "ROOT-NPP");
  EXPECT_EQ(g.run_number, 825);
  EXPECT_GE(g.histograms.size(), 4u);
  EXPECT_EQ(g.t0[0], 3289);  // test-nonlocal.msr's t0
}

TEST(MusrRoot, DamagedFilesAreRefusedNamingTheField) {
  const auto good = bytes_of(kExamples / "data/lem12_his_2466.root");
  ASSERT_EQ(good.size(), 1035391u);
  EXPECT_EQ(refusal({good.begin(), good.begin() + 40}), "ROOT 'bad.root': does not start with \"root\" (not a ROOT file)");
  auto b = good;
  b[8] = 0x7F;  // first key far beyond the end
  EXPECT_EQ(refusal(b), "ROOT 'bad.root': first key at byte 2130706532 is outside the file");
  b = good;
  b[344 + 1] = 0x7F;  // the histos key's length
  EXPECT_EQ(refusal(b).rfind("ROOT 'bad.root': key at byte 344 has length ", 0), 0u) << refusal(b);
  b = good;
  b[344 + 6] = 0x3F;  // the histos object's claimed length: far more than zlib can expand to
  EXPECT_EQ(refusal(b).rfind("ROOT 'bad.root': object 'histos'", 0), 0u) << refusal(b);
  b = good;
  b[344 + 67] = 'L';
  b[344 + 68] = '4';  // a zlib block labelled LZ4: its first 8 bytes are no checksum of the rest
  EXPECT_NE(refusal(b).find("object 'histos': LZ4 block at byte 0 fails its XXH64 checksum"), std::string::npos) << refusal(b);
  b[344 + 67] = 'Q';
  b[344 + 68] = 'Q';
  EXPECT_NE(refusal(b).find("object 'histos': compression 'QQ' block at byte 0 is not zlib, LZ4, ZSTD or xz"), std::string::npos)
      << refusal(b);
  b = good;
  b[344 + 67 + 9 + 40] ^= 0xFF;  // inside the first zlib block
  EXPECT_NE(refusal(b).find("object 'histos'"), std::string::npos) << refusal(b);
  b = {good.begin(), good.begin() + 500000};
  EXPECT_NE(refusal(b), "accepted");
}

// ROOT's four compression algorithms: one TH1F written by uproot (an independent writer,
// tests/musr/reference/root_compression_files.py) uncompressed and with zlib, LZ4, ZSTD and xz
// decompresses to the uncompressed file's object bytes; a damaged block is one line.
TEST(MusrRoot, ZlibLz4ZstdAndXzObjectsDecompressToTheSameBytes) {
  const std::filesystem::path dir = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/root_compression";
  auto object = [&](const std::string& name, std::vector<std::uint8_t>* file = nullptr) {
    const auto b = bytes_of(dir / ("th1f_" + name + ".root"));
    if (file) *file = b;
    const root::File f(b, name);
    const root::Key* k = f.find("hDecay001");
    EXPECT_NE(k, nullptr) << name;
    return k ? f.object(*k) : std::vector<std::uint8_t>{};
  };
  const auto plain = object("none");
  ASSERT_EQ(plain.size(), 16549u);
  for (const char* name : {"zlib", "lz4", "zstd", "lzma"}) {
    std::vector<std::uint8_t> file;
    const auto got = object(name, &file);
    EXPECT_EQ(got, plain) << name;
    EXPECT_LT(file.size(), bytes_of(dir / "th1f_none.root").size()) << name << " is not compressed";
  }
  // The LZ4 file's histogram block: flip a byte of the LZ4 data, the XXH64 checksum fails.
  std::vector<std::uint8_t> lz4;
  (void)object("lz4", &lz4);
  const root::File f(lz4, "lz4");
  const root::Key* k = f.find("hDecay001");
  ASSERT_NE(k, nullptr);
  const std::size_t block = k->pos + k->key_bytes;
  ASSERT_EQ(lz4[block], 'L');
  ASSERT_EQ(lz4[block + 1], '4');
  lz4[block + 9 + 8 + 100] ^= 0x55;
  try {
    (void)root::File(lz4, "lz4").object(*k);
    ADD_FAILURE() << "a damaged LZ4 block was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "ROOT 'lz4': object 'hDecay001': LZ4 block at byte 0 fails its XXH64 checksum");
  }
}

TEST(MusrRoot, NotARegularFile) {
  test::TempDir tmp("musr-root");
  EXPECT_THROW((void)read_root_run(tmp.dir), InputError);
}

}  // namespace
}  // namespace tomo::musr
