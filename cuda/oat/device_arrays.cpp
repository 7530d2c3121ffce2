// DeviceArrayModel (see device_arrays.hpp): ModelDevice's launch sequence (model_device.cpp) with
// the caller's α and u in place of ModelDevice's private buffers, which it cannot be handed.
#include "cuda/oat/device_arrays.hpp"

#include <cuda_runtime.h>

#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/params.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat {

namespace cd = cuda_detail;

struct DeviceArrayModel::State {
  cd::SrtParams srt{};
  cd::TimeParams time{};
  cd::SrtFetch fetch = cd::SrtFetch::exact;
  std::size_t voxels = 0;
  cuda::Stream stream;
  cuda::DeviceBuffer<ShellFrame<float>> frames;
  cuda::DeviceBuffer<float> taps, g, p;
  int taps_count = 0;
  cuda::CudaArray volume;  // α for the texture unit (hardware interpolation only)
  cuda::TextureObject volume_tex;
};

DeviceArrayModel::DeviceArrayModel(const OatGeometry& g, const ModelOptions& o, int device) {
  if (o.kind != ModelKind::interpolation)
    throw UnavailableError("oat device arrays: model '" + to_string(o.kind) + "' is not implemented on CUDA");
  g.validate("oat device arrays");
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>();
  State& s = *s_;
  const int Q = g.transducer_count(), K = g.time.samples;
  const std::size_t M = static_cast<std::size_t>(K) + 2;
  s.voxels = g.grid.count();
  s.srt.grid = grid_params<float>(g);
  s.srt.transducers = Q;
  s.srt.shells = static_cast<int>(M);
  s.srt.c0 = static_cast<float>(g.c0_mm_per_us);
  s.srt.t_min = static_cast<float>(g.time.t_min_us);
  s.srt.dt = static_cast<float>(g.time.dt_us());
  s.srt.h = static_cast<float>(patch_mm(g, o));
  s.time.transducers = Q;
  s.time.samples = K;
  s.time.t_min = s.srt.t_min;
  s.time.dt = s.srt.dt;
  s.time.cD = static_cast<float>(d_coefficient<double>(g.gruneisen, g.c0_mm_per_us, g.time.dt_us()));
  const std::vector<ShellFrame<float>> frames = shell_frames<float>(g);
  s.frames.resize(frames.size());
  s.frames.upload(frames);
  s.srt.frames = s.frames.data();
  if (g.eir.active()) {
    const std::vector<float> taps(g.eir.taps.begin(), g.eir.taps.end());
    s.taps.resize(taps.size());
    s.taps.upload(taps);
    s.taps_count = static_cast<int>(taps.size());
  }
  s.g.resize(static_cast<std::size_t>(Q) * M);
  s.p.resize(static_cast<std::size_t>(Q) * K);
  if (o.interpolation == Interpolation::hardware) {
    s.fetch = cd::SrtFetch::hardware;
    s.volume = cuda::CudaArray::of<float>(cuda::ArrayExtent{static_cast<std::size_t>(g.grid.dims[0]),
                                                            static_cast<std::size_t>(g.grid.dims[1]),
                                                            static_cast<std::size_t>(g.grid.dims[2])});
    s.volume_tex =
        cuda::TextureObject(s.volume, cuda::TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  }
}

DeviceArrayModel::~DeviceArrayModel() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->stream.get()));
}

std::size_t DeviceArrayModel::voxels() const { return s_->voxels; }
std::size_t DeviceArrayModel::data_samples() const { return s_->p.size(); }

std::string DeviceArrayModel::describe() const {
  return "cuda device arrays (CUDA " + std::to_string(device_) + ", " +
         (s_->fetch == cd::SrtFetch::hardware ? "hardware" : "exact") + " interpolation)";
}

void DeviceArrayModel::forward(const float* alpha, float* u) {
  if (!alpha || !u) throw Error("oat device arrays: null α or u");
  cuda::select_device(device_);
  State& s = *s_;
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  const cudaStream_t st = s.stream.get();
  if (s.fetch == cd::SrtFetch::hardware) s.volume.copy_from_device(alpha, st);
  cd::launch_srt(s.srt, alpha, s.volume_tex.get(), s.g.data(), s.fetch, st);
  cd::launch_d(s.time, s.g.data(), s.p.data(), st);
  cd::launch_eir(s.time, s.taps.data(), s.taps_count, s.p.data(), u, st);
  s.stream.synchronize();
}

void DeviceArrayModel::adjoint(const float* u, float* alpha) {
  if (!alpha || !u) throw Error("oat device arrays: null α or u");
  cuda::select_device(device_);
  State& s = *s_;
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  const cudaStream_t st = s.stream.get();
  cd::launch_eir_adjoint(s.time, s.taps.data(), s.taps_count, u, s.p.data(), st);
  cd::launch_d_adjoint(s.time, s.p.data(), s.g.data(), st);
  TOMO_CUDA_CHECK(cudaMemsetAsync(alpha, 0, s.voxels * sizeof(float), st));
  cd::launch_srt_adjoint(s.srt, s.g.data(), alpha, false, st);
  s.stream.synchronize();
}

}  // namespace tomo::oat
