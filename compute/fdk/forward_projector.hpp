// The cone-beam projector pair of the iterative algorithms: a ray-driven forward projector A
// (line integrals through the volume along every detector pixel's ray, for any 3×4 matrices) and
// its exact adjoint Aᵀ (the transpose of the same discrete sum, not the FDK back-projector).
// One implementation per backend through BackendRegistry<ConeBeamProjector>, as the
// back-projector's.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "compute/core/volume.hpp"
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
  // Waits for queued work (timing).
  virtual void synchronize() {}
  virtual std::string describe() const = 0;

 protected:
  ProjectorOptions options_;
};

}  // namespace tomo::fdk
