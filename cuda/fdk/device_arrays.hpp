// fdk's cuda filtering and back-projection on memory the caller owns on the GPU (CuPy/PyTorch arrays
// through DLPack in the Python module): projections are read and results written where they lie.
#pragma once
#include <cstddef>
#include <memory>
#include <span>

#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/geometry.hpp"
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

// FDK's pre-processing (cosine and Parker/arc weights, ramp filter, Δβ/P scale) of device stacks:
// CufftFilter, the cuda ProjectionFilter's engine, on the caller's memory.
class DeviceFilter {
 public:
  // On CUDA device `device` (the runtime's when < 0); the cuFFT plans and scratch are made here.
  DeviceFilter(const CArmGeometry& g, const FilterOptions& options, int device);
  ~DeviceFilter();
  DeviceFilter(const DeviceFilter&) = delete;
  DeviceFilter& operator=(const DeviceFilter&) = delete;

  // out = the filtered raw projections n0 … n0 + raw.count − 1 of the orbit (raw.count × sy × sx
  // device floats each; out may equal raw.pixels). Waits for the device's queued work first and
  // returns when out is written. Error when the images are not sx × sy or the range is outside
  // the orbit.
  void apply(int n0, const DeviceStack& raw, float* out);
  int device() const { return device_; }
  std::string describe() const;

 private:
  struct State;
  int device_ = 0;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::fdk
