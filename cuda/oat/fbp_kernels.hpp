// Host-callable launchers of the oat FBP CUDA kernels: the fused discrete FBP ([Wang2013] Algs.
// fbp/k_fbp: one thread per voxel, data in a texture) read through the texture unit or __ldg
// (fbp_texture_kernels.cu), or from per-block time windows staged in shared memory: the deferred
// kernel (fbp_deferred_kernels.cu) and its fallback, the pinned kernel (fbp_pinned_kernels.cu).
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
  float eps = 1e-3f;  // texture and ldg kernels
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
// How launch_fbp reads the table: texture (point fetches, border 0) or ldg (linear memory through
// the read-only data cache, for tables beyond the 2D texture limits).
enum class FbpFetch { texture, ldg };

inline constexpr int kFbpBlockX = 8, kFbpBlockY = 4, kFbpBlockZ = 4;  // one warp = 8×4 voxels in x, y
inline constexpr int kFbpVoxelsPerThread = 4;                          // z register blocking
inline constexpr int kFbpTile = 256;                                   // transducers per shared tile

// image[n] (grid order, x fastest) = the FBP sum over all transducers. `transducers` holds Q
// float4 (x, y, z relative to voxel 0, q + 0.5). `table` is the texture's content in linear memory
// (Q rows of `width` float2), for ldg.
void launch_fbp(const FbpParams& p, const float4* transducers, cudaTextureObject_t data, const float2* table,
                float* image, FbpFetch fetch, cudaStream_t stream);

// ---- Time windows in shared memory (the pinned and deferred kernels) ----
// A block covers a box of 8 × 8 × 16 voxels (kFbpBoxX/Y/Z), each thread a z-run of
// voxels_per_thread (8) of them. For a tile of transducers the block first computes, per
// transducer, the first sample its box can need (from the box's nearest point, two samples of
// margin), then loads that transducer's window of `slot` consecutive table entries into shared
// memory with coalesced loads (`slot` ≥ the box diagonal in samples + 7, a power of two), and every
// voxel-transducer update reads its entry from there. Lengths are in samples (c₀Δt); `transducers`
// holds positions in samples there.
//
// Why the window holds every k a box asks for: for voxels r, r' of the box, |d(r) − d(r')| ≤
// |r − r'| ≤ the box diagonal (triangle inequality), the nearest point of the box gives the
// smallest k̃, and the fp32 k̃ (and its double refinement) differ from the exact one by far less
// than the two entries of margin on each side.
//
// The update (fbp_pinned.cuh): one accumulator, no split fraction g. The term
// c₀Δt·(M_k + g·D_k)/d + ½D_k equals inv·(E_j + kr·F_j) with inv = c₀Δt/d (d_s = 1/inv in
// samples), kr = k̃ − ½ − kmin = d_s − C (C = t_min/Δt + ½ + kmin, per transducer and block),
// j = k − kmin the window index, F_j = 1.5·D_k and E_j = M_k + D_k·(½C − j). The block stores
// (E_j, F_j) in its windows; the distances of a column's voxels are taken in pairs about its
// centre z_c: d²(z_c ± (m+½)Δs) = A_m ± (2m+1)Δs·dz_c. "Pinned": the index and the near-sample
// test come from the bits of z = kr + slot + ½ + tau, whose exponent the offset pins
// (slot ≤ z < 2·slot). Pairs with k̃ within eps_lean of a sample (where fp32 may pick the other
// neighbour than the cpu's double floor) are recomputed in double, so the image equals the cpu's
// to fp32 accumulation (fbp_device.cpp lean_eps bounds the fp32 kr).
inline constexpr int kFbpBoxX = 8, kFbpBoxY = 8, kFbpBoxZ = 16;

struct FbpSharedShape {
  int voxels_per_thread = 8;  // 8 (128 threads per block)
  int slot = 64;              // table entries per transducer window (power of two, 8 … 2048)
  int tile = 32;              // transducers per shared tile (1 … kFbpSharedMaxTile)
};
inline constexpr int kFbpSharedMaxTile = 64;

// Dynamic shared memory of one block (bytes).
inline int fbp_shared_bytes(const FbpSharedShape& s) { return s.tile * s.slot * 8; }

// The pinned kernel: the near-sample pairs refined in double inside the main loop. The deferred
// kernel's fallback where its lists overflow. Throws tomo::Error on a bad shape.
void launch_fbp_pinned(const FbpParams& p, float eps_lean, const FbpSharedShape& shape, const float4* transducers,
                       const float2* table, float* image, cudaStream_t stream);

// ---- The deferred kernel (fbp_deferred_kernels.cu): exact by a fix-up pass ----
// The pinned update without its slow path: a near-sample pair adds nothing in the main loop (its
// 1/d selected to 0) and is recorded instead; a second kernel computes exactly those pairs' terms
// in double (k̃, k, g and d as the cpu does, (M_k, D_k) from the table) and adds them to the image
// with atomics. The result is the pinned kernel's up to the order of the float sums.
// The list: one segment of `per_block` 64-bit entries per main block (a block counts its entries
// in shared memory, warp-aggregated by a ballot), an entry per thread and transducer with any
// recorded voxel: q << 32 | thread << 16 | voxel bit mask. counts[b] = the entries block b wanted
// (may exceed per_block); *overflow = 1 when any did: the fix-up then adds nothing, and the caller
// runs the pinned kernel instead.
struct FbpDeferredList {
  unsigned long long* entries = nullptr;  // blocks × per_block
  unsigned* counts = nullptr;             // blocks
  unsigned* overflow = nullptr;           // one flag, set to 0 by the caller before the main kernel
  unsigned per_block = 0;
};

// Blocks of the main kernel (the list's segments) for this grid.
int fbp_deferred_blocks(const FbpParams& p);

// The main kernel (windows as launch_fbp_pinned's): image = the sum without the recorded pairs;
// launch_fbp_fixup then adds them. Throws tomo::Error on a bad shape.
void launch_fbp_deferred(const FbpParams& p, float eps_lean, const FbpSharedShape& shape, const float4* transducers,
                         const float2* table, float* image, const FbpDeferredList& list, cudaStream_t stream);
// The fix-up pass of launch_fbp_deferred's list (same p, shape.voxels_per_thread, table, image).
void launch_fbp_fixup(const FbpParams& p, int voxels_per_thread, const float2* table, float* image,
                      const FbpDeferredList& list, cudaStream_t stream);

// The data table from float pressure on the device (FbpDevice::upload on device memory): entry
// (k, q) = w_q·(½(p_k + p_{k+1}), p_{k+1} − p_k) in double, then float, as the host builds it.
void launch_fbp_table(const float* pressure, const double* weights, int transducers, int samples, float2* table,
                      cudaStream_t stream);

}  // namespace tomo::oat::cuda_detail
