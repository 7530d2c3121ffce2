// FbpProbes (see fbp_probes.hpp): the two probe kernels beside cuda/oat/fbp_texture_kernels.cu's
// fbp_kernel, with its launch shape (kFbpBlockX/Y/Z, kFbpVoxelsPerThread, kFbpTile), its device
// helpers (fbp_math.cuh) and its geometry set up as FbpDevice does (cuda/oat/fbp_device.cpp).
#include "bench/cuda/oat/fbp_probes.hpp"

#include <cuda_runtime.h>

#include <vector>

#include "compute/core/error.hpp"
#include "compute/oat/params.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/oat/device_select.hpp"
#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_math.cuh"

namespace tomo::oat {
namespace {

using namespace cuda_detail;

constexpr int kThreads = kFbpBlockX * kFbpBlockY * kFbpBlockZ;
constexpr int kV = kFbpVoxelsPerThread;

// Loads transducers [q0, q0 + n) into `tile` (all threads of the block take part), as the kernel does.
__device__ __forceinline__ void load_tile(float4* tile, const float4* __restrict__ tr, int q0, int n, int tid) {
  __syncthreads();
  for (int t = tid; t < n; t += kThreads) tile[t] = tr[q0 + t];
  __syncthreads();
}

struct Column {
  int i, j, kb, tid;
};
__device__ __forceinline__ Column column() {
  return {static_cast<int>(blockIdx.x * kFbpBlockX + threadIdx.x), static_cast<int>(blockIdx.y * kFbpBlockY + threadIdx.y),
          static_cast<int>((blockIdx.z * kFbpBlockZ + threadIdx.z) * kV),
          static_cast<int>(threadIdx.x + kFbpBlockX * (threadIdx.y + kFbpBlockY * threadIdx.z))};
}

// The texture kernel's loop with the fetch replaced by a value built from the split (kept live so
// the compiler drops nothing) and without the double refinement: its arithmetic alone.
__global__ void __launch_bounds__(kThreads) arithmetic_probe_kernel(FbpParams p, const float4* __restrict__ tr,
                                                                     float* __restrict__ image) {
  __shared__ float4 tile[kFbpTile];
  const Column c = column();
  const float x = c.i * p.voxel, y = c.j * p.voxel, z0 = c.kb * p.voxel;
  float a1[kV], a2[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) a1[v] = a2[v] = 0.0f;
  for (int q0 = 0; q0 < p.transducers; q0 += kFbpTile) {
    const int n = min(kFbpTile, p.transducers - q0);
    load_tile(tile, tr, q0, n, c.tid);
    for (int t = 0; t < n; ++t) {
      const float4 s = tile[t];
      const float dx = x - s.x, dy = y - s.y, dz0 = z0 - s.z;
      const float dxy2 = fmaf(dx, dx, dy * dy);
#pragma unroll
      for (int v = 0; v < kV; ++v) {
        const float dz = fmaf(static_cast<float>(v), p.voxel, dz0);
        const float d2 = fmaf(dz, dz, dxy2);
        const float inv = fbp_rsqrt(d2);
        const float kh = fmaf(d2 * inv, p.inv_c0dt, -p.tau0h);
        const FbpSplit sp = fbp_split(kh);
        const float2 T = make_float2(sp.kf * 1e-30f, sp.g * s.w);  // no fetch
        a1[v] = fmaf(fmaf(sp.g, T.y, T.x), inv, a1[v]);
        a2[v] += T.y;
      }
    }
  }
  if (c.i >= p.nx || c.j >= p.ny) return;
#pragma unroll
  for (int v = 0; v < kV; ++v)
    if (c.kb + v < p.nz)
      image[(static_cast<size_t>(c.kb + v) * p.ny + c.j) * p.nx + c.i] = fmaf(p.lin_scale, a1[v], p.diff_scale * a2[v]);
}

// The texture kernel's float2 point fetches (one per voxel and transducer, same texture, same
// tiling) with coordinates from one distance per thread and transducer, expanded along z.
__global__ void __launch_bounds__(kThreads) fetch_probe_kernel(FbpParams p, const float4* __restrict__ tr,
                                                                cudaTextureObject_t tex, float* __restrict__ image) {
  __shared__ float4 tile[kFbpTile];
  const Column c = column();
  const float x = c.i * p.voxel, y = c.j * p.voxel, z0 = c.kb * p.voxel;
  float acc[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) acc[v] = 0.0f;
  for (int q0 = 0; q0 < p.transducers; q0 += kFbpTile) {
    const int n = min(kFbpTile, p.transducers - q0);
    load_tile(tile, tr, q0, n, c.tid);
    for (int t = 0; t < n; ++t) {
      const float4 s = tile[t];
      const float dx = x - s.x, dy = y - s.y, dz = z0 - s.z;
      const float d2 = fmaf(dz, dz, fmaf(dx, dx, dy * dy));
      const float inv = fbp_rsqrt(d2);
      const float k0 = fmaf(d2 * inv, p.inv_c0dt, -p.tau0h);
      const float slope = dz * inv * p.voxel * p.inv_c0dt;  // ∂k̃/∂k along z, first order
#pragma unroll
      for (int v = 0; v < kV; ++v) {
        const float2 T = tex2D<float2>(tex, fbp_split(fmaf(static_cast<float>(v), slope, k0)).kf + 0.5f, s.w);
        acc[v] += T.x + T.y;
      }
    }
  }
  if (c.i >= p.nx || c.j >= p.ny) return;
#pragma unroll
  for (int v = 0; v < kV; ++v)
    if (c.kb + v < p.nz) image[(static_cast<size_t>(c.kb + v) * p.ny + c.j) * p.nx + c.i] = acc[v];
}

dim3 probe_grid(const FbpParams& p) {
  constexpr int z_per_block = kFbpBlockZ * kV;
  return dim3((p.nx + kFbpBlockX - 1) / kFbpBlockX, (p.ny + kFbpBlockY - 1) / kFbpBlockY,
              (p.nz + z_per_block - 1) / z_per_block);
}

}  // namespace

struct FbpProbes::State {
  FbpParams params{};
  std::vector<double> weights;
  std::vector<float2> host_table;
  cuda::Stream stream;
  cuda::DeviceBuffer<float4> transducers;
  cuda::DeviceBuffer<float> image;
  cuda::CudaArray table;
  cuda::TextureObject point;
};

FbpProbes::FbpProbes(const OatGeometry& g) : s_(std::make_unique<State>()) {
  g.validate("oat fbp probes");
  select_cuda_device();
  State& s = *s_;
  const int Q = g.transducer_count(), K = g.time.samples;
  cudaDeviceProp prop{};
  TOMO_CUDA_CHECK(cudaGetDeviceProperties(&prop, cuda::current_device()));
  if (K - 1 > prop.maxTexture2D[0] || Q > prop.maxTexture2D[1])
    throw UnavailableError(str_cat("oat fbp probes: a data table of ", K - 1, " x ", Q,
                                   " exceeds the 2D texture limits"));
  // FbpDevice's geometry (the fields the probes read).
  const Grid3& gr = g.grid;
  const double dt = g.time.dt_us(), c0 = g.c0_mm_per_us;
  FbpParams& p = s.params;
  p.nx = gr.dims[0];
  p.ny = gr.dims[1];
  p.nz = gr.dims[2];
  p.voxel = static_cast<float>(g.voxel_mm());
  p.inv_c0dt = static_cast<float>(1.0 / (c0 * dt));
  p.tau0h = static_cast<float>(g.time.t_min_us / dt + 0.5);
  p.lin_scale = static_cast<float>(c0 * dt);
  p.diff_scale = 0.5f;
  p.transducers = Q;
  p.width = K - 1;
  std::vector<float4> tr(Q);
  for (int q = 0; q < Q; ++q) {
    double pos[3];
    for (int a = 0; a < 3; ++a) pos[a] = g.transducers[q][a] - gr.origin_mm[a];
    tr[q] = make_float4(static_cast<float>(pos[0]), static_cast<float>(pos[1]), static_cast<float>(pos[2]),
                        static_cast<float>(q) + 0.5f);
  }
  s.transducers.resize(Q);
  s.transducers.upload(tr);
  s.image.resize(gr.count());
  s.weights = fbp_weights<double>(g);
  s.table = cuda::CudaArray::of<float2>(
      cuda::ArrayExtent{static_cast<std::size_t>(K - 1), static_cast<std::size_t>(Q), 0});
  s.point = cuda::TextureObject(s.table, cuda::TextureOptions::point_clamp().with_address(cudaAddressModeBorder));
}

FbpProbes::~FbpProbes() = default;

void FbpProbes::upload(std::span<const double> pressure) {
  State& s = *s_;
  const std::size_t Q = static_cast<std::size_t>(s.params.transducers), W = static_cast<std::size_t>(s.params.width);
  const std::size_t K = W + 1;
  if (pressure.size() != Q * K)
    throw InputError(str_cat("oat fbp probes: ", pressure.size(), " pressure samples, expected ", Q, " x ", K));
  synchronize();  // a previous upload may still read host_table
  s.host_table.resize(Q * W);
  for (std::size_t q = 0; q < Q; ++q) {
    const double* row = pressure.data() + q * K;
    for (std::size_t k = 0; k < W; ++k)
      s.host_table[q * W + k] = make_float2(static_cast<float>(s.weights[q] * 0.5 * (row[k] + row[k + 1])),
                                            static_cast<float>(s.weights[q] * (row[k + 1] - row[k])));
  }
  s.table.copy_from_host(s.host_table.data(), s.stream.get());
}

void FbpProbes::fetch() {
  State& s = *s_;
  const FbpParams& p = s.params;
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  fetch_probe_kernel<<<probe_grid(p), dim3(kFbpBlockX, kFbpBlockY, kFbpBlockZ), 0, s.stream.get()>>>(
      p, s.transducers.data(), s.point.get(), s.image.data());
  TOMO_CUDA_CHECK_LAST();
}

void FbpProbes::arithmetic() {
  State& s = *s_;
  const FbpParams& p = s.params;
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  arithmetic_probe_kernel<<<probe_grid(p), dim3(kFbpBlockX, kFbpBlockY, kFbpBlockZ), 0, s.stream.get()>>>(
      p, s.transducers.data(), s.image.data());
  TOMO_CUDA_CHECK_LAST();
}

cudaStream_t FbpProbes::stream() const { return s_->stream.get(); }
void FbpProbes::synchronize() const { s_->stream.synchronize(); }

}  // namespace tomo::oat
