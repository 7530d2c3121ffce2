// DeviceProjection: device-to-device copies around the cuda projector's own vectors; the
// projector's kernels and caches are used unchanged.
#include "cuda/glpet/device_arrays.hpp"

#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/glpet/cuda_buffer.hpp"

namespace tomo::glpet {

namespace {
cuda_impl::CudaBuffer& cuda_buffer(BackendBuffer& b) {
  auto* c = dynamic_cast<cuda_impl::CudaBuffer*>(&b);
  if (!c) throw Error("glpet device arrays: the projector is not the cuda backend");
  return *c;
}
}  // namespace

DeviceProjection::DeviceProjection(Projector& op, std::size_t voxels, std::size_t lors, int device)
    : op_(op), voxels_(voxels), lors_(lors), device_(device) {
  cuda::select_device(device_);
  image_ = op_.make_image();
  lor_ = op_.make_lors();
  cuda_buffer(*image_);
  cuda_buffer(*lor_);
}

DeviceProjection::~DeviceProjection() = default;

void DeviceProjection::forward(const float* x, float* y) { run(x, *image_, voxels_, y, *lor_, lors_, true); }
void DeviceProjection::back(const float* y, float* b) { run(y, *lor_, lors_, b, *image_, voxels_, false); }

void DeviceProjection::run(const float* in, BackendBuffer& bin, std::size_t n_in, float* out, BackendBuffer& bout,
                           std::size_t n_out, bool forward) {
  cuda::select_device(device_);
  cuda_impl::CudaBuffer &ci = cuda_buffer(bin), &co = cuda_buffer(bout);
  // Mapped for the whole call (GL buffers): the operator's own MapScope skips them then.
  cuda_impl::MapScope mapped{&ci, &co};
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of `in`, on whatever stream
  if (n_in) TOMO_CUDA_CHECK(cudaMemcpy(ci.data(), in, n_in * sizeof(float), cudaMemcpyDeviceToDevice));
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // device-to-device cudaMemcpy does not wait on the host
  if (forward)
    op_.forward(bin, bout);
  else
    op_.back(bin, bout);
  op_.synchronize();
  if (n_out) TOMO_CUDA_CHECK(cudaMemcpy(out, co.data(), n_out * sizeof(float), cudaMemcpyDeviceToDevice));
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace tomo::glpet
