// Bench-only: the prior's previous product kernel (prior_tiled.cu), timed beside the product.
#pragma once
#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet::probes {

void launch_tiled_rdp(const cuda_impl::RdpArgs& a, cuda_impl::RdpTerm term, cudaStream_t stream);

}  // namespace tomo::pet::probes
