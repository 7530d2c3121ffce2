// Host side of the GL projector passes (shaders/fdk/ray.glsl), shared by the gl-compute and gl
// ConeBeamProjector backends: each view's rays as the doubles ray.glsl reads, the size checks
// every call makes, the batch sizes and the loop budget of software GL.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "compute/fdk/forward_projector.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"

namespace tomo::fdk {

inline constexpr int kRayDoubles = 24;  // per view in the Rays SSBO (ray.glsl)

// Every view's ViewRays (ray_model.hpp) of `g` laid out for ray.glsl; InputError for a degenerate
// matrix, as the cpu's setup.
std::vector<double> ray_table(const ConeGeometry& g);

// The views of a call, in order (empty: every view of the geometry). Throws Error (prefixed with
// `who`) when the sizes do not match the geometry or a view is out of range, as the cpu does.
std::vector<int> checked_views(const std::string& who, const ConeGeometry& g, std::size_t voxels, std::size_t pixels,
                               std::span<const int> views);

// Views per dispatch/draw: as many images as fit in 256 MiB and in `max_block` bytes (0 = no
// limit), at most `cap`; ≥ 1.
int views_per_batch(const ConeGeometry& g, long long max_block, int cap);

// z-slices per slab of Aᵀ's sum (ray_scatter.glsl): as many as fit in 512 MiB, in `max_block`
// bytes (0 = no limit) and, when positive, in `cap_bytes`; ≥ 1, ≤ nz.
int scatter_slab_depth(const Grid3& grid, long long max_block, std::size_t cap_bytes = 0);

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

// Upper bound of any ray's sample count: the support box's diagonal over the step, plus one.
long long max_samples(const Grid3& grid, double step_mm);

// UnavailableError when a pass would run `iterations` loop iterations per invocation on a GL
// that cuts loops short beyond Capabilities::max_loop_iterations (llvmpipe); nothing elsewhere.
void check_loop_budget(const std::string& who, long long iterations);

// The batch's rows of `table` (views[first, first + count)) into `buffer` at kRays.
void upload_rays(gl::Buffer& buffer, const std::vector<double>& table, std::span<const int> views, int first,
                 int count);

// ray.glsl's uniform, set per call (the options may change between setup and the call).
struct RayUniforms {
  gl::Uniform<double> step_mm;
  explicit RayUniforms(const gl::Program& p) : step_mm(p, "u_step_mm") {}
};

// ray_scatter.glsl's: the bound slab (first z, depth).
struct ScatterUniforms {
  gl::Uniform<gl::Vec2i> slab;
  explicit ScatterUniforms(const gl::Program& p) : slab(p, "u_slab") {}
};

}  // namespace tomo::fdk
