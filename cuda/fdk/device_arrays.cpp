// DeviceBackprojector: the cuda back-projection kernel (kernels.cu) on caller-owned device
// memory, one stream, one layered projection buffer reused across batches and calls; DeviceFilter:
// CufftFilter on caller-owned memory.
#include "cuda/fdk/device_arrays.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/fdk/cufft_filter.hpp"
#include "cuda/fdk/kernels.hpp"

namespace tomo::fdk {

namespace cd = cuda_detail;

struct DeviceBackprojector::Buffers {
  cuda::Stream stream;
  cuda::CudaArray array;
  cuda::TextureObject linear, point;
  int sx = 0, sy = 0, layers = 0;
};

namespace {
constexpr int kPerLaunch = 32;  // as CudaBackprojector's default
}

DeviceBackprojector::DeviceBackprojector(const BackprojectorOptions& options, int device) : options_(options) {
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  cuda::select_device(device_);
  buffers_ = std::make_unique<Buffers>();
}

DeviceBackprojector::~DeviceBackprojector() {
  if (buffers_) TOMO_CUDA_LOG(cudaStreamSynchronize(buffers_->stream.get()));
}

std::string DeviceBackprojector::describe() const {
  return "cuda device arrays (CUDA " + std::to_string(device_) + ", " + to_string(options_.interpolation) + " bilinear)";
}

void DeviceBackprojector::backproject(const Grid3& grid, const DeviceStack& stack, std::span<const Mat34> matrices,
                                      float* volume, bool accumulate) {
  if (!volume || grid.count() == 0) throw Error("fdk device arrays: no volume");
  if (stack.count < 0 || std::size_t(stack.count) != matrices.size())
    throw Error(str_cat("fdk device arrays: ", stack.count, " projections but ", matrices.size(), " matrices"));
  if (stack.count > 0 && (!stack.pixels || stack.sx < 1 || stack.sy < 1))
    throw Error("fdk device arrays: empty projection images");
  cuda::select_device(device_);
  Buffers& b = *buffers_;
  const int per_launch = std::min(options_.projections_per_launch > 0 ? options_.projections_per_launch : kPerLaunch,
                                  cd::kMaxProjectionsPerLaunch);
  if (stack.count > 0 && (b.sx != stack.sx || b.sy != stack.sy || b.layers != per_launch)) {
    TOMO_CUDA_CHECK(cudaStreamSynchronize(b.stream.get()));
    b.linear = {};
    b.point = {};
    b.array = cuda::CudaArray::of<float>(
        cuda::ArrayExtent{std::size_t(stack.sx), std::size_t(stack.sy), std::size_t(per_launch)}, cudaArrayLayered);
    b.linear = cuda::TextureObject(b.array, cuda::TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
    b.point = cuda::TextureObject(b.array, cuda::TextureOptions::point_clamp().with_address(cudaAddressModeBorder));
    b.sx = stack.sx;
    b.sy = stack.sy;
    b.layers = per_launch;
  }
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  const cudaStream_t s = b.stream.get();
  if (!accumulate) TOMO_CUDA_CHECK(cudaMemsetAsync(volume, 0, grid.count() * sizeof(float), s));
  cd::SlabView slab;
  slab.volume = volume;
  slab.nx = grid.dims[0];
  slab.ny = grid.dims[1];
  slab.nz = grid.dims[2];
  slab.k0 = 0;
  for (int a = 0; a < 3; ++a) {
    slab.origin[a] = static_cast<float>(grid.origin_mm[a]);
    slab.voxel[a] = static_cast<float>(grid.voxel_mm[a]);
  }
  const bool exact = options_.interpolation == Interpolation::exact;
  const std::size_t image = std::size_t(stack.sx) * stack.sy;
  for (int n0 = 0; n0 < stack.count; n0 += per_launch) {
    const int cnt = std::min(per_launch, stack.count - n0);
    // Same stream: this copy waits for the launch that read the buffer before.
    cuda::copy_to_array(b.array.get(), cuda::ArrayExtent{std::size_t(stack.sx), std::size_t(stack.sy), std::size_t(cnt)},
                        sizeof(float), stack.pixels + n0 * image, cudaMemcpyDeviceToDevice, s);
    std::array<float, cd::kMaxProjectionsPerLaunch * 12> m{};
    for (int n = 0; n < cnt; ++n)
      for (int e = 0; e < 12; ++e) m[12 * n + e] = static_cast<float>(matrices[n0 + n].a[e]);
    cd::launch_backproject(slab, exact ? b.point.get() : b.linear.get(), m.data(), cnt, exact, s);
  }
  b.stream.synchronize();
}

struct DeviceFilter::State {
  CArmGeometry g;
  cuda::Stream stream;
  std::unique_ptr<CufftFilter> filter;
};

DeviceFilter::DeviceFilter(const CArmGeometry& g, const FilterOptions& options, int device) {
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>();
  s_->g = g;
  s_->filter = std::make_unique<CufftFilter>(g, options);
}

DeviceFilter::~DeviceFilter() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->stream.get()));
}

std::string DeviceFilter::describe() const {
  return str_cat("cuda device arrays (CUDA ", device_, ", cuFFT, padded length ", s_->filter->padded_size(), ")");
}

void DeviceFilter::apply(int n0, const DeviceStack& raw, float* out) {
  const CArmGeometry& g = s_->g;
  if (raw.count == 0) return;
  if (!raw.pixels || !out) throw Error("fdk device filter: null projections or output");
  if (raw.sx != g.sx || raw.sy != g.sy)
    throw Error(str_cat("fdk device filter: images of ", raw.sx, " x ", raw.sy, ", the orbit's are ", g.sx, " x ", g.sy));
  cuda::select_device(device_);
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  s_->filter->apply_device(n0, raw.count, raw.pixels, out, s_->stream.get());  // range-checked there
  s_->stream.synchronize();
}

}  // namespace tomo::fdk
