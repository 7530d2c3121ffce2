// The H_srtᵀ gather kernel (srt_kernels.cu; bench/cuda/oat instantiates other tile shapes and a
// probe): a block owns a tile of TX×TY×TZ voxels and sums, in shared memory, every patch of every
// transducer's shells that touches the tile (srt_gather.hpp), then writes the tile once: no
// global atomics. Its warps take the tile's shell samples round-robin over the transducers; a warp
// computes a shell's rings (a lane each) and their azimuth ranges, then deals the rings' patches
// out to its lanes one flat index each (a prefix sum over the lanes and a map from flat index to
// ring in shared memory), so a warp is busy whatever the rings' lengths.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.hpp"

namespace tomo::oat::cuda_detail {

inline constexpr int kGatherWarps = 8, kGatherThreads = 32 * kGatherWarps;

// How the tile's sums are added. A policy says whether patches are visited (false: a bench probe
// of the bounds alone), how many 32-bit words a voxel's sum takes, how it is made for a block
// (`floats`: the tile's layout size) and how a voxel's sum is read back.
//
// FixedAdd, the product's: 64-bit fixed-point sums by integer adds (srt_gather.hpp fixed_split):
// float adds in shared memory are compare-and-swap loops that retry whenever lanes meet in a bank,
// an integer add is one instruction. The sums are exact and independent of the order of the adds;
// the scale S (gp.fixed, from Σ|g|: launch_srt_gather) bounds every voxel's sum below 2^63.
struct FixedAdd {
  static constexpr bool kPatches = true;
  static constexpr int kWords = 2;  // low words at [0, floats), high words at [floats, 2·floats)
  float scale;
  double inverse;
  int floats;
  __device__ static FixedAdd make(const GatherParams& gp, int floats) {
    return {static_cast<float>(gp.fixed[1]), gp.fixed[2], floats};
  }
  __device__ __forceinline__ void operator()(float* acc, int i, float v) const {
    const FixedTerm t = fixed_split(__float2ll_rn(v * scale));
    unsigned* w = reinterpret_cast<unsigned*>(acc);
    const int hi = fixed_high_add(t, atomicAdd(w + i, t.lo));
    if (hi != 0) atomicAdd(reinterpret_cast<int*>(w + floats + i), hi);
  }
  __device__ __forceinline__ float read(const float* acc, int i) const {
    const unsigned* w = reinterpret_cast<const unsigned*>(acc);
    return static_cast<float>(static_cast<double>(fixed_join(w[i], static_cast<int>(w[floats + i]))) * inverse);
  }
};

// Float atomic adds into the tile (the product's before FixedAdd; bench only now).
struct FloatAdd {
  static constexpr bool kPatches = true;
  static constexpr int kWords = 1;
  __device__ static FloatAdd make(const GatherParams&, int) { return {}; }
  __device__ __forceinline__ void operator()(float* acc, int i, float v) const { atomicAdd(acc + i, v); }
  __device__ __forceinline__ float read(const float* acc, int i) const { return acc[i]; }
};

// Patch positions: kernel_math shell_point's arithmetic with the azimuth's sine and cosine read
// from GatherParams::trig (the same bits, no division or sincosf per patch); rings longer than the
// table by shell_point itself. bench/cuda/oat computes every position by shell_point (ExactPoints).
struct TablePoints {
  __device__ __forceinline__ static void at(const ShellFrame<float>& f, const ShellCap<float>& c,
                                            const ShellRing<float>& r, int j, float* x, float* y, float* z,
                                            const GatherParams& gp) {
    if (r.n_phi > gp.trig_n) {
      shell_point(f, c, r, j, x, y, z);
      return;
    }
    const float2 sc = __ldg(gp.trig + (r.n_phi * (r.n_phi - 1) / 2 + j));
    const float sp = sc.x, cp = sc.y;  // shell_point's arithmetic from here
    const float a = c.R * r.cos_t, b = c.R * r.sin_t * cp, d = c.R * r.sin_t * sp;
    *x = f.sx + a * f.ex + b * f.ux + d * f.vx;
    *y = f.sy + a * f.ey + b * f.uy + d * f.vy;
    *z = f.sz + a * f.ez + b * f.uz + d * f.vz;
  }
};

// How a warp deals a batch's candidate patches to its lanes: locate(x, &px, &py, &pz, &w) finds patch
// x's position and weight, visit(px, py, pz, w) adds it to the tile. InterleavedDeal: lane l takes
// l, l + 32, …, so that a step's lanes take neighbouring patches of one ring (broadcast reads of
// its record, coalesced reads of the azimuth table, the same outcome of the tile test).
// bench/cuda/oat deals others (BlockedDeal: a lane's patches contiguous).
struct InterleavedDeal {
  template <class Locate, class Visit>
  __device__ __forceinline__ static void run(int lane, int total, Locate&& locate, Visit&& visit) {
    const int per_lane = (total + 31) >> 5;
    for (int it = 0; it < per_lane; ++it) {
      const int x = it * 32 + lane;
      if (x >= total) break;
      float px, py, pz, w;
      locate(x, &px, &py, &pz, &w);
      visit(px, py, pz, w);
    }
  }
};

// A warp's rings of one batch (a lane each) and, for the first kOwnerCap of their patches in flat
// order, the lane whose ring holds each: so that a lane finds its patch's ring with one read.
inline constexpr int kOwnerCap = 1024;
struct WarpRings {
  float sin_t[32], cos_t[32], w[32];
  int n_phi[32], j_lo[32], first[32];
  unsigned char owner[kOwnerCap];
};

// Inclusive prefix sum of v over the warp's lanes (all lanes call it).
__device__ __forceinline__ int warp_inclusive_sum(int v, int lane) {
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(kFullMask, v, o);
    if (lane >= o) v += y;
  }
  return v;
}

