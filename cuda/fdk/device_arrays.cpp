// DeviceBackprojector and DeviceFilter: the registered cuda backends on caller-owned device
// memory (their copies take host or device pointers alike).
#include "cuda/fdk/device_arrays.hpp"

#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/fdk/cuda_backprojector.hpp"

namespace tomo::fdk {

namespace {
cuda_impl::CudaBackprojector& cuda_backprojector(ConeBeamBackprojector& op) {
  auto* c = dynamic_cast<cuda_impl::CudaBackprojector*>(&op);
  if (!c) throw Error("fdk device arrays: the back-projector is not the cuda backend");
  return *c;
}
}  // namespace

DeviceBackprojector::DeviceBackprojector(ConeBeamBackprojector& op, int device)
    : op_(cuda_backprojector(op)), device_(device) {}

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
