// SrtProbes (see srt_probes.hpp): the probe kernels beside cuda/oat/srt_kernels.cu's, sharing its
// device helpers (srt_device.cuh), compiled with the same flags (bench/CMakeLists.txt).
#include "bench/cuda/oat/srt_probes.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/oat/kernel_math.hpp"
#include "compute/oat/params.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.cuh"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat {
namespace {

using namespace cuda_detail;

// shell_point with the fast sine/cosine.
__device__ __forceinline__ void fast_point(const ShellFrame<float>& f, const ShellCap<float>& c,
                                           const ShellRing<float>& r, int j, float* x, float* y, float* z) {
  float sp, cp;
  __sincosf((static_cast<float>(j) + 0.5f) * (2.0f * kPi<float>) / static_cast<float>(r.n_phi), &sp, &cp);
  const float a = c.R * r.cos_t, b = c.R * r.sin_t * cp, d = c.R * r.sin_t * sp;
  *x = f.sx + a * f.ex + b * f.ux + d * f.vx;
  *y = f.sy + a * f.ey + b * f.uy + d * f.vy;
  *z = f.sz + a * f.ez + b * f.uz + d * f.vz;
}

// Always eight voxels (indices clamped into the grid, so the memory traffic is that of an interior
// patch), weights from one reciprocal.
template <class F>
__device__ __forceinline__ void fast_visit(const GridParams<float>& g, float inv_ds, float x, float y, float z, F&& f) {
  const float fx = (x - g.x0) * inv_ds, fy = (y - g.y0) * inv_ds, fz = (z - g.z0) * inv_ds;
  const int i0 = min(max(__float2int_rd(fx), 0), g.nx - 2), j0 = min(max(__float2int_rd(fy), 0), g.ny - 2),
            k0 = min(max(__float2int_rd(fz), 0), g.nz - 2);
  const float ax = fx - i0, ay = fy - j0, az = fz - k0;
  const int base = i0 + g.nx * (j0 + g.ny * k0);
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const int a = c & 1, b = (c >> 1) & 1, e = c >> 2;
    const float w = (a ? ax : 1.0f - ax) * (b ? ay : 1.0f - ay) * (e ? az : 1.0f - az);
    f(base + a + g.nx * (b + g.ny * e), w);
  }
}

template <bool kTexture>
__global__ void __launch_bounds__(kSrtThreads) probe_kernel(SrtParams p, const float* __restrict__ alpha,
                                                             cudaTextureObject_t vol, float* __restrict__ g) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  const GridParams<float>& gp = p.grid;
  const float inv_ds = 1.0f / gp.ds;
  float sum = 0.0f;
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    float ring = 0.0f;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      fast_point(f, c, r, j, &x, &y, &z);
      if constexpr (kTexture)
        ring += tex3D<float>(vol, (x - gp.x0) * inv_ds + 0.5f, (y - gp.y0) * inv_ds + 0.5f, (z - gp.z0) * inv_ds + 0.5f);
      else
        fast_visit(gp, inv_ds, x, y, z, [&](int n, float w) { ring += w * __ldg(alpha + n); });
    }
    sum += r.area * ring;
  });
  sum = warp_sum(sum);
  if (lane == 0) g[static_cast<std::int64_t>(s.q) * p.shells + s.m] = sum;
}

__global__ void __launch_bounds__(kSrtThreads) atomics_kernel(SrtParams p, const float* __restrict__ g,
                                                               float* __restrict__ alpha) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;
  const float value = g[static_cast<std::int64_t>(s.q) * p.shells + s.m];
  if (value == 0.0f) return;
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  const float inv_ds = 1.0f / p.grid.ds;
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    const float v = r.area * value;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      fast_point(f, c, r, j, &x, &y, &z);
      fast_visit(p.grid, inv_ds, x, y, z, [&](int n, float w) { atomicAdd(alpha + n, w * v); });
    }
  });
}

