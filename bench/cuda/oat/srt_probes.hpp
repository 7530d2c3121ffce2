// Bench-only ceiling probes of oat's H_srt kernels (plain C++ interface): the forward and the
// transpose with the work and memory pattern of the product kernels (cuda/oat/srt_kernels.cu) but
// patch positions and weights from fast intrinsics (__sincosf, a reciprocal), so what the loads,
// the texture fetches or the atomics alone allow. Each runs the whole pipeline (D and H_eir and
// their transposes as the product), so its time compares with ModelDevice's forward/adjoint. Also
// runs the bench-only H_srtᵀ variants (the scatter, other gather tiles) in the same pipeline.
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"
#include "bench/cuda/oat/srt_adjoint_variants.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace tomo::oat {

class SrtProbes {
 public:
  SrtProbes(const OatGeometry& g, const ModelOptions& o);  // needs ≥ 2 voxels along every axis
  ~SrtProbes();
  void upload(std::span<const double> alpha, std::span<const double> u);
  void loads();    // forward, the exact kernel's loads from fast positions
  void texture();  // forward, the hardware kernel's texture fetches from fast positions
  // forward, the product's exact kernel with the azimuths' sines and cosines from the gather's
  // table (not a probe: the same operator to float rounding); data() its u
  void forward_table();
  std::vector<float> data() const;
  void atomics();  // transpose, the scatter's atomics from fast positions
  // The whole transpose (H_eirᵀ, Dᵀ, then H_srtᵀ by `variant`, srt_adjoint_variants.hpp) and
  // its image.
  void adjoint(cuda_detail::AdjointVariant variant);
  std::vector<float> alpha() const;
  int gather_chunks(cuda_detail::AdjointVariant variant) const;
  cudaStream_t stream() const;
  void synchronize() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::oat
