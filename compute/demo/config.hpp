// Reads section [demo] of a scene: the voxel grid, the supersampling, the slab the cpu backend
// voxelises at a time and the analytic phantom. Keys: docs/demo.md.
#pragma once
#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"

namespace tomo {
class Scene;
}

namespace tomo::demo {

struct DemoConfig {
  Grid3 grid;
  int supersampling = 3;  // samples per voxel edge: s³ point samples average each voxel
  int slab = 8;           // z-slices voxelised per call (progress granularity)
  Phantom phantom;

  // InputError naming the key for a size outside [1, 2048], a non-positive voxel, an empty phantom.
  static DemoConfig from_scene(const Scene& scene);
};

}  // namespace tomo::demo
