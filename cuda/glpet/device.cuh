// Device helpers shared by the glpet CUDA kernels (kernels.cu: lines traced in every
// pass; cache_kernels.cu: the cached system matrix): the line set of docs/glpet.md §2
// ([Toth2010] §II) with double geometry and fp32 ray marching, atlas indices, block sums.
#pragma once
#include <cuda_runtime.h>

#include "compute/glpet/line_math.hpp"
#include "cuda/glpet/kernels.hpp"

namespace tomo::glpet::cuda_impl::device {

__device__ inline double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

__device__ inline float fetch(const VolumeDesc& v, int i, int j, int k) {
  if (i < 0 || j < 0 || k < 0 || i >= v.n[0] || j >= v.n[1] || k >= v.n[2]) return 0.0f;
  return __ldg(v.sigma + (size_t(i) + size_t(v.n[0]) * (size_t(j) + size_t(v.n[1]) * k)));
}

// Trilinear σ_t at continuous voxel index g (zero outside), in fp32 with fused lerps (not tex3D:
// its 9-bit interpolation weights would break the 1e-4 contract). The math: line_math.hpp.
__device__ inline float sigma_at(const VolumeDesc& v, float gx, float gy, float gz) {
  return line_math::sigma_at<line_math::Lerp::fused>(gx, gy, gz, v.n, [&v](int i, int j, int k, float* c) {
    c[0] = fetch(v, i, j, k), c[1] = fetch(v, i + 1, j, k), c[2] = fetch(v, i, j + 1, k);
    c[3] = fetch(v, i + 1, j + 1, k), c[4] = fetch(v, i, j, k + 1), c[5] = fetch(v, i + 1, j, k + 1);
    c[6] = fetch(v, i, j + 1, k + 1), c[7] = fetch(v, i + 1, j + 1, k + 1);
  });
}

// T = exp(−Σ_k σ_t(y(t_k))·L/K), t_k = (k+½)/K, y(t) = y2 + t(y1 − y2): the sample range in
// double as on the cpu, the march in fp32 along g0 + t·dg in voxel units.
__device__ inline float transmission(const VolumeDesc& v, const double* y1, const double* y2, int K) {
  if (v.empty) return 1.0f;
  double g0[3], dg[3];
  int k0 = 0, k1 = -1;
  const double *origin = v.origin, *inv_voxel = v.inv_voxel;
  if (!line_math::sample_range(y1, y2, origin, inv_voxel, v.n, K, g0, dg, k0, k1)) return 1.0f;
  const float gx = float(g0[0]), gy = float(g0[1]), gz = float(g0[2]);
  const float dx = float(dg[0]), dy = float(dg[1]), dz = float(dg[2]);
  const float sum = line_math::midpoint_sum<float>(
      k0, k1, K, [&](float t) { return sigma_at(v, fmaf(t, dx, gx), fmaf(t, dy, gy), fmaf(t, dz, gz)); });
  const double L = sqrt((y1[0] - y2[0]) * (y1[0] - y2[0]) + (y1[1] - y2[1]) * (y1[1] - y2[1]) +
                        (y1[2] - y2[2]) * (y1[2] - y2[2]));
  return expf(-sum * float(L / K));
}

// Per-sample frame (docs/glpet.md §2, steps 1–2).
struct Frame {
  int primary;
  double v[3], sec_plane;
  double pixel_area;
};

__device__ inline Frame make_frame(const PairDesc& p, const double v[3], int R) {
  Frame f;
  for (int a = 0; a < 3; ++a) f.v[a] = v[a];
  double r0[3], r1[3];
  for (int a = 0; a < 3; ++a) {
    r0[a] = v[a] - p.m[0].centre[a];
    r1[a] = v[a] - p.m[1].centre[a];
  }
  f.primary = fabs(dot3(r1, p.m[1].normal)) > fabs(dot3(r0, p.m[0].normal)) ? 1 : 0;
  const ModuleDesc& m1 = p.m[f.primary];
  const ModuleDesc& m2 = p.m[1 - f.primary];
  double c2v[3];
  for (int a = 0; a < 3; ++a) c2v[a] = m2.centre[a] - v[a];
  f.sec_plane = dot3(c2v, m2.normal);
  f.pixel_area = m1.pitch_a * m1.pitch_t / (double(R) * R);
  return f;
}

// Atlas index of primary detector (pp, q) and secondary detector (r, s) (docs/glpet.md §2:
// the pair's first module indexes the atlas rows).
__device__ inline size_t lor_index(const PairDesc& p, int primary, int pp, int q, int r, int sidx) {
  const ModuleDesc& m1 = p.m[primary];
  const int na = m1.n_a, nt = m1.n_t;
  const int i0 = primary == 0 ? pp : r, j0 = primary == 0 ? q : sidx;
  const int i1 = primary == 0 ? r : pp, j1 = primary == 0 ? sidx : q;
  return size_t(j0 * nt + j1) * size_t(na) * na + size_t(i0 * na + i1);
}

// Geometry of the line of pixel (X, Y): false on a miss; else its end points y1 (primary)
// and y2 (secondary), the secondary detector (r, s) and the solid-angle weight Δω/2π.
struct LineGeom {
  double y1[3], y2[3];
  double omega;
  int r, s;
};

__device__ inline bool trace_geometry(const SystemDesc& s, const PairDesc& p, const Frame& f, int X, int Y, LineGeom& g) {
  const ModuleDesc& m1 = p.m[f.primary];
  const ModuleDesc& m2 = p.m[1 - f.primary];
  const int R = s.R;
  double d[3];
  for (int a = 0; a < 3; ++a) {
    g.y1[a] = m1.corner[a] + (X + 0.5) * (m1.pitch_a / R) * m1.axis_a[a] + (Y + 0.5) * (m1.pitch_t / R) * m1.axis_t[a];
    d[a] = g.y1[a] - f.v[a];
  }
  const double dn = dot3(d, m2.normal);
  if (dn == 0) return false;
  const double lambda = f.sec_plane / dn;
  if (!(lambda < 0)) return false;
  double rel[3];
  for (int a = 0; a < 3; ++a) {
    g.y2[a] = f.v[a] + lambda * d[a];
    rel[a] = g.y2[a] - m2.corner[a];
  }
  const double aa = dot3(rel, m2.axis_a) / m2.pitch_a, tt = dot3(rel, m2.axis_t) / m2.pitch_t;
  if (!(aa >= 0 && tt >= 0 && aa < m2.n_a && tt < m2.n_t)) return false;
  g.r = min(int(aa), m2.n_a - 1);
  g.s = min(int(tt), m2.n_t - 1);
  const double d2 = dot3(d, d);
  const double cos_t = fabs(dot3(d, m1.normal)) / sqrt(d2);
  g.omega = f.pixel_area * cos_t / d2 / (2 * 3.14159265358979323846);
  return true;
}

// Line of pixel (X, Y): returns false on a miss; else the atlas index and weight a.
__device__ inline bool trace(const SystemDesc& s, const PairDesc& p, const Frame& f, int X, int Y, size_t& lor, float& w,
                      int& r_out, int& s_out) {
  LineGeom g;
  if (!trace_geometry(s, p, f, X, Y, g)) return false;
  lor = lor_index(p, f.primary, X / s.R, Y / s.R, g.r, g.s);
  w = float(g.omega) * transmission(s.vol, g.y1, g.y2, s.K);
  r_out = g.r;
  s_out = g.s;
  return true;
}

__device__ inline void sample_pos(const SystemDesc& s, size_t vox, int n, double out[3]) {
  const int nx = s.vol.n[0], ny = s.vol.n[1];
  const int i = int(vox % nx), j = int((vox / nx) % ny), k = int(vox / (size_t(nx) * ny));
  const int ijk[3] = {i, j, k};
  for (int a = 0; a < 3; ++a) out[a] = s.vol.origin[a] + (ijk[a] + s.offsets[3 * n + a]) * s.vol.voxel[a];
}

__device__ inline int macro_count(const PairDesc& p, int primary) { return p.m[primary].n_a * p.m[primary].n_t; }

__device__ inline void block_sum2(float& a, float& b) {
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_xor_sync(0xFFFFFFFFu, a, o);
    b += __shfl_xor_sync(0xFFFFFFFFu, b, o);
  }
  __shared__ float sa[kThreads / 32], sb[kThreads / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) sa[warp] = a, sb[warp] = b;
  __syncthreads();
  if (threadIdx.x == 0) {
    a = 0.f, b = 0.f;
    for (int w = 0; w < kThreads / 32; ++w) a += sa[w], b += sb[w];
  }
}

