// Bench-only ceiling probes of oat's FBP texture/ldg kernels (plain C++ interface): the launch
// shape, transducer tiling and voxel blocking of cuda/oat/fbp_texture_kernels.cu with one of its
// two costs taken out, so bench_oat can say which one bounds a kernel on the same workload.
// fetch(): the float2 point fetches alone (coordinates from one distance per thread and
// transducer, expanded to first order along z: the same locality, the arithmetic mostly gone);
// arithmetic(): the kernel's arithmetic per update with the fetch replaced by a value computed from
// the split (no double refinement, no memory read): what instruction issue alone allows.
#pragma once
#include <memory>
#include <span>

#include "compute/oat/geometry.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace tomo::oat {

class FbpProbes {
 public:
  // UnavailableError when the data table exceeds the 2D texture limits (no texture kernel either).
  explicit FbpProbes(const OatGeometry& g);
  ~FbpProbes();
  // p[q·K + k] → the table FbpDevice::upload builds (the fetch probe reads it).
  void upload(std::span<const double> pressure);
  void fetch();       // texture fetches only
  void arithmetic();  // the per-update arithmetic only
  cudaStream_t stream() const;
  void synchronize() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::oat
