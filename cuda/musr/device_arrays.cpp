// DeviceBinsEvaluator (see device_arrays.hpp): the kernels of compute/musr/codegen_cuda in their
// v1 design, whose bins with y alone (poisson_errors) lie at each run's offset of the plain
// concatenation (runs unpadded: group 1), so the caller's array is the kernel's `bins` argument.
// The cuda evaluator (cuda_chi2_evaluator.cpp) keeps its tables and buffers private, and its
// default v2 design pads runs to groups of 4 bins; its table upload and launch are repeated here.
#include "cuda/musr/device_arrays.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/musr/codegen_common.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/musr/nvrtc_module.hpp"

namespace tomo::musr {

struct DeviceBinsEvaluator::State {
  int num_params = 0, nruns = 0, blocks = 0;
  bool single = false;
  std::size_t bins = 0;
  cudaKernel_t value = nullptr, gradient = nullptr;
  cuda::Stream stream;
  cuda::DeviceBuffer<CudaRunInfo> runs;
  cuda::DeviceBuffer<int> block_run, param_map, param_ptr, param_entry;
  cuda::DeviceBuffer<double> t_d, partials, runsum, out;
  cuda::DeviceBuffer<float> t_f;
  cuda::DeviceBuffer<unsigned> counter;
  std::vector<double> args, host_out;
};

namespace {

// The times of runs read from the t array (tables.uneven) at the tables' offsets, else one zero.
template <class Real>
std::vector<Real> times(const FitData& data, const CudaTables& tables) {
  std::vector<Real> t(tables.uneven ? static_cast<std::size_t>(tables.device_bins) : 1, Real(0));
  for (std::size_t r = 0; r < data.runs.size() && tables.uneven; ++r)
    std::transform(data.runs[r].t.begin(), data.runs[r].t.end(), t.begin() + tables.runs[r].offset,
                   [](double x) { return static_cast<Real>(x); });
  if (t.empty()) t.push_back(Real(0));
  return t;
}

}  // namespace

DeviceBinsEvaluator::DeviceBinsEvaluator(const FitData& data, bool single_precision, int device) {
  check_fit_data(data, "musr device bins");
  if (!poisson_errors(data))
    throw InputError(
        "bins: the fit's errors are not the Poisson errors of its bins (an asymmetry fit, or σ from "
        "elsewhere); bins on the GPU need a χ² of counts or MAX_LIKELIHOOD, whose weights follow "
        "from the bins themselves");
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>();
  State& s = *s_;
  s.single = single_precision;
  s.num_params = data.num_params;
  s.nruns = static_cast<int>(data.runs.size());
  s.bins = data.bins();
  CudaCodegenOptions co;
  co.single_precision = single_precision;
  co.version = CudaKernelVersion::v1;
  const CudaSource src = cuda_chi2_source(data, co);
  if (!src.y_only || src.group != 1) throw Error("musr device bins: the generated kernel does not read bins alone");
  const auto kernels = cuda::load_kernels(src.text, "musr_chi2.cu (generated, device bins)",
                                          {src.value_kernel, src.gradient_kernel}, src.nvrtc_options);
  s.value = kernels[0];
  s.gradient = kernels[1];
  int sms = 0;
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
  const CudaTables tables = cuda_tables(data, src, cuda_bins_per_block(data, sms));
  // The caller's array is the plain concatenation: each run must start where the last ended.
  long long at = 0;
  for (std::size_t r = 0; r < data.runs.size(); ++r) {
    if (tables.runs[r].offset != at) throw Error("musr device bins: the run table is not the plain concatenation");
    at += static_cast<long long>(data.runs[r].y.size());
  }
  s.blocks = tables.blocks;
  s.runs = cuda::DeviceBuffer<CudaRunInfo>(std::span<const CudaRunInfo>(tables.runs));
  s.block_run = cuda::DeviceBuffer<int>(std::span<const int>(tables.block_run));
  s.param_map = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_map));
  s.param_ptr = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_ptr));
  s.param_entry = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_entry));
  if (single_precision) s.t_f = cuda::DeviceBuffer<float>(std::span<const float>(times<float>(data, tables)));
  else s.t_d = cuda::DeviceBuffer<double>(std::span<const double>(times<double>(data, tables)));
  s.partials.resize(static_cast<std::size_t>(s.blocks) * static_cast<std::size_t>(src.slots));
  s.runsum.resize(data.runs.size() * static_cast<std::size_t>(src.slots));
  s.counter.resize(1);
  s.out.resize(1 + static_cast<std::size_t>(src.np));
  s.args.assign(static_cast<std::size_t>(src.np), 0.0);
  s.host_out.assign(1 + static_cast<std::size_t>(s.num_params), 0.0);
  s.counter.fill_zero(s.stream);  // the kernels rearm it; zero once
  // The tables went up through the legacy stream (pageable cudaMemcpy may return before its DMA
  // ends) and the non-blocking stream does not wait for it: wait for the device once.
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
}

DeviceBinsEvaluator::~DeviceBinsEvaluator() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->stream.get()));
}

std::size_t DeviceBinsEvaluator::bins() const { return s_->bins; }
bool DeviceBinsEvaluator::single_precision() const { return s_->single; }

double DeviceBinsEvaluator::evaluate(std::span<const double> params, const void* bins) {
  return run(params, {}, false, bins);
}

double DeviceBinsEvaluator::evaluate_with_gradient(std::span<const double> params, std::span<double> grad,
                                                   const void* bins) {
  if (static_cast<int>(grad.size()) != s_->num_params)
    throw Error(str_cat("musr device bins: gradient of ", grad.size(), " entries, the fit has ", s_->num_params, " parameters"));
  return run(params, grad, true, bins);
}

double DeviceBinsEvaluator::run(std::span<const double> params, std::span<double> grad, bool gradient,
                                const void* bins) {
  State& s = *s_;
  if (static_cast<int>(params.size()) != s.num_params)
    throw Error(str_cat("musr device bins: ", params.size(), " parameters given, the fit has ", s.num_params));
  if (!bins) throw Error("musr device bins: null bins");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of the bins, on any stream
  std::copy(params.begin(), params.end(), s.args.begin());
  const void* runs = s.runs.data();
  const void* block_run = s.block_run.data();
  const void* param_map = s.param_map.data();
  const void* t = s.single ? static_cast<const void*>(s.t_f.data()) : static_cast<const void*>(s.t_d.data());
  int nruns = s.nruns;
  void* partials = s.partials.data();
  void* runsum = s.runsum.data();
  const void* ptr = s.param_ptr.data();
  const void* entry = s.param_entry.data();
  void* counter = s.counter.data();
  void* out = s.out.data();
  // v1's signature (codegen_cuda.hpp): the parameter struct by value, then the pointers.
  void* argv[] = {s.args.data(), &runs, &nruns, &param_map, &block_run, &bins, &t,
                  &partials, &runsum, &ptr, &entry, &counter, &out};
  TOMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(gradient ? s.gradient : s.value),
                                   dim3(static_cast<unsigned>(s.blocks)), dim3(kCudaBlockThreads), argv, 0, s.stream));
  const std::size_t n = gradient ? 1 + static_cast<std::size_t>(s.num_params) : 1;
  s.out.download_async(s.host_out.data(), n, s.stream);
  s.stream.synchronize();
  if (gradient) std::copy(s.host_out.begin() + 1, s.host_out.begin() + 1 + s.num_params, grad.begin());
  return s.host_out[0];
}

}  // namespace tomo::musr
