// Host-callable launchers of the H_sph CUDA kernels (sph_kernels.cu): forward ũ = H_sph α, its
// transpose α = Re(H_sphᴴ ũ). Phases by recurrence over the equally spaced f_l.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "compute/oat/kernel_math.hpp"

namespace tomo::oat::cuda_detail {

// Frequencies per forward thread: each thread owns kSphFreqPerThread consecutive f_l of one
// transducer, so one (sine, cosine) pair for its first frequency and one for the step give all
// of them by complex multiplies ([Wang2013]: one thread per frequency, a sine and a cosine each).
inline constexpr int kSphFreqPerThread = 8;
// Voxels staged in shared memory per round (position and α as a float4).
inline constexpr int kSphVoxelChunk = 256;
// The adjoint re-anchors its recurrence with a fresh __sincosf every kSphAnchor frequencies.
inline constexpr int kSphAnchor = 32;
// Most frequencies the adjoint stages per transducer in shared memory (float2 each).
inline constexpr int kSphMaxFrequencies = 4096;

struct SphParams {
  GridParams<float> grid{};
  const float4* points = nullptr;  // Q·P face points (x, y, z, unused), device memory
  const float2* weights = nullptr; // c_l = p̃₀(f_l)/(2π·P), L of them, device memory
  int transducers = 0;             // Q
  int points_per_face = 1;         // P
  int frequencies = 0;             // L
  float f0_over_c0 = 0;            // f_0/c₀ (turns per mm)
  float df_over_c0 = 0;            // Δf/c₀
};

// u[q·L + l] = Σ over voxels [v0, v1) (all of u written; zeroed here first).
void launch_sph_forward(const SphParams& p, const float* alpha, std::int64_t v0, std::int64_t v1, float2* u,
                        cudaStream_t stream);
// alpha[n] = Σ over transducers [q0, q1) of Re{w·conj(e^{−ĵθ}/d)}, w = conj(c_l)·u (all of α written).
// `w` is scratch of Q·L float2.
void launch_sph_adjoint(const SphParams& p, const float2* u, float2* w, int q0, int q1, float* alpha,
                        cudaStream_t stream);
// The adjoint's first step alone: w = conj(c_l)·u (Q·L float2).
void launch_sph_weigh(const SphParams& p, const float2* u, float2* w, cudaStream_t stream);

}  // namespace tomo::oat::cuda_detail
