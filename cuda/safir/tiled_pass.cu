// Kernels of the tiled safir pass (tiled_pass.hpp): line records once per window, then per
// iteration a forward pass (gathers from a shared-memory tile of the image) and a back pass
// (shared-memory atomics, one global atomic per touched tile voxel at the end of the block).
// The walk is kernel_math.hpp's walk_record, tested on the host against walk_line.
#include <algorithm>
#include <climits>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <utility>

#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
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

// Tiles of one label.
__host__ __device__ __forceinline__ int tiles_of(const LabelTiles& t) { return t.tiles[0] * t.tiles[1] * t.tiles[2]; }

// The voxel range of tile `tile` of label l (1-based) and its walk span.
__device__ void tile_box(const LabelTiles& t, int l, int tile, const BoxParams<float>& g, TileBlock& k) {
  const int tid[3] = {tile % t.tiles[0], (tile / t.tiles[0]) % t.tiles[1], tile / (t.tiles[0] * t.tiles[1])};
  for (int i = 0; i < 3; ++i) {
    k.lo[i] = tid[i] * t.ext[i];
    k.hi[i] = min(k.lo[i] + t.ext[i], g.n[i]);
  }
  k.stride[0] = 1;
  k.stride[1] = k.hi[0] - k.lo[0];
  k.stride[2] = k.stride[1] * (k.hi[1] - k.lo[1]);
  k.size = k.stride[2] * (k.hi[2] - k.lo[2]);
  k.span = tile_span(l, g.n, k.lo, k.hi, k.stride);
}

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
  const int tile = b % tiles_of(t), chunk = b / tiles_of(t);
  TileBlock k;
  tile_box(t, l + 1, tile, g, k);
  k.e0 = t.begin + static_cast<unsigned long long>(chunk) * t.chunk;
  k.e1 = min(k.e0 + t.chunk, t.end);
  return k;
}

