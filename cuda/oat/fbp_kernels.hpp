// Host-callable launchers of the oat FBP CUDA kernels (fbp_kernels.cu): the fused discrete FBP
// (notes "FBP"; seed 001 Algs. fbp/k_fbp: one thread per voxel, data in a texture) and the two
// probes bench_oat measures it against (texture-fetch-only and arithmetic-only twins).
#pragma once
#include <cuda_runtime_api.h>

namespace tomo::oat::cuda_detail {

// The kernel's geometry in float. Positions are relative to voxel (0,0,0)'s centre (subtracted in
// double on the host, so fp32 keeps the sub-µm resolution a 65 mm radius would otherwise eat).
struct FbpParams {
  int nx = 0, ny = 0, nz = 0;
  float voxel = 1;        // Δs (mm), cubic voxels
  float inv_c0dt = 1;     // 1/(c₀Δt): samples per mm of distance
  float tau0 = 0;         // t_min/Δt
  float lin_scale = 1;    // c₀Δt: the interpolated term P(t̃)/(t̃/Δt) = c₀Δt·P/d
  float diff_scale = 0.5f;  // ½: the difference term
  int transducers = 0;    // Q
  int width = 0;          // K − 1 texels per transducer
  // The same in double for the rare pairs whose k̃ lies within `eps` of an integer (see below).
  double voxel_d = 1, inv_c0dt_d = 1, tau0_d = 0;
  float eps = 1e-3f;
  const double* positions = nullptr;  // Q × 3 doubles, relative to voxel 0 (device memory)
};

// The texel layout of the data texture (float2, K−1 wide, Q high): texel (k, q) holds
// (P_k, D_k) = w_q·(p_k, p_{k+1} − p_k) for k = 0…K−2, w_q = fbp_weight of transducer q; the
// border reads 0, which is kernel_math.hpp fbp_term's "0 where k or k + 1 is outside 0..K−1".
// Then the voxel's value is Σ_q c₀Δt·(P_k + f·D_k)/d + ½D_k, k = ⌊k̃⌋, f = k̃ − k: fbp_term
// rearranged so that one float2 fetch and one reciprocal square root serve a voxel-transducer pair.
//
// The held difference D_k makes the formula jump where k̃ crosses an integer, so an fp32 k̃ on the
// wrong side of one (|δk̃| ~ 1e-5) would cost O(p'') for that voxel. Pairs with k̃ within `eps`
// of an integer (a fraction ~2·eps of them) recompute k̃ in double from double positions: the
// image then equals the cpu's to fp32 accumulation. (No "hardware" variant: the texture unit's
// filter would lerp D as well, a different discretisation; FbpOptions::interpolation is unused.)
//
// exact: point fetch of the texture, fp32 f;
// exact_ldg: the same table read from linear memory through the read-only data cache (__ldg; on
// sm_90 the same unified L1/texture cache, without the texture unit's quad rate);
// no_fetch: the arithmetic of exact with the fetch replaced (the compute probe).
enum class FbpMode { exact, exact_ldg, no_fetch };

inline constexpr int kFbpBlockX = 8, kFbpBlockY = 4, kFbpBlockZ = 4;  // one warp = 8×4 voxels in x, y
inline constexpr int kFbpVoxelsPerThread = 4;                          // z register blocking
inline constexpr int kFbpTile = 256;                                   // transducers per shared tile

// image[n] (grid order, x fastest) = the FBP sum over all transducers. `transducers` holds Q
// float4 (x, y, z relative to voxel 0, q + 0.5). no_fetch replaces the fetch by arithmetic on
// k̃ (the compute probe; its image is meaningless).
// `table` is the texture's content in linear memory (Q rows of `width` float2), for exact_ldg.
void launch_fbp(const FbpParams& p, const float4* transducers, cudaTextureObject_t data, const float2* table,
                float* image, FbpMode mode, cudaStream_t stream);

// The fetch probe: the launch shape, tiling and number of float2 point fetches of launch_fbp, the
// coordinates from one distance per thread and transducer expanded to first order along z (the
// same locality), i.e. what the texture path allows with the arithmetic mostly gone.
void launch_fbp_fetch_probe(const FbpParams& p, const float4* transducers, cudaTextureObject_t data, float* image,
                            cudaStream_t stream);

}  // namespace tomo::oat::cuda_detail
