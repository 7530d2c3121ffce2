// Candidate kernels of the projector pair's voxel-driven B (bench only, bench_fdk --b-variants):
// the product's gather (cuda/fdk/projector_kernels.cu) with one thing changed at a time, so that
// one run ranks them on the same GPU, data and geometry.
//   sampler:  the texture unit's bilinear filter (8-bit weights, as the product and ASTRA), four
//             __ldg loads from a zero-bordered linear copy with fp32 weights (exact), or a mix
//             (every k-th z-voxel by loads: the load path and the texture unit work in parallel)
//   z-voxels per thread, thread-block shape
//   z mode:   a reciprocal per voxel (general), one per thread-view refined along z by a Newton
//             step (general), or z-invariant u and t (circular orbit, untilted detector: p[2] and
//             p[10] zero), where u, t and 1/t² are per thread-view and v steps by one FMA
//   matrices: a by-value parameter of 64 views per launch, of every view (≤ 512) in one launch,
//             or constant memory
#pragma once
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace tomo::bench::fdk_b {

enum class ZMode { general, newton, invariant };
enum class Mats { param64, param_all, constant };
// The weighted detector's texels: fp32 (the product), half floats, or signed normalised 16-bit
// integers with a scale per view (back_voxel_narrow.hpp).
enum class Texel { f32, half, snorm16 };
// The software sampler of the hybrid candidates (back_voxel_hybrid.hpp); none: not a hybrid.
enum class Soft { none, ldg4, quad, quadh, pair, tex4 };

struct Variant {
  std::string name;
  int ldg_every = 0;  // 0: texture only; 1: loads only; k: z-voxel q by loads when q % k == k − 1
  int kz = 16;
  ZMode zmode = ZMode::general;
  Mats mats = Mats::param64;
  unsigned bx = 32, by = 4;
  bool l1_max = false;  // carve-out preference: all of the unified L1 as cache (none as shared)
  // Shared-memory tile (z-invariant, 16 z-voxels, exact weights): per view the block loads its
  // detector footprint (the bounding box of its corners' projections) from the bordered copy into
  // shared memory and samples it there; a footprint too large for the tile falls back to loads.
  bool tiled = false;
  // Views whose tiles are loaded between one pair of barriers (0: the one-view kernel), and tiles
  // of (pixel, right neighbour) pairs: two 8-byte shared reads a sample instead of four.
  int tile_views = 0;
  bool tile_pairs = false;
  int tile_cap = 4096;  // entries of one view's tile (the multi-view kernels); larger footprints: loads
  Texel texel = Texel::f32;
  // Rows shared along the z-invariant column through four-texel gathers (back_voxel_gather.hpp).
  bool gather = false;
  // Hybrid (back_voxel_hybrid.hpp): the first soft_warps of the 8 warps of a 32×8 block sample in
  // software by `soft`, the others by the texture (with ldg_every: every k-th z-voxel by `soft`);
  // patch: a warp covers 8×4 (x, y) voxels.
  Soft soft = Soft::none;
  int soft_warps = 0;
  bool patch = false;
  // Turn-symmetric (back_voxel_sym.hpp): 2 (half-turn pairs) or 4 (quarter-turn quads) views a
  // texel, `texel` half or f32; 0: not.
  int sym = 0;
  bool hybrid() const { return soft != Soft::none; }
  bool narrow() const { return texel != Texel::f32 && sym == 0; }
  bool needs_texture() const {
    if (sym != 0) return false;
    if (hybrid()) return soft_warps < 8;
    return (ldg_every != 1 && !tiled && !narrow()) || gather;
  }
  bool needs_padded() const { return sym == 0 && (hybrid() || ((ldg_every != 0 || tiled) && !gather) || narrow()); }
};

// The candidates in the order they are timed (the first is the product's layout).
std::vector<Variant> variants();
// Block shapes tried on the best few.
std::vector<Variant> block_sweep(const Variant& v);

struct Inputs {
  float* x = nullptr;  // nx·ny·nz, x fastest
  int nx = 0, ny = 0, nz = 0;
  float origin[3] = {0, 0, 0}, voxel[3] = {1, 1, 1};
  int sx = 0, sy = 0, views = 0;
  const float* y = nullptr;        // device: the stack, views·sy·sx
  const int* view_ids = nullptr;   // device: 0..views−1
  const float* weights = nullptr;  // device: the product's pixel weights (kPixelWeightFloats per view)
  cudaSurfaceObject_t surface = 0; // layered array of `views` layers (weighted detector)
  cudaTextureObject_t tex = 0;     // the same array, linear filter, border 0
  float* padded = nullptr;         // device: (sx+2)·(sy+2) per view, border 0
  const float* mats = nullptr;     // host: the product's B matrices, 12 per view, row-major
  // The orbit's turn symmetry as the host found it (compute/fdk/orbit_symmetry.hpp): half-turn
  // pairs hold; the quarter turn's sense (0: none); per view 1/c² (device) of each.
  bool half_turn = false;
  int quarter_sense = 0;
  const float* half_inv_c2 = nullptr;
  const float* quarter_inv_c2 = nullptr;
  float half_weight_max = 0, quarter_weight_max = 0;  // turn_weight_max (voxel_back_kernels.hpp) of each
};

// Fills the stack with a smooth signal plus per-pixel noise (timing and accuracy data).
void synthetic_stack(float* y, int views, int sx, int sy, cudaStream_t s);
// Zeroes the padded copy's border (once).
void clear_padded(const Inputs& in, cudaStream_t s);
// x = B y with variant v: the weighting pass(es) it needs, then its gather. Returns false (and
// runs nothing) where the variant does not apply (z-invariant on a geometry that is not).
bool run_variant(const Variant& v, const Inputs& in, cudaStream_t s);
// Every view's p[2] and p[10] are zero (z-invariant u and t).
bool z_invariant(const float* mats, int views);

}  // namespace tomo::bench::fdk_b
