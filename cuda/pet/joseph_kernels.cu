// Joseph's line projector kernels (joseph_kernels.hpp): one thread per line, the plane loop
// specialised per dominant axis so that strides and sizes are fixed per branch, voxel and quad
// indices in 32 bits where the grid allows; the forward has a fast path for planes whose four
// taps all lie inside the grid. TOF mode runs kernels of its own (the non-TOF ones unchanged):
// the same plane loops over the TOF window, each plane's weight the bin-integrated Gaussian.
#include <cmath>

#include "compute/pet/joseph.hpp"
#include "cuda/core/check.hpp"
#include "cuda/pet/joseph_kernels.hpp"

namespace tomo::pet::cuda_impl {

namespace {

// Sizes and strides of a plane walk along axis D: na, nb along the plane's axes a < b. Index I:
// int where every voxel and quad index fits (fewer instructions per tap), else long long.
template <class I>
struct Plane {
  int na, nb;
  I sa, sb, sd;
};

template <int D, class I>
__device__ __forceinline__ Plane<I> plane_of(int nx, int ny, int nz) {
  const I sxy = (I)nx * ny;
  if (D == 0) return {ny, nz, nx, sxy, 1};
  if (D == 1) return {nx, nz, 1, sxy, nx};
  return {nx, ny, 1, nx, sxy};
}

// visit(index, bilinear weight) for the in-grid taps of plane k of walk w.
template <class I, class Visit>
__device__ __forceinline__ void plane_visit(const DeviceWalk& w, const Plane<I>& p, int k, Visit&& visit) {
  const float s = float(k - w.first);
  const float u = fmaf(s, w.da, w.ua), v = fmaf(s, w.db, w.ub);
  const float fu = floorf(u), fv = floorf(v);
  const int iu = int(fu), iv = int(fv);
  const float wu = u - fu, wv = v - fv;
  const I at = k * p.sd + iu * p.sa + iv * p.sb;
  if ((unsigned)iu < (unsigned)(p.na - 1) && (unsigned)iv < (unsigned)(p.nb - 1)) {
    visit(at, (1.f - wu) * (1.f - wv));
    visit(at + p.sa, wu * (1.f - wv));
    visit(at + p.sb, (1.f - wu) * wv);
    visit(at + p.sa + p.sb, wu * wv);
    return;
  }
  const bool u0 = (unsigned)iu < (unsigned)p.na, u1 = (unsigned)(iu + 1) < (unsigned)p.na;
  const bool v0 = (unsigned)iv < (unsigned)p.nb, v1 = (unsigned)(iv + 1) < (unsigned)p.nb;
  if (u0 && v0) visit(at, (1.f - wu) * (1.f - wv));
  if (u1 && v0) visit(at + p.sa, wu * (1.f - wv));
  if (u0 && v1) visit(at + p.sb, (1.f - wu) * wv);
  if (u1 && v1) visit(at + p.sa + p.sb, wu * wv);
}

template <int D, class I>
__device__ __forceinline__ float walk_sum(const DeviceWalk& w, const float* __restrict__ img, int nx, int ny, int nz) {
  const Plane<I> p = plane_of<D, I>(nx, ny, nz);
  float s = 0.f;
  for (int k = w.first; k <= w.last; ++k) plane_visit(w, p, k, [&](I i, float t) { s = fmaf(t, __ldg(img + i), s); });
  return s * w.weight;
}

// The TOF kernel's weight of plane k (joseph::tof_kernel in float).
__device__ __forceinline__ float tof_weight(const DeviceTof& t, int k, float h) {
  const float a = fabsf(fmaf(float(k - t.first), t.dx, t.x));
  return 0.5f * (erff((a + h) * t.r) - erff((a - h) * t.r));
}

template <int D, class I>
__device__ __forceinline__ float tof_walk_sum(const DeviceWalk& w, const DeviceTof& t, float h, const float* __restrict__ img,
                                              int nx, int ny, int nz) {
  const Plane<I> p = plane_of<D, I>(nx, ny, nz);
  float s = 0.f;
  for (int k = t.first; k <= t.last; ++k) {
    float q = 0.f;
    plane_visit(w, p, k, [&](I i, float v) { q = fmaf(v, __ldg(img + i), q); });
    s = fmaf(tof_weight(t, k, h), q, s);
  }
  return s * t.scale;
}

// Line i's value along axis D: its walk's planes, or its TOF window's (none when empty).
template <int D, class I, bool Tof>
__device__ __forceinline__ float line_sum(const JosephArgs& a, std::size_t i, const DeviceWalk& w, const float* __restrict__ img) {
  if constexpr (Tof) {
    const DeviceTof t = a.tof[i];
    return t.last >= t.first ? tof_walk_sum<D, I>(w, t, a.half_width, img, a.nx, a.ny, a.nz) : 0.f;
  } else {
    return walk_sum<D, I>(w, img, a.nx, a.ny, a.nz);
  }
}

template <class I, bool Tof>
__global__ void forward_kernel(JosephArgs a, const float* __restrict__ img, float* __restrict__ out) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= a.lines) return;
  const DeviceWalk w = a.walks[t];
  float s = 0.f;
  if (w.axis == 2) s = line_sum<2, I, Tof>(a, t, w, img);
  else if (w.axis == 1) s = line_sum<1, I, Tof>(a, t, w, img);
  else s = line_sum<0, I, Tof>(a, t, w, img);
  out[t] = s;
}

