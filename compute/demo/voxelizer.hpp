// The `demo` problem: voxelise an analytic phantom with supersampling, slab by slab.
// It exercises the engine end to end: scene → backend registry → GPU pass → outputs.
#pragma once
#include <functional>
#include <string>

#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"

namespace tomo::demo {

class Voxelizer {
 public:
  virtual ~Voxelizer() = default;
  virtual std::string describe() const = 0;
  // Waits for queued device work (timing); voxelize() already returns with the volume on the host.
  virtual void synchronize() = 0;
  // Mean phantom value of every voxel from s³ sub-samples; `on_slab(z_done)` after each slab.
  virtual VolumeF voxelize(const Phantom& phantom, const Grid3& grid, int supersampling, int slab,
                           const std::function<void(int)>& on_slab) = 0;
};

// Shapes packed as 5 vec4 per shape (centre+kind, semi-axes+value, three axis rows),
// the layout the GPU backends upload.
std::vector<float> pack_shapes(const Phantom& phantom);
inline constexpr int kFloatsPerShape = 20;

}  // namespace tomo::demo
