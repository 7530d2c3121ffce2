// The cuda backend's forward and back projection on their own: P(ẽ|i) of [Bialas2015] eq. (7)
// along the rows of each event's 3σ ellipse, the cpu backend's walk (make_row /
// kernel_row_value of kernel_math.hpp, in float, IEEE division: no fast-math flags here). The
// ML-EM kernels (kernels.cu) fuse both into one step. Also the image kernels of device arrays.
#include <cuda_runtime.h>

#include "cuda/core/check.hpp"
#include "cuda/strip/projection_kernels.hpp"

namespace tomo::strip::cuda_impl {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) {
  // Grid-stride loops below: 2^20 blocks cover 2.7e8 items in one pass, larger lists loop.
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < (std::size_t(1) << 20) ? b : (std::size_t(1) << 20));
}

// f(i, P(ẽ|i)) for every pixel of the event's ellipse, row by row (the cpu backend's walk).
template <class F>
__device__ __forceinline__ void visit(const EventPassArgs& a, std::size_t e, F&& f) {
  const float* ev = a.events + 3 * e;
  const auto fr = make_frame<float>(ev[0], ev[1], ev[2], a.kp);
  const PixelBox b = pixel_box(fr, a.grid);  // empty for events off the grid or with NaNs
  for (int j = b.j0; j <= b.j1; ++j) {
    const auto row = make_row(fr, a.kp, a.grid.y0 + j * a.grid.py - fr.y);
    if (row.b1_half < 0.f) continue;
    const float zc = fr.z + row.dy * fr.tan;
    // Clamped in float before the conversion: a wide ellipse's interval may leave int's range.
    const float lo = ceilf((zc - row.b1_half - a.grid.z0) / a.grid.pz);
    const float hi = floorf((zc + row.b1_half - a.grid.z0) / a.grid.pz);
    const int k0 = int(fmaxf(lo, float(b.k0))), k1 = int(fminf(hi, float(b.k1)));
    for (int k = k0; k <= k1; ++k) {
      const float b1 = a.grid.z0 + k * a.grid.pz - fr.z - row.dy * fr.tan;
      f(std::size_t(j) * a.grid.nz + k, kernel_row_value(row, a.kp, b1));
    }
  }
}

__global__ void event_forward(EventPassArgs a, const float* x, float* y) {
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < a.n;
       e += std::size_t(gridDim.x) * blockDim.x) {
    float sum = 0.f;
    visit(a, e, [&](std::size_t i, float p) { sum += p * __ldg(x + i); });
    y[e] = sum;
  }
}

__global__ void event_back(EventPassArgs a, const float* w, float* b) {
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < a.n;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const float we = w[e];
    if (we == 0.f) continue;
    visit(a, e, [&](std::size_t i, float p) { atomicAdd(b + i, p * we); });
  }
}

__global__ void multiply(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = a[i] * b[i];
}

__global__ void fill(float* out, std::size_t n, float value) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = value;
}

}  // namespace

void launch_event_forward(const EventPassArgs& a, const float* x, float* y, cudaStream_t stream) {
  if (a.n == 0) return;
  event_forward<<<blocks_for(a.n), kThreads, 0, stream>>>(a, x, y);
  TOMO_CUDA_CHECK_LAST();
}

void launch_event_back(const EventPassArgs& a, const float* w, float* b, cudaStream_t stream) {
  if (a.n == 0) return;
  event_back<<<blocks_for(a.n), kThreads, 0, stream>>>(a, w, b);
  TOMO_CUDA_CHECK_LAST();
}

void launch_multiply(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  multiply<<<blocks_for(n), kThreads, 0, stream>>>(a, b, out, n);
  TOMO_CUDA_CHECK_LAST();
}

void launch_fill(float* out, std::size_t n, float value, cudaStream_t stream) {
  if (n == 0) return;
  fill<<<blocks_for(n), kThreads, 0, stream>>>(out, n, value);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::strip::cuda_impl
