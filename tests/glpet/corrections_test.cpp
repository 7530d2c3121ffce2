// glpet's forward-model terms (docs/pet.md) on Monte-Carlo data that carry the effects, cpu,
// gl-compute and gl: a per-LOR efficiency pattern, randoms and scatter put into the histogram by
// the simulator's effects are removed by the normalisation and additive terms; an attenuating
// cylinder reconstructs flat with σ_t in the system model and with a dip at its centre without.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"
#include "compute/glpet/measure.hpp"
#include "compute/io/nifti.hpp"

#include "tests/glpet/corrections_case.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

using test::Case;
using test::kCyl;
using test::mean_in;
using test::recon;
using test::the_case;

class GlpetCorrections : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "cpu") (void)tomo::test::gl_context();
  }
};

TEST_P(GlpetCorrections, NormalisationRemovesAnEfficiencyPattern) {
  const Case& c = the_case();
  McEffects fx;
  fx.efficiency = test::efficiency_pattern(c.clean.size());
  fx.seed = 3;
  std::vector<float> y = c.clean;
  apply_effects(y, fx);
  const pet::ForwardTerms n{.multiplicative = fx.efficiency, .additive = {}};
  const auto x_clean = recon(GetParam(), c.sys, c.clean, nullptr);
  const auto x_corr = recon(GetParam(), c.sys, y, &n);
  const auto x_none = recon(GetParam(), c.sys, y, nullptr);
  const double e_clean = relative_l2(x_clean, c.truth), e_corr = relative_l2(x_corr, c.truth),
               e_none = relative_l2(x_none, c.truth);
  std::printf("glpet %s relative L2 to the emitted pairs: clean %.4f, efficiency pattern normalised %.4f, not %.4f\n",
              GetParam().c_str(), e_clean, e_corr, e_none);
  EXPECT_LT(e_corr, e_clean + 0.02);
  EXPECT_GT(e_none, e_clean + 0.06);
}

TEST_P(GlpetCorrections, RandomsAndScatterTermsRemoveTheBackground) {
  const Case& c = the_case();
  McEffects fx{.efficiency = {}, .randoms_fraction = 0.2, .scatter_fraction = 0.15, .seed = 4};
  std::vector<float> y = c.clean;
  const McEffectCounts k = apply_effects(y, fx);
  EXPECT_NEAR((k.randoms + k.scattered) / (k.trues + k.randoms + k.scattered), 0.35, 0.01);
  double prompts = 0;
  for (float v : y) prompts += v;
  const pet::ForwardTerms rs{.multiplicative = {}, .additive = std::vector<double>(y.size(), 0.35 * prompts / double(y.size()))};
  const auto x_clean = recon(GetParam(), c.sys, c.clean, nullptr);
  const auto x_corr = recon(GetParam(), c.sys, y, &rs);
  const auto x_none = recon(GetParam(), c.sys, y, nullptr);
  const double e_clean = relative_l2(x_clean, c.truth), e_corr = relative_l2(x_corr, c.truth),
               e_none = relative_l2(x_none, c.truth);
  // The cylinder's mean against the emitted pairs': the uncorrected image takes the background in.
  const auto level = [&](const std::vector<double>& x) {
    return (mean_in(x, c.centre) + mean_in(x, c.edge)) / (mean_in(c.truth, c.centre) + mean_in(c.truth, c.edge));
  };
  std::printf("glpet %s relative L2 to the emitted pairs: clean %.4f, randoms+scatter corrected %.4f, not %.4f; "
              "cylinder level %.3f, %.3f, %.3f\n",
              GetParam().c_str(), e_clean, e_corr, e_none, level(x_clean), level(x_corr), level(x_none));
  // The terms hold the exact means of the added counts, whose Poisson noise remains.
  EXPECT_LT(e_corr, e_none - 0.08);
  // EM with additive terms converges more slowly: after 6 iterations the level is about 10 %
  // below the clean data's, the uncorrected one 25 % above.
  EXPECT_LT(std::abs(level(x_corr) / level(x_clean) - 1), 0.15);
  EXPECT_GT(level(x_none) / level(x_clean), 1.15);
}

