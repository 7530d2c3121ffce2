// The tiled ML-EM pass of the safir cuda backend (default): the fused pass does one global
// atomicAdd per walked voxel and runs at the probed atomics ceiling, so here each block owns one
// tile of the image in shared memory and one chunk of one label's sorted events; the forward pass
// gathers from the tile, the back pass accumulates with shared-memory atomics and flushes the tile
// with one global atomic per touched voxel. Host-callable launchers; kernels in tiled_pass.cu.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <vector>

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
  // A window of fewer than `waves` waves (an OSEM subset: about one) is one wave whose longest
  // block sets the pass's length, and a central tile's events walk more of it than an edge
  // tile's: such windows get blocks of equal walked slices (balanced_plan).
  bool balance = true;
  // A tile visit (record load and clip) in walked slices, for the balance.
  double visit_cost = 1.0;
  // A tile's load and flush as a fraction of a block's mean work. 0: each tile's events in equal
  // chunks, one tile a block; > 0: full blocks per tile and the tiles' remainders packed two to a
  // block where both fit beside the second tile's load and flush.
  double tile_cost = 0.0;
  // Tiles loaded and flushed two voxels at a time (float2 loads, sm_90 vector atomics) where the
  // tile's rows and the image's are of even length.
  bool pair_access = true;
};

// counts: the window's label histogram [skip, x, y, z]; sorted events are in that order.
TilePlan plan_for_device(const BoxParams<float>& box, const std::array<std::size_t, 4>& counts, const TileDevice& dev,
                         const TileConfig& config);

// Whether a window of this plan is one the balance applies to (fewer than config.waves waves of
// min_chunk events).
bool wants_balance(const TilePlan& p, const TileDevice& dev, const TileConfig& config);

// One block's work in a balanced plan: one or two segments, each a tile (its index over the
// three labels' tiles, label by label, as tile_count counts them; -1: none) and a run [e0, e1)
// of that label's sorted events.
struct BlockWork {
  int tile[2] = {-1, -1};
  unsigned e0[2] = {0, 0}, e1[2] = {0, 0};
};

// From a plan (its labels' event ranges and tile extents) and the window's walked slices per
// tile (launch_tile_slices, same order): the blocks of one pass within the plan's whole waves,
// so that the most work a block gets (slices + visit_cost × events over its segments, and
// tile_cost per segment) is least. tile_cost 0: greedy, each further block to the tile whose
// blocks carry the most, each tile's events in equal chunks; else the least block capacity at
// which full blocks per tile and the remainders packed (largest with smallest) fit. Returns the
// plan with `blocks` = work.size() (a uniform plan, work empty, where the tiles outnumber the slots).
TilePlan balanced_plan(const TilePlan& uniform, const std::vector<unsigned long long>& slices, const TileDevice& dev,
                       const TileConfig& config, std::vector<BlockWork>& work);

// plan_for_device's plan of a window whose records are made, balanced where wants_balance:
// launch_tile_slices, one download (synchronizes the stream), balanced_plan. `work` (host) is
// left empty for a uniform plan.
TilePlan plan_window(const BoxParams<float>& box, const std::array<std::size_t, 4>& counts, const float4* records,
                     const TileDevice& dev, const TileConfig& config, std::vector<BlockWork>& work, cudaStream_t stream);

// Tiles of the three labels of a plan.
int tile_count(const TilePlan& p);

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
  const BlockWork* work = nullptr;   // a balanced plan's blocks on the device (null: uniform chunks)
  bool pairs = true;                // TileConfig::pair_access
};

// records[l] = line_record of sorted events [first, n), computed in double from `crystals`
// (x, y, z per crystal) and stored in float.
void launch_records(const uint2* sorted, std::size_t first, std::size_t n, const double* crystals,
                    const BoxParams<double>& box, float4* records, cudaStream_t stream);
// slices[t] (zeroed here) = Σ over the label's events of the slices walk_record may visit in
// tile t (its clipped range), for every tile of the plan (label by label).
void launch_tile_slices(const TilePlan& plan, const float4* records, const BoxParams<float>& box,
                        unsigned long long* slices, cudaStream_t stream);
void launch_forward_tiled(const TiledArgs& a, cudaStream_t stream);
void launch_back_tiled(const TiledArgs& a, cudaStream_t stream);
// ybar[l] += randoms over [first, n) (the forward projection as forward() reports it).
void launch_add(float* ybar, std::size_t first, std::size_t n, float randoms, cudaStream_t stream);

}  // namespace tomo::safir::cuda_impl
