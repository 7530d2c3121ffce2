// B ≈ Aᵀ (ray_model.hpp, VoxelView) through an FDK back-projector of any backend. B is FDK's
// gather, 1/t² times a bilinear sample at the voxel's projection, of the detector weighted by
// pixel_weight: so a backend's RabbitCT kernel, handed the weighted detector and B's signed
// matrices, computes B. The gl and gl-compute projectors take their B this way (on their own
// back-projection kernels, exact or hardware bilinear as ProjectorOptions::interpolation says).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/forward_projector.hpp"

namespace tomo::fdk {

class VoxelBackThroughFdk {
 public:
  // `backend`: a ConeBeamBackprojector name (created on first use).
  explicit VoxelBackThroughFdk(std::string backend) : backend_(std::move(backend)) {}
  // B's matrices and detector weights of `g`. FDK's kernel weights a voxel behind a view's
  // source by 1/t² as any other (B gives it 0): covers() is false when some voxel is, and the
  // caller then takes the cpu's B.
  void setup(const ConeGeometry& g);
  bool covers() const { return covers_; }
  // volume = B·projections over `views` (empty: all), sizes checked by the caller.
  void run(std::span<const float> projections, std::span<float> volume, std::span<const int> views,
           Interpolation interpolation);

 private:
  std::string backend_;
  std::unique_ptr<ConeBeamBackprojector> bp_;
  ConeGeometry g_;
  std::vector<Mat34> matrices_;   // B's signed matrices, one per view
  std::vector<double> weights_;   // pixel_weight of every pixel of every view
  std::vector<float> weighted_;   // the weighted stack of one call
  std::vector<Mat34> batch_;      // the matrices of one call's views
  bool covers_ = false;
};

// True when every voxel centre of `g` lies in front of every view's source (t > 0 for B's
// signed matrix): t is linear, so the grid's eight corner voxels decide.
bool every_voxel_in_front(const ConeGeometry& g);

}  // namespace tomo::fdk
