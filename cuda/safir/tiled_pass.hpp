// The tiled ML-EM pass of the safir cuda backend (default): the fused pass does one global
// atomicAdd per walked voxel and runs at the probed atomics ceiling, so here each block owns one
// tile of the image in shared memory and one chunk of one label's sorted events; the forward pass
// gathers from the tile, the back pass accumulates with shared-memory atomics and flushes the tile
// with one global atomic per touched voxel. Host-callable launchers; kernels in tiled_pass.cu.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

#include "compute/safir/kernel_math.hpp"

namespace tomo::safir::cuda_impl {

inline constexpr int kTileThreads = 512;

// The GPU's shares the plan needs (queried once: tile_device()).
struct TileDevice {
  int sms = 1;
  int smem_per_sm = 48 * 1024, smem_per_block_optin = 48 * 1024, smem_reserved_per_block = 0;
};
TileDevice tile_device();

// How the pass shares the GPU: blocks resident per SM (each gets 1/blocks_per_sm of its shared
// memory as tile), waves of blocks per pass (load balance against flush cost) and the fewest
// events per block (each block flushes its whole tile once).
struct TileConfig {
  int blocks_per_sm = 2;
  int waves = 8;
  std::size_t min_chunk = 8192;
  // Tiles loaded and flushed two voxels at a time (float2 loads, sm_90 vector atomics) where the
  // tile's rows and the image's are of even length.
  bool pair_access = true;
};

// counts: the window's label histogram [skip, x, y, z]; sorted events are in that order.
TilePlan plan_for_device(const BoxParams<float>& box, const std::array<std::size_t, 4>& counts, const TileDevice& dev,
                         const TileConfig& config);

enum class BackValues : int { ones = 0, values = 1, ratio = 2 };

struct TiledArgs {
  TilePlan plan;
  const float4* records = nullptr;  // per sorted event (line_record, float)
  BoxParams<float> box{};
  const float* f = nullptr;         // forward: image
  float* ybar = nullptr;            // forward: += Σ a_lj f_j per sorted event (zeroed by the caller)
  const float* values = nullptr;    // back, BackValues::values: v per sorted event
  BackValues mode = BackValues::ones;
  float randoms = 0;                // back, BackValues::ratio: v = 1 / (ybar + randoms) where > 0
  float* acc = nullptr;             // back: += Σ a_lj v_l (zeroed by the caller)
  bool pairs = true;                // TileConfig::pair_access
};

// records[l] = line_record of sorted events [first, n), computed in double from `crystals`
// (x, y, z per crystal) and stored in float.
void launch_records(const uint2* sorted, std::size_t first, std::size_t n, const double* crystals,
                    const BoxParams<double>& box, float4* records, cudaStream_t stream);
void launch_forward_tiled(const TiledArgs& a, cudaStream_t stream);
void launch_back_tiled(const TiledArgs& a, cudaStream_t stream);
// ybar[l] += randoms over [first, n) (the forward projection as forward() reports it).
void launch_add(float* ybar, std::size_t first, std::size_t n, float randoms, cudaStream_t stream);

}  // namespace tomo::safir::cuda_impl
