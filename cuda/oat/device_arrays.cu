// DeviceArrayModel and DeviceArrayFbp (see device_arrays.hpp): the caller's arrays copied into and
// out of ModelDevice's and FbpDevice's buffers; the EIR deconvolution as a direct convolution with
// deconvolve_eir's own kernel (taken once from its impulse responses) on the GPU.
#include "cuda/oat/device_arrays.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/deconvolution.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/oat/fbp_device.hpp"
#include "cuda/oat/model_device.hpp"

namespace tomo::oat {

struct DeviceArrayModel::State {
  State(const OatGeometry& g, const ModelOptions& o, int device) : model(g, o, device) {}
  ModelDevice model;  // what the cuda Model backend runs
};

DeviceArrayModel::DeviceArrayModel(const OatGeometry& g, const ModelOptions& o, int device) {
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  s_ = std::make_unique<State>(g, o, device_);
}

DeviceArrayModel::~DeviceArrayModel() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->model.stream()));
}

std::size_t DeviceArrayModel::voxels() const { return s_->model.voxels(); }
std::size_t DeviceArrayModel::data_samples() const { return s_->model.data_samples(); }

std::string DeviceArrayModel::describe() const {
  return "cuda device arrays (CUDA " + std::to_string(device_) + ", " + s_->model.describe() + ")";
}

void DeviceArrayModel::forward(const float* alpha, float* u) {
  if (!alpha || !u) throw Error("oat device arrays: null α or u");
  cuda::select_device(device_);
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  ModelDevice& m = s_->model;
  m.load_alpha(alpha);
  m.forward();
  m.store_data(u);
}

void DeviceArrayModel::adjoint(const float* u, float* alpha) {
  if (!alpha || !u) throw Error("oat device arrays: null α or u");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  ModelDevice& m = s_->model;
  m.load_data(u);
  m.adjoint();
  m.store_alpha(alpha);
}

namespace {

// p[q·K + k] = Σ_j u[q·K + j]·h_{k−j} in double (hd[K − 1 + m] = h_m): one thread per output sample,
// the trace staged through shared memory a tile at a time; rows q strided over gridDim.y.
template <int kTile>
__global__ void deconvolve_kernel(const float* __restrict__ u, const double* __restrict__ hd, int Q, int K,
                                  float* __restrict__ p) {
  __shared__ float tile[kTile];
  const int k = blockIdx.x * kTile + threadIdx.x;
  for (int q = blockIdx.y; q < Q; q += gridDim.y) {
    const float* row = u + static_cast<std::size_t>(q) * K;
    double acc = 0;
    for (int j0 = 0; j0 < K; j0 += kTile) {
      __syncthreads();  // the previous tile is read by every thread
      const int j = j0 + static_cast<int>(threadIdx.x);
      tile[threadIdx.x] = j < K ? row[j] : 0.0f;
      __syncthreads();
      if (k < K) {
        const int n = min(kTile, K - j0);
        const double* h = hd + (K - 1 + k - j0);  // h_{k − j0 − jj} = h[−jj]
        for (int jj = 0; jj < n; ++jj) acc += static_cast<double>(tile[jj]) * __ldg(h - jj);
      }
    }
    if (k < K) p[static_cast<std::size_t>(q) * K + k] = static_cast<float>(acc);
  }
}

}  // namespace

struct DeviceArrayFbp::State {
  explicit State(const OatGeometry& g) : geometry(g), fbp(g), kernel(fbp.choose()) {}
  OatGeometry geometry;
  FbpDevice fbp;     // what the cuda Fbp backend runs
  FbpKernel kernel;  // and the kernel it picks
  int Q = 0, K = 0;
  cuda::DeviceBuffer<float> staging;  // p: host pressure as float, or the deconvolved pressure
  cuda::DeviceBuffer<double> kernel_h;  // the deconvolution's h (deconvolution_kernel), for kernel_cutoff
  double kernel_cutoff = 0;
};

DeviceArrayFbp::DeviceArrayFbp(const OatGeometry& g) {
  g.validate("oat device arrays");
  if (g.time.samples < 2) throw InputError("oat device arrays: the FBP needs at least two time samples");
  device_ = runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>(g);
  s_->Q = g.transducer_count();
  s_->K = g.time.samples;
}

