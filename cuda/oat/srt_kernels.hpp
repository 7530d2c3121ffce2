// Host-callable launchers of the oat H_int CUDA kernels (srt_kernels.cu): H_srt and its transpose
// (one warp per data sample, lanes over a ring's patches; the transpose scatters with atomics), D,
// H_eir and their transposes (one thread per sample).
#pragma once
#include <cuda_runtime_api.h>

#include "compute/oat/kernel_math.hpp"

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
// alpha += H_srtᵀ g (alpha zeroed by the caller).
void launch_srt_adjoint(const SrtParams& p, const float* g, float* alpha, cudaStream_t stream);

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
