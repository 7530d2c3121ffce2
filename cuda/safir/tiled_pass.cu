// Kernels of the tiled safir pass (tiled_pass.hpp): line records once per window, then per
// iteration a forward pass (gathers from a shared-memory tile of the image) and a back pass
// (shared-memory atomics, one global atomic per touched tile voxel at the end of the block).
// The walk is kernel_math.hpp's walk_record, tested on the host against walk_line.
#include <algorithm>
#include <climits>
#include <cmath>

#include "cuda/core/check.hpp"
#include "cuda/safir/dependent_launch.hpp"
#include "cuda/safir/tile_cursor.hpp"
#include "cuda/safir/tiled_pass.hpp"

namespace tomo::safir::cuda_impl {

namespace {

constexpr std::uint32_t kIdMask = 0x3fffffffu;

int grid_for(std::size_t n, int threads) {
  const std::size_t b = (n + threads - 1) / threads;
  return static_cast<int>(std::clamp<std::size_t>(b, 1, 65535 * 8));
}

__global__ void records_kernel(const uint2* sorted, std::size_t first, std::size_t n, const double* c,
                               BoxParams<double> box, float4* rec) {
  for (std::size_t l = first + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < n; l += std::size_t(gridDim.x) * blockDim.x) {
    const uint2 e = sorted[l];
    const int label = static_cast<int>(e.x >> 30);
    if (label == kLabelSkip) {  // never after `first` (label 0 sorts first); a zero record walks nothing harmful
      rec[l] = make_float4(0.f, 0.f, 0.f, 0.f);
      continue;
    }
    const std::size_t ia = 3 * std::size_t(e.x & kIdMask), ib = 3 * std::size_t(e.y);
    const double a[3] = {c[ia], c[ia + 1], c[ia + 2]}, b[3] = {c[ib], c[ib + 1], c[ib + 2]};
    const LineRecord<double> r = line_record(a, b, label, box);
    rec[l] = make_float4(float(r.cu), float(r.su), float(r.cw), float(r.sw));
  }
}

__global__ void add_kernel(float* y, std::size_t first, std::size_t n, float v) {
  for (std::size_t l = first + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < n; l += std::size_t(gridDim.x) * blockDim.x)
    y[l] += v;
}

// This block's label, tile and chunk of events (blocks: label by label, tile fastest, so
// neighbouring blocks read the same events and share them in L2).
struct TileBlock {
  int size;
  int lo[3], hi[3], stride[3];
  TileSpan span;
  unsigned long long e0, e1;
};

__device__ __forceinline__ LabelTiles pick(const TilePlan& p, int l) { return l == 0 ? p.label[0] : (l == 1 ? p.label[1] : p.label[2]); }

__device__ TileBlock decode(const TilePlan& p, const BoxParams<float>& g) {
  int b = static_cast<int>(blockIdx.x), l = 0;
  if (b >= p.label[0].blocks) {
    b -= p.label[0].blocks;
    l = 1;
    if (b >= p.label[1].blocks) {
      b -= p.label[1].blocks;
      l = 2;
    }
  }
  const LabelTiles t = pick(p, l);
  const int tiles = t.tiles[0] * t.tiles[1] * t.tiles[2];
  const int tile = b % tiles, chunk = b / tiles;
  const int tid[3] = {tile % t.tiles[0], (tile / t.tiles[0]) % t.tiles[1], tile / (t.tiles[0] * t.tiles[1])};
  TileBlock k;
  for (int i = 0; i < 3; ++i) {
    k.lo[i] = tid[i] * t.ext[i];
    k.hi[i] = min(k.lo[i] + t.ext[i], g.n[i]);
  }
  k.stride[0] = 1;
  k.stride[1] = k.hi[0] - k.lo[0];
  k.stride[2] = k.stride[1] * (k.hi[1] - k.lo[1]);
  k.size = k.stride[2] * (k.hi[2] - k.lo[2]);
  k.span = tile_span(l + 1, g.n, k.lo, k.hi, k.stride);
  k.e0 = t.begin + static_cast<unsigned long long>(chunk) * t.chunk;
  k.e1 = min(k.e0 + t.chunk, t.end);
  return k;
}


// Whether the tile's rows and the image's are of even length from an even start: then the tile
// is loaded and flushed as float2 (local index 2i, image index 2j).
__device__ __forceinline__ bool pair_tile(const TileBlock& k, const BoxParams<float>& g) {
  return ((k.lo[0] | k.hi[0] | g.n[0]) & 1) == 0;
}

// for_tile_voxels over the tile's voxel pairs: visit(pair index in the tile, pair index in the image).
template <class F>
__device__ __forceinline__ void for_tile_pairs(const TileBlock& k, const BoxParams<float>& g, F&& visit) {
  const int lo[3] = {k.lo[0] / 2, k.lo[1], k.lo[2]}, hi[3] = {k.hi[0] / 2, k.hi[1], k.hi[2]};
  const int n[3] = {g.n[0] / 2, g.n[1], g.n[2]};
  for_tile_voxels(threadIdx.x, blockDim.x, lo, hi, n, visit);
}

struct TileGather {
  const float* tile;
  float sum;
  bool hit;
  __device__ void operator()(int j, float w) {
    sum += w * tile[j];
    hit = true;
  }
};

struct TileScatter {
  float* tile;
  float v;
  __device__ void operator()(int j, float w) { atomicAdd(tile + j, w * v); }
};

__global__ void __launch_bounds__(kTileThreads, 2) forward_tiled_kernel(TiledArgs a) {
  extern __shared__ float tile[];
  const TileBlock k = decode(a.plan, a.box);
  allow_next_grid();
  wait_for_previous_grid();  // f of the update before, ȳ cleared by it
  // The tile's voxels x fastest as in the image (coalesced), image indices by tile_cursor.hpp.
  if (a.pairs && pair_tile(k, a.box)) {
    float2* t2 = reinterpret_cast<float2*>(tile);
    const float2* f2 = reinterpret_cast<const float2*>(a.f);
    for_tile_pairs(k, a.box, [&](int i, std::size_t j) { t2[i] = __ldg(f2 + j); });
  } else {
    for_tile_voxels(threadIdx.x, blockDim.x, k.lo, k.hi, a.box.n, [&](int i, std::size_t j) { tile[i] = __ldg(a.f + j); });
  }
  __syncthreads();
  for (unsigned long long l = k.e0 + threadIdx.x; l < k.e1; l += blockDim.x) {
    const float4 r = __ldg(a.records + l);
    TileGather g{tile, 0.f, false};
    walk_record(LineRecord<float>{r.x, r.y, r.z, r.w}, a.box.md, k.span, g);
    if (g.hit) atomicAdd(a.ybar + l, g.sum);  // result unused: compiles to a reduction (RED)
  }
}

__global__ void __launch_bounds__(kTileThreads, 2) back_tiled_kernel(TiledArgs a) {
  extern __shared__ float tile[];
  const TileBlock k = decode(a.plan, a.box);
  allow_next_grid();
  for (int i = threadIdx.x; i < k.size; i += blockDim.x) tile[i] = 0.f;
  wait_for_previous_grid();  // ȳ of the forward pass before
  __syncthreads();
  for (unsigned long long l = k.e0 + threadIdx.x; l < k.e1; l += blockDim.x) {
    float v = 1.0f;
    if (a.mode == BackValues::values) {
      v = a.values[l];
    } else if (a.mode == BackValues::ratio) {
      const float y = a.ybar[l] + a.randoms;  // ȳ_l of eq. (9)
      if (!(y > 0.0f)) continue;
      v = 1.0f / y;
    }
    if (v == 0.0f) continue;
    const float4 r = __ldg(a.records + l);
    TileScatter s{tile, v};
    walk_record(LineRecord<float>{r.x, r.y, r.z, r.w}, a.box.md, k.span, s);
  }
  __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (a.pairs && pair_tile(k, a.box)) {
    // One vector atomic (red.global.add.v2.f32) per voxel pair: half the flush's atomics.
    const float2* t2 = reinterpret_cast<const float2*>(tile);
    float2* acc2 = reinterpret_cast<float2*>(a.acc);
    for_tile_pairs(k, a.box, [&](int i, std::size_t j) {
      const float2 v = t2[i];
      if (v.x != 0.0f || v.y != 0.0f) atomicAdd(acc2 + j, v);
    });
    return;
  }
#endif
  for_tile_voxels(threadIdx.x, blockDim.x, k.lo, k.hi, a.box.n, [&](int i, std::size_t j) {
    const float v = tile[i];
    if (v != 0.0f) atomicAdd(a.acc + j, v);
  });
}

void allow_shared(const void* kernel, int bytes) {
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

}  // namespace

TileDevice tile_device() {
  int dev = 0;
  TOMO_CUDA_CHECK(cudaGetDevice(&dev));
  TileDevice d;
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&d.smem_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&d.smem_reserved_per_block, cudaDevAttrReservedSharedMemoryPerBlock, dev));
  return d;
}

