// The prior's product passes (rdp_kernels.hpp): the pair kernel of rdp_pair_kernel.cuh in one
// shape for every term, the fastest of the shapes timed on an H200 (docs/perf/pet.md): 4 rows a
// lane (72–96 registers: more warps an SM than 8 rows' 128, and room for the gradient and Hessian
// sums of the one-pass term), plane steps skipped where a warp's κ is 0 in both planes (outside
// the field of view), a plane's loads from one offset and a row mask made once. Every shape sums
// the same terms in the same order: the results do not depend on it.
#include "cuda/pet/rdp_kernels.hpp"

#include "cuda/pet/rdp_pair_kernel.cuh"

namespace tomo::pet::cuda_impl {

void launch_rdp(const RdpArgs& a, RdpTerm term, cudaStream_t stream) {
  using pairs::launch_pairs;
  using pairs::Shape;
  constexpr Shape shape{.rows = 4, .skip_empty = true, .lean_loads = true};
  switch (term) {
    case RdpTerm::value: launch_pairs<0, shape>(a, stream); break;
    case RdpTerm::gradient: launch_pairs<1, shape>(a, stream); break;
    case RdpTerm::hessian: launch_pairs<2, shape>(a, stream); break;
    case RdpTerm::derivatives: launch_pairs<3, shape>(a, stream); break;
  }
}

}  // namespace tomo::pet::cuda_impl
