// DeviceArrayModel (see device_arrays.hpp): ModelDevice's launch sequence (model_device.cpp) with
// the caller's α and u in place of ModelDevice's private buffers, which it cannot be handed.
// DeviceArrayFbp: FbpDevice's table built on the GPU (FbpDevice::upload builds it on the host) and
// its kernels launched on the caller's image; the EIR deconvolution as a direct convolution with
// deconvolve_eir's own kernel (taken once from its impulse responses) on the GPU.
#include "cuda/oat/device_arrays.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/deconvolution.hpp"
#include "compute/oat/params.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/oat/fbp_device.hpp"
#include "cuda/oat/fbp_kernels.hpp"
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

namespace {

// FbpDevice::upload's table, from float pressure on the device: entry (k, q) = w_q·(½(p_k + p_{k+1}),
// p_{k+1} − p_k) in double, then float.
__global__ void fbp_table_kernel(const float* __restrict__ p, const double* __restrict__ w, int K, std::size_t n,
                                 float2* __restrict__ table) {
  const std::size_t width = static_cast<std::size_t>(K) - 1;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t q = i / width, k = i - q * width;
    const double a = p[q * K + k], b = p[q * K + k + 1];
    table[i] = make_float2(static_cast<float>(w[q] * 0.5 * (a + b)), static_cast<float>(w[q] * (b - a)));
  }
}

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
  explicit State(const OatGeometry& g) : geometry(g), fbp(g) {}
  OatGeometry geometry;
  FbpDevice fbp;  // the kernel parameters, positions (params().positions) and variant choice
  FbpChoice choice;
  int Q = 0, K = 0;
  std::size_t voxels = 0;
  cuda::Stream stream;
  cuda::DeviceBuffer<float4> transducers, transducers_samples;
  cuda::DeviceBuffer<double> weights;
  cuda::DeviceBuffer<float2> table;
  cuda::DeviceBuffer<float> staging;  // p: host pressure as float, or the deconvolved pressure
  cuda::DeviceBuffer<double> kernel;  // the deconvolution's h (deconvolution_kernel), for kernel_cutoff
  double kernel_cutoff = 0;
};

DeviceArrayFbp::DeviceArrayFbp(const OatGeometry& g) {
  g.validate("oat device arrays");
  if (g.time.samples < 2) throw InputError("oat device arrays: the FBP needs at least two time samples");
  device_ = runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>(g);
  State& s = *s_;
  s.Q = g.transducer_count();
  s.K = g.time.samples;
  s.voxels = g.grid.count();
  s.choice = s.fbp.best();
  // No texture here; and the plain shared kernel (launch_fbp_shared below) also where the backend's
  // default is the deferred one (shared-8x: its fix-up pass and lists are FbpDevice's).
  if (s.choice.variant != FbpVariant::shared)
    s.choice = {FbpVariant::ldg, 8};
  else
    s.choice = {FbpVariant::shared, s.choice.voxels_per_thread == 4 ? 4 : 8};
  // The transducers as FbpDevice holds them (private there): relative to voxel 0's centre in mm
  // with q + ½, and in samples (c₀Δt) for the shared kernel.
  const double a = s.fbp.params().inv_c0dt_d;
  std::vector<float4> tr(s.Q), tr_samples(s.Q);
  for (int q = 0; q < s.Q; ++q) {
    double pos[3];
    for (int c = 0; c < 3; ++c) pos[c] = g.transducers[q][c] - g.grid.origin_mm[c];
    tr[q] = make_float4(float(pos[0]), float(pos[1]), float(pos[2]), float(q) + 0.5f);
    tr_samples[q] = make_float4(float(pos[0] * a), float(pos[1] * a), float(pos[2] * a), 0.0f);
  }
  s.transducers.resize(tr.size());
  s.transducers.upload(tr);
  s.transducers_samples.resize(tr_samples.size());
  s.transducers_samples.upload(tr_samples);
  const std::vector<double> w = fbp_weights<double>(g);
  s.weights.resize(w.size());
  s.weights.upload(w);
  s.table.resize(static_cast<std::size_t>(s.K - 1) * s.Q);
}

DeviceArrayFbp::~DeviceArrayFbp() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->stream.get()));
}

std::size_t DeviceArrayFbp::voxels() const { return s_->voxels; }
std::size_t DeviceArrayFbp::data_samples() const { return static_cast<std::size_t>(s_->Q) * s_->K; }

FbpChoice DeviceArrayFbp::choice() const { return s_->choice; }

std::string DeviceArrayFbp::describe() const {
  return str_cat("cuda device arrays (exact fused formula, float, ",
                 s_->choice.variant == FbpVariant::shared ? "time windows in shared memory" : "__ldg reads",
                 "): ", s_->fbp.device());
}

void DeviceArrayFbp::reconstruct(const float* p, float* image) {
  if (!p || !image) throw Error("oat device arrays: null pressure or image");
  cuda::select_device(device_);
  State& s = *s_;
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  const cudaStream_t st = s.stream.get();
  const std::size_t n = s.table.size();
  const int threads = 256;
  const int blocks = static_cast<int>(std::min<std::size_t>((n + threads - 1) / threads, 65535));
  fbp_table_kernel<<<blocks, threads, 0, st>>>(p, s.weights.data(), s.K, n, s.table.data());
  TOMO_CUDA_CHECK(cudaGetLastError());
  if (s.choice.variant == FbpVariant::shared) {
    cd::FbpSharedShape shape = s.fbp.shared_shape(s.choice.voxels_per_thread);
    shape.batched = s.choice.batched;
    cd::launch_fbp_shared(s.fbp.params(), shape, s.transducers_samples.data(), s.table.data(), image,
                          cd::FbpSharedMode::exact, st);
  } else {
    cd::launch_fbp(s.fbp.params(), s.transducers.data(), 0, s.table.data(), image, cd::FbpMode::exact_ldg, st);
  }
  s.stream.synchronize();
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
  if (s.kernel.empty() || s.kernel_cutoff != cutoff_mhz) {
    const std::vector<double> hd = deconvolution_kernel(s.geometry, cutoff_mhz);
    s.kernel.resize(hd.size());
    s.kernel.upload(hd);
    s.kernel_cutoff = cutoff_mhz;
  }
  s.staging.resize(data_samples());
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of u, on any stream
  constexpr int kThreads = 256;
  const dim3 grid((s.K + kThreads - 1) / kThreads, std::min(s.Q, 65535));
  deconvolve_kernel<kThreads><<<grid, kThreads, 0, s.stream.get()>>>(u, s.kernel.data(), s.Q, s.K, s.staging.data());
  TOMO_CUDA_CHECK(cudaGetLastError());
  reconstruct(s.staging.data(), image);  // orders after the convolution on the same stream
}

}  // namespace tomo::oat
