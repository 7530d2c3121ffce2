// Bench-only ceiling probes of oat's H_srt kernels (plain C++ interface): the forward and the
// transpose with the work and memory pattern of the product kernels (cuda/oat/srt_kernels.cu) but
// patch positions and weights from fast intrinsics (__sincosf, a reciprocal), so what the loads,
// the texture fetches or the atomics alone allow. Each runs the whole pipeline (D and H_eir and
// their transposes as the product), so its time compares with ModelDevice's forward/adjoint.
#pragma once
#include <memory>
#include <span>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace tomo::oat {

class SrtProbes {
 public:
  SrtProbes(const OatGeometry& g, const ModelOptions& o);  // needs ≥ 2 voxels along every axis
  ~SrtProbes();
  void upload(std::span<const double> alpha, std::span<const double> u);
  void loads();    // forward, the exact kernel's loads from fast positions
  void texture();  // forward, the hardware kernel's texture fetches from fast positions
  void atomics();  // transpose, the scatter's atomics from fast positions
  cudaStream_t stream() const;
  void synchronize() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::oat
