// Bench-only candidates for the prior's pair kernel (never product code), each a change to
// cuda/pet/rdp_kernels.cu's layout (a warp of 32 columns along x, a lane's rows along y in
// registers, marching along z; each unordered pair evaluated once) measured one at a time:
// - classify: a warp votes per plane step whether every κ it loaded is 0 (the step's pairs add
//   nothing anyone writes: skipped) or 1 (the pairs drop their two κ multiplies);
// - lean math: ∂f/∂a = u + s_b·v, ∂f/∂b = −(u + s_a·v) with u = d/D, v = 2u/D (one multiply
//   fewer per pair than the product's form);
// - prefetch: the plane two steps ahead is loaded before a step's pairs, so its latency hides
//   behind them;
// - rows per lane (halo share vs registers), planes per block, blocks per SM (register cap);
// - bare rcp: 1/D without __fdividef's rescaling for subnormal D.
#include <algorithm>

#include "bench/cuda/pet/prior_pairs_v3.hpp"
#include "compute/pet/rdp_math.hpp"
#include "cuda/core/check.hpp"

namespace tomo::pet::probes {

namespace {

constexpr int kLanes = 32, kWarps = 4;
constexpr int kCols = kLanes - 2;
constexpr unsigned kFull = 0xffffffffu;

struct Weights {
  float w[27];
};

__host__ __device__ constexpr int widx(int di, int dj, int dk) { return (dk + 1) * 9 + (dj + 1) * 3 + di + 1; }

// One unordered pair of shifted values (x + ε/2), the gradient term; Kappa: κ multiplies,
// Guard: a D ≤ 0 contributes 0.
// 1/D by the hardware's approximate reciprocal alone (one MUFU.RCP). __fdividef(1, D) wraps the
// same instruction in a rescaling for subnormal D (a compare, a select and two multiplies: four
// of a pair's sixteen instructions), which the guard-free path never needs: there D ≥ ε/2, and
// the kernel takes that path only for ε ≥ kMinEps.
__device__ __forceinline__ float bare_rcp(float D) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(D));
  return r;
}
constexpr float kMinEps = 1e-37f;  // ε/2 stays a normal float

template <bool Kappa, bool Guard, bool Bare>
__device__ __forceinline__ void pair(float sa, float ka, float sb, float kb, float w, float gamma, float& acc_a,
                                     float& acc_b) {
  const float d = sa - sb, D = fmaf(gamma, fabsf(d), sa + sb);
  float r;
  if constexpr (Bare && !Guard) {
    r = bare_rcp(D);
  } else {
    r = __fdividef(1.0f, D);
    if constexpr (Guard) r = D > 0.0f ? r : 0.0f;
  }
  const float u = d * r, v = u * (r + r);
  const float ta = fmaf(sb, v, u), tb = fmaf(sa, v, u);
  if constexpr (Kappa) {
    acc_a = fmaf(w * kb, ta, acc_a);
    acc_b = fmaf(-w * ka, tb, acc_b);
  } else {
    acc_a = fmaf(w, ta, acc_a);
    acc_b = fmaf(-w, tb, acc_b);
  }
}

template <int Set, bool Kappa, bool Guard, bool Bare>
__device__ __forceinline__ void step_pairs(const float (&xl)[Set], const float (&kl)[Set], const float (&xu)[Set],
                                           const float (&ku)[Set], const float (&xlr)[Set], const float (&klr)[Set],
                                           const float (&xur)[Set], const float (&kur)[Set], float (&al)[Set],
                                           float (&au)[Set], float (&rl)[Set], float (&ru)[Set], const Weights& wt,
                                           float g) {
#pragma unroll
  for (int r = 0; r < Set; ++r) {
    if (r + 1 < Set) pair<Kappa, Guard, Bare>(xl[r], kl[r], xl[r + 1], kl[r + 1], wt.w[widx(0, 1, 0)], g, al[r], al[r + 1]);
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj) {
      const int q = r + dj;
      if (q < 0 || q >= Set) continue;
      if (q == r && (r == 0 || r == Set - 1)) continue;
      pair<Kappa, Guard, Bare>(xl[r], kl[r], xlr[q], klr[q], wt.w[widx(1, dj, 0)], g, al[r], rl[q]);
      pair<Kappa, Guard, Bare>(xl[r], kl[r], xu[q], ku[q], wt.w[widx(0, dj, 1)], g, al[r], au[q]);
      pair<Kappa, Guard, Bare>(xl[r], kl[r], xur[q], kur[q], wt.w[widx(1, dj, 1)], g, al[r], ru[q]);
      pair<Kappa, Guard, Bare>(xu[r], ku[r], xlr[q], klr[q], wt.w[widx(1, dj, 1)], g, au[r], rl[q]);
    }
  }
}

