// `cuda` backend of the cone-beam projector pair (ConeBeamProjector): A ray-driven from a 3D
// texture of the volume, Aᵀ its exact transpose in boxes of the volume held in shared memory, B ≈ Aᵀ voxel-driven from a
// layered texture of the projections (two or four views a half-float texel where the orbit
// has half- or quarter-turn symmetry), or from loads of a bordered copy where exact (voxel_back_kernels.hpp). Besides
// the host-span interface it takes device pointers, so the iterative algorithms keep volume and
// projections on the GPU (cuda_iterative.cpp).
#pragma once
#include <map>
#include <span>
#include <string>
#include <vector>

#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/ray_model.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/host_staging.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/surface.hpp"
#include "cuda/core/texture.hpp"

namespace tomo::fdk::cuda_impl {

class CudaProjector final : public ConeBeamProjector, public ResidentIterative {
 public:
  CudaProjector();
  ~CudaProjector() override;

  void setup(const ConeGeometry& geometry) override;
  void forward(std::span<const float> volume, std::span<float> projections, std::span<const int> views) override;
  void back(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override;
  void back_voxel(std::span<const float> projections, std::span<float> volume, std::span<const int> views) override;
  void synchronize() override;
  std::string describe() const override;

  // The same on device memory, queued on stream(): y (views·sx·sy floats) = A x;
  // x (grid.count() floats) = Aᵀ y.
  void forward_device(const float* x, float* y, std::span<const int> views = {});
  void back_device(const float* y, float* x, std::span<const int> views = {});
  void back_voxel_device(const float* y, float* x, std::span<const int> views = {});
  cudaStream_t stream() const { return stream_; }
  // The device copy of a view list (all views when empty); kept, as OS-SART reuses its subsets.
  const int* device_views(std::span<const int> views);
  const ConeGeometry& geometry() const { return g_; }

  VolumeF reconstruct_resident(const ConeGeometry& g, std::span<const float> b, const IterativeOptions& o,
                               const IterationCallback& cb) override;

 private:
  struct DeviceSelection {
    DeviceSelection();
  };
  std::size_t stack_size(std::span<const int> views) const;
  void check(std::size_t voxels, std::size_t pixels, std::span<const int> views) const;
  struct Launch;
  // Views per slab of the host-span calls' staging (a slab of about 32 MiB, whole views).
  int host_views() const;
  // Loads x (device) into the volume texture's array, queued on stream_.
  void load_volume(const float* x);

  DeviceSelection device_;
  ConeGeometry g_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<ViewRays> rays_;
  std::map<std::vector<int>, cuda::DeviceBuffer<int>> view_lists_;
  cuda::CudaArray volume_array_;
  cuda::TextureObject linear_, point_;
  std::vector<float> voxel_views_;             // B's matrix per view, 12 floats (voxel_back_kernels.hpp)
  cuda::DeviceBuffer<float> pixel_weights_;    // B's detector weights, kPixelWeightFloats per view
  cuda::CudaArray detector_;                   // B's layered, weighted copy of a chunk of the stack
  cuda::SurfaceObject detector_surface_;
  bool all_in_front_ = false;  // every_voxel_in_front(g_)
  bool z_invariant_ = false;   // p[2] = p[10] = 0 in every view of voxel_views_
  cuda::DeviceBuffer<float> tiled_scratch_;  // the tiled Aᵀ's rays and pixel boxes, one pass of views
  int tiled_views_ = 0;
  cuda::DeviceBuffer<float> padded_;  // B's zero-bordered linear copy of the chunk (sampling by loads)
  // The hardware B by the orbit's turn symmetry (orbit_symmetry.hpp; launch_back_voxel_turn):
  // k = 4 (quarter turns), 2 (half turns) or 1 (none, or a voxel behind a source), found by
  // setup; its sense; per view 1/c² of its scale; the k-channel half-float layered array of the
  // N/k layers, made by the first B that uses it.
  int turn_k_ = 1, turn_sense_ = 0;
  cuda::DeviceBuffer<float> turn_inv_c2_;
  float turn_weight_max_ = 0;               // turn_weight_max of the views
  cuda::DeviceBuffer<unsigned> turn_max_;   // max |y| of the call (the packing's scale)
  cuda::CudaArray turn_layers_;
  cuda::SurfaceObject turn_surface_;
  cuda::TextureObject turn_linear_;
  cuda::TextureObject detector_linear_;
  // The host-span calls (NumPy arrays): device copies of both sides, the page-locked staging
  // between them and host memory, and the stream that brings A's chunks back while the next runs.
  cuda::DeviceBuffer<float> x_, y_;
  cuda::HostStaging staging_;
  cuda::Stream copy_;
  cuda::Event chunk_done_{false};
};

}  // namespace tomo::fdk::cuda_impl
