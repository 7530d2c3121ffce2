// The prior's product passes (rdp_kernels.hpp): the pair kernel of rdp_pair_kernel.cuh with 8
// rows a lane for the single terms and 4 for gradient and Hessian together (twice the sums per
// row: 4 rows keep it within the registers of 8 rows of one term).
#include "cuda/pet/rdp_kernels.hpp"

#include "cuda/pet/rdp_pair_kernel.cuh"

namespace tomo::pet::cuda_impl {

void launch_rdp(const RdpArgs& a, RdpTerm term, cudaStream_t stream) {
  using pairs::launch_pairs;
  using pairs::Shape;
  constexpr Shape single{.rows = 8}, both{.rows = 4};
  switch (term) {
    case RdpTerm::value: launch_pairs<0, single>(a, stream); break;
    case RdpTerm::gradient: launch_pairs<1, single>(a, stream); break;
    case RdpTerm::hessian: launch_pairs<2, single>(a, stream); break;
    case RdpTerm::derivatives: launch_pairs<3, both>(a, stream); break;
  }
}

}  // namespace tomo::pet::cuda_impl
