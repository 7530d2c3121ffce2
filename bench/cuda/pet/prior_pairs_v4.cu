// Bench-only shapes of the product pair kernel (never product code): the same template as
// cuda/pet/rdp_kernels.cu in the previous product's shapes (8 rows a lane, each row's index
// computed per plane) and with one of the product's changes at a time (docs/perf/pet.md has the
// full set of shapes timed).
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

constexpr Shape r8{.rows = 8}, r4{.rows = 4}, r4l{.rows = 4, .lean_loads = true}, r8l{.rows = 8, .lean_loads = true};

// The previous product (8 rows for the single terms, 4 for both derivatives, the loads that
// compute each row's index) and the steps to the product's shape.
const Entry kEntries[] = {
    {"value rows 8 (previous product)", RdpTerm::value, launch_pairs<0, r8>},
    {"gradient rows 8 (previous product)", RdpTerm::gradient, launch_pairs<1, r8>},
    {"hessian rows 8 (previous product)", RdpTerm::hessian, launch_pairs<2, r8>},
    {"grad+hess rows 4 (previous product)", RdpTerm::derivatives, launch_pairs<3, r4>},
    {"gradient rows 8 lean loads", RdpTerm::gradient, launch_pairs<1, r8l>},
    {"gradient rows 4 lean loads", RdpTerm::gradient, launch_pairs<1, r4l>},
    {"grad+hess rows 4 lean loads", RdpTerm::derivatives, launch_pairs<3, r4l>},
};

}  // namespace

std::vector<PairsV4Candidate> pairs_v4_candidates() {
  std::vector<PairsV4Candidate> v;
  for (const Entry& e : kEntries) v.push_back({e.name, e.term});
  return v;
}

void launch_pairs_v4_rdp(int which, const cuda_impl::RdpArgs& a, cudaStream_t stream) { kEntries[which].fn(a, stream); }

}  // namespace tomo::pet::probes
