// musr's χ² (or −2 ln L) read from fitted bins the caller owns on the GPU (CuPy/PyTorch through
// DLPack in the Python module): an adapter over the registry's `cuda` evaluator, so Python runs
// the kernels the CLI runs. Each call copies the caller's bins into the evaluator's layout on the
// device (no host round trip), then evaluates as the CLI does.
#pragma once
#include <cstddef>
#include <memory>
#include <span>

#include "compute/musr/fit_problem.hpp"

namespace tomo::musr {

class CudaChi2Evaluator;

class DeviceBinsEvaluator {
 public:
  // `data`: the fit (theories, times, scales, statistic); its y and σ only decide whether the
  // error model allows bins alone: InputError unless σ follows Poisson statistics for every bin
  // (poisson_errors: χ² of counts, or max-likelihood), since the kernel then derives 1/σ² from
  // the bins it reads. On CUDA device `device` (the runtime's when < 0).
  DeviceBinsEvaluator(const FitData& data, bool single_precision, int device);
  ~DeviceBinsEvaluator();
  DeviceBinsEvaluator(const DeviceBinsEvaluator&) = delete;
  DeviceBinsEvaluator& operator=(const DeviceBinsEvaluator&) = delete;

  // The statistic over `bins`: device memory of this device, bins() values (double, or float
  // with single_precision), the runs' fitted bins concatenated in the fit's order. Each call waits
  // for the device's queued work first (the caller's writes on any stream).
  double evaluate(std::span<const double> params, const void* bins);
  // The same and ∂/∂params (grad.size() == the fit's parameter count).
  double evaluate_with_gradient(std::span<const double> params, std::span<double> grad, const void* bins);
  std::size_t bins() const { return bins_; }
  bool single_precision() const { return single_; }
  int device() const { return device_; }

 private:
  int device_ = 0;
  bool single_ = false;
  std::size_t bins_ = 0;
  std::unique_ptr<CudaChi2Evaluator> ev_;  // the registry's "cuda", with the fit uploaded
};

}  // namespace tomo::musr
