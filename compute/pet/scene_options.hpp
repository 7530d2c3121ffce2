// The reconstruction keys that glpet, safir and strip share, read the same way for each
// `<problem>` section: algorithm, subsets, subset_order, subset_seed, prior.{beta, gamma,
// epsilon}, relaxation, initial_image (docs/pet.md).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/pet/reconstruct.hpp"

namespace tomo {
class Scene;
}

namespace tomo::pet {

struct PetSceneOptions {
  ReconOptions recon;
  std::filesystem::path initial_image;  // empty: the problem's usual start (ones)
};

// Reads <problem>.{algorithm, subsets, ...}; `iterations` is the problem's own key, read by it.
// InputError naming the key for a bad value (mlem with subsets ≠ 1, β < 0, …).
PetSceneOptions read_pet_options(const Scene& s, const std::string& problem, int iterations);

// <problem>.save_iterations: the iterations after which the image is written, sorted, each in
// 1..iterations. A scene's entries beyond an iteration count lowered by an override (--set
// <problem>.iterations=2) are dropped with a note; given together, they are an error.
std::vector<int> read_save_iterations(const Scene& s, const std::string& problem, int iterations);

// The start image from <problem>.initial_image (NIfTI): its grid must have `dims`, its values
// must be finite and ≥ 0. InputError naming the file otherwise.
std::vector<double> read_initial_image(const std::filesystem::path& path, const std::array<int, 3>& dims,
                                       const std::string& key);

}  // namespace tomo::pet
