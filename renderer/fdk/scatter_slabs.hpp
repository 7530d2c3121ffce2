// The sum Aᵀ of the GL projectors scatters into (shaders/fdk/ray_scatter.glsl): the volume as
// z-slab SSBOs bound in turn, since a volume may exceed what one SSBO binding holds.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "compute/core/volume.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::fdk {

// z-slices per slab of Aᵀ's sum (ray_scatter.glsl): as many as fit in 512 MiB and in `max_block`
// bytes (GL_MAX_SHADER_STORAGE_BLOCK_SIZE, 0 = unknown); ≤ nz. UnavailableError when not even
// one slice fits.
int scatter_slab_depth(const Grid3& grid, long long max_block);

// Aᵀ's sum over the volume: z-slab SSBOs bound in turn at binding::kRayVolume.
class ScatterSlabs {
 public:
  void allocate(const Grid3& grid, int depth);
  int count() const { return static_cast<int>(slabs_.size()); }
  int first(int s) const { return s * depth_; }
  int depth(int s) const;
  void clear();
  void bind(int s) const;
  // The whole sum, slab after slab, into `volume` (grid order).
  void download(std::span<float> volume) const;
  explicit operator bool() const { return !slabs_.empty(); }

 private:
  Grid3 grid_;
  int depth_ = 1;
  std::vector<gl::Buffer> slabs_;
};

// ray_scatter.glsl's: the bound slab (first z, depth).
struct ScatterUniforms {
  gl::Uniform<gl::Vec2i> slab;
  explicit ScatterUniforms(const gl::Program& p) : slab(p, "u_slab") {}
};

}  // namespace tomo::fdk
