// The relative difference prior's stencil kernel ([Nuyts2002]), each of the 13 unordered
// neighbour pairs of a voxel evaluated once and credited to both of its voxels: the pair's
// denominator and reciprocal serve both ends (f is symmetric; ∂f/∂a and ∂f/∂b share D).
//
// A warp's 32 lanes own 32 consecutive columns along x (the outer two are halo: they compute
// pairs for their neighbours and write nothing); a lane owns a shape's rows along y plus one halo row
// on each side, in registers, and marches along z through a chunk of planes. Per plane step a lane
// evaluates the pairs inside its own rows (planes k and k + 1) and those with the next lane's rows,
// whose values come by shuffle; the next lane's halves are summed in registers and shuffled to it
// once per row. No shared memory, no atomics; each voxel is loaded from memory about once.
// Values are held shifted by ε/2 (so a + b + ε is one add, 2b + ε one doubling); where a warp's
// values are all ≥ 0 (and ε > 0, γ ≥ 0) every D ≥ ε/2 > 0 and the pairs skip the D > 0 test.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "compute/pet/rdp_math.hpp"
#include "cuda/core/check.hpp"
#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet::cuda_impl::pairs {

constexpr int kLanes = 32, kWarps = 4, kChunk = 16;
constexpr int kCols = kLanes - 2;  // columns written per block along x
constexpr unsigned kFull = 0xffffffffu;

// The kernel's shape, the fastest of those timed on an H200 (docs/perf/pet.md): 4 rows along y a
// lane (72–96 registers: more warps an SM than 8 rows' 128, and room for the gradient and Hessian
// sums of the one-pass term); a plane step whose two planes have κ = 0 in the whole warp skips its
// pairs (their terms are all multiplied by κ = 0: outside the field of view); a plane's loads take
// one offset per plane and a row mask made once.
constexpr int kRows = 4;

// The per-voxel sum a pass accumulates: one float, or (gradient, Hessian) for both at once.
template <int Term>
struct AccOf {
  using type = float;
};
template <>
struct AccOf<3> {
  using type = float2;
};
__device__ __forceinline__ void add_to(float& a, float b) { a += b; }
__device__ __forceinline__ void add_to(float2& a, float2 b) { a.x += b.x, a.y += b.y; }
__device__ __forceinline__ float shfl_up(float v) { return __shfl_up_sync(kFull, v, 1); }
__device__ __forceinline__ float2 shfl_up(float2 v) {
  return make_float2(__shfl_up_sync(kFull, v.x, 1), __shfl_up_sync(kFull, v.y, 1));
}

struct Weights {
  float w[27];  // w[(dk+1)*9 + (dj+1)*3 + di+1], symmetric in the sign of each offset
};

__host__ __device__ constexpr int widx(int di, int dj, int dk) { return (dk + 1) * 9 + (dj + 1) * 3 + di + 1; }

// One unordered pair (a, b) at weight w: acc_a += w κ_b t(a, b), acc_b += w κ_a t(b, a) for the
// term t of compute/pet/rdp_math.hpp (f, ∂f/∂a or ∂²f/∂a²) with one reciprocal of D. sa, sb are
// the values shifted by ε/2: d = sa − sb, D = sa + sb + γ|d|, 2b + ε = 2 sb. The gradient uses
// a + 3b + γ|d| + 2ε = D + (2b + ε); the Hessian (2b + ε)²/D³ as ((2b + ε)/D)²/D, which stays
// finite for tiny ε. Guard: a D ≤ 0 (negative images only) contributes 0. Unguarded, 1/D is the
// hardware's approximate reciprocal alone: there x ≥ 0 and ε ≥ kMinEps, so D ≥ ε is a normal
// float and __fdividef's rescaling for subnormal D (four of a pair's sixteen instructions in a
// pass bound by instruction issue) never applies: the same MUFU.RCP result, one pass 1.2x faster
// on an H200 (docs/perf/pet.md).
constexpr float kMinEps = 1e-37f;
__device__ __forceinline__ float approx_rcp(float D) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(D));
  return r;
}
// The gradient's and the Hessian's share of a pair, given its difference d = sa − sb and the
// reciprocal r of its denominator (the same expressions in every pass that computes them).
__device__ __forceinline__ void gradient_terms(float sa, float ka, float sb, float kb, float w, float d, float r,
                                               float& acc_a, float& acc_b) {
  const float wdr = w * d * r, r2 = r + r;
  acc_a = fmaf(wdr * kb, fmaf(sb, r2, 1.0f), acc_a);
  acc_b = fmaf(-wdr * ka, fmaf(sa, r2, 1.0f), acc_b);
}
__device__ __forceinline__ void hessian_terms(float sa, float ka, float sb, float kb, float w, float r, float& acc_a,
                                              float& acc_b) {
  const float h = 2.0f * w * r, r2 = r + r, ta = sa * r2, tb = sb * r2;
  acc_a = fmaf(h * kb * tb, tb, acc_a);
  acc_b = fmaf(h * ka * ta, ta, acc_b);
}
template <int Term, bool Guard, class Acc>
__device__ __forceinline__ void pair(float sa, float ka, float sb, float kb, float w, float gamma, Acc& acc_a,
                                     Acc& acc_b) {
  const float d = sa - sb, D = fmaf(gamma, fabsf(d), sa + sb);
  float r;
  if constexpr (Guard)
    r = D > 0.0f ? __fdividef(1.0f, D) : 0.0f;
  else
    r = approx_rcp(D);
  if constexpr (Term == 0) {
    const float f = w * d * d * r;
    acc_a = fmaf(f, kb, acc_a);
    acc_b = fmaf(f, ka, acc_b);
  } else if constexpr (Term == 1) {
    gradient_terms(sa, ka, sb, kb, w, d, r, acc_a, acc_b);
  } else if constexpr (Term == 2) {
    hessian_terms(sa, ka, sb, kb, w, r, acc_a, acc_b);
  } else {
    gradient_terms(sa, ka, sb, kb, w, d, r, acc_a.x, acc_b.x);
    hessian_terms(sa, ka, sb, kb, w, r, acc_a.y, acc_b.y);
  }
}