// Sums the block's per-thread (Σ a·z, Σ a) and writes them / N to b[vox] and sens[vox]
// (either may be null); accumulate adds to what is there (pairs after the first).
__device__ inline void store_block_sums(const SystemDesc& s, size_t vox, float sb, float ss, float* b, float* sens,
                                        bool accumulate) {
  block_sum2(sb, ss);
  if (threadIdx.x == 0) {
    const float nb = sb / s.N, ns = ss / s.N;
    if (b) b[vox] = accumulate ? b[vox] + nb : nb;
    if (sens) sens[vox] = accumulate ? sens[vox] + ns : ns;
  }
}

// One block per voxel: a 2D grid when there are more voxels than one grid dimension holds.
inline dim3 voxel_grid(size_t nvox) {
  const size_t gx = nvox < 65535 ? nvox : 65535;
  return dim3(unsigned(gx), unsigned((nvox + gx - 1) / gx));
}

// The number of voxels the passes visit (SystemDesc::first/count).
__host__ __device__ inline size_t voxels(const SystemDesc& s) {
  return s.count ? s.count : size_t(s.vol.n[0]) * s.vol.n[1] * s.vol.n[2];
}

// This block's voxel and its index in the visited range (the cache row's voxel part); false
// for blocks past the range.
__device__ inline bool block_voxel(const SystemDesc& s, size_t& vox, size_t& local) {
  local = blockIdx.x + size_t(blockIdx.y) * gridDim.x;
  if (local >= voxels(s)) return false;
  vox = s.first + local;
  return true;
}

}  // namespace tomo::glpet::cuda_impl::device