DeviceArrayFbp::~DeviceArrayFbp() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->fbp.stream()));
}

std::size_t DeviceArrayFbp::voxels() const { return s_->fbp.voxels(); }
std::size_t DeviceArrayFbp::data_samples() const { return static_cast<std::size_t>(s_->Q) * s_->K; }

std::string_view DeviceArrayFbp::kernel() const { return kernel_name(s_->kernel); }

std::string DeviceArrayFbp::describe() const {
  return str_cat("cuda device arrays (exact fused formula, float, ", kernel_name(s_->kernel), " kernel): ",
                 s_->fbp.device());
}

void DeviceArrayFbp::reconstruct(const float* p, float* image) {
  if (!p || !image) throw Error("oat device arrays: null pressure or image");
  cuda::select_device(device_);
  State& s = *s_;
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  s.fbp.upload_device(p);
  s.fbp.run(s.kernel);
  s.fbp.copy_image(image);
}

void DeviceArrayFbp::reconstruct(std::span<const double> p, float* image) {
  State& s = *s_;
  if (p.size() != data_samples())
    throw InputError(str_cat("oat device arrays: ", p.size(), " pressure samples, expected ", s.Q, " x ", s.K));
  cuda::select_device(device_);
  const std::vector<float> f(p.begin(), p.end());
  s.staging.resize(f.size());
  s.staging.upload(f);
  reconstruct(s.staging.data(), image);
}

namespace {

// deconvolve_eir's response to unit impulses at samples 0 and K − 1: its kernel h_m, m = −(K−1) … K−1
// (hd[K − 1 + m]). deconvolve_eir is a circular convolution over N ≥ 2K + J samples cropped to K, so
// output k of a trace u is exactly Σ_j u_j·h_{k−j} with |k − j| < K: the same filter, no FFT needed.
std::vector<double> deconvolution_kernel(const OatGeometry& g, double cutoff_mhz) {
  const std::size_t K = static_cast<std::size_t>(g.time.samples);
  OatGeometry two = g;
  two.transducers.resize(2);
  std::vector<double> impulses(2 * K, 0.0);
  impulses[0] = 1.0;          // row 0: h_k, k = 0 … K − 1
  impulses[K + K - 1] = 1.0;  // row 1: h_{k − (K − 1)}
  const std::vector<double> out = deconvolve_eir(two, impulses, cutoff_mhz);
  std::vector<double> hd(2 * K - 1);
  for (std::size_t k = 0; k < K; ++k) hd[K - 1 + k] = out[k];
  for (std::size_t k = 0; k + 1 < K; ++k) hd[k] = out[K + k];
  return hd;
}

}  // namespace

void DeviceArrayFbp::reconstruct_deconvolved(const float* u, double cutoff_mhz, float* image) {
  State& s = *s_;
  if (!s.geometry.eir.active() && !(cutoff_mhz > 0)) return reconstruct(u, image);  // deconvolve_eir: u itself
  if (!u || !image) throw Error("oat device arrays: null pressure or image");
  cuda::select_device(device_);
  if (s.kernel_h.empty() || s.kernel_cutoff != cutoff_mhz) {
    const std::vector<double> hd = deconvolution_kernel(s.geometry, cutoff_mhz);
    s.kernel_h.resize(hd.size());
    s.kernel_h.upload(hd);
    s.kernel_cutoff = cutoff_mhz;
  }
  s.staging.resize(data_samples());
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of u, on any stream
  constexpr int kThreads = 256;
  const dim3 grid((s.K + kThreads - 1) / kThreads, std::min(s.Q, 65535));
  deconvolve_kernel<kThreads><<<grid, kThreads, 0, s.fbp.stream()>>>(u, s.kernel_h.data(), s.Q, s.K, s.staging.data());
  TOMO_CUDA_CHECK(cudaGetLastError());
  reconstruct(s.staging.data(), image);  // orders after the convolution on the same stream
}

}  // namespace tomo::oat
