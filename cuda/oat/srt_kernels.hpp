// Host-callable launchers of the oat H_int CUDA kernels (srt_kernels.cu): H_srt (one warp per data
// sample, lanes over a ring's patches) and its transpose as a gather over tiles of voxels, D, H_eir
// and their transposes (one thread per sample).
#pragma once
#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>

#include "compute/oat/kernel_math.hpp"
#include "compute/oat/srt_symmetry.hpp"

namespace tomo::oat::cuda_detail {

inline constexpr int kSrtWarpsPerBlock = 4;  // one warp per shell sample (q, m)

struct SrtParams {
  GridParams<float> grid{};
  const ShellFrame<float>* frames = nullptr;  // Q, device memory
  int transducers = 0;                        // Q
  int shells = 0;                             // M = K + 2 (k = −1..K)
  float c0 = 1, t_min = 0, dt = 1;            // shell m has radius c₀·(t_min + (m − 1)Δt)
  float h = 1;                                // patch edge (mm)
};

// How H_srt reads the volume: exact = kernel_math's trilinear_visit on global memory (fp32
// weights, the transpose of the scatter); hardware = one filtered fetch of a 3D texture (border
// 0, 8-bit weights).
enum class SrtFetch { exact, hardware };

// g[q·M + m] = H_srt α (Q·M floats, every sample written). `volume` is the 3D texture for
// hardware, unused otherwise; `alpha` (grid order) for exact.
void launch_srt(const SrtParams& p, const float* alpha, cudaTextureObject_t volume, float* g, SrtFetch fetch,
                cudaStream_t stream);
// H_srtᵀ as a gather (srt_gather.cuh): tiles of kGatherTile voxels, each summing in shared memory
// the patches of every transducer's shells that touch it, written once (no global atomics); the
// transducers split into `chunks` when there are too few busy tiles to fill the device, the
// chunks' partial images summed after.
inline constexpr int kGatherTile[3] = {16, 16, 16};
// The tile's layout in shared memory (srt_gather.cuh gather_acc_floats): row stride and rows per
// plane one longer than the tile, so that a warp's adds spread over the 32 banks.
inline constexpr int kGatherLayout[2] = {kGatherTile[0] + 1, kGatherTile[1] + 1};
// Resident blocks per multiprocessor the gather's registers are bounded for (1: unbounded). On one
// H200 (paper scene of bench_oat) 4 (64 registers, 56 B local) took 888 ms, 3 (80) 968 ms, unbounded
// (90 registers, 2 blocks) 1210 ms; the fixed-point sums make the image the same bits every way.
inline constexpr int kGatherMinBlocks = 4;
// Blocks with work to aim for per multiprocessor; fewer busy tiles than that split the
// transducers (at most 8 chunks). Smaller blocks shorten the last wave's tail: on one H200 (paper
// scene of bench_oat) 12 gave 4 chunks and 1183 ms, 6 gave 2 chunks and 1285 ms. Each split rounds
// the chunks' partial images to float before their sum (rel. L2 vs the scatter 7.5e-6 with 2 or 4
// chunks, of the order of the scatter's own float sums), so the split stays small.
inline constexpr int kGatherBlocksPerSm = 12;
struct GatherParams {
  int tiles[3] = {0, 0, 0};  // tiles along x, y, z
  int tile_count = 0;
  int busy_tiles = 0;         // tiles the caps reach
  int chunks = 1, q_per_chunk = 0;
  float cx = 0, cy = 0, cz = 0, rho = 0;  // the ball every shell is cut to (kernel_math shell_cap)
  float margin = 0;                       // srt_gather.hpp gather_margin
  double* fixed = nullptr;  // device scratch of kGatherScratch doubles for the fixed-point scale
  // The table of the patches' azimuth sines and cosines, (sin, cos) of (j + ½)·2π/n at
  // n(n − 1)/2 + j for n ≤ trig_n (the very values kernel_math shell_point computes; srt_gather.cuh
  // TablePoints); rings longer than trig_n compute theirs.
  const float2* trig = nullptr;
  int trig_n = 0;
};
// Tiles of `tile` voxels over p's grid; chunks so that about `target_blocks` blocks have work;
// max_distance: the farthest a patch lies from its transducer (for the margin).
GatherParams plan_gather(const SrtParams& p, const float centre[3], float rho, float max_distance, const int tile[3],
                         int target_blocks);
// α = H_srtᵀ g, every voxel written (`partial`: gp.chunks·N floats when gp.chunks > 1, else unused;
// gp.fixed set).
void launch_srt_gather(const SrtParams& p, const GatherParams& gp, const float* g, float* alpha, float* partial,
                       cudaStream_t stream);
// The gather reads its patches' azimuth sines and cosines from a table (GatherParams::trig,
// srt_gather.cuh TablePoints; the same bits as computing them) for rings of at most kTrigTableN
// patches; trig_table_size(N): the table's size in float2 for n ≤ N. On one H200 (paper scene of
// bench_oat) the table with the interleaved deal took 808 ms, computing them (blocked deal, the
// bench's gather-before) 890 ms; the same image bit for bit.
inline constexpr int kTrigTableN = 512;
constexpr std::size_t trig_table_size(int n) { return static_cast<std::size_t>(n) * (n + 1) / 2; }
// table[n(n − 1)/2 + j] = (sin, cos) of (j + ½)·2π/n for 1 ≤ n ≤ `n`, as kernel_math shell_point
// computes them.
void launch_trig_table(float2* table, int n, cudaStream_t stream);
// Doubles of GatherParams::fixed: Σ|g|, S, 1/S and 256 block sums.
inline constexpr int kGatherScratch = 3 + 256;
// The fixed-point scale of the gather's sums from g into gp.fixed (srt_gather.cuh FixedAdd; run by
// launch_srt_gather before its kernel).
void launch_gather_scale(const SrtParams& p, const GatherParams& gp, const float* g, cudaStream_t stream);
// α[i] = Σ_c partial[c·N + i], c < chunks (N = p's voxels).
void launch_gather_reduce(const float* partial, int chunks, float* alpha, const SrtParams& p, cudaStream_t stream);

// H_srt by the quarter-turn symmetry of the geometry (compute/oat/srt_symmetry.hpp), where
// plan_srt_symmetry passes: the orbits of four transducers and the frames their patches are laid
// out by, so that one patch's position and weights serve the four (the same patches and weights as
// launch_srt up to the float rounding of the turned frames).
struct SymmetricParams {
  const SymmetryPass<float>* passes = nullptr;  // device, grouped by orbit
  const int* orbit_first = nullptr;             // device, orbits + 1 entries
  int orbits = 0;
  int n = 0;  // voxels along x and y (even)
};
// c4 (N float4) = the image interleaved with its turns, c4[V] = (α(V), α(RV), α(R²V), α(R³V)),
// then g = H_srt α: one warp per (orbit, shell sample), a patch's eight float4 loads giving the
// four members' trilinear values. On one H200 (bench_oat's scene) 148 ms against launch_srt's 275.
void launch_srt_symmetric(const SrtParams& p, const SymmetricParams& sp, const float* alpha, float4* c4, float* g,
                          cudaStream_t stream);

// α = H_srtᵀ g by the same orbits: c4 (N float4, overwritten) receives the four members' terms of
// each patch by float4 atomics, summed in registers while a lane's patches on consecutive shells
// stay in one 2×2×2 block of voxels (srt_sym_merged.cuh), then α(W) = Σ_r c4[R⁻ʳW].r. The order of
// the atomics varies from run to run (float sums: the image to float rounding, not bit for bit).
// On one H200 (bench_oat's scene) 370 ms against the gather's 813 and the scatter's 1910.
inline constexpr int kSymMergedMinBlocks = 1;  // resident blocks the registers are bounded for (1: unbounded)
void launch_srt_symmetric_adjoint(const SrtParams& p, const SymmetricParams& sp, const float* g, float4* c4,
                                  float* alpha, cudaStream_t stream);
// Its last step alone: α(W) = Σ_r c4[R⁻ʳW].r.
void launch_symmetric_deinterleave(const SrtParams& p, const SymmetricParams& sp, const float4* c4, float* alpha,
                                   cudaStream_t stream);

// D and Dᵀ (kernel_math d_sample / d_adjoint_sample): p (Q·K) from g (Q·M) and back.
struct TimeParams {
  int transducers = 0, samples = 0;  // Q, K
  float t_min = 0, dt = 1, cD = 1;
};
void launch_d(const TimeParams& t, const float* g, float* p, cudaStream_t stream);
void launch_d_adjoint(const TimeParams& t, const float* p, float* g, cudaStream_t stream);
// H_eir and H_eirᵀ with `taps` (device, J floats); J = 0 copies.
void launch_eir(const TimeParams& t, const float* taps, int J, const float* p, float* u, cudaStream_t stream);
void launch_eir_adjoint(const TimeParams& t, const float* taps, int J, const float* u, float* p, cudaStream_t stream);

}  // namespace tomo::oat::cuda_detail
