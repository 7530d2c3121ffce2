// fdk's cuda back-projection on memory the caller owns on the GPU (CuPy/PyTorch arrays through
// DLPack in the Python module): the projections are read and the volume written where they lie.
#pragma once
#include <cstddef>
#include <memory>
#include <span>

#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

// A projection stack in device memory: count × sy × sx floats, C order (u fastest).
struct DeviceStack {
  const float* pixels = nullptr;
  int sx = 0, sy = 0, count = 0;
};

class DeviceBackprojector {
 public:
  // On CUDA device `device` (the runtime's when < 0); keeps its texture buffers between calls.
  DeviceBackprojector(const BackprojectorOptions& options, int device);
  ~DeviceBackprojector();
  DeviceBackprojector(const DeviceBackprojector&) = delete;
  DeviceBackprojector& operator=(const DeviceBackprojector&) = delete;

  // volume (grid.count() device floats, x fastest) = (accumulate ? volume : 0) + Σ_n bilinear(I_n)/w_n²
  // (RabbitCT's rule, as CudaBackprojector). Waits for the device's queued work first (the caller's
  // writes on any stream) and returns when the volume is written. Projections reach the texture
  // unit by device-to-device copies into a layered array, up to 32 per launch; nothing passes
  // through the host. matrices: host memory, stack.count of them.
  void backproject(const Grid3& grid, const DeviceStack& stack, std::span<const Mat34> matrices, float* volume,
                   bool accumulate);
  int device() const { return device_; }
  std::string describe() const;

 private:
  struct Buffers;
  BackprojectorOptions options_;
  int device_ = 0;
  std::unique_ptr<Buffers> buffers_;
};

}  // namespace tomo::fdk
