// The operator of the fdk problem: RabbitCT back-projection ([Hofmann2010] Algorithm 1) of
// pre-processed projections into a volume, with one implementation per backend.
#pragma once
#include <cstddef>
#include <string>

#include "compute/core/enum_name.hpp"
#include "compute/core/volume.hpp"
#include "compute/fdk/matrix.hpp"

namespace tomo::fdk {

// A batch of pre-processed projections (non-owning): image n at pixels + n·sx·sy.
struct ProjectionView {
  int sx = 0, sy = 0, count = 0;
  const Mat34* matrices = nullptr;
  const float* pixels = nullptr;
};

// hardware: bilinear by the texture unit (8-bit weights, the fast path);
// exact: four point fetches and fp32 weights (matches cpu to ~1e-6).
enum class Interpolation { hardware, exact };
inline constexpr std::array<EnumName<Interpolation>, 2> kInterpolationNames{
    {{"hardware", Interpolation::hardware}, {"exact", Interpolation::exact}}};
inline std::string to_string(Interpolation i) { return std::string(enum_name(kInterpolationNames, i)); }

struct BackprojectorOptions {
  // GPU memory the volume may take (MiB); 0 = what the device has free. Smaller volumes than
  // this stay resident; larger ones are processed in z-slabs (ASTRA-style).
  double device_memory_mb = 0.0;
  Interpolation interpolation = Interpolation::hardware;
  int projections_per_launch = 0;  // 0: the backend's default
};

class ConeBeamBackprojector {
 public:
  virtual ~ConeBeamBackprojector() = default;
  virtual void configure(const BackprojectorOptions& options) { options_ = options; }
  // Allocates the volume on `grid` (x = origin + i·voxel, RabbitCT's O_L + i·R_L) and zeroes it.
  virtual void reset(const Grid3& grid) = 0;
  // Called after reset() with all projections the following batches will point into, before the
  // timed back-projection (RabbitCT excludes loading): a GPU backend allocates its projection
  // buffers, builds its kernels/shaders and may page-lock the host pixels for async copies.
  virtual void prepare(const ProjectionView& all) {}
  // f(i,j,k) += Σ_n (1/w_n²)·bilinear(I_n, u_n, v_n) over the batch (RabbitCT update rule).
  // The batch's pixels must stay valid until synchronize() or volume() (copies may be async).
  virtual void backproject(const ProjectionView& batch) = 0;
  // Waits for queued work (timing); the volume is kept.
  virtual void synchronize() {}
  virtual VolumeF volume() = 0;
  virtual std::string describe() const = 0;

 protected:
  BackprojectorOptions options_;
};

}  // namespace tomo::fdk
