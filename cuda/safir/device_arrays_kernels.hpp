// Launchers of the cuda backend's device-memory calls (DeviceOperator: the event-order
// permutations and the check of device events) and the image fill of the device-array path.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tomo::safir::cuda_impl {

// y[order[i]] = sorted[i] for i ≥ first, 0 for i < first (n events).
void launch_scatter_to_events(const float* sorted, const std::uint32_t* order, std::size_t first, std::size_t n,
                              float* y, cudaStream_t stream);
// sorted[i] = v[order[i]] (n events).
void launch_gather_from_events(const float* v, const std::uint32_t* order, std::size_t n, float* sorted,
                               cudaStream_t stream);
// *first_bad = the lowest row whose crystal ids (2 per row) are not both below `crystals`; the
// caller sets *first_bad to n (or more) before.
void launch_find_bad_events(const std::uint32_t* ids, std::size_t n, std::uint32_t crystals,
                            unsigned long long* first_bad, cudaStream_t stream);
// The ordered pairs (first[i], b), b over [0, crystals) without first[i], in that order:
// first.size() · (crystals − 1) events of two uint32 ids each.
void launch_pair_events(const std::uint32_t* first, std::size_t n_first, std::uint32_t crystals, std::uint32_t* ids,
                        cudaStream_t stream);
// f[i] = value (n voxels).
void launch_fill(float* f, std::size_t n, float value, cudaStream_t stream);

}  // namespace tomo::safir::cuda_impl
