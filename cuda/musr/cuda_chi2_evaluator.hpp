// The `cuda` backend of musr::Chi2Evaluator (registered as "cuda") and what it offers beyond the
// interface: bins taken from device memory (Python's GPU arrays, device_arrays.hpp) and the
// launch half of a call without its wait. Plain C++: no CUDA header.
#pragma once
#include <memory>
#include <span>

#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

class CudaChi2Evaluator : public Chi2Evaluator {
 public:
  // Replaces the uploaded bins by `bins`: data.bins() values of the kernels' real type (float
  // with single_precision, else double) in memory of the current CUDA device, the runs' fitted
  // bins concatenated in the fit's order. Only where the kernels read y alone (poisson_errors);
  // InputError otherwise. Waits for the device's queued work first (the caller's writes on any
  // stream), then copies each run to its place in the kernels' layout (runs padded to Packs).
  virtual void copy_bins_from_device(const void* bins) = 0;
  // One call's launch on stream() without its wait: the results land in the evaluator's own
  // host memory, where the next call overwrites them; synchronize() waits for the launches.
  virtual void enqueue(std::span<const double> params, bool gradient) = 0;
  virtual void* stream() const = 0;  // the cudaStream_t the kernels run on
};

// An unconfigured cuda evaluator (configure() and upload() as any Chi2Evaluator); the registry's
// "cuda" creates the same.
std::unique_ptr<CudaChi2Evaluator> make_cuda_chi2_evaluator();

}  // namespace tomo::musr