TEST_P(GlpetCorrections, AttenuationInTheSystemModelFlattensTheCylinder) {
  const Case& c = the_case();
  SystemModel att = c.sys;
  att.K = 32;
  for (int k = 0; k < att.grid.dims[2]; ++k)
    for (int j = 0; j < att.grid.dims[1]; ++j)
      for (int i = 0; i < att.grid.dims[0]; ++i) {
        const auto p = att.grid.centre(i, j, k);
        if (std::hypot(p[0], p[1]) < kCyl) att.sigma_t.at(i, j, k) = 0.05f;  // 0.5 cm⁻¹
      }
  const std::vector<float> y = c.counts(att.sigma_t, 22);
  const auto x_clean = recon(GetParam(), c.sys, c.clean, nullptr);
  const auto x_ac = recon(GetParam(), att, y, nullptr);
  const auto x_nac = recon(GetParam(), c.sys, y, nullptr);
  const auto flat = [&](const std::vector<double>& x) { return mean_in(x, c.centre) / mean_in(x, c.edge); };
  std::printf("glpet %s centre/edge: no attenuation %.3f, attenuated with AC %.3f, without %.3f\n", GetParam().c_str(),
              flat(x_clean), flat(x_ac), flat(x_nac));
  // The projector integrates σ_t by K ray-marching samples per line (docs/glpet.md): at 0.5 cm⁻¹
  // over a 24 mm chord K = 8 overcorrects the centre by 0.4 and K = 32 leaves 0.1.
  EXPECT_LT(std::abs(flat(x_ac) - flat(x_clean)), 0.15);
  EXPECT_LT(flat(x_nac), flat(x_clean) - 0.3);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlpetCorrections, ::testing::Values("cpu", "gl-compute", "gl"),
                         [](const auto& info) {
                           return info.param == "cpu" ? std::string("cpu") : info.param == "gl" ? "gl" : "gl_compute";
                         });

}  // namespace
}  // namespace tomo::glpet

namespace tomo::glpet {
namespace {

// The `--set` assignments of the command in docs/pet.md's corrections example.
std::vector<std::string> docs_example_sets() {
  std::ifstream in(std::filesystem::path(TOMO_SOURCE_DIR) / "docs" / "pet.md");
  std::string line;
  bool inside = false;
  std::vector<std::string> sets;
  while (std::getline(in, line)) {
    if (line.find("<!-- example: glpet corrections -->") != std::string::npos) inside = true;
    else if (inside && line.rfind("```", 0) == 0 && !sets.empty()) break;
    else if (inside)
      for (std::size_t at = line.find("--set "); at != std::string::npos; at = line.find("--set ", at + 6)) {
        const std::size_t b = at + 6, e = line.find(' ', b);
        sets.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
      }
  }
  return sets;
}

TEST(GlpetCorrectionKeys, TheDocsExampleSimulatesTheEffectsAndReadsTheTerms) {
  const std::vector<std::string> sets = docs_example_sets();
  ASSERT_EQ(sets.size(), 4u);
  Scene s = Scene::load_file(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "glpet_small.toml");
  for (const std::string& a : sets) s.apply_override(a);
  s.apply_override("glpet.mc.histories=200000");
  Scene plain = Scene::load_file(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "glpet_small.toml");
  plain.apply_override("glpet.mc.histories=200000");
  const Measurement m = measure(s), trues = measure(plain);
  EXPECT_DOUBLE_EQ(m.scene.corrections.randoms.fraction, 0.2);
  EXPECT_DOUBLE_EQ(m.scene.corrections.scatter.fraction, 0.1);
  EXPECT_DOUBLE_EQ(m.scene.mc_effects.randoms_fraction, 0.2);
  EXPECT_DOUBLE_EQ(m.scene.mc_effects.scatter_fraction, 0.1);
  // The same trues (same seed) and 20 % + 10 % of the prompts added as background.
  double prompts = 0, t = 0;
  for (float c : m.mc.counts) prompts += c;
  for (float c : trues.mc.counts) t += c;
  EXPECT_NEAR(t / prompts, 0.7, 0.01);
}

TEST(GlpetCorrectionKeys, AMuMapAddsToSigmaT) {
  const auto dir = std::filesystem::temp_directory_path() / "tomo_glpet_mu";
  std::filesystem::create_directories(dir);
  Scene s = Scene::load_file(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "glpet_small.toml");
  const GlpetScene plain = read_glpet_scene(s);
  VolumeF mu(plain.system.grid, 0.25f);  // cm⁻¹ on the run's grid
  write_nifti(dir / "mu.nii", mu);
  s.apply_override("glpet.attenuation_map=\"" + (dir / "mu.nii").string() + "\"");
  const GlpetScene g = read_glpet_scene(s);
  for (std::size_t v = 0; v < g.system.sigma_t.data.size(); v += 97)
    EXPECT_NEAR(g.system.sigma_t.data[v], plain.system.sigma_t.data[v] + 0.025f, 1e-6f);
  // A negative μ is refused, naming the key and the file.
  mu.data[5] = -1.0f;
  write_nifti(dir / "bad.nii", mu);
  s.apply_override("glpet.attenuation_map=\"" + (dir / "bad.nii").string() + "\"");
  try {
    read_glpet_scene(s);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("glpet.attenuation_map '" + (dir / "bad.nii").string() + "': voxel 5 has mu = -1"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tomo::glpet
