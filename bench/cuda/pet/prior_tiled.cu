// Bench-only (never product code): the relative difference prior's previous product kernel, kept
// as the comparison row of bench_pet. A block owns a 32×8 column of the image and marches along z
// through 16 planes with three planes of x and κ (one-voxel halo) in shared memory; each voxel
// gathers its 26 neighbour terms, one reciprocal each (compute/pet/rdp_math.hpp multiplied out).
#include <algorithm>

#include "bench/cuda/pet/prior_tiled.hpp"
#include "compute/pet/rdp_math.hpp"
#include "cuda/core/check.hpp"

namespace tomo::pet::probes {

namespace {

constexpr int kTx = 32, kTy = 8, kChunk = 16;  // block tile and planes per block
constexpr int kPx = kTx + 2, kPy = kTy + 2, kPlane = kPx * kPy;

struct Weights {
  float w[27];  // w[(dk+1)*9 + (dj+1)*3 + di+1], 0 at the centre
};

// Loads plane k (with halo) of x and κ into the shared slot; 0 outside the image.
__device__ void load_plane(const cuda_impl::RdpArgs& a, int k, int i0, int j0, float* sx, float* sk) {
  const int tid = threadIdx.y * kTx + threadIdx.x;
  const bool in_z = k >= 0 && k < a.nz;
  for (int t = tid; t < kPlane; t += kTx * kTy) {
    const int ii = i0 - 1 + t % kPx, jj = j0 - 1 + t / kPx;
    float xv = 0.0f, kv = 0.0f;
    if (in_z && ii >= 0 && jj >= 0 && ii < a.nx && jj < a.ny) {
      const std::size_t b = (std::size_t(k) * a.ny + jj) * a.nx + ii;
      xv = __ldg(a.x + b);
      kv = a.kappa ? __ldg(a.kappa + b) : 1.0f;
    }
    sx[t] = xv;
    sk[t] = kv;
  }
}

// One pair's term for voxel value xa and neighbour xb: f, ∂f/∂a or ∂²f/∂a² (rdp_math.hpp).
template <int Term>
__device__ __forceinline__ float pair_term(float xa, float xb, float gamma, float eps) {
  const float d = xa - xb, ad = fabsf(d), D = xa + xb + gamma * ad + eps;
  const float r = D > 0.0f ? __fdividef(1.0f, D) : 0.0f;
  if constexpr (Term == 0) return d * d * r;
  else if constexpr (Term == 1) return d * (xa + 3.0f * xb + gamma * ad + 2.0f * eps) * (r * r);
  else {
    const float c = 2.0f * xb + eps;
    return 2.0f * c * c * (r * r * r);
  }
}

template <int Term>
__global__ void __launch_bounds__(kTx * kTy) rdp_kernel(cuda_impl::RdpArgs a, Weights wt) {
  __shared__ float sx[3][kPlane], sk[3][kPlane];
  const int i0 = blockIdx.x * kTx, j0 = blockIdx.y * kTy, k0 = blockIdx.z * kChunk;
  const int k1 = min(k0 + kChunk, a.nz);
  const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
  const bool inside = i < a.nx && j < a.ny;
  const int c = (threadIdx.y + 1) * kPx + threadIdx.x + 1;  // this voxel's slot in a plane
  load_plane(a, k0 - 1, i0, j0, sx[0], sk[0]);
  load_plane(a, k0, i0, j0, sx[1], sk[1]);
  int lo = 0, mid = 1, hi = 2;
  for (int k = k0; k < k1; ++k) {
    load_plane(a, k + 1, i0, j0, sx[hi], sk[hi]);
    __syncthreads();
    if (inside) {
      const float ka = sk[mid][c], xa = sx[mid][c];
      float sum = 0.0f;
      if (ka != 0.0f) {
        const int slot[3] = {lo, mid, hi};
#pragma unroll
        for (int dk = 0; dk < 3; ++dk)
#pragma unroll
          for (int dj = -1; dj <= 1; ++dj)
#pragma unroll
            for (int di = -1; di <= 1; ++di) {
              if (dk == 1 && !dj && !di) continue;
              const int q = c + dj * kPx + di;
              const float kb = sk[slot[dk]][q];
              const float t = pair_term<Term>(xa, sx[slot[dk]][q], a.gamma, a.eps);
              sum += kb != 0.0f ? wt.w[dk * 9 + (dj + 1) * 3 + di + 1] * kb * t : 0.0f;
            }
      }
      a.out[(std::size_t(k) * a.ny + j) * a.nx + i] = ka * sum;
    }
    __syncthreads();
    const int t = lo;
    lo = mid, mid = hi, hi = t;
  }
}

}  // namespace

void launch_tiled_rdp(const cuda_impl::RdpArgs& a, cuda_impl::RdpTerm term, cudaStream_t stream) {
  const std::size_t n = std::size_t(a.nx) * a.ny * a.nz;
  if (n == 0) return;
  Weights w{};
  for (int q = 0; q < 27; ++q) {
    const int di = q % 3 - 1, dj = (q / 3) % 3 - 1, dk = q / 9 - 1;
    w.w[q] = (di || dj || dk) ? rdp_weight<float>(di, dj, dk, a.vx, a.vy, a.vz) : 0.0f;
  }
  const dim3 block(kTx, kTy), grid((a.nx + kTx - 1) / kTx, (a.ny + kTy - 1) / kTy, (a.nz + kChunk - 1) / kChunk);
  switch (term) {
    case cuda_impl::RdpTerm::value: rdp_kernel<0><<<grid, block, 0, stream>>>(a, w); break;
    case cuda_impl::RdpTerm::gradient: rdp_kernel<1><<<grid, block, 0, stream>>>(a, w); break;
    case cuda_impl::RdpTerm::hessian: rdp_kernel<2><<<grid, block, 0, stream>>>(a, w); break;
  }
  TOMO_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tomo::pet::probes
