// Bench-only: the product pair kernel (cuda/pet/rdp_pair_kernel.cuh) in other shapes, timed beside
// the product's own passes (prior_pairs_v4.cu).
#pragma once
#include <string>
#include <vector>

#include "cuda/pet/rdp_kernels.hpp"

namespace tomo::pet::probes {

struct PairsV4Candidate {
  std::string name;
  cuda_impl::RdpTerm term;  // the product pass it stands in for
};

// The candidates, in the order launch_pairs_v4_rdp takes their index.
std::vector<PairsV4Candidate> pairs_v4_candidates();

// Candidate `which`: writes a.out (and a.out2 for RdpTerm::derivatives) as the product pass does.
void launch_pairs_v4_rdp(int which, const cuda_impl::RdpArgs& a, cudaStream_t stream);

}  // namespace tomo::pet::probes
