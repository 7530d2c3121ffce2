// fdk's cuda back-projection and filter on memory the caller owns on the GPU (CuPy/PyTorch arrays
// through DLPack in the Python module): thin adapters over the registered `cuda` backends, so
// Python's device arrays and the CLI run the same kernels with the same batching.
#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/matrix.hpp"
#include "compute/fdk/projection_filter.hpp"

namespace tomo::fdk {

namespace cuda_impl {
class CudaBackprojector;
}

// A projection stack in device memory: count × sy × sx floats, C order (u fastest).
struct DeviceStack {
  const float* pixels = nullptr;
  int sx = 0, sy = 0, count = 0;
};

class DeviceBackprojector {
 public:
  // `op`: the configured `cuda` back-projector (Error for any other backend), used for as long as
  // this object lives; `device`: the CUDA device it was made on.
  DeviceBackprojector(ConeBeamBackprojector& op, int device);

  // volume (grid.count() device floats, x fastest) = (accumulate ? volume : 0) + Σ_n bilinear(I_n)/w_n²:
  // op.reset(grid), the volume loaded when accumulating, op.backproject(all projections) with
  // device-to-device copies into its layered textures, then the volume copied out. Waits for the
  // device's queued work first (the caller's writes on any stream) and returns when the volume is
  // written. matrices: host memory, stack.count of them.
  void backproject(const Grid3& grid, const DeviceStack& stack, std::span<const Mat34> matrices, float* volume,
                   bool accumulate);
  // The same from a stack in host memory (NumPy) into the host volume `volume` (every element
  // written, so it may be fresh memory): the stack goes up through page-locked staging
  // (cuda/core/host_staging.hpp) into device chunks of whole launches (the bits of one call), the
  // volume comes back through it. No page-locking of the caller's memory.
  void backproject_host(const Grid3& grid, const float* pixels, int sx, int sy, int count,
                        std::span<const Mat34> matrices, float* volume);
  int device() const { return device_; }
  std::string describe() const;
  ~DeviceBackprojector();

 private:
  struct HostPath;
  cuda_impl::CudaBackprojector& op_;
  int device_ = 0;
  std::unique_ptr<HostPath> host_;  // made by the first backproject_host()
};

// FDK's pre-processing (cosine and Parker/arc weights, ramp filter, Δβ/P scale) of device stacks by
// the registered `cuda` ProjectionFilter (cuFFT), set up here for the orbit.
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
  CArmGeometry g_;
  int device_ = 0;
  std::unique_ptr<ProjectionFilter> op_;
};

}  // namespace tomo::fdk
