// `cuda` backend of the fdk back-projection: volume resident on the GPU (z-slabs when it does not
// fit), projections streamed into two layered textures (copy of batch b+1 overlaps the kernel of
// batch b), up to 64 projections per launch with their matrices in constant memory (a by-value
// kernel parameter). Declared here so that the device-array adapter (device_arrays.hpp) runs this
// very backend on memory the caller owns on the GPU.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "compute/fdk/backprojector.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"

namespace tomo::fdk::cuda_impl {

class CudaBackprojector final : public ConeBeamBackprojector {
 public:
  CudaBackprojector();
  ~CudaBackprojector() override;

  void reset(const Grid3& grid) override;
  void prepare(const ProjectionView& all) override;
  // The batch's pixels may lie in host or in device memory (copies use cudaMemcpyDefault).
  void backproject(const ProjectionView& b) override;
  void synchronize() override;
  VolumeF volume() override;
  std::string describe() const override;

  // After reset(): the volume := `src` (grid.count() floats, host or device memory), so the
  // following batches add to it.
  void load_volume(const float* src);
  // Waits for the queued work and copies the volume to `dst` (grid.count() floats, host or device).
  void store_volume(float* dst);
  // Projections per kernel launch: each launch adds its projections to the volume once, so a
  // stack handed over in pieces of whole launches gives the bits of one call.
  int per_launch() const;
  // The volume in device memory (grid.count() floats, x fastest) when it is resident, else
  // nullptr (z-slabs: it lives in host memory); read after synchronize().
  const float* device_volume() const;

 private:
  // One layered projection buffer with its two samplers (hardware-linear and point).
  struct ProjectionBuffer {
    cuda::CudaArray array;
    cuda::TextureObject linear, point;
    cuda::Event copied{false}, consumed{false};
    bool in_use = false;
  };
  // Selects the runtime's CUDA device before any stream member is created.
  struct DeviceSelection {
    DeviceSelection();
  };

  void ensure_buffers(int sx, int sy, int layers);
  void run_slabs(const cuda::TextureObject& tex, const float* matrices, int count, bool exact);
  void unregister();

  DeviceSelection device_;
  Grid3 grid_;
  int slab_nz_ = 0;
  cuda::DeviceBuffer<float> volume_;
  std::vector<float> host_volume_;  // the full volume when it is processed in slabs
  cuda::Stream compute_, copy_;
  std::array<std::unique_ptr<ProjectionBuffer>, 2> buffers_;
  int next_ = 0, sx_ = 0, sy_ = 0, layers_ = 0;
  const float* registered_ = nullptr;
};

}  // namespace tomo::fdk::cuda_impl
