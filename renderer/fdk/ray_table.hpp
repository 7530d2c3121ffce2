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

}  // namespace tomo::fdk
