// DeviceBinsEvaluator (see device_arrays.hpp): the registry's cuda evaluator with the fit
// uploaded; a call copies the caller's bins into its layout (CudaChi2Evaluator::
// copy_bins_from_device), then evaluates with its kernels unchanged.
#include "cuda/musr/device_arrays.hpp"

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/run_layout.hpp"
#include "cuda/core/device.hpp"
#include "cuda/musr/cuda_chi2_evaluator.hpp"

namespace tomo::musr {

DeviceBinsEvaluator::DeviceBinsEvaluator(const FitData& data, bool single_precision, int device)
    : device_(device >= 0 ? device : runtime_options().cuda_device), single_(single_precision), bins_(data.bins()) {
  check_fit_data(data, "musr device bins");
  if (!poisson_errors(data))
    throw InputError(
        "bins: the fit's errors are not the Poisson errors of its bins (an asymmetry fit, or σ from "
        "elsewhere); bins on the GPU need a χ² of counts or MAX_LIKELIHOOD, whose weights follow "
        "from the bins themselves");
  cuda::select_device(device_);
  std::unique_ptr<Chi2Evaluator> ev = BackendRegistry<Chi2Evaluator>::instance().create("cuda");
  auto* cuda = dynamic_cast<CudaChi2Evaluator*>(ev.get());
  if (cuda == nullptr) throw Error("musr device bins: the registry's cuda backend is not the cuda evaluator");
  ev.release();
  ev_.reset(cuda);
  EvaluatorOptions o;
  o.single_precision = single_precision;
  ev_->configure(o);
  ev_->upload(data);
}

DeviceBinsEvaluator::~DeviceBinsEvaluator() = default;

double DeviceBinsEvaluator::evaluate(std::span<const double> params, const void* bins) {
  cuda::select_device(device_);
  ev_->copy_bins_from_device(bins);
  return ev_->evaluate(params);
}

double DeviceBinsEvaluator::evaluate_with_gradient(std::span<const double> params, std::span<double> grad, const void* bins) {
  cuda::select_device(device_);
  ev_->copy_bins_from_device(bins);
  return ev_->evaluate_with_gradient(params, grad);
}

}  // namespace tomo::musr
