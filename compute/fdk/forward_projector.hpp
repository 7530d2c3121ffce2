// The cone-beam projector pair of the iterative algorithms: a ray-driven forward projector A
// (line integrals through the volume along every detector pixel's ray, for any 3×4 matrices),
// its exact adjoint Aᵀ (the transpose of the same discrete sum, not the FDK back-projector) and a
// voxel-driven approximation B ≈ Aᵀ for the algorithms that do not need the exact transpose.
// One implementation per backend through BackendRegistry<ConeBeamProjector>, as the
// back-projector's.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

// The volume grid (voxel centres at origin + i·voxel, RabbitCT's convention) and the detector
// (sx columns × sy rows, pixel (i, j) at integer (u, v) = (i, j)) seen through one matrix per view.
struct ConeGeometry {
  Grid3 grid;
  int sx = 0, sy = 0;
  std::vector<Mat34> matrices;

  int views() const { return static_cast<int>(matrices.size()); }
  std::size_t image_size() const { return static_cast<std::size_t>(sx) * sy; }
};

struct ProjectorOptions {
  // Sample spacing along each ray as a fraction of the smallest voxel side. The ray's chord
  // through the volume's support is cut into ceil(length / step) equal pieces sampled at their
  // midpoints, so the spacing used is at most this.
  double step_voxels = 0.5;
  // How a GPU forward projector samples the volume: `exact` with fp32 trilinear weights (within
  // 1e-5 of cpu, and the transpose of its Aᵀ to rounding), `hardware` with the texture unit's
  // filter (one fetch per sample, 8-bit weights: about 1e-3 relative, so Aᵀ is then only
  // nearly its adjoint). cpu is always exact.
  Interpolation interpolation = Interpolation::exact;
};

// A and Aᵀ with the trilinear-sampled ray model of ray_model.hpp. Projections are n-major
// (view n at n·sx·sy, pixel (i, j) at j·sx + i), in the order of `views` (empty: every view of
// the geometry): a subset of views gives OS-SART's sub-operators.
class ConeBeamProjector {
 public:
  virtual ~ConeBeamProjector() = default;
  virtual void configure(const ProjectorOptions& options) { options_ = options; }
  virtual void setup(const ConeGeometry& geometry) = 0;
  // projections = A·volume (overwritten).
  virtual void forward(std::span<const float> volume, std::span<float> projections,
                       std::span<const int> views = {}) = 0;
  // volume = Aᵀ·projections (overwritten).
  virtual void back(std::span<const float> projections, std::span<float> volume, std::span<const int> views = {}) = 0;
  // volume = B·projections: the voxel-driven approximation of Aᵀ (ray_model.hpp, VoxelView)
  // that SIRT, OS-SART and TV use, one gather per voxel and view, as ASTRA's SIRT does; CGLS
  // needs back(). A backend without one uses its exact back().
  virtual void back_voxel(std::span<const float> projections, std::span<float> volume,
                          std::span<const int> views = {}) {
    back(projections, volume, views);
  }
  // Waits for queued work (timing).
  virtual void synchronize() {}
  virtual std::string describe() const = 0;

 protected:
  ProjectorOptions options_;
};

}  // namespace tomo::fdk