TilePlan plan_for_device(const BoxParams<float>& box, const std::array<std::size_t, 4>& counts, const TileDevice& dev,
                         const TileConfig& config) {
  const int per_sm = std::max(1, config.blocks_per_sm);
  // Shared memory per block: the SM's share less the runtime's reserve, at most the opt-in limit.
  const long long bytes = std::min<long long>(dev.smem_per_block_optin, dev.smem_per_sm / per_sm - dev.smem_reserved_per_block);
  const long long cap = std::max<long long>(256, bytes / 4);
  const std::size_t c[4] = {counts[0], counts[1], counts[2], counts[3]};
  const double slots = double(dev.sms) * per_sm;  // blocks resident at once
  const TilePlan p = plan_tiles(box.n, c, cap, double(config.waves) * slots, config.min_chunk);
  // A window with fewer than config.waves waves of min_chunk events (an OSEM subset: an eighth of
  // the list is about one wave) gets a whole number of full waves instead: chunks of min_chunk
  // leave a last wave partly idle, and a pass takes as long as its waves, so OSEM's subsets would
  // pay that idle part once each. Chunks shrink at most to half of min_chunk (a rounding to one
  // wave), so each block still flushes its tile after many events.
  double work = 0;
  for (const LabelTiles& t : p.label)
    work += double(t.end - t.begin) * double(t.tiles[0]) * double(t.tiles[1]) * double(t.tiles[2]);
  const double waves = work / (slots * double(std::max<std::size_t>(1, config.min_chunk)));
  if (waves >= config.waves || work <= 0) return p;
  const double whole = std::max(1.0, std::round(waves)) * slots;
  // The partial last chunk of each label and tile adds blocks: raise the chunk until they fit.
  for (double target = whole; target >= 1.0; target *= 0.98) {
    const TilePlan q = plan_tiles(box.n, c, cap, target, 1);
    if (q.blocks <= whole) return q;
  }
  return p;
}

