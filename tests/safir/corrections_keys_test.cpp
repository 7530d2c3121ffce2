// safir's correction keys (docs/pet.md) through a whole cpu run: bad values stop the run naming
// the key and the file, and a run with a μ-map, crystal efficiencies and a scatter fraction
// completes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/scene.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/safir/list_io.hpp"
#include "compute/safir/scanner.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::safir {
namespace {

namespace fs = std::filesystem;

// 8 rings of 32 crystals (256), a 12 x 12 x 8 image of 1 mm, 2000 simulated events.
Scene scene(const std::string& body) {
  return Scene::load_string("problem = \"safir\"\n[safir]\nrings = 8\ncrystals = 32\nvoxel_mm = 1.0\niterations = 2\n"
                            "image = [12, 12, 8]\nevents = 2000\n" + body,
                            "s.toml");
}

void write_values(const fs::path& f, const std::vector<float>& v) {
  const std::size_t shape[] = {v.size()};
  write_npy(f, v, shape);
}

TEST(SafirCorrectionKeys, BadValuesStopTheRunNamingTheKey) {
  test::TempDir t;
  EXPECT_EQ(test::run_error("safir", scene("randoms.fraction = 0.5\nscatter.fraction = 0.6\n"), t.dir / "a"),
            "s.toml: key 'safir.scatter.fraction': randoms and scatter fractions add up to 1.1; the prompts would hold no trues");
  EXPECT_EQ(test::run_error("safir", scene("halve_events = true\nrandoms.fraction = 0.1\n"), t.dir / "b"),
            "s.toml: key 'safir.halve_events' runs the backend's own ML-EM, without the correction terms");
  write_values(t.dir / "eff.npy", std::vector<float>(100, 1.0f));
  EXPECT_EQ(test::run_error("safir", scene("normalisation = \"" + (t.dir / "eff.npy").string() + "\"\n"), t.dir / "c"),
            "safir.normalisation '" + (t.dir / "eff.npy").string() + "': 100 values, expected 256");
  std::vector<float> eff(256, 1.0f);
  eff[7] = 0.0f;
  write_values(t.dir / "eff0.npy", eff);
  EXPECT_EQ(test::run_error("safir", scene("normalisation = \"" + (t.dir / "eff0.npy").string() + "\"\n"), t.dir / "d"),
            "safir.normalisation '" + (t.dir / "eff0.npy").string() + "': value 7 is 0; it must be > 0");
  EXPECT_NE(test::run_error("safir", scene("attenuation_map = \"" + t.dir.string() + "\"\n"), t.dir / "e").find(t.dir.string()),
            std::string::npos);
  EXPECT_NE(test::run_error("safir", scene("scatter_fraction = 0.95\n"), t.dir / "f").find("safir.scatter_fraction"),
            std::string::npos);
}

TEST(SafirCorrectionKeys, ARunWithAllTermsCompletes) {
  test::TempDir t;
  VolumeF mu(Grid3::centred({24, 24, 24}, {1.0, 1.0, 1.0}), 0.096f);  // water, cm⁻¹
  write_nifti(t.dir / "mu.nii", mu);
  std::vector<float> eff(256, 1.0f);
  for (std::size_t i = 0; i < eff.size(); i += 3) eff[i] = 0.8f;
  write_values(t.dir / "eff.npy", eff);
  const Scene s = scene("scatter_fraction = 0.1\nscatter.fraction = 0.1\nattenuation_map = \"" +
                        (t.dir / "mu.nii").string() + "\"\nnormalisation = \"" + (t.dir / "eff.npy").string() +
                        "\"\nalgorithm = \"osem\"\nsubsets = 2\n");
  EXPECT_EQ(test::run_error("safir", s, t.dir / "out"), "");
}

// The run's CASToR list-mode carries its terms as CASToR's per-event fields: NCF = 1/(ε_a·ε_b·
// exp(−∫μ)) varying with the LOR, and randoms + scatter as a rate (counts / duration) per event.
TEST(SafirCorrectionKeys, TheCastorListModeCarriesTheRunsTerms) {
  test::TempDir t;
  VolumeF mu(Grid3::centred({24, 24, 24}, {1.0, 1.0, 1.0}), 0.096f);
  write_nifti(t.dir / "mu.nii", mu);
  std::vector<float> eff(256, 1.0f);
  for (std::size_t i = 0; i < eff.size(); i += 3) eff[i] = 0.8f;
  write_values(t.dir / "eff.npy", eff);
  const Scene s = scene("randoms.fraction = 0.1\nscatter.fraction = 0.1\nattenuation_map = \"" +
                        (t.dir / "mu.nii").string() + "\"\nnormalisation = \"" + (t.dir / "eff.npy").string() +
                        "\"\nwrite_events = \"castor\"\n");
  {
    runtime_options().progress = false;
    RunReport report;
    OutputDir out(t.dir / "out", false);
    RunContext ctx{s, "cpu", out, report};
    ProblemRegistry::instance().find("safir").run(ctx);
    out.commit();
  }
  Scanner sc;
  sc.rings = 8;
  sc.crystals = 32;
  CastorCorrections fields;
  const ListMode lm = read_castor(t.dir / "out" / "events.cdh", sc, &fields);
  ASSERT_EQ(lm.events.size(), 2000u);
  ASSERT_EQ(fields.normalisation.size(), lm.events.size());
  ASSERT_EQ(fields.random.size(), lm.events.size());
  EXPECT_TRUE(fields.attenuation.empty());  // the product goes into NCF alone
  // Every NCF ≥ 1 (efficiencies ≤ 1, attenuation ≤ 1); the 0.8 crystals and the chords make them differ.
  const auto [lo, hi] = std::minmax_element(fields.normalisation.begin(), fields.normalisation.end());
  EXPECT_GE(*lo, 1.0f);
  EXPECT_GT(*hi / *lo, 1.25f);
  // randoms + scatter fractions (20 % of the prompts) spread evenly over the LORs, as a rate.
  const double expected = 0.2 * double(lm.events.size()) / sc.lor_count();
  for (float r : fields.random) ASSERT_NEAR(r * lm.duration_s, expected, 1e-6 * expected);
}

}  // namespace
}  // namespace tomo::safir
