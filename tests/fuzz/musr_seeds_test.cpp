// The μSR format seeds decode to the values they were laid out with: the MUD seed's zero run,
// one- and two-byte packed runs and fixed four-byte bins, the ROOT seed's uncompressed objects
// and class references, the NeXus seeds' per-spectrum t0 in HDF5 and HDF4 (paths the example files do
// not all take).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compute/musr/bmw/pippard.hpp"
#include "compute/musr/bmw/startup.hpp"
#include "compute/musr/mud.hpp"
#include "compute/musr/root_run.hpp"
#include "compute/musr/nexus.hpp"
#include "tests/fuzz/musr_seeds.hpp"
#include "tests/fuzz/seeds.hpp"

namespace tomo::fuzz {
namespace {

TEST(MusrSeeds, MudPackedAndFixedBins) {
  const auto b = musr_seed::mud_run();
  const musr::RunData f = musr::parse_mud(b, "seed");
  EXPECT_EQ(f.run_number, 7);
  EXPECT_EQ(f.title, "seed run");
  EXPECT_EQ(f.temperature, "10.0(0.1)K");
  ASSERT_EQ(f.histograms.size(), 2u);
  EXPECT_EQ(f.bins(), 64);
  EXPECT_EQ(f.histograms[0][4], 0);    // the run of 5 zeros
  EXPECT_EQ(f.histograms[0][5], 1);    // one-byte bins 1..50
  EXPECT_EQ(f.histograms[0][54], 50);
  EXPECT_EQ(f.histograms[0][55], 0x0110);  // two-byte bins
  EXPECT_EQ(f.histograms[0][63], 0x0110);
  EXPECT_EQ(f.histograms[1][0], 1000);  // fixed four-byte bins
  EXPECT_EQ(f.histograms[1][63], 937);
  EXPECT_EQ(f.t0, (std::vector<int>{5, 5}));
  EXPECT_EQ(f.first_good, (std::vector<int>{8, 8}));
  EXPECT_EQ(f.last_good, (std::vector<int>{63, 63}));
}

TEST(MusrSeeds, RootUncompressedRun) {
  const auto b = musr_seed::root_run();
  const musr::RunData f = musr::parse_root_run(b, "seed");
  EXPECT_EQ(f.format, "MUSR-ROOT");
  EXPECT_EQ(f.run_number, 7);
  EXPECT_EQ(f.temperature, "5 +- 0.1 K");
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.1953125e-3);
  ASSERT_EQ(f.histograms.size(), 2u);
  EXPECT_EQ(f.bins(), 12);
  EXPECT_EQ(f.histograms[0][0], 101);
  EXPECT_EQ(f.histograms[1][11], 212);
  EXPECT_EQ(f.t0, (std::vector<int>{2, 3}));
  EXPECT_EQ(f.first_good, (std::vector<int>{3, 0}));
  EXPECT_EQ(f.last_good, (std::vector<int>{11, 11}));
}

#ifdef TOMO_HAVE_HDF5
TEST(MusrSeeds, NexusDefinition2) {
  const auto b = musr_seed::nexus_run();
  EXPECT_TRUE(musr_nexus(b.data(), b.size()));
  MemoryFile m(b.data(), b.size());
  const musr::RunData f = musr::read_nexus(m.path());
  EXPECT_EQ(f.run_number, 17);
  ASSERT_EQ(f.histograms.size(), 2u);
  EXPECT_EQ(f.bins(), 50);
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.016);
  EXPECT_EQ(f.t0, (std::vector<int>{3, 4}));
  EXPECT_EQ(f.first_good, (std::vector<int>{6, 6}));
  EXPECT_EQ(f.last_good, (std::vector<int>{49, 50}));
  EXPECT_EQ(f.histograms[1][0], 1001);
  EXPECT_EQ(f.histograms[0][49], 1000 - 9 * 49);
}

// The definition-1 seed (libhdf4) reads as the same run; a build without libhdf4 has none.
TEST(MusrSeeds, NexusDefinition1) {
  const auto b = musr_seed::nexus_hdf4_run();
  if (!musr::nexus_has_hdf4()) {
    EXPECT_TRUE(b.empty());
    return;
  }
  ASSERT_FALSE(b.empty());
  EXPECT_TRUE(musr_nexus(b.data(), b.size()));
  MemoryFile m(b.data(), b.size());
  const musr::RunData f = musr::read_nexus(m.path());
  EXPECT_EQ(f.run_number, 17);
  EXPECT_EQ(f.title, "fuzz seed");
  ASSERT_EQ(f.histograms.size(), 2u);
  EXPECT_EQ(f.bins(), 50);
  EXPECT_DOUBLE_EQ(f.bin_width_us, 0.016);  // 16000 picoseconds
  EXPECT_EQ(f.t0, (std::vector<int>{3, 4}));
  EXPECT_EQ(f.first_good, (std::vector<int>{6, 6}));
  EXPECT_EQ(f.last_good, (std::vector<int>{49, 50}));
  EXPECT_EQ(f.histograms[1][0], 1001);
  EXPECT_EQ(f.histograms[0][49], 1000 - 9 * 49);
  // The corpus holds it beside the HDF5 seed.
  EXPECT_EQ(seeds().at("musr_nexus").size(), 2u);
}
#endif

}  // namespace
}  // namespace tomo::fuzz

namespace tomo::fuzz {
namespace {

// The BMW_startup.xml seed is one parse_bmw_startup reads, not only a text another parser of the
// target takes: its values come back.
TEST(MusrSeeds, BmwStartupIsRead) {
  const auto b = musr_seed::bmw_startup();
  const auto s = musr::bmw::parse_bmw_startup(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), "seed");
  EXPECT_EQ(s.vortex_grid, 64);
  EXPECT_DOUBLE_EQ(s.delta_t, 0.01);
  EXPECT_DOUBLE_EQ(s.delta_b, 0.1);
  ASSERT_EQ(s.energies_kev.size(), 1u);
  EXPECT_EQ(s.energy_labels[0], "1");
  EXPECT_EQ(s.n_theory, 100);
}

// The nonlocal_startup.xml seed, beside the profile seed as fuzz_E1000.rge, gives the native
// PNL_PippardFitter: its fourier_points and TRIM.SP list are read.
TEST(MusrSeeds, NonlocalStartupIsRead) {
  const auto dir = std::filesystem::temp_directory_path() / ("tomo_nonlocal_seed_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const musr_seed::Bytes& b) {
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  };
  write("nonlocal_startup.xml", musr_seed::nonlocal_startup());
  write("fuzz_E1000.rge", musr_seed::rge_profile());
  const auto f = musr::bmw::pippard_function(dir / "nonlocal_startup.xml");
  EXPECT_EQ(f->name, "PNL_PippardFitter");
  EXPECT_EQ(f->arity_error(9), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tomo::fuzz
