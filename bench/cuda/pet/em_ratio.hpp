// Bench-only: the data/estimate ratio of a list-mode ML-EM iteration around any projector pair
// (bench_pet's TOF rows run the same loop around ours and libparallelproj's).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tomo::pet::probes {

// r_i = q_i > 0 ? y_i / q_i : 0 (device arrays of n values).
void launch_em_ratio(const float* y, const float* q, float* r, std::size_t n, cudaStream_t stream);

}  // namespace tomo::pet::probes
