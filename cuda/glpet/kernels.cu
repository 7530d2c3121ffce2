// glpet CUDA kernels that trace every line in every pass: the atlas scatter of §III with float
// atomics (runs of equal LORs inside a macropixel pre-summed), the gathering back-projection of
// §IV as a block reduction per voxel, the ML-EM update and one correspondence image.
#include "cuda/glpet/kernels.hpp"

#include "cuda/core/check.hpp"
#include "cuda/glpet/device.cuh"

namespace tomo::glpet::cuda_impl {

namespace {

using namespace device;

__global__ void forward_kernel(SystemDesc s, PairDesc p, const float* __restrict__ x, float* __restrict__ yt) {
  size_t vox, local;
  if (!block_voxel(s, vox, local)) return;
  const float xv = x[vox];
  if (xv == 0.f) return;
  const float scale = xv / s.N;
  for (int n = 0; n < s.N; ++n) {
    double v[3];
    sample_pos(s, vox, n, v);
    const Frame f = make_frame(p, v, s.R);
    const ModuleDesc& m1 = p.m[f.primary];
    const int macro = m1.n_a * m1.n_t;
    for (int mp = threadIdx.x; mp < macro; mp += blockDim.x) {
      const int pp = mp % m1.n_a, q = mp / m1.n_a;
      size_t cur = ~size_t(0);
      float acc = 0.f;
      for (int sy = 0; sy < s.R; ++sy)
        for (int sx = 0; sx < s.R; ++sx) {
          size_t lor;
          float w;
          int r, ss;
          if (!trace(s, p, f, pp * s.R + sx, q * s.R + sy, lor, w, r, ss)) continue;
          if (lor != cur) {  // flush a run of equal LORs with one atomic
            if (cur != ~size_t(0)) atomicAdd(yt + p.lor_offset + cur, acc * scale);
            cur = lor;
            acc = 0.f;
          }
          acc += w;
        }
      if (cur != ~size_t(0)) atomicAdd(yt + p.lor_offset + cur, acc * scale);
    }
  }
}

__global__ void gather_kernel(SystemDesc s, PairDesc p, const float* __restrict__ y, const float* __restrict__ t,
                              bool ratio, float* __restrict__ b, float* __restrict__ sens, bool accumulate) {
  size_t vox, local;
  if (!block_voxel(s, vox, local)) return;
  float sb = 0.f, ss = 0.f;
  for (int n = 0; n < s.N; ++n) {
    double v[3];
    sample_pos(s, vox, n, v);
    const Frame f = make_frame(p, v, s.R);
    const ModuleDesc& m1 = p.m[f.primary];
    const int lines = m1.n_a * m1.n_t * s.R * s.R;
    const int W = m1.n_a * s.R;
    for (int li = threadIdx.x; li < lines; li += blockDim.x) {
      size_t lor;
      float w;
      int r, sidx;
      if (!trace(s, p, f, li % W, li / W, lor, w, r, sidx)) continue;
      const size_t l = p.lor_offset + lor;
      float z = y ? y[l] : 0.f;
      if (ratio) {
        const float tl = t[l];
        z = tl > 0.f ? z / tl : 0.f;
      }
      sb = fmaf(w, z, sb);
      ss += w;
    }
  }
  // The §IV mip-reduction of the two sums, as a block reduction.
  store_block_sums(s, vox, sb, ss, b, sens, accumulate);
}

__global__ void update_kernel(float* x, const float* b, const float* s, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = s[i] > 0.f ? x[i] * b[i] / s[i] : 0.f;
}

__global__ void subset_update_kernel(float* x, const float* b, const float* s, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n && s[i] > 0.f) x[i] = x[i] * b[i] / s[i];
}

__global__ void correspondence_kernel(SystemDesc s, PairDesc p, double vx, double vy, double vz, float* out) {
  const double v[3] = {vx, vy, vz};
  const Frame f = make_frame(p, v, s.R);
  const ModuleDesc& m1 = p.m[f.primary];
  const int W = m1.n_a * s.R, H = m1.n_t * s.R;
  const int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y;
  if (X >= W || Y >= H) return;
  size_t lor;
  float w;
  int r, sidx;
  float* o = out + 3 * (size_t(Y) * W + X);
  if (trace(s, p, f, X, Y, lor, w, r, sidx)) {
    o[0] = float(r), o[1] = float(sidx), o[2] = w;
  } else {
    o[0] = -1.f, o[1] = -1.f, o[2] = 0.f;
  }
}

}  // namespace

void launch_forward(const SystemDesc& s, const PairDesc& p, const float* x, float* yt, cudaStream_t stream) {
  forward_kernel<<<voxel_grid(voxels(s)), kThreads, 0, stream>>>(s, p, x, yt);
  TOMO_CUDA_CHECK_LAST();
}

void launch_gather(const SystemDesc& s, const PairDesc& p, const float* y, const float* t, bool ratio, float* b,
                   float* sens, bool accumulate, cudaStream_t stream) {
  gather_kernel<<<voxel_grid(voxels(s)), kThreads, 0, stream>>>(s, p, y, t, ratio, b, sens, accumulate);
  TOMO_CUDA_CHECK_LAST();
}

void launch_mlem_update(float* x, const float* b, const float* s, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  update_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, b, s, n);
  TOMO_CUDA_CHECK_LAST();
}

void launch_subset_update(float* x, const float* b, const float* s, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  subset_update_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, b, s, n);
  TOMO_CUDA_CHECK_LAST();
}

void launch_correspondence(const SystemDesc& s, const PairDesc& p, const double v[3], float* out3,
                           cudaStream_t stream) {
  // The primary decides the image size: the caller sized out3 from it.
  const int R = s.R;
  const int W = max(p.m[0].n_a, p.m[1].n_a) * R, H = max(p.m[0].n_t, p.m[1].n_t) * R;
  correspondence_kernel<<<dim3(unsigned((W + 127) / 128), unsigned(H)), 128, 0, stream>>>(s, p, v[0], v[1], v[2],
                                                                                        out3);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::glpet::cuda_impl