// The product's exact forward (srt_kernels.cu srt_kernel: kernel_math trilinear_visit, fp32 weights)
// with the patches' azimuth sines and cosines read from the gather's table (srt_gather.cuh
// TablePoints) instead of a sincosf per patch: what the table would take off H_int.
__global__ void __launch_bounds__(kSrtThreads) forward_table_kernel(SrtParams p, GatherParams gp,
                                                                     const float* __restrict__ alpha,
                                                                     float* __restrict__ g) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  float sum = 0.0f;
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    float ring = 0.0f;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      TablePoints::at(f, c, r, j, &x, &y, &z, gp);
      trilinear_visit(p.grid, x, y, z, [&](int n, float w) { ring += w * __ldg(alpha + n); });
    }
    sum += r.area * ring;
  });
  sum = warp_sum(sum);
  if (lane == 0) g[static_cast<std::int64_t>(s.q) * p.shells + s.m] = sum;
}

}  // namespace

struct SrtProbes::State {
  SrtParams srt{};
  TimeParams time{};
  cuda::Stream stream;
  cuda::DeviceBuffer<ShellFrame<float>> frames;
  cuda::DeviceBuffer<float> taps, alpha, g, p, u;
  int taps_count = 0;
  cuda::CudaArray volume;
  cuda::TextureObject volume_tex;
  GatherParams plans[std::size(kAdjointVariants)];
  cuda::DeviceBuffer<float> partial;
  cuda::DeviceBuffer<double> fixed;  // the product gather's fixed-point scale
  cuda::DeviceBuffer<float2> trig;   // the gather's azimuth table (forward_table)
};

SrtProbes::SrtProbes(const OatGeometry& g, const ModelOptions& o) : s_(std::make_unique<State>()) {
  g.validate("oat srt probes");
  if (g.grid.dims[0] < 2 || g.grid.dims[1] < 2 || g.grid.dims[2] < 2)
    throw Error("oat srt probes: need at least 2 voxels along every axis");
  State& s = *s_;
  const int Q = g.transducer_count(), K = g.time.samples;
  const std::size_t M = static_cast<std::size_t>(K) + 2;
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
  s.alpha.resize(g.grid.count());
  s.g.resize(static_cast<std::size_t>(Q) * M);
  s.p.resize(static_cast<std::size_t>(Q) * K);
  s.u.resize(static_cast<std::size_t>(Q) * K);
  s.volume = cuda::CudaArray::of<float>(cuda::ArrayExtent{static_cast<std::size_t>(g.grid.dims[0]),
                                                          static_cast<std::size_t>(g.grid.dims[1]),
                                                          static_cast<std::size_t>(g.grid.dims[2])});
  s.volume_tex =
      cuda::TextureObject(s.volume, cuda::TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  // Each gather variant planned as ModelDevice plans the product's (cuda/oat/model_device.cpp).
  const Vec3d c = g.grid_centre_mm();
  const float centre[3] = {static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2])};
  const double rho = cap_radius_mm(g);
  double far = 0;
  for (const ShellFrame<float>& f : frames) far = std::max(far, static_cast<double>(f.D) + rho);
  int device = 0, sms = 0;
  TOMO_CUDA_CHECK(cudaGetDevice(&device));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int chunks = 1;
  s.fixed.resize(kGatherScratch);
  for (std::size_t v = 0; v < std::size(kAdjointVariants); ++v) {
    int tile[3];
    variant_tile(kAdjointVariants[v], tile);
    s.plans[v] = plan_gather(s.srt, centre, static_cast<float>(rho), static_cast<float>(far), tile,
                             variant_blocks_per_sm(kAdjointVariants[v]) * std::max(1, sms));
    chunks = std::max(chunks, s.plans[v].chunks);
    s.plans[v].fixed = s.fixed.data();
  }
  if (chunks > 1) s.partial.resize(static_cast<std::size_t>(chunks) * g.grid.count());
  s.trig.resize(trig_table_size(kTrigTableN));
  launch_trig_table(s.trig.data(), kTrigTableN, s.stream.get());
}

