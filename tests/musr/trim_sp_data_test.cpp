// libFitPofB's TRIM.SP profiles (compute/musr/bmw/trim_sp_data.hpp) as the library reads them:
// the example's 22 keV file against the numbers of tests/musr/reference/london_hs_reference.py,
// the repeated last row, the appended zeros, the energy window, and the refusals.
#include <gtest/gtest.h>

#include <string>

#include "compute/musr/bmw/trim_sp_data.hpp"
#include "tests/musr/bmw_test_files.hpp"

namespace tomo::musr::test {
namespace {

using bmw::TrimSpProfile;

TEST(MusrTrimSpData, ReadsTheProfileAsTheLibrary) {
  const TrimSpProfile p = profile22();
  // 84 rows, the last (1586 Å) once more for the final newline, then zeros every 19 Å until one
  // reaches 2100 Å.
  ASSERT_EQ(p.depth_a.size(), 113u);
  EXPECT_EQ(p.depth_a[83], 1586.0);
  EXPECT_EQ(p.depth_a[84], 1586.0);
  EXPECT_EQ(p.depth_a[85], 1605.0);
  EXPECT_EQ(p.depth_a.back(), 2118.0);
  EXPECT_EQ(p.counts.back(), 0.0);
  // The reference script's numbers.
  EXPECT_DOUBLE_EQ(bmw::trim_sp_density(p, 10.5), 445.0);
  EXPECT_DOUBLE_EQ(bmw::trim_sp_density(p, 0.5), 53.0);
  EXPECT_EQ(bmw::trim_sp_density(p, 150.01), 0.0);
  EXPECT_EQ(bmw::trim_sp_density(p, -1.0), 0.0);
  EXPECT_EQ(bmw::trim_sp_density(p, 300.0), 0.0);
  EXPECT_NEAR(bmw::trim_sp_layer_fraction(p, 10.5), 0.00352616723414236, 1e-16);
  EXPECT_EQ(bmw::trim_sp_layer_fraction(p, 0.9), 0.0);
  // No final separator: no repeated row.
  const auto q = bmw::parse_trim_sp_profile("DEPTH PARTICLES\n10 1\n20 2\n30 3", 1.0, "q.rge");
  EXPECT_EQ(q.depth_a[3], 40.0);  // the first appended zero, ½(30 − 10) beyond the last row
  EXPECT_EQ(bmw::parse_trim_sp_profile("DEPTH PARTICLES\n10 1\n20 2\n30 3\n", 1.0, "q.rge").depth_a[3], 30.0);
}

TEST(MusrTrimSpData, RefusesWhatTheLibraryCannotRead) {
  auto err = [](const std::string& text) { return input_error_of([&] { (void)bmw::parse_trim_sp_profile(text, 1.0, "p.rge"); }); };
  EXPECT_EQ(err("DEPTH COUNTS\n10 1\n"), "p.rge: no PARTICLES header: not a TRIM.SP range file");
  EXPECT_EQ(err("PARTICLES\n10 1\n20 2\n30\n"), "p.rge: depth '30' has no particle count");
  EXPECT_EQ(err("PARTICLES\n10 1\n20 x\n30 3\n"), "p.rge: particle count 'x' is not a number");
  EXPECT_EQ(err("PARTICLES\n10 1\n20 2\n20 3\n"), "p.rge: depth 20 Å is not above the previous one");
  EXPECT_EQ(err("PARTICLES\n10 1\n20 -2\n30 3\n"), "p.rge: particle count -2 is negative");
  EXPECT_EQ(err("PARTICLES\n10 1\n20 2\n"), "p.rge: fewer than three depth rows");
  EXPECT_EQ(err("PARTICLES\n1e-9 1\n2e-9 2\n3e-9 3\n"), "p.rge: a depth step of 0.000000 Å needs more than 1000000 rows up to 2100 Å");
}

TEST(MusrTrimSpData, TheStartupFilesProfilesAndTheEnergyWindow) {
  const auto all = bmw::load_trim_sp_profiles(kBmwDir / "BMW_startup.xml");
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[8].energy_kev, 22.0);
  EXPECT_EQ(all[8], profile22());
  EXPECT_EQ(bmw::find_trim_sp_energy(all, 22.0), 8);
  EXPECT_EQ(bmw::find_trim_sp_energy(all, 22.049), 8);
  EXPECT_EQ(bmw::find_trim_sp_energy(all, 21.96), 8);
  EXPECT_EQ(bmw::find_trim_sp_energy(all, 22.05), -1);
  EXPECT_EQ(bmw::find_trim_sp_energy(all, 23.0), -1);
  // Sorted by energy, a repeated energy with its last label; a missing file is one line.
  BmwFolder f("<LEM><data_path>p-</data_path><energy_list><energy_label>b</energy_label><energy>2</energy>"
                  "<energy_label>a</energy_label><energy>1</energy><energy_label>c</energy_label><energy>2</energy>"
                  "</energy_list></LEM>\n");
  f.file("p-a.rge", "PARTICLES 10 1 20 2 30 3");
  f.file("p-c.rge", "PARTICLES 10 5 20 2 30 3");
  const auto two = bmw::load_trim_sp_profiles(f.dir / "BMW_startup.xml");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].energy_kev, 1.0);
  EXPECT_EQ(two[1].counts[0], 5.0);
  f.file("BMW_startup.xml", "<BMW><LEM><data_path>p-</data_path><energy_list><energy_label>z</energy_label><energy>2</energy>"
                            "</energy_list></LEM></BMW>");
  EXPECT_NE(input_error_of([&] { (void)bmw::load_trim_sp_profiles(f.dir / "BMW_startup.xml"); }).find("p-z.rge"), std::string::npos);
}

}  // namespace
}  // namespace tomo::musr::test
