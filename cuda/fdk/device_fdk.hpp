// FDK on the GPU in one pass over a projection stack, for the Python package: chunks of
// projections, from device memory (CuPy, PyTorch) or from host memory (NumPy: copied into
// page-locked staging buffers and uploaded on a copy stream while the previous chunk is filtered
// and back-projected), weighted and ramp-filtered with cuFFT (CufftFilter, plans made once) in a
// ring of device slots, and back-projected by the registered `cuda` back-projector into one volume
// that stays on the GPU until finish(). Everything is allocated once and reused by every run of
// the same geometry (a user calling fdk.fdk in a loop).
#pragma once
#include <memory>
#include <span>
#include <string>

#include "compute/core/volume.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/filter.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/matrix.hpp"
#include "cuda/fdk/cufft_filter.hpp"

namespace tomo::fdk {

// Where the time of the last run went (milliseconds). Host clocks: stage (copies of host chunks
// into the staging buffers), wait (the host blocked on the GPU), store (the volume's copy out),
// total (begin() to finish()). GPU events, summed over chunks: upload (host → device copies) and
// filter (weights, cuFFT, crop); they overlap the back-projection, which has no events here.
struct DeviceFdkTimes {
  double stage_ms = 0, wait_ms = 0, store_ms = 0, total_ms = 0, upload_ms = 0, filter_ms = 0;
  int chunks = 0;
};

class DeviceFdk {
 public:
  // `op`: the registered `cuda` back-projector, configured (Error for another backend), used for
  // as long as this object lives; `g`/`options`: the orbit and the filter; `chunk`: projections
  // per step (at most 64); `device`: the CUDA device of `op`; `ring_mb`: device memory for the
  // ring of filtered chunks (the whole stack when it fits, at least three chunks); `passes`: the
  // cuFFT filter's (CufftFilter; separate only to measure against).
  DeviceFdk(const CArmGeometry& g, const FilterOptions& options, ConeBeamBackprojector& op, const Grid3& grid,
            int chunk, int device, double ring_mb = 1024, FilterPasses passes = FilterPasses::fused);
  ~DeviceFdk();
  DeviceFdk(const DeviceFdk&) = delete;
  DeviceFdk& operator=(const DeviceFdk&) = delete;

  // Waits for the device's queued work (the caller's arrays may have been written on any
  // stream) and zeroes the volume.
  void begin();
  // Projections n0 … n0 + count − 1 (count ≤ chunk(), sx·sy floats each, C order) with their
  // matrices (count of them, w = 1 at the origin), in device or host memory. Returns when the
  // caller's memory has been read (a device chunk: filtered; a host chunk: staged), so it may be
  // reused at once; the back-projection runs on.
  void add(int n0, int count, const float* pixels, bool on_device, std::span<const Mat34> matrices);
  // Back-projects what is pending, waits, and copies the volume (grid.count() floats, x fastest)
  // to `volume`, in device memory (on_device) or host memory (staged: through the staging buffers).
  void finish(float* volume, bool on_device);

  int chunk() const;
  DeviceFdkTimes times() const;
  std::string describe() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tomo::fdk
