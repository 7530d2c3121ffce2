// The prior's product passes (rdp_kernels.hpp): the pair kernel of rdp_pair_kernel.cuh, in its one
// shape, for every term. Every term sums the same pairs in the same order.
#include "cuda/pet/rdp_kernels.hpp"

#include "cuda/pet/rdp_pair_kernel.cuh"

namespace tomo::pet::cuda_impl {

void launch_rdp(const RdpArgs& a, RdpTerm term, cudaStream_t stream) {
  using pairs::launch_pairs;
  switch (term) {
    case RdpTerm::value: launch_pairs<0>(a, stream); break;
    case RdpTerm::gradient: launch_pairs<1>(a, stream); break;
    case RdpTerm::hessian: launch_pairs<2>(a, stream); break;
    case RdpTerm::derivatives: launch_pairs<3>(a, stream); break;
  }
}

}  // namespace tomo::pet::cuda_impl
