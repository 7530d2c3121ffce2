// Device vector steps of the iterative algorithms and the TV prox (see vector_kernels.hpp).
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include "cuda/core/check.hpp"
#include "cuda/fdk/vector_kernels.hpp"

namespace tomo::fdk::cuda_detail {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 4096 ? (b ? b : 1) : 4096);  // grid-stride beyond 1M threads
}

template <class F>
__global__ void each(std::size_t n, F f) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    f(i);
}

template <class F>
void launch_each(std::size_t n, cudaStream_t s, F f) {
  if (n == 0) return;
  each<<<blocks_for(n), kThreads, 0, s>>>(n, f);
  TOMO_CUDA_CHECK_LAST();
}

// *out += Σ_i term(i), double partial sums per block, one atomic per block.
template <class F>
__global__ void sum_kernel(std::size_t n, F term, double* out) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  double acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    acc += term(i);
  const double total = Reduce(tmp).Sum(acc);
  if (threadIdx.x == 0) atomicAdd(out, total);
}

__global__ void invert_kernel(float* v, std::size_t n, const float* peak) {
  const float eps = 1e-6f * *peak;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    v[i] = v[i] > eps ? 1.0f / v[i] : 0.0f;
}

// One functor per step (device lambdas would need nvcc's --extended-lambda).
struct Fill {
  float* v;
  float value;
  __device__ void operator()(std::size_t i) const { v[i] = value; }
};
struct Dot {
  const float *a, *b;
  __device__ double operator()(std::size_t i) const { return double(a[i]) * b[i]; }
};
struct Residual {
  const float* b;
  const int* views;
  std::size_t image;
  float* proj;
  const float* R;
  __device__ double operator()(std::size_t i) const {
    const std::size_t k = i / image, p = i - k * image;
    const float r = b[static_cast<std::size_t>(views[k]) * image + p] - proj[i];
    proj[i] = r * R[i];
    return double(r) * r;
  }
};
struct AddProduct {
  float* x;
  const float *C, *d;
  bool nonnegative;
  __device__ void operator()(std::size_t i) const {
    const float e = x[i] + C[i] * d[i];
    x[i] = nonnegative ? fmaxf(e, 0.0f) : e;
  }
};
struct Axpy {
  float a;
  const float* x;
  float* y;
  __device__ void operator()(std::size_t i) const { y[i] += a * x[i]; }
};
struct Xpby {
  const float* x;
  float b;
  float* y;
  __device__ void operator()(std::size_t i) const { y[i] = x[i] + b * y[i]; }
};
struct Extrapolate {
  const float *x, *x_prev;
  float m;
  float* y;
  __device__ void operator()(std::size_t i) const { y[i] = x[i] + m * (x[i] - x_prev[i]); }
};
struct TvPrimal {
  long nx, ny, nz;
  const float* z;
  float mu;
  bool nonnegative;
  const float* p;
  float* x;
  __device__ void operator()(std::size_t idx) const {
    const long v = static_cast<long>(idx), sy = nx, sz = nx * ny;
    const long i = v % nx, j = (v / nx) % ny, k = v / sz;
    float div = 0;  // (∇ᵀp)_v = Σ_axes p_a[v − e_a] − p_a[v] (each term where it exists)
    if (i < nx - 1) div -= p[3 * v];
    if (i > 0) div += p[3 * (v - 1)];
    if (j < ny - 1) div -= p[3 * v + 1];
    if (j > 0) div += p[3 * (v - sy) + 1];
    if (k < nz - 1) div -= p[3 * v + 2];
    if (k > 0) div += p[3 * (v - sz) + 2];
    const float e = z[v] - mu * div;
    x[v] = nonnegative ? fmaxf(e, 0.0f) : e;
  }
};
struct TvAscend {
  long nx, ny, nz;
  const float* x;
  float step;
  const float* r;
  float* p_next;
  __device__ void operator()(std::size_t idx) const {
    const long v = static_cast<long>(idx), sy = nx, sz = nx * ny;
    const long i = v % nx, j = (v / nx) % ny, k = v / sz;
    const float gx = i < nx - 1 ? x[v + 1] - x[v] : 0.0f;
    const float gy = j < ny - 1 ? x[v + sy] - x[v] : 0.0f;
    const float gz = k < nz - 1 ? x[v + sz] - x[v] : 0.0f;
    const float a = r[3 * v] + step * gx, b = r[3 * v + 1] + step * gy, c = r[3 * v + 2] + step * gz;
    const float scale = 1.0f / fmaxf(1.0f, sqrtf(a * a + b * b + c * c));
    p_next[3 * v] = a * scale;
    p_next[3 * v + 1] = b * scale;
    p_next[3 * v + 2] = c * scale;
  }
};
struct Momentum {
  const float *p_next, *p;
  float m;
  float* r;
  __device__ void operator()(std::size_t i) const { r[i] = p_next[i] + m * (p_next[i] - p[i]); }
};
struct ClampCopy {
  const float* z;
  bool nonnegative;
  float* x;
  __device__ void operator()(std::size_t i) const { x[i] = nonnegative ? fmaxf(z[i], 0.0f) : z[i]; }
};

}  // namespace