struct Flags {
  bool ok, one, zero;  // every value ≥ 0; every κ 1; every κ 0 (over the warp)
};

template <int Rows, int Chunk, bool Prefetch, bool Classify, int MinBlocks, bool Bare>
__global__ void __launch_bounds__(kLanes * kWarps, MinBlocks) v3_kernel(cuda_impl::RdpArgs a, Weights wt) {
  constexpr int Set = Rows + 2, Span = kWarps * Rows;
  const int lane = threadIdx.x;
  const int i = int(blockIdx.x) * kCols - 1 + lane;
  const int j0 = int(blockIdx.y) * Span + int(threadIdx.y) * Rows - 1;
  const int k0 = int(blockIdx.z) * Chunk, k1 = min(k0 + Chunk, a.nz);
  const bool in_x = i >= 0 && i < a.nx;
  const bool writes = in_x && lane >= 1 && lane <= kCols;
  const float g = a.gamma, half_eps = 0.5f * a.eps;
  const bool params_ok = (Bare ? a.eps >= kMinEps : a.eps > 0.0f) && a.gamma >= 0.0f;

  float xl[Set], kl[Set], xu[Set], ku[Set], xlr[Set], klr[Set], xur[Set], kur[Set];
  float al[Set], au[Set], rl[Set], ru[Set];
  float px[Set], pk[Set];  // raw plane loaded ahead (Prefetch)
  auto raw = [&](int k, float* xv, float* kv) {
    const bool in_z = k >= 0 && k < a.nz;
#pragma unroll
    for (int r = 0; r < Set; ++r) {
      const int j = j0 + r;
      const bool inside = in_x && in_z && j >= 0 && j < a.ny;
      const std::size_t b = (std::size_t(inside ? k : 0) * a.ny + (inside ? j : 0)) * a.nx + (inside ? i : 0);
      xv[r] = inside ? __ldg(a.x + b) : 0.0f;
      kv[r] = inside ? (a.kappa ? __ldg(a.kappa + b) : 1.0f) : 0.0f;
    }
  };
  auto finish = [&](float* xv, const float* kv) {
    bool ok = true, one = true, zero = true;
#pragma unroll
    for (int r = 0; r < Set; ++r) {
      ok = ok && xv[r] >= 0.0f;
      one = one && kv[r] == 1.0f;
      zero = zero && kv[r] == 0.0f;
      xv[r] += half_eps;
    }
    Flags f{__all_sync(kFull, ok) != 0, false, false};
    if constexpr (Classify) {
      f.one = __all_sync(kFull, one) != 0;
      f.zero = __all_sync(kFull, zero) != 0;
    }
    return f;
  };
  raw(k0 - 1, xl, kl);
  Flags lower = finish(xl, kl);
#pragma unroll
  for (int r = 0; r < Set; ++r) {
    xlr[r] = __shfl_down_sync(kFull, xl[r], 1);
    klr[r] = __shfl_down_sync(kFull, kl[r], 1);
    al[r] = 0.0f;
  }
  if constexpr (Prefetch) raw(k0, px, pk);
  for (int k = k0 - 1; k < k1; ++k) {
    if constexpr (Prefetch) {
#pragma unroll
      for (int r = 0; r < Set; ++r) xu[r] = px[r], ku[r] = pk[r];
      if (k + 2 <= k1) raw(k + 2, px, pk);
    } else {
      raw(k + 1, xu, ku);
    }
    const Flags upper = finish(xu, ku);
#pragma unroll
    for (int r = 0; r < Set; ++r) {
      xur[r] = __shfl_down_sync(kFull, xu[r], 1);
      kur[r] = __shfl_down_sync(kFull, ku[r], 1);
      au[r] = rl[r] = ru[r] = 0.0f;
    }
    if (params_ok && lower.ok && upper.ok) {
      if (Classify && lower.zero && upper.zero) {
        // every κ the warp holds is 0: nothing this step adds is written
      } else if (Classify && lower.one && upper.one) {
        step_pairs<Set, false, false, Bare>(xl, kl, xu, ku, xlr, klr, xur, kur, al, au, rl, ru, wt, g);
      } else {
        step_pairs<Set, true, false, Bare>(xl, kl, xu, ku, xlr, klr, xur, kur, al, au, rl, ru, wt, g);
      }
    } else {
      step_pairs<Set, true, true, Bare>(xl, kl, xu, ku, xlr, klr, xur, kur, al, au, rl, ru, wt, g);
    }
#pragma unroll
    for (int r = 0; r < Set; ++r) {
      al[r] += __shfl_up_sync(kFull, rl[r], 1);
      au[r] += __shfl_up_sync(kFull, ru[r], 1);
    }
    if (k >= k0 && writes) {
#pragma unroll
      for (int r = 1; r <= Rows; ++r) {
        const int j = j0 + r;
        if (j < a.ny) a.out[(std::size_t(k) * a.ny + j) * a.nx + i] = kl[r] * al[r];
      }
    }
#pragma unroll
    for (int r = 0; r < Set; ++r) {
      xl[r] = xu[r], kl[r] = ku[r], xlr[r] = xur[r], klr[r] = kur[r], al[r] = au[r];
    }
    lower = upper;
  }
}