void launch_records(const uint2* sorted, std::size_t first, std::size_t n, const double* crystals,
                    const BoxParams<double>& box, float4* records, cudaStream_t stream) {
  if (n <= first) return;
  records_kernel<<<grid_for(n - first, 256), 256, 0, stream>>>(sorted, first, n, crystals, box, records);
  TOMO_CUDA_CHECK_LAST();
}

void launch_add(float* ybar, std::size_t first, std::size_t n, float randoms, cudaStream_t stream) {
  if (n <= first) return;
  add_kernel<<<grid_for(n - first, 256), 256, 0, stream>>>(ybar, first, n, randoms);
  TOMO_CUDA_CHECK_LAST();
}

void launch_forward_tiled(const TiledArgs& a, cudaStream_t stream) {
  if (a.plan.blocks <= 0) return;
  const int bytes = a.plan.smem_floats * static_cast<int>(sizeof(float));
  allow_shared(reinterpret_cast<const void*>(&forward_tiled_kernel), bytes);
  launch_dependent(forward_tiled_kernel, a.plan.blocks, kTileThreads, bytes, stream, a);
  TOMO_CUDA_CHECK_LAST();
}

void launch_back_tiled(const TiledArgs& a, cudaStream_t stream) {
  if (a.plan.blocks <= 0) return;
  const int bytes = a.plan.smem_floats * static_cast<int>(sizeof(float));
  allow_shared(reinterpret_cast<const void*>(&back_tiled_kernel), bytes);
  launch_dependent(back_tiled_kernel, a.plan.blocks, kTileThreads, bytes, stream, a);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::safir::cuda_impl