// The plane step's pairs: inside the own rows (planes k, k + 1) and with the next lane's rows.
template <int Term, bool Guard, int kSet, class Acc>
__device__ __forceinline__ void step_pairs(const float (&xl)[kSet], const float (&kl)[kSet], const float (&xu)[kSet],
                                           const float (&ku)[kSet], const float (&xlr)[kSet], const float (&klr)[kSet],
                                           const float (&xur)[kSet], const float (&kur)[kSet], Acc (&al)[kSet],
                                           Acc (&au)[kSet], Acc (&rl)[kSet], Acc (&ru)[kSet], const Weights& wt,
                                           float g) {
#pragma unroll
  for (int r = 0; r < kSet; ++r) {
    if (r + 1 < kSet) pair<Term, Guard>(xl[r], kl[r], xl[r + 1], kl[r + 1], wt.w[widx(0, 1, 0)], g, al[r], al[r + 1]);
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj) {
      const int q = r + dj;
      if (q < 0 || q >= kSet) continue;
      if (q == r && (r == 0 || r == kSet - 1)) continue;  // both ends in a halo row: nobody's sum
      pair<Term, Guard>(xl[r], kl[r], xlr[q], klr[q], wt.w[widx(1, dj, 0)], g, al[r], rl[q]);  // (+1, dj, 0)
      pair<Term, Guard>(xl[r], kl[r], xu[q], ku[q], wt.w[widx(0, dj, 1)], g, al[r], au[q]);    // (0, dj, +1)
      pair<Term, Guard>(xl[r], kl[r], xur[q], kur[q], wt.w[widx(1, dj, 1)], g, al[r], ru[q]);  // (+1, dj, +1)
      pair<Term, Guard>(xu[r], ku[r], xlr[q], klr[q], wt.w[widx(1, dj, 1)], g, au[r], rl[q]);  // (+1, dj, −1) from k+1
    }
  }
}

