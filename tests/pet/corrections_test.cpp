// The correction terms of the reconstruction layer (docs/pet.md): the μ-map's line integrals
// against exact path lengths, the EM ratios with the terms, and the scene keys' checks.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/npy.hpp"
#include "compute/pet/attenuation.hpp"
#include "compute/pet/corrections.hpp"

namespace tomo::pet {
namespace {

AttenuationMap cube(float mu_per_cm) {
  return AttenuationMap(VolumeF(Grid3::centred({10, 10, 10}, {2.0, 2.0, 2.0}), mu_per_cm), "cube");
}

TEST(AttenuationMap, LineIntegralsAreMuTimesPathLength) {
  const AttenuationMap m = cube(0.125f);  // a 20 mm cube of 0.125 cm⁻¹ (exact in float)
  // Along x through the centre: 20 mm = 2 cm → 0.25.
  EXPECT_NEAR(m.line_integral({-50, 0.3, 0.1}, {50, 0.3, 0.1}), 0.25, 1e-12);
  // The main diagonal: 20·√3 mm.
  EXPECT_NEAR(m.line_integral({-30, -30, -30}, {30, 30, 30}), 0.25 * std::sqrt(3.0), 1e-12);
  // A segment starting inside counts only its part: from the centre to beyond +x, 10 mm.
  EXPECT_NEAR(m.line_integral({0, 1, 1}, {40, 1, 1}), 0.125, 1e-12);
  // Outside the volume: 0; survival is exp(−∫μ).
  EXPECT_EQ(m.line_integral({-50, 30, 0}, {50, 30, 0}), 0.0);
  EXPECT_NEAR(m.survival({-50, 0, 0}, {50, 0, 0}), std::exp(-0.25), 1e-12);
}

TEST(AttenuationMap, OneHotVoxelCountsItsChord) {
  VolumeF v(Grid3::centred({3, 3, 3}, {1.0, 1.0, 1.0}), 0.0f);
  v.data[v.grid.index(1, 1, 1)] = 1.0f;  // 1 cm⁻¹ in the centre voxel
  const AttenuationMap m(v, "one voxel");
  // A line at 45° in the xy plane through the centre crosses it over √2 mm.
  EXPECT_NEAR(m.line_integral({-5, -5, 0}, {5, 5, 0}), std::sqrt(2.0) / 10, 1e-12);
}

TEST(AttenuationMap, NegativeOrNonFiniteMuIsRefused) {
  VolumeF v(Grid3::centred({2, 2, 2}, {1.0, 1.0, 1.0}), 0.0f);
  v.data[3] = -0.1f;
  try {
    AttenuationMap m(v, "glpet.attenuation_map 'mu.nii'");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "glpet.attenuation_map 'mu.nii': voxel 3 has mu = -0.1 (cm^-1); it must be finite and >= 0");
  }
}

TEST(EmTerms, ListModeRatioIsMOverExpectedCounts) {
  ForwardTerms t{.multiplicative = {0.5, 0.5, 0.25, 1.0}, .additive = {0.1, 0.2, 0.0, 0.0}};
  std::vector<double> v{2.0, 0.0};
  list_mode_ratio(v, t, 1);  // events 1 and 2
  EXPECT_DOUBLE_EQ(v[0], 0.5 / (0.5 * 2.0 + 0.2));
  EXPECT_DOUBLE_EQ(v[1], 0.0);  // ȳ = 0: no term
  std::vector<double> w{2.0, 3.0}, y{4.0, 0.0};
  binned_ratio(w, y, {.multiplicative = {}, .additive = {1.0, 1.0}});
  EXPECT_DOUBLE_EQ(w[0], 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(w[1], 0.0);
  std::vector<double> x{1.0, 2.0};
  em_update(x, std::vector<double>{3.0, 1.0}, std::vector<double>{1.5, 0.0});
  EXPECT_DOUBLE_EQ(x[0], 2.0);
  EXPECT_DOUBLE_EQ(x[1], 0.0);
}

std::string error_of(const std::string& text, const CorrectionSupport& support = {}) {
  try {
    read_correction_options(Scene::load_string(text, "scene.toml"), "glpet", support);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CorrectionKeys, BadValuesAreNamed) {
  EXPECT_EQ(error_of("[glpet]\nrandoms.fraction = 0.6\nscatter.fraction = 0.5\n"),
            "scene.toml: key 'glpet.scatter.fraction': randoms and scatter fractions add up to 1.1; the prompts would hold no trues");
  EXPECT_NE(error_of("[glpet]\nrandoms.fraction = 1.5\n").find("glpet.randoms.fraction"), std::string::npos);
  EXPECT_EQ(error_of("[glpet]\nscatter.fraction = 0.1\n", {.scatter = false}),
            "scene.toml: key 'glpet.scatter': this problem has no scatter term");
  EXPECT_EQ(error_of("[glpet]\nnormalisation = \"n.npy\"\n", {.normalisation = false}),
            "scene.toml: key 'glpet.normalisation': this problem has no such correction");
  EXPECT_NE(error_of("[glpet]\nattenuation_map = \"missing.nii\"\n").find("missing.nii"), std::string::npos);
  const CorrectionOptions o = read_correction_options(
      Scene::load_string("[glpet]\nrandoms.fraction = 0.25\n", "scene.toml"), "glpet");
  EXPECT_DOUBLE_EQ(o.randoms.fraction, 0.25);
  EXPECT_TRUE(o.any());
  EXPECT_FALSE(o.multiplicative());
}

TEST(CorrectionKeys, TermFilesAreCheckedAgainstTheirCount) {
  const auto dir = std::filesystem::temp_directory_path() / "tomo_pet_terms";
  std::filesystem::create_directories(dir);
  const auto f = dir / "n.npy";
  const std::vector<float> v{1.0f, 0.5f, 0.0f};
  const std::size_t shape[] = {3};
  write_npy(f, v, shape);
  EXPECT_EQ(read_term_file(f, 3, "k").size(), 3u);
  try {
    read_term_file(f, 4, "glpet.normalisation");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "glpet.normalisation '" + f.string() + "': 3 values, expected 4");
  }
  try {
    read_term_file(f, 3, "safir.normalisation", true);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "safir.normalisation '" + f.string() + "': value 2 is 0; it must be > 0");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tomo::pet
