// Bench-only: the first version of the prior's pair kernel (prior_pairs_v1.cu).
#pragma once
#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet::probes {

void launch_pairs_v1_rdp(const cuda_impl::RdpArgs& a, cuda_impl::RdpTerm term, cudaStream_t stream);

}  // namespace tomo::pet::probes