// The lane whose ring holds patch x of a batch: the owner map below kOwnerCap, beyond it the last
// lane whose first patch is ≤ x.
__device__ __forceinline__ int patch_owner(const unsigned char* owner, const int* first, int x) {
  if (x < kOwnerCap) return owner[x];
  int o = 0;
#pragma unroll
  for (int step = 16; step > 0; step >>= 1)
    if (o + step < 32 && first[o + step] <= x) o += step;
  return o;
}

// One shell sample (q, m) of the tile, by one warp (all lanes call it).
// RX, PY: the tile's layout in shared memory (row stride, rows per plane; gather_acc_floats).
template <int RX, int PY, class Points, class Cut, class Deal, class Add>
__device__ __forceinline__ void gather_shell_sample(const SrtParams& p, const GatherParams& gp,
                                                    const GatherTile<float>& t,
                                                    const ShellFrame<float>& f, const GatherView<float>& v, int m,
                                                    float value, int lane, WarpRings& wr, float* acc, Add add) {
  const GatherShell<float> s = gather_shell(f, v, shell_radius(p, m), p.h);
  for (int i0 = s.i_lo; i0 <= s.i_hi; i0 += 32) {
    const int i = i0 + lane;
    ShellRing<float> r{1, 0.0f, 0.0f, 1.0f};
    RingRange rr{0, 0};
    if (i <= s.i_hi) {
      r = srt_ring(s.cap, i, s.sin_half);
      rr = Cut::ring(f, v, s, r, i);
    }
    const int incl = warp_inclusive_sum(rr.count, lane);  // of the patch counts over the lanes
    const int total = __shfl_sync(kFullMask, incl, 31);
    if (total == 0) continue;
    const int first = incl - rr.count;
    wr.sin_t[lane] = r.sin_t;
    wr.cos_t[lane] = r.cos_t;
    wr.w[lane] = r.area * value;
    wr.n_phi[lane] = r.n_phi;
    wr.j_lo[lane] = rr.j_lo;
    wr.first[lane] = first;
    for (int x = first, end = min(incl, kOwnerCap); x < end; ++x) wr.owner[x] = static_cast<unsigned char>(lane);
    __syncwarp();
    if constexpr (!Add::kPatches) {
      __syncwarp();
      continue;
    }
    // Patch x of the batch: its position and weight.
    auto locate = [&](int x, float* px, float* py, float* pz, float* w) {
      const int o = patch_owner(wr.owner, wr.first, x);
      const int n_phi = wr.n_phi[o];
      int j = wr.j_lo[o] + (x - wr.first[o]);
      if (j >= n_phi) j -= n_phi;
      const ShellRing<float> ring{n_phi, 0.0f, wr.sin_t[o], wr.cos_t[o]};
      *w = wr.w[o];
      Points::at(f, s.cap, ring, j, px, py, pz, gp);
    };
    auto visit = [&](float px, float py, float pz, float w) {
      tile_visit(p.grid, t, RX, PY, px, py, pz, [&](int idx, float wt) { add(acc, idx, wt * w); });
    };
    Deal::run(lane, total, locate, visit);
    __syncwarp();
  }
}

// The tile's layout in shared memory: voxel (x, y, z) of the tile at x + RX·(y + PY·z). RX = TX + 1,
// PY = TY + 1 spread a warp's adds over the banks (bank = (x + RX·y + RX·PY·z) mod 32); RX = TX,
// PY = TY is the dense layout, where the bank depends on x and the parity of y only, so lanes whose
// patches differ along z or by two along y add into one bank.
template <int TX, int TY, int TZ, int RX, int PY>
constexpr int gather_acc_floats() {
  return (TZ - 1) * RX * PY + (TY - 1) * RX + TX;
}

// Block (tile blockIdx.x, transducer chunk blockIdx.y): out[chunk·N + voxel] = the chunk's
// H_srtᵀ g on the tile (out = α itself with one chunk). The tile's sums live in dynamic shared
// memory (launch_gather_as sizes it); kMinBlocks bounds the registers for that many resident blocks;
// Cut: how the rings' azimuths are cut to the tile (srt_gather.hpp LineCut, the product's).
template <int TX, int TY, int TZ, class Points, class Add, int RX, int PY, int kMinBlocks, class Cut,
          class Deal>