void fill(float* v, std::size_t n, float value, cudaStream_t s) { launch_each(n, s, Fill{v, value}); }

void dot(const float* a, const float* b, std::size_t n, double* out, cudaStream_t s) {
  if (n == 0) return;
  sum_kernel<<<blocks_for(n), kThreads, 0, s>>>(n, Dot{a, b}, out);
  TOMO_CUDA_CHECK_LAST();
}

std::size_t invert_scratch_bytes(std::size_t n) {
  std::size_t bytes = 0;
  TOMO_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, static_cast<const float*>(nullptr),
                                         static_cast<float*>(nullptr), static_cast<long long>(n)));
  return bytes + 256;  // the peak itself, aligned
}

void invert_sums(float* v, std::size_t n, void* scratch, cudaStream_t s) {
  if (n == 0) return;
  float* peak = static_cast<float*>(scratch);
  void* temp = static_cast<char*>(scratch) + 256;
  std::size_t bytes = invert_scratch_bytes(n) - 256;
  TOMO_CUDA_CHECK(cub::DeviceReduce::Max(temp, bytes, v, peak, static_cast<long long>(n), s));
  invert_kernel<<<blocks_for(n), kThreads, 0, s>>>(v, n, peak);
  TOMO_CUDA_CHECK_LAST();
}

void weighted_residual(const float* b, const int* views, int count, std::size_t image, float* proj, const float* R,
                       double* r2, cudaStream_t s) {
  const std::size_t n = image * count;
  if (n == 0) return;
  sum_kernel<<<blocks_for(n), kThreads, 0, s>>>(n, Residual{b, views, image, proj, R}, r2);
  TOMO_CUDA_CHECK_LAST();
}

void add_product(float* x, const float* C, const float* d, std::size_t n, bool nonnegative, cudaStream_t s) {
  launch_each(n, s, AddProduct{x, C, d, nonnegative});
}

void axpy(float a, const float* x, float* y, std::size_t n, cudaStream_t s) { launch_each(n, s, Axpy{a, x, y}); }

void xpby(const float* x, float b, float* y, std::size_t n, cudaStream_t s) { launch_each(n, s, Xpby{x, b, y}); }

void extrapolate(const float* x, const float* x_prev, float m, float* y, std::size_t n, cudaStream_t s) {
  launch_each(n, s, Extrapolate{x, x_prev, m, y});
}

void tv_primal(std::array<int, 3> dims, const float* z, float mu, bool nonnegative, const float* p, float* x,
               cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(dims[0]) * dims[1] * dims[2];
  launch_each(n, s, TvPrimal{dims[0], dims[1], dims[2], z, mu, nonnegative, p, x});
}

void tv_ascend(std::array<int, 3> dims, const float* x, float mu, const float* r, float* p_next, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(dims[0]) * dims[1] * dims[2];
  launch_each(n, s, TvAscend{dims[0], dims[1], dims[2], x, 1.0f / (12.0f * mu), r, p_next});
}

void tv_momentum(const float* p_next, const float* p, float m, float* r, std::size_t n3, cudaStream_t s) {
  launch_each(n3, s, Momentum{p_next, p, m, r});
}

void clamp_copy(const float* z, bool nonnegative, float* x, std::size_t n, cudaStream_t s) {
  launch_each(n, s, ClampCopy{z, nonnegative, x});
}

}  // namespace tomo::fdk::cuda_detail