// The quad layout's planes for axis D (joseph_kernels.hpp): quad (k, iu, iv) at
// (k (nb+1) + iv + 1)(na+1) + iu + 1.
template <class I>
__device__ __forceinline__ I quad_index(const Plane<I>& p, int k, int iu, int iv) {
  return ((I)k * (p.nb + 1) + iv + 1) * (p.na + 1) + iu + 1;
}

// One float4 atomic per plane k0 … k1 of walk w, the plane's shares of val · factor(k).
template <int D, class I, class Factor>
__device__ __forceinline__ void quad_add(const DeviceWalk& w, int k0, int k1, float val, Factor&& factor,
                                         float4* __restrict__ q, int nx, int ny, int nz) {
  const Plane<I> p = plane_of<D, I>(nx, ny, nz);
  for (int k = k0; k <= k1; ++k) {
    const float v = val * factor(k);
    const float r = float(k - w.first);
    const float u = fmaf(r, w.da, w.ua), vv = fmaf(r, w.db, w.ub);
    const float fu = floorf(u), fv = floorf(vv);
    const int iu = int(fu), iv = int(fv);
    if (iu < -1 || iu >= p.na || iv < -1 || iv >= p.nb) continue;
    const float wu = u - fu, wv = vv - fv;
    const float4 c = make_float4((1.f - wu) * (1.f - wv) * v, wu * (1.f - wv) * v, (1.f - wu) * wv * v, wu * wv * v);
    float4* at = q + quad_index(p, k, iu, iv);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(at, c);
#else
    atomicAdd(&at->x, c.x);
    atomicAdd(&at->y, c.y);
    atomicAdd(&at->z, c.z);
    atomicAdd(&at->w, c.w);
#endif
  }
}

// quad_add on the quads of the walk's dominant axis.
template <class I, class Factor>
__device__ __forceinline__ void quad_add_axis(const JosephArgs& a, const DeviceWalk& w, int k0, int k1, float val,
                                              Factor&& factor, float4* q0, float4* q1, float4* q2) {
  if (w.axis == 2) quad_add<2, I>(w, k0, k1, val, factor, q2, a.nx, a.ny, a.nz);
  else if (w.axis == 1) quad_add<1, I>(w, k0, k1, val, factor, q1, a.nx, a.ny, a.nz);
  else quad_add<0, I>(w, k0, k1, val, factor, q0, a.nx, a.ny, a.nz);
}

// Line t's shares: the walk's planes times its step, or its TOF window's planes times the kernel.
template <class I, bool Tof>
__global__ void back_quads_kernel(JosephArgs a, const float* __restrict__ val, float4* q0, float4* q1, float4* q2) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= a.lines) return;
  const float v = __ldg(val + t);
  if (v == 0.f) return;
  const DeviceWalk w = a.walks[t];
  if constexpr (Tof) {
    const DeviceTof tw = a.tof[t];
    if (tw.last < tw.first) return;
    const float h = a.half_width;
    quad_add_axis<I>(a, w, tw.first, tw.last, v * tw.scale, [&](int k) { return tof_weight(tw, k, h); }, q0, q1, q2);
  } else {
    if (w.last < w.first) return;
    quad_add_axis<I>(a, w, w.first, w.last, v * w.weight, [](int) { return 1.f; }, q0, q1, q2);
  }
}

// A voxel's four shares in the quads of axis D: it is corner (0,0) of quad (iu, iv), (1,0) of
// (iu−1, iv), (0,1) of (iu, iv−1) and (1,1) of (iu−1, iv−1).
template <int D, class I>
__device__ __forceinline__ float quad_shares(const float4* __restrict__ q, int x, int y, int z, int nx, int ny, int nz) {
  const Plane<I> p = plane_of<D, I>(nx, ny, nz);
  const int k = D == 0 ? x : D == 1 ? y : z;
  const int iu = D == 0 ? y : x;
  const int iv = D == 2 ? y : z;
  return q[quad_index(p, k, iu, iv)].x + q[quad_index(p, k, iu - 1, iv)].y + q[quad_index(p, k, iu, iv - 1)].z +
         q[quad_index(p, k, iu - 1, iv - 1)].w;
}

template <class I>
__global__ void quads_to_image_kernel(JosephArgs a, const float4* q0, const float4* q1, const float4* q2,
                                      float* __restrict__ img) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= (long long)a.nx * a.ny * a.nz) return;
  const int x = int(j % a.nx), y = int((j / a.nx) % a.ny), z = int(j / ((long long)a.nx * a.ny));
  float s = 0.f;
  if (q0) s += quad_shares<0, I>(q0, x, y, z, a.nx, a.ny, a.nz);
  if (q1) s += quad_shares<1, I>(q1, x, y, z, a.nx, a.ny, a.nz);
  if (q2) s += quad_shares<2, I>(q2, x, y, z, a.nx, a.ny, a.nz);
  img[j] = s;
}

