// The FDK pre-processing operator (cosine + Parker weights + zero-padded ramp filter, see
// filter.hpp) behind a backend registry: "cpu" is FdkFilter (FFTW, double, the reference),
// "cuda" the cuFFT twin in cuda/fdk. Chosen by `fdk.filter.backend` (default: follow the
// back-projection backend when it has a filter of its own, else cpu).
#pragma once
#include <string>

#include "compute/fdk/filter.hpp"
#include "compute/fdk/geometry.hpp"

namespace tomo::fdk {

class ProjectionFilter {
 public:
  virtual ~ProjectionFilter() = default;
  // Builds weights, responses and FFT plans for this geometry (outside any timed region).
  virtual void setup(const CArmGeometry& g, const FilterOptions& options) = 0;
  // `count` raw projections (line integrals) of indices n0 … n0+count−1, host memory, n-major,
  // sx·sy floats each → the pre-processed projections in `out` (same layout; may equal `raw`).
  // Returns when `out` is written.
  virtual void apply(int n0, int count, const float* raw, float* out) = 0;
  // Waits for queued device work (timing); apply() already returns with its output written.
  virtual void synchronize() = 0;
  virtual std::string describe() const = 0;
};

// `asked`: "auto" | a registered filter name. "auto" → `backproject_backend` when a filter of that
// name is registered and available, else "cpu". Unknown / unavailable names: Input/UnavailableError.
std::string resolve_filter_backend(const std::string& asked, const std::string& backproject_backend);

}  // namespace tomo::fdk
