// Bench-only H_srtᵀ forms (srt_adjoint_variants.hpp).
#include "bench/cuda/oat/srt_adjoint_variants.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.cuh"

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

// The rings' bounds (shells, rings, azimuth ranges, the lanes' patch map) without visiting a patch.
struct NoPatches {
  static constexpr bool kPatches = false;
  static constexpr int kWords = 1;
  __device__ static NoPatches make(const GatherParams&, int) { return {}; }
  __device__ __forceinline__ float read(const float* acc, int i) const { return acc[i]; }
  __device__ __forceinline__ void operator()(float*, int, float) const {}
};

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
    case AdjointVariant::scatter: return "scatter";
  }
  return "?";
}

void variant_tile(AdjointVariant, int tile[3]) {
  for (int i = 0; i < 3; ++i) tile[i] = kGatherTile[i];
}

int variant_blocks_per_sm(AdjointVariant) { return kGatherBlocksPerSm; }

namespace {
template <class Add, int kMinBlocks, RingCut kCut>
KernelResources gather_resources() {
  constexpr int X = kGatherTile[0], Y = kGatherTile[1], Z = kGatherTile[2];
  cudaFuncAttributes attr{};
  TOMO_CUDA_CHECK(cudaFuncGetAttributes(
      &attr, srt_gather_kernel<X, Y, Z, PatchTrig::exact, Add, kGatherLayout[0], kGatherLayout[1], kMinBlocks, kCut>));
  return {attr.numRegs, static_cast<int>(attr.localSizeBytes)};
}
}  // namespace

KernelResources variant_resources(AdjointVariant v) {
  constexpr int B = kGatherMinBlocks;
  constexpr RingCut kLine = RingCut::line, kCircle = RingCut::circle;
  switch (v) {
    case AdjointVariant::gather: return gather_resources<FixedAdd, B, kLine>();
    case AdjointVariant::gather_occ3: return gather_resources<FixedAdd, 3, kLine>();
    case AdjointVariant::gather_unbounded: return gather_resources<FixedAdd, 1, kLine>();
    case AdjointVariant::gather_circle: return gather_resources<FixedAdd, B, kCircle>();
    case AdjointVariant::gather_circle_occ3: return gather_resources<FixedAdd, 3, kCircle>();
    default: return {};
  }
}

void launch_adjoint_variant(AdjointVariant v, const SrtParams& p, const GatherParams& gp, const float* g, float* alpha,
                            float* partial, cudaStream_t stream) {
  constexpr int X = kGatherTile[0], Y = kGatherTile[1], Z = kGatherTile[2];
  constexpr int RX = kGatherLayout[0], PY = kGatherLayout[1], B = kGatherMinBlocks;
  constexpr PatchTrig kExact = PatchTrig::exact;
  constexpr RingCut kCircle = RingCut::circle;
  switch (v) {
    case AdjointVariant::gather: launch_srt_gather(p, gp, g, alpha, partial, stream); break;
    case AdjointVariant::gather_occ3:
      launch_gather_scale(p, gp, g, stream);
      launch_gather_as<X, Y, Z, kExact, FixedAdd, RX, PY, 3>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_unbounded:
      launch_gather_scale(p, gp, g, stream);
      launch_gather_as<X, Y, Z, kExact, FixedAdd, RX, PY, 1>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle:
      launch_gather_scale(p, gp, g, stream);
      launch_gather_as<X, Y, Z, kExact, FixedAdd, RX, PY, B, kCircle>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle_occ3:
      launch_gather_scale(p, gp, g, stream);
      launch_gather_as<X, Y, Z, kExact, FixedAdd, RX, PY, 3, kCircle>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_no_adds:
      launch_gather_as<X, Y, Z, kExact, NoAdds, RX, PY, B>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle_no_adds:
      launch_gather_as<X, Y, Z, kExact, NoAdds, RX, PY, B, kCircle>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_bounds_only:
      launch_gather_as<X, Y, Z, kExact, NoPatches, RX, PY, B>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::gather_circle_bounds_only:
      launch_gather_as<X, Y, Z, kExact, NoPatches, RX, PY, B, kCircle>(p, gp, g, alpha, partial, stream);
      break;
    case AdjointVariant::scatter: {
      if (p.transducers <= 0 || p.shells <= 0) return;
      const std::int64_t n = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
      TOMO_CUDA_CHECK(cudaMemsetAsync(alpha, 0, n * sizeof(float), stream));
      scatter_kernel<<<srt_blocks(p), kSrtThreads, 0, stream>>>(p, g, alpha);
      TOMO_CUDA_CHECK_LAST();
      break;
    }
  }
}

}  // namespace tomo::oat::cuda_detail