template <int Rows, int Chunk, bool Prefetch, bool Classify, int MinBlocks = 0, bool Bare = false>
void launch(const cuda_impl::RdpArgs& a, cudaStream_t stream) {
  Weights w{};
  for (int q = 0; q < 27; ++q) {
    const int di = q % 3 - 1, dj = (q / 3) % 3 - 1, dk = q / 9 - 1;
    w.w[q] = (di || dj || dk) ? rdp_weight<float>(di, dj, dk, a.vx, a.vy, a.vz) : 0.0f;
  }
  const dim3 block(kLanes, kWarps), grid((a.nx + kCols - 1) / kCols, (a.ny + kWarps * Rows - 1) / (kWarps * Rows),
                                         (a.nz + Chunk - 1) / Chunk);
  v3_kernel<Rows, Chunk, Prefetch, Classify, MinBlocks, Bare><<<grid, block, 0, stream>>>(a, w);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

struct Candidate {
  const char* name;
  void (*fn)(const cuda_impl::RdpArgs&, cudaStream_t);
};

// The losers of the first H200 run (chunk 32 at 8 rows, register caps of 128 and 96: spills or
// lost occupancy) are left out; docs/perf/pet.md keeps their times.
constexpr Candidate kCandidates[] = {
    {"lean math, rows 8, chunk 16", launch<8, 16, false, false>},
    {"classify, rows 8, chunk 16", launch<8, 16, false, true>},
    {"classify+prefetch, rows 8, chunk 16", launch<8, 16, true, true>},
    {"classify+prefetch, rows 6, chunk 16", launch<6, 16, true, true>},
    {"classify+prefetch, rows 4, chunk 16", launch<4, 16, true, true>},
    {"prefetch, rows 8, chunk 16", launch<8, 16, true, false>},
    {"classify, rows 4, chunk 32, 6 blocks", launch<4, 32, false, true, 6>},
    {"bare rcp, rows 8, chunk 16", launch<8, 16, false, false, 0, true>},
    {"bare rcp, rows 4, chunk 16", launch<4, 16, false, false, 0, true>},
    {"bare rcp+classify+prefetch, rows 4, chunk 16", launch<4, 16, true, true, 0, true>},
};

}  // namespace

std::vector<std::string> pairs_v3_names() {
  std::vector<std::string> n;
  for (const Candidate& c : kCandidates) n.emplace_back(c.name);
  return n;
}

void launch_pairs_v3_rdp(int which, const cuda_impl::RdpArgs& a, cudaStream_t stream) {
  if (std::size_t(a.nx) * a.ny * a.nz == 0) return;
  kCandidates[which].fn(a, stream);
}

}  // namespace tomo::pet::probes
