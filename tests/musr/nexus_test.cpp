// NeXus runs: musrfit's ISIS examples of both instrument definitions read into the common run
// (values cross-checked with a separate libhdf4/libhdf5 program reading the same datasets),
// the child-process hand-over, and refusals of damaged files.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <numeric>

#include "compute/core/error.hpp"
#include "compute/musr/isolated_run.hpp"
#include "compute/musr/nexus.hpp"
#include "compute/musr/run_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

const std::filesystem::path kExamples = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit";

std::int64_t total(const std::vector<std::int32_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t(0)); }

std::string refusal(const std::filesystem::path& p) {
  try {
    (void)read_run_file(p, "NEXUS");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

#ifdef TOMO_HAVE_HDF5
TEST(MusrNexus, Definition2Hdf5) {
  const RunData f = read_run_file(kExamples / "data/EMU00005989_v2.nxs", "nexus");
  EXPECT_EQ(f.format, "NEXUS");
  EXPECT_EQ(f.run_number, 5989);
  EXPECT_EQ(f.title, "nc-ZnO T=80 F=69");
  EXPECT_EQ(f.sample, "nc-ZnO");
  EXPECT_EQ(f.lab, "ISIS");
  EXPECT_EQ(f.area, "EMU");
  EXPECT_EQ(f.temperature, "80 Kelvin");
  EXPECT_EQ(f.field, "69 Gauss");
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.016);  // 16 nano.second
  ASSERT_EQ(f.histograms.size(), 64u);
  EXPECT_EQ(f.bins(), 2000);
  EXPECT_EQ(f.t0[0], 16);
  EXPECT_EQ(f.t0[63], 16);
  EXPECT_EQ(f.first_good[0], 23);
  EXPECT_EQ(f.last_good[0], 2000);
  EXPECT_EQ(total(f.histograms[0]), 549258);
  EXPECT_EQ(total(f.histograms[63]), 164958);
  EXPECT_EQ(f.histograms[0][16], 3236);
  EXPECT_EQ(f.histograms[0][18], 3988);
  EXPECT_EQ(f.histograms[32][500], 123);
}

TEST(MusrNexus, DamagedHdf5IsOneLine) {
  test::TempDir tmp("musr-nexus");
  std::ifstream in(kExamples / "data/EMU00005989_v2.nxs", std::ios::binary);
  std::vector<char> b{std::istreambuf_iterator<char>(in), {}};
  b.resize(4096);  // the signature stays, the objects are gone
  std::ofstream(tmp.dir / "cut.nxs", std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
  const std::string e = refusal(tmp.dir / "cut.nxs");
  EXPECT_NE(e.find("cut.nxs"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}
#endif

TEST(MusrNexus, Definition1Hdf4) {
  if (!nexus_has_hdf4()) {
    EXPECT_NE(refusal(kExamples / "data/32482.NXS").find("this build has no HDF4 library"), std::string::npos);
    return;
  }
  const RunData f = read_run_file(kExamples / "data/32482.NXS", "NEXUS");
  EXPECT_EQ(f.run_number, 32482);
  EXPECT_EQ(f.title, "Temperature = 300 K, Magnetic Field = 20 Gauss, Sample = CAS");
  EXPECT_EQ(f.lab, "ISIS");
  EXPECT_EQ(f.area, "MUSR");
  EXPECT_EQ(f.temperature, "300 kelvin");
  EXPECT_EQ(f.field, "20 gauss");
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.016);  // 16000 picoseconds
  ASSERT_EQ(f.histograms.size(), 32u);
  EXPECT_EQ(f.bins(), 1500);
  EXPECT_EQ(f.t0, std::vector<int>(32, 40));
  EXPECT_EQ(f.first_good[31], 49);
  EXPECT_EQ(f.last_good[0], 1500);
  EXPECT_EQ(total(f.histograms[0]), 301183);
  EXPECT_EQ(total(f.histograms[31]), 278816);
  EXPECT_EQ(f.histograms[0][40], 1244);
  EXPECT_EQ(f.histograms[0][42], 1976);
  EXPECT_EQ(f.histograms[16][100], 1254);
}

// A damaged definition-1 file: libhdf4 in the child, its failure one line naming the file (a
// build without libhdf4 refuses it in one line too).
TEST(MusrNexus, DamagedHdf4IsOneLine) {
  test::TempDir tmp("musr-nexus");
  std::ifstream in(kExamples / "data/32482.NXS", std::ios::binary);
  std::vector<char> b{std::istreambuf_iterator<char>(in), {}};
  ASSERT_GT(b.size(), 8192u);
  for (const std::size_t keep : {std::size_t(4096), b.size() / 2}) {  // the signature stays, the data descriptors or blocks go
    std::vector<char> cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(keep));
    std::ofstream(tmp.dir / "cut.nxs", std::ios::binary).write(cut.data(), static_cast<std::streamsize>(cut.size()));
    const std::string e = refusal(tmp.dir / "cut.nxs");
    EXPECT_NE(e.find("NeXus data '" + (tmp.dir / "cut.nxs").string() + "'"), std::string::npos) << keep << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(MusrNexus, NotNexus) {
  test::TempDir tmp("musr-nexus");
  std::ofstream(tmp.dir / "x.nxs") << "plain text, not HDF";
  EXPECT_EQ(refusal(tmp.dir / "x.nxs"), "NeXus data '" + (tmp.dir / "x.nxs").string() + "': neither an HDF5 nor an HDF4 file (signature)");
  EXPECT_NE(refusal(tmp.dir), "accepted");
  EXPECT_DOUBLE_EQ(nexus_time_us(16000, "picoseconds"), 0.016);
  EXPECT_DOUBLE_EQ(nexus_time_us(16, "nano.second"), 0.016);
  EXPECT_LT(nexus_time_us(16, "furlong"), 0.0);
}

TEST(MusrNexus, ChildHandsBackRunsAndErrors) {
  RunData r;
  r.bin_width_us = 0.016;
  r.run_number = 12;
  r.title = "t";
  r.histograms = {{1, 2, 3}, {4, 5, 6}};
  r.t0 = {1, 1};
  r.first_good = {1, 2};
  r.last_good = {2, 2};
  r.events = {6, 15};
  r.labels = {"a", "b"};
  const RunData g = read_run_isolated("x", "test", [&] { return r; });
  EXPECT_EQ(g.histograms, r.histograms);
  EXPECT_EQ(g.first_good, r.first_good);
  EXPECT_EQ(g.labels, r.labels);
  EXPECT_EQ(g.run_number, 12);
  EXPECT_DOUBLE_EQ(g.bin_width_us, 0.016);
  try {
    (void)read_run_isolated("x", "test", []() -> RunData { throw InputError("bad field"); });
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "bad field");
  }
  try {
    (void)read_run_isolated("f.nxs", "HDF5", []() -> RunData { std::abort(); });
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.nxs: malformed file: the HDF5 library failed reading it (signal 6)");
  }
}

// A library that never returns on a malformed file (libhdf4 spins on some the fuzzer made) is
// stopped after the time limit (5 s for a file that is not there or small) with one line.
TEST(MusrNexus, AReaderThatNeverReturnsIsStopped) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)read_run_isolated("spin.nxs", "HDF4", []() -> RunData {
      for (volatile unsigned long k = 0;; k = k + 1) {
      }
    });
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "spin.nxs: malformed file: the HDF4 library did not finish reading it in 5 s (stopped)");
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(s, 5.0);
  EXPECT_LT(s, 8.0);
}

}  // namespace
}  // namespace tomo::musr
