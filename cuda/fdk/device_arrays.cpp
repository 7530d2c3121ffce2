// DeviceBackprojector and DeviceFilter: the registered cuda backends on caller-owned device
// memory (their copies take host or device pointers alike).
#include "cuda/fdk/device_arrays.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/host_staging.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/fdk/cuda_backprojector.hpp"

namespace tomo::fdk {

namespace {
cuda_impl::CudaBackprojector& cuda_backprojector(ConeBeamBackprojector& op) {
  auto* c = dynamic_cast<cuda_impl::CudaBackprojector*>(&op);
  if (!c) throw Error("fdk device arrays: the back-projector is not the cuda backend");
  return *c;
}
}  // namespace

struct DeviceBackprojector::HostPath {
  cuda::Stream stream;
  cuda::HostStaging staging;
  cuda::DeviceBuffer<float> chunk;
};

DeviceBackprojector::DeviceBackprojector(ConeBeamBackprojector& op, int device)
    : op_(cuda_backprojector(op)), device_(device) {}

DeviceBackprojector::~DeviceBackprojector() {
  try {
    op_.synchronize();  // no copy of the back-projector still reads host_'s chunk
  } catch (...) {
  }
}

std::string DeviceBackprojector::describe() const { return "device arrays on " + op_.describe(); }

void DeviceBackprojector::backproject(const Grid3& grid, const DeviceStack& stack, std::span<const Mat34> matrices,
                                      float* volume, bool accumulate) {
  if (!volume || grid.count() == 0) throw Error("fdk device arrays: no volume");
  if (stack.count < 0 || std::size_t(stack.count) != matrices.size())
    throw Error(str_cat("fdk device arrays: ", stack.count, " projections but ", matrices.size(), " matrices"));
  if (stack.count > 0 && (!stack.pixels || stack.sx < 1 || stack.sy < 1))
    throw Error("fdk device arrays: empty projection images");
  cuda::select_device(device_);
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  op_.reset(grid);
  if (accumulate) op_.load_volume(volume);
  if (stack.count > 0) op_.backproject(ProjectionView{stack.sx, stack.sy, stack.count, matrices.data(), stack.pixels});
  op_.store_volume(volume);
}

void DeviceBackprojector::backproject_host(const Grid3& grid, const float* pixels, int sx, int sy, int count,
                                           std::span<const Mat34> matrices, float* volume) {
  if (!volume || grid.count() == 0) throw Error("fdk device arrays: no volume");
  if (count < 0 || std::size_t(count) != matrices.size())
    throw Error(str_cat("fdk device arrays: ", count, " projections but ", matrices.size(), " matrices"));
  if (count > 0 && (!pixels || sx < 1 || sy < 1)) throw Error("fdk device arrays: empty projection images");
  cuda::select_device(device_);
  if (!host_) host_ = std::make_unique<HostPath>();
  HostPath& h = *host_;
  const std::size_t image = static_cast<std::size_t>(sx) * sy;
  // Device chunks of whole launches, up to 1 GiB and a quarter of the free memory (one chunk for
  // most stacks), made before reset() sizes the volume in what is left; staging slabs of whole
  // images, about 32 MiB.
  std::size_t free_b = 0, total_b = 0;
  TOMO_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t budget = std::min<std::size_t>(std::size_t(1) << 28, free_b / 16);
  const int per = op_.per_launch();
  const int fit = static_cast<int>(std::min<std::size_t>(budget / image, 1 << 20));
  const int chunk = std::max(1, std::min(count, std::max(per, fit / per * per)));
  h.staging.set_slab(std::max<std::size_t>(1, (std::size_t(8) << 20) / image) * image);
  op_.synchronize();
  if (count > 0) h.chunk.resize(static_cast<std::size_t>(chunk) * image);
  op_.reset(grid);
  for (int n0 = 0; n0 < count; n0 += chunk) {
    const int c = std::min(chunk, count - n0);
    op_.synchronize();  // the back-projector has read the previous chunk
    h.staging.upload(pixels + static_cast<std::size_t>(n0) * image, h.chunk.data(), c * image, h.stream);
    h.stream.synchronize();
    op_.backproject(ProjectionView{sx, sy, c, matrices.data() + n0, h.chunk.data()});
  }
  op_.synchronize();
  if (const float* resident = op_.device_volume())
    h.staging.download(resident, volume, grid.count(), h.stream);
  else
    op_.store_volume(volume);  // z-slabs: the volume is in host memory already
}

DeviceFilter::DeviceFilter(const CArmGeometry& g, const FilterOptions& options, int device) : g_(g) {
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  if (device_ != runtime_options().cuda_device)
    throw Error(str_cat("fdk device filter: CUDA device ", device_, ", but the cuda backend runs on device ",
                        runtime_options().cuda_device));
  op_ = BackendRegistry<ProjectionFilter>::instance().create("cuda");
  op_->setup(g, options);
}

DeviceFilter::~DeviceFilter() = default;

std::string DeviceFilter::describe() const { return "device arrays on " + op_->describe(); }

void DeviceFilter::apply(int n0, const DeviceStack& raw, float* out) {
  if (raw.count == 0) return;
  if (!raw.pixels || !out) throw Error("fdk device filter: null projections or output");
  if (raw.sx != g_.sx || raw.sy != g_.sy)
    throw Error(str_cat("fdk device filter: images of ", raw.sx, " x ", raw.sy, ", the orbit's are ", g_.sx, " x ",
                        g_.sy));
  cuda::select_device(device_);
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  op_->apply(n0, raw.count, raw.pixels, out);  // range-checked there; returns when out is written
}

}  // namespace tomo::fdk
