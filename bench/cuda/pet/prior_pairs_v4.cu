// Bench-only shapes of the product pair kernel (never product code): the same template as
// cuda/pet/rdp_kernels.cu with other rows per lane (halo share against registers), with plane
// steps skipped where the warp's κ is 0 in both planes (the field of view's outside), with a
// plane's loads from one offset and a row mask made once, and the gradient and Hessian pass in
// the single terms' shape.
#include "bench/cuda/pet/prior_pairs_v4.hpp"

#include "cuda/pet/rdp_pair_kernel.cuh"

namespace tomo::pet::probes {

namespace {

using cuda_impl::RdpTerm;
using cuda_impl::pairs::launch_pairs;
using cuda_impl::pairs::Shape;

struct Entry {
  const char* name;
  RdpTerm term;
  void (*fn)(const cuda_impl::RdpArgs&, cudaStream_t);
};

constexpr Shape r4{.rows = 4}, r6{.rows = 6}, r8{.rows = 8}, r4s{.rows = 4, .skip_empty = true}, r8s{.rows = 8, .skip_empty = true},
                 r8l{.rows = 8, .lean_loads = true}, r4l{.rows = 4, .lean_loads = true},
                 r4sl{.rows = 4, .skip_empty = true, .lean_loads = true};

const Entry kEntries[] = {
    {"value rows 4", RdpTerm::value, launch_pairs<0, r4>},
    {"gradient rows 4", RdpTerm::gradient, launch_pairs<1, r4>},
    {"hessian rows 4", RdpTerm::hessian, launch_pairs<2, r4>},
    {"gradient rows 6", RdpTerm::gradient, launch_pairs<1, r6>},
    {"gradient rows 8 skip-empty", RdpTerm::gradient, launch_pairs<1, r8s>},
    {"gradient rows 4 skip-empty", RdpTerm::gradient, launch_pairs<1, r4s>},
    {"gradient rows 8 lean loads", RdpTerm::gradient, launch_pairs<1, r8l>},
    {"gradient rows 4 lean loads", RdpTerm::gradient, launch_pairs<1, r4l>},
    {"gradient rows 4 skip-empty lean loads", RdpTerm::gradient, launch_pairs<1, r4sl>},
    {"grad+hess rows 4 lean loads", RdpTerm::derivatives, launch_pairs<3, r4l>},
    {"grad+hess rows 8", RdpTerm::derivatives, launch_pairs<3, r8>},
    {"grad+hess rows 6", RdpTerm::derivatives, launch_pairs<3, r6>},
    {"grad+hess rows 4 skip-empty", RdpTerm::derivatives, launch_pairs<3, r4s>},
};

}  // namespace

std::vector<PairsV4Candidate> pairs_v4_candidates() {
  std::vector<PairsV4Candidate> v;
  for (const Entry& e : kEntries) v.push_back({e.name, e.term});
  return v;
}

void launch_pairs_v4_rdp(int which, const cuda_impl::RdpArgs& a, cudaStream_t stream) { kEntries[which].fn(a, stream); }

}  // namespace tomo::pet::probes