__global__ void __launch_bounds__(kGatherThreads, kMinBlocks) srt_gather_kernel(SrtParams p, GatherParams gp,
                                                                                 const float* __restrict__ g,
                                                                                 float* __restrict__ out) {
  constexpr int kVoxels = TX * TY * TZ;
  constexpr int kAcc = gather_acc_floats<TX, TY, TZ, RX, PY>();
  extern __shared__ float acc[];
  __shared__ WarpRings rings[kGatherWarps];
  const Add add = Add::make(gp, kAcc);
  for (int i = threadIdx.x; i < kAcc * Add::kWords; i += kGatherThreads) acc[i] = 0.0f;
  const int b = static_cast<int>(blockIdx.x);
  const int ti = b % gp.tiles[0], tj = (b / gp.tiles[0]) % gp.tiles[1], tk = b / (gp.tiles[0] * gp.tiles[1]);
  const GatherTile<float> t = gather_tile(p.grid, ti * TX, tj * TY, tk * TZ, TX, TY, TZ, gp.margin);
  __syncthreads();
  const float cx = t.c[0] - gp.cx, cy = t.c[1] - gp.cy, cz = t.c[2] - gp.cz;
  const float reach = gp.rho + t.r;
  if (cx * cx + cy * cy + cz * cz <= reach * reach) {  // else no shell's cap reaches the tile
    const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
    const int q_begin = static_cast<int>(blockIdx.y) * gp.q_per_chunk;
    const int q_end = min(p.transducers, q_begin + gp.q_per_chunk);
    int slot = 0;  // shell samples dealt so far: warp w takes those ≡ w (mod kGatherWarps)
    for (int q = q_begin; q < q_end; ++q) {
      const ShellFrame<float> f = p.frames[q];
      const GatherView<float> v = gather_view(f, t);
      int m_lo, m_hi;
      gather_shells(v, p.c0, p.t_min, p.dt, p.shells, &m_lo, &m_hi);
      const int n = m_hi - m_lo + 1;
      if (n <= 0) continue;
      const float* gq = g + static_cast<std::int64_t>(q) * p.shells;
      int k = (warp - slot) % kGatherWarps;
      if (k < 0) k += kGatherWarps;
      for (; k < n; k += kGatherWarps) {
        const float value = __ldg(gq + m_lo + k);
        if (value != 0.0f)  // as the scatter: nothing to add (uniform over the warp)
          gather_shell_sample<RX, PY, Points, Cut, Deal>(p, gp, t, f, v, m_lo + k, value, lane, rings[warp], acc,
                                                          add);
      }
      slot = (slot + n) % kGatherWarps;
    }
  }
  __syncthreads();
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  float* dst = out + static_cast<std::int64_t>(blockIdx.y) * N;
  for (int i = threadIdx.x; i < kVoxels; i += kGatherThreads) {
    const int x = i % TX, y = (i / TX) % TY, z = i / (TX * TY);
    const int a = t.lo[0] + x, bb = t.lo[1] + y, c = t.lo[2] + z;
    if (a < t.hi[0] && bb < t.hi[1] && c < t.hi[2])
      dst[a + static_cast<std::int64_t>(p.grid.nx) * (bb + static_cast<std::int64_t>(p.grid.ny) * c)] =
          add.read(acc, x + RX * (y + PY * z));
  }
}

// The gather with tiles of TX×TY×TZ laid out with strides (1, RX, RX·PY) in shared memory, patch
// positions by Points, accumulation `Add`, registers bounded for kMinBlocks blocks per
// multiprocessor, the rings' azimuths cut by Cut and the patches dealt by Deal: α = H_srtᵀ g
// (every voxel written; `partial` holds gp.chunks·N floats when gp.chunks > 1, summed into α by
// launch_gather_reduce).
template <int TX, int TY, int TZ, class Points, class Add, int RX = TX, int PY = TY, int kMinBlocks = 1,
          class Cut = LineCut, class Deal = InterleavedDeal>
void launch_gather_as(const SrtParams& p, const GatherParams& gp, const float* g, float* alpha, float* partial,
                      cudaStream_t stream) {
  if (p.transducers <= 0 || p.shells <= 0 || gp.tile_count <= 0) return;
  static_assert(RX >= TX && PY >= TY, "the layout must hold the tile");
  constexpr std::size_t kBytes = sizeof(float) * Add::kWords * gather_acc_floats<TX, TY, TZ, RX, PY>();
  auto* kernel = srt_gather_kernel<TX, TY, TZ, Points, Add, RX, PY, kMinBlocks, Cut, Deal>;
  if constexpr (kBytes + sizeof(WarpRings) * kGatherWarps > 48 * 1024)  // beyond the default: opt in
    TOMO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kBytes)));
  const dim3 grid(static_cast<unsigned>(gp.tile_count), static_cast<unsigned>(gp.chunks));
  kernel<<<grid, kGatherThreads, kBytes, stream>>>(p, gp, g, gp.chunks > 1 ? partial : alpha);
  TOMO_CUDA_CHECK_LAST();
  if (gp.chunks > 1) launch_gather_reduce(partial, gp.chunks, alpha, p, stream);
}

}  // namespace tomo::oat::cuda_detail