void SrtProbes::adjoint(AdjointVariant variant) {
  State& s = *s_;
  launch_eir_adjoint(s.time, s.taps.data(), s.taps_count, s.u.data(), s.p.data(), s.stream.get());
  launch_d_adjoint(s.time, s.p.data(), s.g.data(), s.stream.get());
  launch_adjoint_variant(variant, s.srt, s.plans[static_cast<int>(variant)], s.g.data(), s.alpha.data(),
                         s.partial.data(), s.stream.get());
}

std::vector<float> SrtProbes::alpha() const {
  s_->stream.synchronize();
  return s_->alpha.to_host();
}

int SrtProbes::gather_chunks(AdjointVariant variant) const { return s_->plans[static_cast<int>(variant)].chunks; }

SrtProbes::~SrtProbes() = default;

void SrtProbes::upload(std::span<const double> alpha, std::span<const double> u) {
  State& s = *s_;
  const std::vector<float> a(alpha.begin(), alpha.end()), d(u.begin(), u.end());
  s.alpha.upload(a);
  s.u.upload(d);
}

void SrtProbes::loads() {
  State& s = *s_;
  probe_kernel<false><<<srt_blocks(s.srt), kSrtThreads, 0, s.stream.get()>>>(s.srt, s.alpha.data(), 0, s.g.data());
  TOMO_CUDA_CHECK_LAST();
  launch_d(s.time, s.g.data(), s.p.data(), s.stream.get());
  launch_eir(s.time, s.taps.data(), s.taps_count, s.p.data(), s.u.data(), s.stream.get());
}

void SrtProbes::forward_table() {
  State& s = *s_;
  GatherParams gp{};
  gp.trig = s.trig.data();
  gp.trig_n = kTrigTableN;
  forward_table_kernel<<<srt_blocks(s.srt), kSrtThreads, 0, s.stream.get()>>>(s.srt, gp, s.alpha.data(),
                                                                               s.g.data());
  TOMO_CUDA_CHECK_LAST();
  launch_d(s.time, s.g.data(), s.p.data(), s.stream.get());
  launch_eir(s.time, s.taps.data(), s.taps_count, s.p.data(), s.u.data(), s.stream.get());
}

std::vector<float> SrtProbes::data() const {
  s_->stream.synchronize();
  return s_->u.to_host();
}

void SrtProbes::texture() {
  State& s = *s_;
  s.volume.copy_from_device(s.alpha.data(), s.stream.get());
  probe_kernel<true><<<srt_blocks(s.srt), kSrtThreads, 0, s.stream.get()>>>(s.srt, s.alpha.data(),
                                                                           s.volume_tex.get(), s.g.data());
  TOMO_CUDA_CHECK_LAST();
  launch_d(s.time, s.g.data(), s.p.data(), s.stream.get());
  launch_eir(s.time, s.taps.data(), s.taps_count, s.p.data(), s.u.data(), s.stream.get());
}

void SrtProbes::atomics() {
  State& s = *s_;
  launch_eir_adjoint(s.time, s.taps.data(), s.taps_count, s.u.data(), s.p.data(), s.stream.get());
  launch_d_adjoint(s.time, s.p.data(), s.g.data(), s.stream.get());
  s.alpha.fill_zero(s.stream.get());
  atomics_kernel<<<srt_blocks(s.srt), kSrtThreads, 0, s.stream.get()>>>(s.srt, s.g.data(), s.alpha.data());
  TOMO_CUDA_CHECK_LAST();
}

cudaStream_t SrtProbes::stream() const { return s_->stream.get(); }
void SrtProbes::synchronize() const { s_->stream.synchronize(); }

}  // namespace tomo::oat
