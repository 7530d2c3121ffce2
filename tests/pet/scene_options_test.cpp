// The shared reconstruction keys: defaults, values, and one clear refusal per bad value.
#include <gtest/gtest.h>

#include <filesystem>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/nifti.hpp"
#include "compute/pet/scene_options.hpp"

namespace tomo::pet {
namespace {

Scene scene(const std::string& body) { return Scene::load_string("problem = \"safir\"\n[safir]\n" + body, "<test>"); }

std::string refusal(const std::string& body, int iterations = 10) {
  try {
    (void)read_pet_options(scene(body), "safir", iterations);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PetSceneOptions, Defaults) {
  const PetSceneOptions o = read_pet_options(scene(""), "safir", 7);
  EXPECT_EQ(o.recon.algorithm, Algorithm::mlem);
  EXPECT_EQ(o.recon.iterations, 7);
  EXPECT_EQ(o.recon.subsets, 1);
  EXPECT_EQ(o.recon.subset_order, SubsetOrder::sequential);
  EXPECT_EQ(o.recon.prior.beta, 0.0);
  EXPECT_EQ(o.recon.prior.gamma, 2.0);
  EXPECT_EQ(o.recon.prior.epsilon, 1e-9);
  EXPECT_EQ(o.recon.relaxation, 1.0);
  EXPECT_EQ(o.recon.relaxation_decay, 0.02);
  EXPECT_EQ(o.recon.preconditioner, Preconditioner::em_prior);
  EXPECT_TRUE(o.initial_image.empty());
  EXPECT_EQ(read_pet_options(scene("algorithm = \"osem\""), "safir", 1).recon.subsets, 8);
}

TEST(PetSceneOptions, Values) {
  const PetSceneOptions o = read_pet_options(
      scene("algorithm = \"map-rdp\"\nsubsets = 4\nsubset_order = \"bit-reversed\"\nprior.beta = 0.5\n"
            "prior.gamma = 1.5\nprior.epsilon = 0.01\npreconditioner = \"em\"\n"),
      "safir", 3);
  EXPECT_EQ(o.recon.algorithm, Algorithm::map_rdp);
  EXPECT_EQ(o.recon.subsets, 4);
  EXPECT_EQ(o.recon.subset_order, SubsetOrder::bit_reversed);
  EXPECT_EQ(o.recon.prior.beta, 0.5);
  EXPECT_EQ(o.recon.prior.gamma, 1.5);
  EXPECT_EQ(o.recon.prior.epsilon, 0.01);
  EXPECT_EQ(o.recon.preconditioner, Preconditioner::em);
}

TEST(PetSceneOptions, Refusals) {
  EXPECT_NE(refusal("subsets = 2").find("'safir.subsets' = 2 needs safir.algorithm = \"osem\""), std::string::npos)
      << refusal("subsets = 2");
  EXPECT_NE(refusal("prior.beta = 1").find("has no effect with safir.algorithm = \"mlem\""), std::string::npos)
      << refusal("prior.beta = 1");
  EXPECT_NE(refusal("algorithm = \"em\"").find("safir.algorithm"), std::string::npos) << refusal("algorithm = \"em\"");
  EXPECT_NE(refusal("algorithm = \"osem\"\nsubsets = 0").find("safir.subsets"), std::string::npos);
  EXPECT_NE(refusal("algorithm = \"osem\"\nsubset_order = \"zigzag\"").find("safir.subset_order"), std::string::npos);
  EXPECT_NE(refusal("algorithm = \"map-rdp\"\nprior.beta = -1").find("safir.prior.beta"), std::string::npos);
  EXPECT_NE(refusal("initial_image = \"/nonexistent/x.nii\"").find("safir.initial_image"), std::string::npos);
  EXPECT_NE(refusal("algorithm = \"map-rdp\"\npreconditioner = \"newton\"").find("safir.preconditioner"),
            std::string::npos)
      << refusal("algorithm = \"map-rdp\"\npreconditioner = \"newton\"");
}

TEST(PetSceneOptions, SaveIterations) {
  EXPECT_EQ(read_save_iterations(scene("save_iterations = [5, 2, 5]"), "safir", 5), (std::vector<int>{2, 5}));
  try {
    (void)read_save_iterations(scene("save_iterations = [6]"), "safir", 5);
    ADD_FAILURE() << "no refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("iteration 6 is outside 1..5"), std::string::npos) << e.what();
  }
}

TEST(PetSceneOptions, InitialImageIsChecked) {
  const auto dir = std::filesystem::temp_directory_path() / "tomo_pet_initial_image_test";
  std::filesystem::create_directories(dir);
  VolumeF v(Grid3::centred({4, 3, 2}, {1, 1, 1}), 2.0f);
  write_nifti(dir / "x.nii", v);
  const auto x = read_initial_image(dir / "x.nii", {4, 3, 2}, "safir.initial_image");
  EXPECT_EQ(x, std::vector<double>(24, 2.0));
  try {
    (void)read_initial_image(dir / "x.nii", {4, 3, 3}, "safir.initial_image");
    ADD_FAILURE() << "no refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 4 x 3 x 2 voxels, the image is 4 x 3 x 3"), std::string::npos) << e.what();
  }
  v.data[5] = -1.0f;
  write_nifti(dir / "neg.nii", v);
  try {
    (void)read_initial_image(dir / "neg.nii", {4, 3, 2}, "safir.initial_image");
    ADD_FAILURE() << "no refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("voxel 5 is -1"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tomo::pet
