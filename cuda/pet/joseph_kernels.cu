// Joseph's line projector kernels (joseph_kernels.hpp): one thread per line, the plane loop
// specialised per dominant axis so that strides and sizes are fixed per branch, a fast path for
// planes whose four taps all lie inside the grid.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "compute/pet/joseph.hpp"
#include "cuda/core/check.hpp"
#include "cuda/pet/joseph_kernels.hpp"

namespace tomo::pet::cuda_impl {

namespace {

// Sizes and strides of a plane walk along axis D: na, nb along the plane's axes a < b.
struct Plane {
  int na, nb;
  long long sa, sb, sd;
};

template <int D>
__device__ __forceinline__ Plane plane_of(int nx, int ny, int nz) {
  const long long sxy = (long long)nx * ny;
  if (D == 0) return {ny, nz, nx, sxy, 1};
  if (D == 1) return {nx, nz, 1, sxy, nx};
  return {nx, ny, 1, nx, sxy};
}

// visit(index, bilinear weight) for the in-grid taps of plane k of walk w.
template <class Visit>
__device__ __forceinline__ void plane_visit(const DeviceWalk& w, const Plane& p, int k, Visit&& visit) {
  const float s = float(k - w.first);
  const float u = fmaf(s, w.da, w.ua), v = fmaf(s, w.db, w.ub);
  const float fu = floorf(u), fv = floorf(v);
  const int iu = int(fu), iv = int(fv);
  const float wu = u - fu, wv = v - fv;
  const long long at = k * p.sd + iu * p.sa + iv * p.sb;
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

template <int D>
__device__ __forceinline__ float walk_sum(const DeviceWalk& w, const float* __restrict__ img, int nx, int ny, int nz) {
  const Plane p = plane_of<D>(nx, ny, nz);
  float s = 0.f;
  for (int k = w.first; k <= w.last; ++k) plane_visit(w, p, k, [&](long long i, float t) { s = fmaf(t, __ldg(img + i), s); });
  return s * w.weight;
}

template <int D>
__device__ __forceinline__ void walk_add(const DeviceWalk& w, float val, float* __restrict__ img, int nx, int ny, int nz) {
  const Plane p = plane_of<D>(nx, ny, nz);
  const float v = val * w.weight;
  for (int k = w.first; k <= w.last; ++k) plane_visit(w, p, k, [&](long long i, float t) { atomicAdd(img + i, t * v); });
}

__global__ void forward_kernel(JosephArgs a, const float* __restrict__ img, float* __restrict__ out) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= a.lines) return;
  const DeviceWalk w = a.walks[t];
  float s = 0.f;
  if (w.axis == 2) s = walk_sum<2>(w, img, a.nx, a.ny, a.nz);
  else if (w.axis == 1) s = walk_sum<1>(w, img, a.nx, a.ny, a.nz);
  else s = walk_sum<0>(w, img, a.nx, a.ny, a.nz);
  out[a.order ? a.order[t] : t] = s;
}

__global__ void back_kernel(JosephArgs a, const float* __restrict__ val, float* __restrict__ img) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= a.lines) return;
  const float v = __ldg(val + (a.order ? a.order[t] : t));
  if (v == 0.f) return;
  const DeviceWalk w = a.walks[t];
  if (w.axis == 2) walk_add<2>(w, v, img, a.nx, a.ny, a.nz);
  else if (w.axis == 1) walk_add<1>(w, v, img, a.nx, a.ny, a.nz);
  else walk_add<0>(w, v, img, a.nx, a.ny, a.nz);
}

constexpr int kThreads = 128;

}  // namespace

std::vector<DeviceWalk> device_walks(const LineGrid& g, std::span<const double> e) {
  joseph::Grid<double> grid{};
  for (int k = 0; k < 3; ++k) {
    grid.n[k] = g.dims[k];
    grid.voxel[k] = g.voxel_mm[k];
    grid.origin[k] = g.origin_mm[k];
  }
  std::vector<DeviceWalk> out(e.size() / 6);
  const long long n = static_cast<long long>(out.size());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) {
    const joseph::Walk<double> w = joseph::make_walk(&e[6 * i], &e[6 * i + 3], grid);
    out[i] = {float(w.ua), float(w.ub), float(w.da), float(w.db), float(w.weight), w.axis, w.first, w.last};
  }
  return out;
}

std::vector<std::uint32_t> back_order(std::span<const DeviceWalk> walks, const LineGrid& g) {
  struct Key {
    int axis, qa, qb, row;
    float col;
  };
  std::vector<Key> keys(walks.size());
  for (std::size_t i = 0; i < walks.size(); ++i) {
    const DeviceWalk& w = walks[i];
    const int nd = g.dims[w.axis];
    const float mid = float(nd / 2 - w.first);
    keys[i] = {w.axis, int(std::floor(w.da * nd)), int(std::floor(w.db * nd)),
               int(std::floor(w.ub + mid * w.db)), w.ua + mid * w.da};
  }
  std::vector<std::uint32_t> order(walks.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const Key &a = keys[x], &b = keys[y];
    return std::tie(a.axis, a.qa, a.qb, a.row, a.col) < std::tie(b.axis, b.qa, b.qb, b.row, b.col);
  });
  return order;
}

void launch_joseph_forward(const JosephArgs& a, const float* image, float* lines, cudaStream_t stream) {
  if (a.lines == 0) return;
  const unsigned blocks = unsigned((a.lines + kThreads - 1) / kThreads);
  forward_kernel<<<blocks, kThreads, 0, stream>>>(a, image, lines);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

void launch_joseph_back(const JosephArgs& a, const float* lines, float* image, cudaStream_t stream) {
  if (a.lines == 0) return;
  const unsigned blocks = unsigned((a.lines + kThreads - 1) / kThreads);
  back_kernel<<<blocks, kThreads, 0, stream>>>(a, lines, image);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tomo::pet::cuda_impl
