// Bench-only: candidates for the prior's pair kernel (prior_pairs_v3.cu), timed beside the product.
#pragma once
#include <string>
#include <vector>

#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet::probes {

// The candidates' names, in the order launch_pairs_v3_rdp takes their index.
std::vector<std::string> pairs_v3_names();

// The gradient pass of candidate `which` (an index into pairs_v3_names()).
void launch_pairs_v3_rdp(int which, const cuda_impl::RdpArgs& a, cudaStream_t stream);

}  // namespace tomo::pet::probes
