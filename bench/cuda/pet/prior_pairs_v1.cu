// Bench-only (never product code): the first version of the prior's pair kernel
// (cuda/pet/rdp_kernels.cu), each pair with its D > 0 guard and x unshifted, timed beside the
// product to show what the guard-free path and the shifted values buy.
#include <algorithm>

#include "bench/cuda/pet/prior_pairs_v1.hpp"
#include "compute/pet/rdp_math.hpp"
#include "cuda/core/check.hpp"

namespace tomo::pet::probes {

using cuda_impl::RdpArgs;
using cuda_impl::RdpTerm;

namespace {

constexpr int kLanes = 32, kWarps = 4, kRows = 8, kChunk = 16;
constexpr int kCols = kLanes - 2;        // columns written per block along x
constexpr int kSpan = kWarps * kRows;    // rows written per block along y
constexpr int kSet = kRows + 2;          // rows a lane holds (with the two halo rows)
constexpr unsigned kFull = 0xffffffffu;

struct Weights {
  float w[27];  // w[(dk+1)*9 + (dj+1)*3 + di+1], symmetric in the sign of each offset
};

__host__ __device__ constexpr int widx(int di, int dj, int dk) { return (dk + 1) * 9 + (dj + 1) * 3 + di + 1; }

// One unordered pair (a, b) at weight w: acc_a += w κ_b t(a, b), acc_b += w κ_a t(b, a) for the
// term t of compute/pet/rdp_math.hpp (f, ∂f/∂a or ∂²f/∂a²) with one reciprocal of D. The gradient
// uses a + 3b + γ|d| + 2ε = D + (2b + ε); a D ≤ 0 (negative images only) contributes 0.
template <int Term>
__device__ __forceinline__ void pair(float xa, float ka, float xb, float kb, float w, float gamma, float eps,
                                     float& acc_a, float& acc_b) {
  const float d = xa - xb, D = fmaf(gamma, fabsf(d), xa + xb + eps);
  const float r = D > 0.0f ? __fdividef(1.0f, D) : 0.0f;
  if constexpr (Term == 0) {
    const float f = w * d * d * r;
    acc_a = fmaf(f, kb, acc_a);
    acc_b = fmaf(f, ka, acc_b);
  } else if constexpr (Term == 1) {
    const float wdr = w * d * r;
    acc_a = fmaf(wdr * kb, fmaf(2.0f * xb + eps, r, 1.0f), acc_a);
    acc_b = fmaf(-wdr * ka, fmaf(2.0f * xa + eps, r, 1.0f), acc_b);
  } else {
    const float h = 2.0f * w * r * r * r, ca = 2.0f * xa + eps, cb = 2.0f * xb + eps;
    acc_a = fmaf(h * kb, cb * cb, acc_a);
    acc_b = fmaf(h * ka, ca * ca, acc_b);
  }
}

template <int Term>
__global__ void __launch_bounds__(kLanes * kWarps) rdp_kernel(RdpArgs a, Weights wt) {
  const int lane = threadIdx.x;
  const int i = int(blockIdx.x) * kCols - 1 + lane;
  const int j0 = int(blockIdx.y) * kSpan + int(threadIdx.y) * kRows - 1;  // row 0 of the set (halo)
  const int k0 = int(blockIdx.z) * kChunk, k1 = min(k0 + kChunk, a.nz);
  const bool in_x = i >= 0 && i < a.nx;
  const bool writes = in_x && lane >= 1 && lane <= kCols;
  const float g = a.gamma, e = a.eps;

  // x and κ of plane k (lower) and k + 1 (upper), own lane and the next lane; 0 outside.
  float xl[kSet], kl[kSet], xu[kSet], ku[kSet], xlr[kSet], klr[kSet], xur[kSet], kur[kSet];
  float al[kSet], au[kSet], rl[kSet], ru[kSet];  // own sums (planes k, k+1), next lane's halves
  auto load = [&](int k, float* xv, float* kv) {
    const bool in_z = k >= 0 && k < a.nz;
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      const int j = j0 + r;
      const bool ok = in_x && in_z && j >= 0 && j < a.ny;
      const std::size_t b = (std::size_t(ok ? k : 0) * a.ny + (ok ? j : 0)) * a.nx + (ok ? i : 0);
      xv[r] = ok ? __ldg(a.x + b) : 0.0f;
      kv[r] = ok ? (a.kappa ? __ldg(a.kappa + b) : 1.0f) : 0.0f;
    }
  };
  load(k0 - 1, xl, kl);
#pragma unroll
  for (int r = 0; r < kSet; ++r) {
    xlr[r] = __shfl_down_sync(kFull, xl[r], 1);
    klr[r] = __shfl_down_sync(kFull, kl[r], 1);
    al[r] = 0.0f;
  }
  // The first step (plane k0 − 1) only gathers the pairs between k0 − 1 and k0 for plane k0.
  for (int k = k0 - 1; k < k1; ++k) {
    load(k + 1, xu, ku);
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      xur[r] = __shfl_down_sync(kFull, xu[r], 1);
      kur[r] = __shfl_down_sync(kFull, ku[r], 1);
      au[r] = rl[r] = ru[r] = 0.0f;
    }
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      if (r + 1 < kSet) pair<Term>(xl[r], kl[r], xl[r + 1], kl[r + 1], wt.w[widx(0, 1, 0)], g, e, al[r], al[r + 1]);
#pragma unroll
      for (int dj = -1; dj <= 1; ++dj) {
        const int q = r + dj;
        if (q < 0 || q >= kSet) continue;
        pair<Term>(xl[r], kl[r], xlr[q], klr[q], wt.w[widx(1, dj, 0)], g, e, al[r], rl[q]);   // (+1, dj, 0)
        pair<Term>(xl[r], kl[r], xu[q], ku[q], wt.w[widx(0, dj, 1)], g, e, al[r], au[q]);     // (0, dj, +1)
        pair<Term>(xl[r], kl[r], xur[q], kur[q], wt.w[widx(1, dj, 1)], g, e, al[r], ru[q]);   // (+1, dj, +1)
        pair<Term>(xu[r], ku[r], xlr[q], klr[q], wt.w[widx(1, dj, 1)], g, e, au[r], rl[q]);   // (+1, dj, −1) from k+1
      }
    }
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      al[r] += __shfl_up_sync(kFull, rl[r], 1);  // lane 0 gets its own halves back: it writes nothing
      au[r] += __shfl_up_sync(kFull, ru[r], 1);
    }
    if (k >= k0 && writes) {
#pragma unroll
      for (int r = 1; r <= kRows; ++r) {
        const int j = j0 + r;
        if (j < a.ny) a.out[(std::size_t(k) * a.ny + j) * a.nx + i] = kl[r] * al[r];
      }
    }
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      xl[r] = xu[r], kl[r] = ku[r], xlr[r] = xur[r], klr[r] = kur[r], al[r] = au[r];
    }
  }
}

}  // namespace

void launch_pairs_v1_rdp(const RdpArgs& a, RdpTerm term, cudaStream_t stream) {
  const std::size_t n = std::size_t(a.nx) * a.ny * a.nz;
  if (n == 0) return;
  Weights w{};
  for (int q = 0; q < 27; ++q) {
    const int di = q % 3 - 1, dj = (q / 3) % 3 - 1, dk = q / 9 - 1;
    w.w[q] = (di || dj || dk) ? rdp_weight<float>(di, dj, dk, a.vx, a.vy, a.vz) : 0.0f;
  }
  const dim3 block(kLanes, kWarps),
      grid((a.nx + kCols - 1) / kCols, (a.ny + kSpan - 1) / kSpan, (a.nz + kChunk - 1) / kChunk);
  switch (term) {
    case RdpTerm::value: rdp_kernel<0><<<grid, block, 0, stream>>>(a, w); break;
    case RdpTerm::gradient: rdp_kernel<1><<<grid, block, 0, stream>>>(a, w); break;
    case RdpTerm::hessian: rdp_kernel<2><<<grid, block, 0, stream>>>(a, w); break;
  }
  TOMO_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tomo::pet::probes