// Segment `s` of a balanced plan's block: tile index over the three labels, label by label.
__device__ TileBlock segment(const TilePlan& p, const BoxParams<float>& g, const BlockWork& w, int s) {
  int tile = w.tile[s], l = 0;
  const int t0 = tiles_of(p.label[0]), t1 = tiles_of(p.label[1]);
  if (tile >= t0) {
    tile -= t0;
    l = 1;
    if (tile >= t1) {
      tile -= t1;
      l = 2;
    }
  }
  TileBlock k;
  tile_box(pick(p, l), l + 1, tile, g, k);
  k.e0 = w.e0[s];
  k.e1 = w.e1[s];
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

// Slices walk_record may visit per tile (its clip), summed over the label's events: one block
// per (tile, slice of the events), a block reduction, one 64-bit atomic per block.
__global__ void tile_slices_kernel(TilePlan p, const float4* records, BoxParams<float> g, unsigned long long* slices) {
  __shared__ unsigned long long part[32];
  int tile = static_cast<int>(blockIdx.y), l = 0;
  while (l < 2 && tile >= tiles_of(p.label[l])) tile -= tiles_of(p.label[l++]);
  if (tile >= tiles_of(p.label[l])) return;
  const LabelTiles t = pick(p, l);
  TileBlock k;
  tile_box(t, l + 1, tile, g, k);
  unsigned long long sum = 0;
  for (unsigned long long e = t.begin + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < t.end;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const float4 r = __ldg(records + e);
    int k0 = k.span.lo_m, k1 = k.span.hi_m - 1;
    clip_slices(r.x, r.y, k.span.kc, k.span.lo_u, k.span.hi_u, k0, k1);
    clip_slices(r.z, r.w, k.span.kc, k.span.lo_w, k.span.hi_w, k0, k1);
    if (k1 >= k0) sum += static_cast<unsigned long long>(k1 - k0 + 1);
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long s = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) s += part[w];
    if (s) atomicAdd(slices + blockIdx.y, s);
  }
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

// The tile's sums into the accumulator: one global atomic per touched voxel, or per voxel pair
// (red.global.add.v2.f32, sm_90) where the tile's rows allow: half the flush's atomics.
__device__ __forceinline__ void flush(const TiledArgs& a, const TileBlock& k, const float* tile) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (a.pairs && pair_tile(k, a.box)) {
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

// This block's first segment (uniform plan: its only one) and its segment count.
__device__ __forceinline__ int first_segment(const TiledArgs& a, BlockWork& w, TileBlock& k) {
  if (!a.work) {
    k = decode(a.plan, a.box);
    return 1;
  }
  w = a.work[blockIdx.x];
  k = segment(a.plan, a.box, w, 0);
  return w.tile[1] >= 0 ? 2 : 1;
}

__global__ void __launch_bounds__(kTileThreads, 2) forward_tiled_kernel(TiledArgs a) {
  extern __shared__ float tile[];
  BlockWork w;
  TileBlock k;
  const int segments = first_segment(a, w, k);
  allow_next_grid();
  wait_for_previous_grid();  // f of the update before, ȳ cleared by it
  for (int s = 0; s < segments; ++s) {
    if (s > 0) {
      __syncthreads();  // the last segment's walks are done with the tile
      k = segment(a.plan, a.box, w, s);
    }
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
}

__global__ void __launch_bounds__(kTileThreads, 2) back_tiled_kernel(TiledArgs a) {
  extern __shared__ float tile[];
  BlockWork w;
  TileBlock k;
  const int segments = first_segment(a, w, k);
  allow_next_grid();
  for (int s = 0; s < segments; ++s) {
    if (s > 0) {
      __syncthreads();  // the last segment's flush is done with the tile
      k = segment(a.plan, a.box, w, s);
    }
    for (int i = threadIdx.x; i < k.size; i += blockDim.x) tile[i] = 0.f;
    if (s == 0) wait_for_previous_grid();  // ȳ of the forward pass before
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
      TileScatter sc{tile, v};
      walk_record(LineRecord<float>{r.x, r.y, r.z, r.w}, a.box.md, k.span, sc);
    }
    __syncthreads();
    flush(a, k, tile);
  }
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

namespace {

double slots_of(const TileDevice& dev, const TileConfig& config) {
  return double(dev.sms) * std::max(1, config.blocks_per_sm);
}

// Waves of resident blocks a plan's event × tile visits make in chunks of min_chunk.
double window_waves(const TilePlan& p, const TileDevice& dev, const TileConfig& config) {
  double work = 0;
  for (const LabelTiles& t : p.label) work += double(t.end - t.begin) * double(tiles_of(t));
  return work / (slots_of(dev, config) * double(std::max<std::size_t>(1, config.min_chunk)));
}

}  // namespace

int tile_count(const TilePlan& p) { return tiles_of(p.label[0]) + tiles_of(p.label[1]) + tiles_of(p.label[2]); }

bool wants_balance(const TilePlan& p, const TileDevice& dev, const TileConfig& config) {
  const double waves = window_waves(p, dev, config);
  return config.balance && waves > 0 && waves < config.waves && tile_count(p) <= 65535;  // a grid's y extent
}

TilePlan plan_for_device(const BoxParams<float>& box, const std::array<std::size_t, 4>& counts, const TileDevice& dev,
                         const TileConfig& config) {
  const int per_sm = std::max(1, config.blocks_per_sm);
  // Shared memory per block: the SM's share less the runtime's reserve, at most the opt-in limit.
  const long long bytes = std::min<long long>(dev.smem_per_block_optin, dev.smem_per_sm / per_sm - dev.smem_reserved_per_block);
  const long long cap = std::max<long long>(256, bytes / 4);
  const std::size_t c[4] = {counts[0], counts[1], counts[2], counts[3]};
  const double slots = slots_of(dev, config);  // blocks resident at once
  const TilePlan p = plan_tiles(box.n, c, cap, double(config.waves) * slots, config.min_chunk);
  // A window with fewer than config.waves waves of min_chunk events (an OSEM subset: an eighth of
  // the list is about one wave) gets a whole number of full waves instead: chunks of min_chunk
  // leave a last wave partly idle, and a pass takes as long as its waves, so OSEM's subsets would
  // pay that idle part once each. Chunks shrink at most to half of min_chunk (a rounding to one
  // wave), so each block still flushes its tile after many events.
  const double waves = window_waves(p, dev, config);
  if (waves >= config.waves || waves <= 0) return p;
  const double whole = std::max(1.0, std::round(waves)) * slots;
  // The partial last chunk of each label and tile adds blocks: raise the chunk until they fit.
  for (double target = whole; target >= 1.0; target *= 0.98) {
    const TilePlan q = plan_tiles(box.n, c, cap, target, 1);
    if (q.blocks <= whole) return q;
  }
  return p;
}

TilePlan balanced_plan(const TilePlan& uniform, const std::vector<unsigned long long>& slices, const TileDevice& dev,
                       const TileConfig& config, std::vector<BlockWork>& work) {
  const int tiles = tile_count(uniform);
  if (static_cast<int>(slices.size()) != tiles)
    throw std::invalid_argument("balanced_plan: one slice count per tile expected");
  struct Tile {
    int index;
    unsigned long long begin, events;
    double work;
  };
  std::vector<Tile> busy;  // the tiles with events
  double total = 0;
  for (int l = 0, i = 0; l < 3; ++l)
    for (int t = 0; t < tiles_of(uniform.label[l]); ++t, ++i) {
      const unsigned long long n = uniform.label[l].end - uniform.label[l].begin;
      if (n == 0) continue;
      if (uniform.label[l].end > 0xffffffffull)
        throw std::invalid_argument("balanced_plan: a window beyond 2^32 events");
      busy.push_back({i, uniform.label[l].begin, n, double(slices[i]) + config.visit_cost * double(n)});
      total += busy.back().work;
    }
  const double waves = window_waves(uniform, dev, config);
  const std::size_t budget = static_cast<std::size_t>(std::max(1.0, std::round(waves)) * slots_of(dev, config));
  work.clear();
  if (busy.empty() || busy.size() > budget) return uniform;
  auto segment = [](const Tile& t, unsigned long long e0, unsigned long long e1) {
    BlockWork w;
    w.tile[0] = t.index;
    w.e0[0] = static_cast<unsigned>(e0);
    w.e1[0] = static_cast<unsigned>(e1);
    return w;
  };
  if (config.tile_cost <= 0) {
    // Greedy: the next block to the tile whose blocks carry the most (least largest load).
    std::vector<unsigned long long> blocks(busy.size(), 1);
    std::priority_queue<std::pair<double, std::size_t>> heavy;
    for (std::size_t i = 0; i < busy.size(); ++i) heavy.push({busy[i].work, i});
    for (std::size_t used = busy.size(); used < budget && !heavy.empty();) {
      const std::size_t i = heavy.top().second;
      heavy.pop();
      if (blocks[i] >= busy[i].events) continue;  // one event a block: no finer
      ++blocks[i], ++used;
      heavy.push({busy[i].work / double(blocks[i]), i});
    }
    for (std::size_t i = 0; i < busy.size(); ++i) {
      const unsigned long long chunk = (busy[i].events + blocks[i] - 1) / blocks[i];
      for (unsigned long long e = 0; e < busy[i].events; e += chunk)
        work.push_back(segment(busy[i], busy[i].begin + e, busy[i].begin + std::min(e + chunk, busy[i].events)));
    }
  } else {
    // Capacity L (work a one-segment block walks): full blocks of floor(L / u) events per tile
    // (u its work per event), then the remainders, largest first, each with the smallest left
    // where both and the second tile's load and flush fit in L.
    const double fixed = config.tile_cost * total / double(budget);
    auto pack = [&](double L, std::vector<BlockWork>* out) {
      std::size_t blocks = 0;
      std::vector<std::pair<double, BlockWork>> rest;
      for (const Tile& t : busy) {
        const double u = t.work / double(t.events);
        const unsigned long long n = std::max<unsigned long long>(1, static_cast<unsigned long long>(L / u));
        const unsigned long long full = t.events / n, left = t.events - full * n;
        blocks += full;
        if (out)
          for (unsigned long long b = 0; b < full; ++b) out->push_back(segment(t, t.begin + b * n, t.begin + (b + 1) * n));
        if (left) rest.push_back({double(left) * u, segment(t, t.begin + full * n, t.begin + t.events)});
      }
      std::sort(rest.begin(), rest.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
      for (std::size_t i = 0, j = rest.size(); i < j; ++i, ++blocks) {
        BlockWork w = rest[i].second;
        if (j - 1 > i && rest[i].first + rest[j - 1].first + fixed <= L) {
          --j;
          w.tile[1] = rest[j].second.tile[0];
          w.e0[1] = rest[j].second.e0[0];
          w.e1[1] = rest[j].second.e1[0];
        }
        if (out) out->push_back(w);
      }
      return blocks;
    };
    double lo = total / double(budget), hi = lo;
    for (const Tile& t : busy) hi = std::max(hi, t.work);
    for (int it = 0; it < 50 && pack(hi, nullptr) > budget; ++it) hi *= 1.5;
    for (int it = 0; it < 40; ++it) {
      const double mid = 0.5 * (lo + hi);
      (pack(mid, nullptr) <= budget ? hi : lo) = mid;
    }
    pack(hi, &work);
  }
  if (work.size() > 0x7fffffffull) throw std::invalid_argument("balanced_plan: too many blocks for one launch");
  TilePlan p = uniform;
  p.blocks = static_cast<int>(work.size());
  return p;
}

TilePlan plan_window(const BoxParams<float>& box, const std::array<std::size_t, 4>& counts, const float4* records,
                     const TileDevice& dev, const TileConfig& config, std::vector<BlockWork>& work, cudaStream_t stream) {
  work.clear();
  const TilePlan p = plan_for_device(box, counts, dev, config);
  if (!wants_balance(p, dev, config)) return p;
  cuda::DeviceBuffer<unsigned long long> slices_d(static_cast<std::size_t>(tile_count(p)));
  launch_tile_slices(p, records, box, slices_d.data(), stream);
  std::vector<unsigned long long> slices(slices_d.size());
  slices_d.download_async(slices.data(), slices.size(), stream);
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream));
  return balanced_plan(p, slices, dev, config, work);
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

void launch_tile_slices(const TilePlan& plan, const float4* records, const BoxParams<float>& box,
                        unsigned long long* slices, cudaStream_t stream) {
  const int tiles = tile_count(plan);
  if (tiles <= 0) return;
  TOMO_CUDA_CHECK(cudaMemsetAsync(slices, 0, std::size_t(tiles) * sizeof(unsigned long long), stream));
  unsigned long long most = 0;
  for (const LabelTiles& t : plan.label) most = std::max(most, t.end - t.begin);
  if (most == 0) return;
  // Blocks along x per tile: enough to fill the GPU when there are few tiles.
  const int per_tile = static_cast<int>(std::clamp<unsigned long long>((most + 4095) / 4096, 1, 64));
  tile_slices_kernel<<<dim3(per_tile, tiles), 256, 0, stream>>>(plan, records, box, slices);
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
