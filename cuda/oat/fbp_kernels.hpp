// Host-callable launchers of the oat FBP CUDA kernels: the fused discrete FBP (notes "FBP"; seed
// 001 Algs. fbp/k_fbp: one thread per voxel, data in a texture) read through the texture unit or
// __ldg (fbp_kernels.cu) or from per-block time windows staged in shared memory
// (fbp_shared_kernels.cu), and the probes bench_oat measures each against.
#pragma once
#include <cuda_runtime_api.h>

namespace tomo::oat::cuda_detail {

// The kernel's geometry in float. Positions are relative to voxel (0,0,0)'s centre (subtracted in
// double on the host, so fp32 keeps the sub-µm resolution a 65 mm radius would otherwise eat).
struct FbpParams {
  int nx = 0, ny = 0, nz = 0;
  float voxel = 1;          // Δs (mm), cubic voxels
  float voxel_samples = 1;  // Δs/(c₀Δt): the shared kernel works in units of samples (see below)
  float inv_c0dt = 1;       // 1/(c₀Δt): samples per mm of distance
  float tau0h = 0.5f;       // t_min/Δt + ½: k̃ − ½ = d/(c₀Δt) − tau0h (the midpoint split below)
  float lin_scale = 1;      // c₀Δt: the interpolated term P(t̃)/(t̃/Δt) = c₀Δt·P/d
  float diff_scale = 0.5f;  // ½: the difference term
  int transducers = 0;      // Q
  int width = 0;            // K − 1 entries per transducer
  // The same in double for the rare pairs whose k̃ lies within `eps` of an integer (see below).
  double voxel_d = 1, inv_c0dt_d = 1, tau0_d = 0;
  float eps = 1e-3f;         // texture kernel
  float eps_shared = 1e-3f;  // shared kernel (its arithmetic in samples: fbp_device.cpp shared_eps)
  const double* positions = nullptr;  // Q × 3 doubles, relative to voxel 0 (device memory)
};

// The data table (float2, K−1 per transducer, Q rows; a texture and/or linear memory): entry
// (k, q) holds (M_k, D_k) = w_q·(½(p_k + p_{k+1}), p_{k+1} − p_k), k = 0…K−2, w_q = fbp_weight of
// transducer q; outside 0…K−2 it reads 0 (kernel_math.hpp fbp_term's "0 where k or k + 1 is
// outside 0..K−1"). With k = ⌊k̃⌋ taken as round(k̃ − ½) and g = k̃ − ½ − k ∈ [−½, ½), the
// voxel's value is Σ_q c₀Δt·(M_k + g·D_k)/d + ½D_k: fbp_term rearranged so that one float2 read
// and one reciprocal square root serve a voxel-transducer pair (M_k + g·D_k = P_k + f·D_k).
//
// The held difference D_k makes the formula jump where k̃ crosses an integer, so an fp32 k̃ on the
// wrong side of one (|δk̃| ~ 1e-4) would cost O(p'') for that voxel. Pairs with k̃ within `eps`
// of an integer (|g| > ½ − eps, a fraction ~2·eps of them) recompute k̃ in double from double
// positions: the image then equals the cpu's to fp32 accumulation. (No "hardware" variant: the
// texture unit's filter would lerp D as well, a different discretisation.)
//
// exact: point fetch of the texture (one fetch per update); exact_ldg: the same table read from
// linear memory through the read-only data cache (__ldg); no_fetch: the arithmetic of exact with
// the fetch replaced (the compute probe of the texture kernel).
enum class FbpMode { exact, exact_ldg, no_fetch };

inline constexpr int kFbpBlockX = 8, kFbpBlockY = 4, kFbpBlockZ = 4;  // one warp = 8×4 voxels in x, y
inline constexpr int kFbpVoxelsPerThread = 4;                          // z register blocking
inline constexpr int kFbpTile = 256;                                   // transducers per shared tile

// image[n] (grid order, x fastest) = the FBP sum over all transducers. `transducers` holds Q
// float4 (x, y, z relative to voxel 0, q + 0.5). `table` is the texture's content in linear memory
// (Q rows of `width` float2), for exact_ldg.
void launch_fbp(const FbpParams& p, const float4* transducers, cudaTextureObject_t data, const float2* table,
                float* image, FbpMode mode, cudaStream_t stream);

// The fetch probe: the launch shape, tiling and number of float2 point fetches of launch_fbp, the
// coordinates from one distance per thread and transducer expanded to first order along z (the
// same locality), i.e. what the texture path allows with the arithmetic mostly gone.
void launch_fbp_fetch_probe(const FbpParams& p, const float4* transducers, cudaTextureObject_t data, float* image,
                            cudaStream_t stream);

// ---- The shared-memory variant (fbp_shared_kernels.cu) ----
// A block covers a box of 8 × 8 × 16 voxels (kFbpBoxX/Y/Z); each thread a z-run of
// voxels_per_thread (4 or 8) of them. For a tile of transducers the block first computes, per
// transducer, the first sample its box can need (from the box's nearest point, two samples of
// margin), then loads that transducer's window of `slot` consecutive table entries into shared
// memory with coalesced loads (`slot` ≥ the box diagonal in samples + 7, a power of two), and
// every voxel-transducer update reads its (M_k, D_k) from there: one fetch per ~1000 updates
// leaves the texture/L1 path, shared memory serves the rest. The bound is then instruction issue,
// so lengths are in samples (c₀Δt): k̃ − ½ = fma(d², 1/d, −tau0h) in one op, and 1/d is already
// the c₀Δt/d of the interpolated term; `transducers` holds positions in samples there.
//
// Why the window holds every k a box asks for: for voxels r, r' of the box, |d(r) − d(r')| ≤
// |r − r'| ≤ the box diagonal (triangle inequality), the nearest point of the box gives the
// smallest k̃, and the fp32 k̃ (and its double refinement) differ from the exact one by far less
// than the two entries of margin on each side.
//
// exact: the formula, reading the window without a range test (a clamp keeps any index inside
// the allocation); checked: the same with the range test, an index outside the window reading the
// table in global memory (tests: equal to exact, also with windows forced too short); no_lds: the
// arithmetic with the shared-memory read replaced (the compute probe); lds_only: the shared-memory
// reads (same tiles, window loads and address spread, indices from one distance per thread and
// transducer expanded along z) with the arithmetic mostly gone (the shared-memory probe).
enum class FbpSharedMode { exact, checked, no_lds, lds_only };

inline constexpr int kFbpBoxX = 8, kFbpBoxY = 8, kFbpBoxZ = 16;

struct FbpSharedShape {
  int voxels_per_thread = 8;  // 4 or 8 (256 or 128 threads per block)
  int slot = 64;              // table entries per transducer window (power of two, 8 … 2048)
  int tile = 32;              // transducers per shared tile (1 … kFbpSharedMaxTile)
  // Mode exact only: each thread issues its kV shared reads of a transducer together, then one
  // slow-path branch (fbp_shared_kernels.cu batched_updates); the same image bit for bit.
  bool batched = false;
};
inline constexpr int kFbpSharedMaxTile = 64;

// Dynamic shared memory of one block (bytes).
inline int fbp_shared_bytes(const FbpSharedShape& s) { return s.tile * s.slot * 8; }

// Same output as launch_fbp(exact) for mode exact. Throws tomo::Error on a bad shape.
void launch_fbp_shared(const FbpParams& p, const FbpSharedShape& shape, const float4* transducers,
                       const float2* table, float* image, FbpSharedMode mode, cudaStream_t stream);

// ---- The lean variant (fbp_lean_kernels.cu): the shared-memory kernel with fewer instructions ----
// The same windows and boxes, 8 or 16 voxels per thread (FbpSharedShape::voxels_per_thread), and
// three changes to the update (issue 13: shared-8 spent ~13 issue slots per update, the sum of
// its arithmetic and shared-read probes):
//  * One accumulator, no split fraction g. The term c₀Δt·(M_k + g·D_k)/d + ½D_k equals
//    inv·(E_j + kr·F_j) with inv = c₀Δt/d (lengths in samples: d_s = 1/inv), kr = k̃ − ½ − kmin
//    = d_s − C (C = t_min/Δt + ½ + kmin, per transducer and block), j = k − kmin = round(kr) the
//    window index, F_j = 1.5·D_k and E_j = M_k + D_k·(½C − j): the ½D_k = ½D_k·d_s·inv written
//    under the one reciprocal. The block stores (E_j, F_j) in its windows (computed in fp32 from
//    the table's (M, D) while loading them, ½C rounded once per transducer); an update is d², rsqrt,
//    kr = fma(d², inv, −C), the rounding of kr (one add of the magic constant), the byte offset,
//    the shared read, fma(kr, F, E) and fma(inv, ·, a): no −magic, no g, no second sum.
//    Rounding: the ½D part now carries inv·d_s ≈ 1 + 2ε (ε ≤ 2⁻²² the error of rsqrt.approx)
//    where the shared kernel added it exactly: ≈ 1e-7 relative on that part.
//  * Symmetric distances: the column's voxels in pairs about its centre z_c:
//    d²(z_c ± (m+½)Δs) = A_m ± (2m+1)Δs·dz_c with A_m = dxy² + dz_c² + (m+½)²Δs², three
//    operations per pair instead of four (the constants come from the launch's constant bank).
//  * 16 voxels per thread halve the per-transducer work of a thread (its record, dx, dy, offsets).
// The fp32 kr has its own bound (fbp_device.cpp lean_eps: the symmetric d² cancels between A_m and
// the cross term, so its rounding is bounded through the smallest transducer-voxel distance).
// Modes: exact: pairs with kr within eps of a half-integer (k̃ next to a sample) recompute k̃ in
// double (kr = j + g from the refinement), as every other kernel; a thread issues 8 voxels' reads,
// then one branch to that slow path. checked: the same with the window range test (an index
// outside reads the table in global memory, transformed as the window is): bit for bit exact's
// image. fast: no refinement and no test at all: at an integer k̃ the interpolated part is
// continuous (M_{k−1} + ½D_{k−1} = p_k = M_k − ½D_k), only the ½D part jumps, by ½(D_k − D_{k−1})
// = ½Δ²p, so a pair whose fp32 k̃ lands on the other side of a sample than the exact k̃ is off by
// at most w_q·½|p_{k+1} − 2p_k + p_{k−1}|, and only pairs within |δk̃| ≤ eps of a sample are
// (a fraction ≈ 2·|δk̃|) — but scenes with symmetric geometry put many pairs at an exact
// integer k̃ (host emulation on the GPU tests' scenes: up to 1.1e-3 rel. L2 vs cpu): a looser
// tolerance, stated by the tests and the bench, never the default. no_lds: fast's
// arithmetic with the shared read replaced (the compute probe); lds_only: the shared-read probe of
// the lean windows.
// pinned / pinned_checked: exact / checked with the index and the test taken from the bits of
// z = kr + slot + ½ + tau, whose exponent the offset pins (slot ≤ kr + offset < 2·slot): two
// integer ops for the byte offset and two for the test, instead of the magic-constant rounding,
// the LEA and g (one issue slot fewer per update); the entries hold E − offset·F, a little
// cancellation (offset·F against ½d_s·D, d_s ≳ slot).
// pinned_unrolled: pinned with the transducer loop unrolled by two (the per-transducer uniform work
// shared; 122 registers at 16 voxels instead of 96): the same operations, the same image.
enum class FbpLeanMode { exact, checked, fast, no_lds, lds_only, pinned, pinned_checked, pinned_unrolled };

// Same windows as launch_fbp_shared (shape.slot, shape.tile; voxels_per_thread 8 or 16; batched is
// ignored). eps_lean: the bound of fp32 kr for exact/checked (fbp_device.cpp). Throws tomo::Error
// on a bad shape.
void launch_fbp_lean(const FbpParams& p, float eps_lean, const FbpSharedShape& shape, const float4* transducers,
                     const float2* table, float* image, FbpLeanMode mode, cudaStream_t stream);

// ---- The deferred variant (fbp_deferred_kernels.cu; "shared-8x"): exact by a fix-up pass ----
// The lean kernel's pinned update without its slow path: a pair whose z = kr + offset lies within
// the pinned band of an integer (k̃ within eps_lean of a sample, where fp32 may pick the other
// neighbour than the cpu's double floor) adds nothing in the main loop (its 1/d selected to 0) and
// is recorded instead; a second kernel computes exactly those pairs' terms in double (k̃, k, g and
// d as the cpu does, (M_k, D_k) from the table) and adds them to the image with atomics. The
// result is the exact variants' up to the order of the float sums.
// The list: one segment of `per_block` 64-bit entries per main block (no global atomics: a
// block counts its entries in shared memory, warp-aggregated by a ballot), an entry per thread and
// transducer with any recorded voxel: q << 32 | thread << 16 | voxel bit mask (kV ≤ 16 bits).
// counts[b] = the entries block b wanted (may exceed per_block); *overflow = 1 when any did: the
// fix-up then adds nothing, and the caller must run an exact kernel instead.
struct FbpDeferredList {
  unsigned long long* entries = nullptr;  // blocks × per_block
  unsigned* counts = nullptr;             // blocks
  unsigned* overflow = nullptr;           // one flag, set to 0 by the caller before the main kernel
  unsigned per_block = 0;
};

// Blocks of the main kernel (the list's segments) for this grid.
int fbp_deferred_blocks(const FbpParams& p);

// The main kernel (windows as launch_fbp_lean's, pinned; voxels_per_thread 8 or 16): image = the
// sum without the recorded pairs; launch_fbp_fixup then adds them. Throws tomo::Error on a bad shape.
void launch_fbp_deferred(const FbpParams& p, float eps_lean, const FbpSharedShape& shape, const float4* transducers,
                         const float2* table, float* image, const FbpDeferredList& list, cudaStream_t stream);
// The fix-up pass of launch_fbp_deferred's list (same p, shape.voxels_per_thread, table, image).
void launch_fbp_fixup(const FbpParams& p, int voxels_per_thread, const float2* table, float* image,
                      const FbpDeferredList& list, cudaStream_t stream);

}  // namespace tomo::oat::cuda_detail
