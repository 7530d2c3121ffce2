// Bench-only H_srtᵀ forms (srt_adjoint_variants.hpp).
#include "bench/cuda/oat/srt_adjoint_variants.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "bench/cuda/oat/srt_ring_cuts.hpp"
#include "cuda/oat/srt_gather.cuh"
#include "bench/cuda/oat/gather_before.cuh"
#include "bench/cuda/oat/srt_merged_scatter.cuh"
#include "bench/cuda/oat/srt_window_coop.cuh"

namespace tomo::oat::cuda_detail {
namespace {

// The scatter the product ran before the gather: one warp per shell sample, global atomics.
__global__ void __launch_bounds__(kSrtThreads) scatter_kernel(SrtParams p, const float* __restrict__ g,
                                                               float* __restrict__ alpha) {
  const Sample s = warp_sample(p);
  if (!s.valid) return;
  const float value = g[static_cast<std::int64_t>(s.q) * p.shells + s.m];
  if (value == 0.0f) return;
  const int lane = threadIdx.x & 31;
  const ShellFrame<float> f = p.frames[s.q];
  const ShellCap<float> c = shell_cap(f, shell_radius(p, s.m), p.h);
  for_each_ring(c, lane, [&](const ShellRing<float>& r) {
    const float v = r.area * value;
    for (int j = lane; j < r.n_phi; j += 32) {
      float x, y, z;
      shell_point(f, c, r, j, &x, &y, &z);
      trilinear_visit(p.grid, x, y, z, [&](int n, float w) { atomicAdd(alpha + n, w * v); });
    }
  });
}

// Two patches a lane and step (x and x + 32), both located before either is visited: two
// independent chains of shared reads and arithmetic in flight instead of one.
struct PairedDeal {
  template <class Locate, class Visit>
  __device__ __forceinline__ static void run(int lane, int total, Locate&& locate, Visit&& visit) {
    for (int x = lane; x < total; x += 64) {
      float ax, ay, az, aw, bx = 0.0f, by = 0.0f, bz = 0.0f, bw = 0.0f;
      const bool second = x + 32 < total;
      locate(x, &ax, &ay, &az, &aw);
      if (second) locate(x + 32, &bx, &by, &bz, &bw);
      visit(ax, ay, az, aw);
      if (second) visit(bx, by, bz, bw);
    }
  }
};

// No add at all, but a store the compiler cannot drop (never taken for finite data).
struct NoAdds {
  static constexpr bool kPatches = true;
  static constexpr int kWords = 1;
  __device__ static NoAdds make(const GatherParams&, int) { return {}; }
  __device__ __forceinline__ float read(const float* acc, int i) const { return acc[i]; }
  __device__ __forceinline__ void operator()(float* acc, int i, float v) const {
    if (v == 3.0e38f) acc[i] = v;
  }
};

// FixedAdd's sums with each term one 64-bit integer add into shared memory (two's complement, so
// the same sums and image bit for bit) instead of the low word's add, which returns the old word
// for the carry, and a high-word add when the carry or the sign asks for one.
struct Fixed64Add {
  static constexpr bool kPatches = true;
  static constexpr int kWords = 2;  // one 64-bit word per voxel
  float scale;
  double inverse;
  __device__ static Fixed64Add make(const GatherParams& gp, int) {
    return {static_cast<float>(gp.fixed[1]), gp.fixed[2]};
  }
  __device__ __forceinline__ void operator()(float* acc, int i, float v) const {
    atomicAdd(reinterpret_cast<unsigned long long*>(acc) + i,
              static_cast<unsigned long long>(__float2ll_rn(v * scale)));
  }
  __device__ __forceinline__ float read(const float* acc, int i) const {
    return static_cast<float>(static_cast<double>(reinterpret_cast<const long long*>(acc)[i]) * inverse);
  }
};

// The rings' bounds (shells, rings, azimuth ranges, the lanes' patch map) without visiting a patch.
struct NoPatches {
  static constexpr bool kPatches = false;
  static constexpr int kWords = 1;
  __device__ static NoPatches make(const GatherParams&, int) { return {}; }
  __device__ __forceinline__ float read(const float* acc, int i) const { return acc[i]; }
  __device__ __forceinline__ void operator()(float*, int, float) const {}
};

// gp with the azimuth table as ModelDevice builds it (once per process, on first use).
GatherParams with_trig_table(const GatherParams& gp, cudaStream_t stream) {
  static float2* table = nullptr;
  if (!table) {
    TOMO_CUDA_CHECK(cudaMalloc(&table, sizeof(float2) * trig_table_size(kTrigTableN)));
    launch_trig_table(table, kTrigTableN, stream);
  }
  GatherParams t = gp;
  t.trig = table;
  t.trig_n = kTrigTableN;
  return t;
}

}  // namespace

std::string_view variant_name(AdjointVariant v) {
  switch (v) {
    case AdjointVariant::gather: return "gather";
    case AdjointVariant::gather_occ3: return "gather-3-blocks";
    case AdjointVariant::gather_unbounded: return "gather-unbounded-registers";
    case AdjointVariant::gather_circle: return "gather-circle-cut";
    case AdjointVariant::gather_circle_occ3: return "gather-circle-cut-3-blocks";
    case AdjointVariant::gather_no_adds: return "gather-no-adds";
    case AdjointVariant::gather_circle_no_adds: return "gather-circle-cut-no-adds";
    case AdjointVariant::gather_bounds_only: return "gather-bounds-only";
    case AdjointVariant::gather_circle_bounds_only: return "gather-circle-cut-bounds-only";
    case AdjointVariant::gather_refined: return "gather-refined-cut";
    case AdjointVariant::gather_refined_interleaved: return "gather-refined-cut-interleaved";
    case AdjointVariant::gather_refined_no_adds: return "gather-refined-cut-no-adds";
    case AdjointVariant::gather_refined_bounds_only: return "gather-refined-cut-bounds-only";
    case AdjointVariant::gather_table: return "gather-trig-table";
    case AdjointVariant::gather_before: return "gather-before";
    case AdjointVariant::gather_interleaved: return "gather-interleaved";
    case AdjointVariant::gather_paired: return "gather-paired";
    case AdjointVariant::gather_table_paired: return "gather-trig-table-paired";
    case AdjointVariant::gather_half_z: return "gather-16x16x8";
    case AdjointVariant::gather_half_z_interleaved: return "gather-16x16x8-interleaved";
    case AdjointVariant::gather_half_z_5: return "gather-16x16x8-5-blocks";
    case AdjointVariant::scatter: return "scatter";
    case AdjointVariant::scatter_merged: return "scatter-merged";
    case AdjointVariant::scatter_merged_vector: return "scatter-merged-float4";
    case AdjointVariant::scatter_window: return "scatter-window";
    case AdjointVariant::scatter_window_table: return "scatter-window-trig-table";
    case AdjointVariant::scatter_window_no_adds: return "scatter-window-no-adds";
    case AdjointVariant::scatter_window_coop: return "scatter-window-coop";
    case AdjointVariant::gather_fixed64: return "gather-fixed64";
  }
  return "?";
}

static bool half_z(AdjointVariant v) {
  return v == AdjointVariant::gather_half_z || v == AdjointVariant::gather_half_z_interleaved ||
         v == AdjointVariant::gather_half_z_5;
}

void variant_tile(AdjointVariant v, int tile[3]) {
  for (int i = 0; i < 3; ++i) tile[i] = kGatherTile[i];
  if (half_z(v)) tile[2] = 8;
}

int variant_blocks_per_sm(AdjointVariant) { return kGatherBlocksPerSm; }

namespace {
template <class Add, int kMinBlocks, class Cut, class Deal = BlockedDeal, int Z = kGatherTile[2],
          class Points = ExactPoints>
KernelResources gather_resources() {
  constexpr int X = kGatherTile[0], Y = kGatherTile[1];
  cudaFuncAttributes attr{};
  TOMO_CUDA_CHECK(cudaFuncGetAttributes(&attr, srt_gather_kernel<X, Y, Z, Points, Add, kGatherLayout[0],
                                                                 kGatherLayout[1], kMinBlocks, Cut, Deal>));
  return {attr.numRegs, static_cast<int>(attr.localSizeBytes)};
}
}  // namespace

template <class Kernel>
KernelResources kernel_resources(Kernel* kernel) {
  cudaFuncAttributes attr{};
  TOMO_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  return {attr.numRegs, static_cast<int>(attr.localSizeBytes)};
}

KernelResources variant_resources(AdjointVariant v) {
  constexpr int B = kGatherMinBlocks;
  switch (v) {
    case AdjointVariant::gather:
      return gather_resources<FixedAdd, B, LineCut, InterleavedDeal, kGatherTile[2], TablePoints>();
    case AdjointVariant::gather_fixed64:
      return gather_resources<Fixed64Add, B, LineCut, InterleavedDeal, kGatherTile[2], TablePoints>();
    case AdjointVariant::gather_occ3: return gather_resources<FixedAdd, 3, LineCut>();
    case AdjointVariant::gather_unbounded: return gather_resources<FixedAdd, 1, LineCut>();
    case AdjointVariant::gather_circle: return gather_resources<FixedAdd, B, CircleCut>();
    case AdjointVariant::gather_circle_occ3: return gather_resources<FixedAdd, 3, CircleCut>();
    case AdjointVariant::gather_refined: return gather_resources<FixedAdd, B, RefinedCut>();
    case AdjointVariant::gather_refined_interleaved: return gather_resources<FixedAdd, B, RefinedCut, InterleavedDeal>();
    case AdjointVariant::gather_table:
      return gather_resources<FixedAdd, B, LineCut, BlockedDeal, kGatherTile[2], TablePoints>();
    case AdjointVariant::gather_before: return gather_resources<FixedAdd, B, LineCut>();
    case AdjointVariant::gather_interleaved: return gather_resources<FixedAdd, B, LineCut, InterleavedDeal>();
    case AdjointVariant::gather_paired: return gather_resources<FixedAdd, B, LineCut, PairedDeal>();
    case AdjointVariant::gather_table_paired:
      return gather_resources<FixedAdd, B, LineCut, PairedDeal, kGatherTile[2], TablePoints>();
    case AdjointVariant::gather_half_z: return gather_resources<FixedAdd, B, LineCut, BlockedDeal, 8>();
    case AdjointVariant::gather_half_z_interleaved: return gather_resources<FixedAdd, B, LineCut, InterleavedDeal, 8>();
    case AdjointVariant::gather_half_z_5: return gather_resources<FixedAdd, 5, LineCut, BlockedDeal, 8>();
    case AdjointVariant::scatter_merged: return kernel_resources(merged_scatter_kernel<false>);
    case AdjointVariant::scatter_merged_vector: return kernel_resources(merged_scatter_kernel<true>);
    case AdjointVariant::scatter_window: return kernel_resources(window_scatter_kernel<ShellPoints, true>);
    case AdjointVariant::scatter_window_table: return kernel_resources(window_scatter_kernel<TablePoints, true>);
    case AdjointVariant::scatter_window_coop: return kernel_resources(window_coop_kernel<TablePoints>);
    default: return {};
  }
}

void launch_adjoint_variant(AdjointVariant v, const SrtParams& p, const GatherParams& gp, const float* g, float* alpha,
                            float* partial, cudaStream_t stream) {
  constexpr int X = kGatherTile[0], Y = kGatherTile[1], Z = kGatherTile[2];
  constexpr int RX = kGatherLayout[0], PY = kGatherLayout[1], B = kGatherMinBlocks;
  using Exact = ExactPoints;
  switch (v) {
    case AdjointVariant::gather: launch_srt_gather(p, with_trig_table(gp, stream), g, alpha, partial, stream); break;
    case AdjointVariant::gather_fixed64:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, TablePoints, Fixed64Add, RX, PY, B, LineCut, InterleavedDeal>(
          p, with_trig_table(gp, stream), g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_occ3:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, 3>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_unbounded:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, 1>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, B, CircleCut>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle_occ3:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, 3, CircleCut>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_no_adds:  // the product's form: azimuth table, interleaved deal
      launch_bench_gather<X, Y, Z, TablePoints, NoAdds, RX, PY, B, LineCut, InterleavedDeal>(
          p, with_trig_table(gp, stream), g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle_no_adds:
      launch_bench_gather<X, Y, Z, Exact, NoAdds, RX, PY, B, CircleCut>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_bounds_only:
      launch_bench_gather<X, Y, Z, Exact, NoPatches, RX, PY, B>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle_bounds_only:
      launch_bench_gather<X, Y, Z, Exact, NoPatches, RX, PY, B, CircleCut>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_refined:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, B, RefinedCut>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_refined_interleaved:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, B, RefinedCut, InterleavedDeal>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_refined_no_adds:
      launch_bench_gather<X, Y, Z, Exact, NoAdds, RX, PY, B, RefinedCut>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_refined_bounds_only:
      launch_bench_gather<X, Y, Z, Exact, NoPatches, RX, PY, B, RefinedCut>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_table:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, TablePoints, FixedAdd, RX, PY, B>(p, with_trig_table(gp, stream), g, alpha,
                                                                       partial, stream);
      break;
    case AdjointVariant::gather_before:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, B>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_interleaved:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, B, LineCut, InterleavedDeal>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_paired:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, Exact, FixedAdd, RX, PY, B, LineCut, PairedDeal>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_table_paired:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, Z, TablePoints, FixedAdd, RX, PY, B, LineCut, PairedDeal>(
          p, with_trig_table(gp, stream), g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_half_z:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, 8, Exact, FixedAdd, RX, PY, B>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_half_z_interleaved:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, 8, Exact, FixedAdd, RX, PY, B, LineCut, InterleavedDeal>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_half_z_5:
      launch_gather_scale(p, gp, g, stream);
      launch_bench_gather<X, Y, 8, Exact, FixedAdd, RX, PY, 5>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::scatter: {
      if (p.transducers <= 0 || p.shells <= 0) return;
      const std::int64_t n = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
      TOMO_CUDA_CHECK(cudaMemsetAsync(alpha, 0, n * sizeof(float), stream));
      scatter_kernel<<<srt_blocks(p), kSrtThreads, 0, stream>>>(p, g, alpha);
      TOMO_CUDA_CHECK_LAST();
      break;
    }
    case AdjointVariant::scatter_merged: launch_merged_scatter(p, g, alpha, false, stream); break;
    case AdjointVariant::scatter_merged_vector: launch_merged_scatter(p, g, alpha, true, stream); break;
    case AdjointVariant::scatter_window: launch_window_scatter(p, gp, g, alpha, stream); break;
    case AdjointVariant::scatter_window_table:
      launch_window_scatter<TablePoints>(p, with_trig_table(gp, stream), g, alpha, stream);
      break;
    case AdjointVariant::scatter_window_no_adds: launch_window_scatter<ShellPoints, false>(p, gp, g, alpha, stream); break;
    case AdjointVariant::scatter_window_coop:
      launch_window_coop<TablePoints>(p, with_trig_table(gp, stream), g, alpha, stream);
      break;
  }
}

}  // namespace tomo::oat::cuda_detail