constexpr int kThreads = 128;

unsigned blocks_for(long long n) { return unsigned((n + kThreads - 1) / kThreads); }

// Whether every voxel and quad index of the grid fits in an int (x: +1 for the quads' border).
bool int_indices(const JosephArgs& a) {
  return double(a.nx + 1) * double(a.ny + 1) * double(a.nz + 1) < 2147483647.0;
}

}  // namespace

std::size_t quad_count(const LineGrid& g, int axis) {
  const int a = joseph::plane_axis_a(axis), b = joseph::plane_axis_b(axis);
  return std::size_t(g.dims[axis]) * (g.dims[a] + 1) * (g.dims[b] + 1);
}

void launch_joseph_back_quads(const JosephArgs& a, const float* lines, QuadPlanes q, cudaStream_t stream) {
  if (a.lines == 0) return;
  const unsigned blocks = blocks_for((long long)a.lines);
  if (a.tof && int_indices(a))
    back_quads_kernel<int, true><<<blocks, kThreads, 0, stream>>>(a, lines, q[0], q[1], q[2]);
  else if (a.tof)
    back_quads_kernel<long long, true><<<blocks, kThreads, 0, stream>>>(a, lines, q[0], q[1], q[2]);
  else if (int_indices(a))
    back_quads_kernel<int, false><<<blocks, kThreads, 0, stream>>>(a, lines, q[0], q[1], q[2]);
  else
    back_quads_kernel<long long, false><<<blocks, kThreads, 0, stream>>>(a, lines, q[0], q[1], q[2]);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

void launch_quads_to_image(const JosephArgs& a, QuadPlanes q, float* image, cudaStream_t stream) {
  const unsigned blocks = blocks_for((long long)a.nx * a.ny * a.nz);
  if (int_indices(a))
    quads_to_image_kernel<int><<<blocks, kThreads, 0, stream>>>(a, q[0], q[1], q[2], image);
  else
    quads_to_image_kernel<long long><<<blocks, kThreads, 0, stream>>>(a, q[0], q[1], q[2], image);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

namespace {

joseph::Grid<double> grid_of(const LineGrid& g) {
  joseph::Grid<double> grid{};
  for (int k = 0; k < 3; ++k) {
    grid.n[k] = g.dims[k];
    grid.voxel[k] = g.voxel_mm[k];
    grid.origin[k] = g.origin_mm[k];
  }
  return grid;
}

}  // namespace

std::vector<DeviceWalk> device_walks(const LineGrid& g, std::span<const double> e) {
  const joseph::Grid<double> grid = grid_of(g);
  std::vector<DeviceWalk> out(e.size() / 6);
  const long long n = static_cast<long long>(out.size());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) {
    const joseph::Walk<double> w = joseph::make_walk(&e[6 * i], &e[6 * i + 3], grid);
    out[i] = {float(w.ua), float(w.ub), float(w.da), float(w.db), float(w.weight), w.axis, w.first, w.last};
  }
  return out;
}

std::vector<DeviceTof> device_tof_walks(const LineGrid& g, std::span<const double> e, const LineTof& tof) {
  const joseph::Grid<double> grid = grid_of(g);
  std::vector<DeviceTof> out(e.size() / 6);
  const long long n = static_cast<long long>(out.size());
#pragma omp parallel for schedule(dynamic, 1024)
  for (long long i = 0; i < n; ++i) {
    const joseph::Walk<double> w = joseph::make_walk(&e[6 * i], &e[6 * i + 3], grid);
    const joseph::TofParams<double> p{tof.bin_index[i], tof.num_bins, tof.bin_width_mm, tof.sigma_of(i),
                                      tof.offset_of(i), tof.num_sigmas};
    const joseph::TofWalk<double> t = joseph::make_tof_walk(w, &e[6 * i], &e[6 * i + 3], grid, p);
    out[i] = {float(t.x), float(t.dx), float(t.scale), float(1.0 / (std::sqrt(2.0) * p.sigma)), t.first, t.last, {0, 0}};
  }
  return out;
}

void launch_joseph_forward(const JosephArgs& a, const float* image, float* lines, cudaStream_t stream) {
  if (a.lines == 0) return;
  const unsigned blocks = unsigned((a.lines + kThreads - 1) / kThreads);
  if (a.tof && int_indices(a))
    forward_kernel<int, true><<<blocks, kThreads, 0, stream>>>(a, image, lines);
  else if (a.tof)
    forward_kernel<long long, true><<<blocks, kThreads, 0, stream>>>(a, image, lines);
  else if (int_indices(a))
    forward_kernel<int, false><<<blocks, kThreads, 0, stream>>>(a, image, lines);
  else
    forward_kernel<long long, false><<<blocks, kThreads, 0, stream>>>(a, image, lines);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tomo::pet::cuda_impl