template <int Term>
__global__ void __launch_bounds__(kLanes * kWarps) rdp_kernel(RdpArgs a, Weights wt) {
  using Acc = typename AccOf<Term>::type;
  constexpr int kSet = kRows + 2, kSpan = kWarps * kRows;
  const int lane = threadIdx.x;
  const int i = int(blockIdx.x) * kCols - 1 + lane;
  const int j0 = int(blockIdx.y) * kSpan + int(threadIdx.y) * kRows - 1;  // row 0 of the set (halo)
  const int k0 = int(blockIdx.z) * kChunk, k1 = min(k0 + kChunk, a.nz);
  const bool in_x = i >= 0 && i < a.nx;
  const bool writes = in_x && lane >= 1 && lane <= kCols;
  const float g = a.gamma, half_eps = 0.5f * a.eps;
  const bool params_ok = a.eps >= kMinEps && a.gamma >= 0.0f;  // else every step takes the guarded pairs

  // x + ε/2 and κ of plane k (lower) and k + 1 (upper), own lane and the next lane; x = 0, κ = 0
  // outside the image.
  float xl[kSet], kl[kSet], xu[kSet], ku[kSet], xlr[kSet], klr[kSet], xur[kSet], kur[kSet];
  Acc al[kSet], au[kSet], rl[kSet], ru[kSet];  // own sums (planes k, k+1), next lane's halves
  // Loads a plane; true where every value the warp loaded is ≥ 0 (false for NaN). `any_kappa`:
  // whether the warp loaded a κ ≠ 0.
  unsigned rows_in = 0;  // bit r for row j0 + r and column i inside the image
#pragma unroll
  for (int r = 0; r < kSet; ++r)
    if (in_x && j0 + r >= 0 && j0 + r < a.ny) rows_in |= 1u << r;
  const long long plane = (long long)a.nx * a.ny, row0 = (long long)j0 * a.nx + i;
  auto load = [&](int k, float* xv, float* kv, bool& any_kappa) {
    const bool in_z = k >= 0 && k < a.nz;
    bool ok = true, some = false;
    const unsigned rows = in_z ? rows_in : 0u;
    const long long base = (long long)k * plane + row0;
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      const bool inside = (rows >> r) & 1u;
      const long long b = base + (long long)r * a.nx;
      const float v = inside ? __ldg(a.x + b) : 0.0f;
      ok = ok && v >= 0.0f;
      xv[r] = v + half_eps;
      kv[r] = inside ? (a.kappa ? __ldg(a.kappa + b) : 1.0f) : 0.0f;
      some = some || kv[r] != 0.0f;
    }
    any_kappa = __any_sync(kFull, some);
    return __all_sync(kFull, ok);
  };
  bool lower_any = true, upper_any = true;
  bool lower_ok = load(k0 - 1, xl, kl, lower_any);
#pragma unroll
  for (int r = 0; r < kSet; ++r) {
    xlr[r] = __shfl_down_sync(kFull, xl[r], 1);
    klr[r] = __shfl_down_sync(kFull, kl[r], 1);
    al[r] = Acc{};
  }
  // The first step (plane k0 − 1) only gathers the pairs between k0 − 1 and k0 for plane k0.
  for (int k = k0 - 1; k < k1; ++k) {
    const bool upper_ok = load(k + 1, xu, ku, upper_any);
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      xur[r] = __shfl_down_sync(kFull, xu[r], 1);
      kur[r] = __shfl_down_sync(kFull, ku[r], 1);
      au[r] = rl[r] = ru[r] = Acc{};
    }
    if (!lower_any && !upper_any) {
      // every pair of this step has κ = 0 at both ends: nothing to add
    } else if (params_ok && lower_ok && upper_ok) {
      step_pairs<Term, false>(xl, kl, xu, ku, xlr, klr, xur, kur, al, au, rl, ru, wt, g);
    } else {
      step_pairs<Term, true>(xl, kl, xu, ku, xlr, klr, xur, kur, al, au, rl, ru, wt, g);
    }
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      add_to(al[r], shfl_up(rl[r]));  // lane 0 gets its own halves back: it writes nothing
      add_to(au[r], shfl_up(ru[r]));
    }
    if (k >= k0 && writes) {
#pragma unroll
      for (int r = 1; r <= kRows; ++r) {
        const int j = j0 + r;
        if constexpr (Term == 3) {
          if (j < a.ny) {
            const std::size_t v = (std::size_t(k) * a.ny + j) * a.nx + i;
            a.out[v] = kl[r] * al[r].x;
            a.out2[v] = kl[r] * al[r].y;
          }
        } else {
          if (j < a.ny) a.out[(std::size_t(k) * a.ny + j) * a.nx + i] = kl[r] * al[r];
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kSet; ++r) {
      xl[r] = xu[r], kl[r] = ku[r], xlr[r] = xur[r], klr[r] = kur[r], al[r] = au[r];
    }
    lower_ok = upper_ok;
    lower_any = upper_any;
  }
}


// Launches the pass of `Term`: weights from the voxel sides, one block of 4 warps per 30 columns
// × 4·kRows rows × 16 planes.
template <int Term>
void launch_pairs(const RdpArgs& a, cudaStream_t stream) {
  const std::size_t n = std::size_t(a.nx) * a.ny * a.nz;
  if (n == 0) return;
  Weights w{};
  for (int q = 0; q < 27; ++q) {
    const int di = q % 3 - 1, dj = (q / 3) % 3 - 1, dk = q / 9 - 1;
    w.w[q] = (di || dj || dk) ? rdp_weight<float>(di, dj, dk, a.vx, a.vy, a.vz) : 0.0f;
  }
  constexpr int span = kWarps * kRows;
  const dim3 block(kLanes, kWarps),
      grid((a.nx + kCols - 1) / kCols, (a.ny + span - 1) / span, (a.nz + kChunk - 1) / kChunk);
  rdp_kernel<Term><<<grid, block, 0, stream>>>(a, w);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tomo::pet::cuda_impl::pairs
