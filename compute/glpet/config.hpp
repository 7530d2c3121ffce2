// Reads section [glpet] of a scene: modules and pairs, voxel grid, R/N/K, phantoms
// ([[glpet.activity]], [[glpet.attenuation]] through tomo::Phantom), Monte-Carlo and
// ML-EM settings. Keys are listed in docs/glpet.md §4.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "compute/core/phantom.hpp"
#include "compute/core/sensitivity_mask.hpp"
#include "compute/glpet/geometry.hpp"
#include "compute/glpet/mc_effects.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/projector.hpp"
#include "compute/pet/corrections.hpp"
#include "compute/pet/scene_options.hpp"

namespace tomo {
class Scene;
}

namespace tomo::glpet {

// [glpet.crosscheck]: grid of the cross-check and its tolerances (docs/glpet.md §5).
struct CrosscheckSettings {
  int voxels = 16;                     // at most this many voxels per axis, same field of view
  double tolerance = 1e-4;             // relative L2, float backends (gl-compute, cuda)
  double tolerance_raster = 2e-2;      // relative L2, raster backend (gl)
  double line_tolerance = 1e-3;        // fraction of lines with another secondary detector
  double line_tolerance_raster = 1e-2;
};

// [glpet.data]: measured data to reconstruct instead of simulating, and the files to write
// the data of a run in (docs/glpet.md §5).
struct DataSettings {
  std::filesystem::path counts;    // glpet.data.counts: .npy or .nii LOR counts ("" = none)
  std::filesystem::path listmode;  // glpet.data.listmode: binary or text events ("" = none)
  std::vector<std::string> write;  // glpet.data.write: output names, format by extension
  bool measured() const { return !counts.empty() || !listmode.empty(); }
};

struct GlpetScene {
  SystemModel system;      // sigma_t voxelised on the grid
  ProjectorOptions projector;  // backend options (glpet.system_cache, glpet.cuda_gl_interop)
  Phantom activity;        // emission density (relative units)
  Phantom attenuation;     // σ_t in 1/mm
  VolumeF activity_volume; // voxelised activity (what the simulator emits from)
  int iterations = 10;
  pet::PetSceneOptions pet;          // algorithm, subsets, prior, initial image (docs/pet.md)
  std::vector<int> save_iterations;  // activity images also written after these iterations
  double sensitivity_threshold = 0.01;  // ML-EM field of view: s_v >= this × max s (MlemOptions)
  // The scanner's field of view (a ring's inscribed cylinder; unbounded for modules listed one
  // by one); ML-EM holds voxels outside it at 0 unless glpet.fov_mask = false.
  FieldOfView fov;
  McOptions mc;
  McDevice mc_device = McDevice::automatic;  // glpet.mc.device: where the histories run
  McEffects mc_effects;              // glpet.mc.{efficiency, randoms_fraction, scatter_fraction}
  pet::CorrectionOptions corrections;  // glpet.{attenuation_map, normalisation, randoms, scatter} (docs/pet.md)
  int supersampling = 2;   // phantom voxelisation sub-samples per axis
  CrosscheckSettings crosscheck;
  DataSettings data;
  bool has_phantom = true;  // [[glpet.activity]] given (optional with measured data)
};

Scanner read_scanner(const Scene& scene);
GlpetScene read_glpet_scene(const Scene& scene);

}  // namespace tomo::glpet
