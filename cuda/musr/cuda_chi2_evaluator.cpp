// The `cuda` backend of musr::Chi2Evaluator: the fit's theory generated as CUDA source
// (compute/musr/codegen_cuda), compiled by NVRTC once per theory, histograms uploaded once.
// A call is one kernel launch (parameters by value; bins, block and final reduction in one
// pass, the gradient in the same pass) whose last block writes the 1 + N results into mapped
// pinned host memory, then one stream synchronize: no allocation, no memset, no copy. Double by default (cpu within 1e-9), float data and arithmetic on request.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/codegen_common.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/fit_problem.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/pinned_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/musr/nvrtc_module.hpp"

namespace tomo::musr {

namespace {

class CudaChi2Evaluator final : public Chi2Evaluator {
 public:
  std::string describe() const override {
    const auto devices = cuda::list_devices();
    const int d = cuda::current_device();
    return str_cat("cuda (", (blocks_ ? single_ : options_.single_precision) ? "float32" : "float64", ", NVRTC-generated theory",
                   blocks_ ? str_cat(", ", blocks_, " blocks") : std::string(), "): ",
                   d >= 0 && d < static_cast<int>(devices.size()) ? cuda::describe(devices[d]) : std::string("no device"));
  }
  void synchronize() override { stream_.synchronize(); }
  void configure(const EvaluatorOptions& options) override { options_ = options; }

  void upload(const FitData& data) override {
    check_fit_data(data, "musr cuda");
    num_params_ = data.num_params;
    nruns_ = static_cast<int>(data.runs.size());
    const bool single = single_ = options_.single_precision;  // the layout run() reads
    const CudaSource src = cuda_chi2_source(data, single);
    ns_ = src.slots;
    const auto kernels = cuda::load_kernels(src.text, "musr_chi2.cu (generated)", {src.value_kernel, src.gradient_kernel});
    value_kernel_ = kernels[0];
    gradient_kernel_ = kernels[1];
    int sms = 0;
    TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cuda::current_device()));
    const CudaTables tables = cuda_tables(data, src, cuda_bins_per_block(data, sms));
    blocks_ = tables.blocks;
    runs_ = cuda::DeviceBuffer<CudaRunInfo>(std::span<const CudaRunInfo>(tables.runs));
    block_run_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.block_run));
    param_map_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_map));
    param_ptr_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_ptr));
    param_entry_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_entry));
    yw_d_.clear(), t_d_.clear(), yw_f_.clear(), t_f_.clear();
    if (single) upload_bins(data, src.y_only, tables.uneven, yw_f_, t_f_);
    else upload_bins(data, src.y_only, tables.uneven, yw_d_, t_d_);
    partials_.resize(static_cast<std::size_t>(blocks_) * static_cast<std::size_t>(ns_));
    runsum_.resize(data.runs.size() * static_cast<std::size_t>(ns_));
    counter_.resize(1);
    counter_.fill_zero(stream_);
    out_.resize(1 + static_cast<std::size_t>(src.np));
    host_out_.resize(out_.size());
    // The last block writes the results straight into pinned host memory when the device can
    // address it (one API call per evaluation fewer); else into out_ and one copy back.
    mapped_out_ = nullptr;
    void* dev = nullptr;
    if (cudaHostGetDevicePointer(&dev, host_out_.data(), 0) == cudaSuccess) mapped_out_ = static_cast<double*>(dev);
    else (void)cudaGetLastError();
    args_.assign(static_cast<std::size_t>(src.np), 0.0);
    // The uploads went through the legacy default stream (cudaMemcpy from pageable memory may
    // return before its DMA ends) and stream_ does not wait for it: wait for the device once.
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  }

  double evaluate(std::span<const double> params) override { return run(params, {}, false); }
  double evaluate_with_gradient(std::span<const double> params, std::span<double> grad) override {
    if (static_cast<int>(grad.size()) != num_params_)
      throw Error(str_cat("musr cuda: gradient of ", grad.size(), " entries, the fit has ", num_params_, " parameters"));
    return run(params, grad, true);
  }

 private:

  // Bins as y (y_only) or (y, 1/σ²) pairs of the kernel's real type; t only where a run's
  // times are uneven.
  template <class Real>
  static void upload_bins(const FitData& data, bool y_only, bool uneven, cuda::DeviceBuffer<Real>& yw, cuda::DeviceBuffer<Real>& t) {
    std::vector<Real> host;
    host.reserve(2 * data.bins());
    for (std::size_t r = 0; r < data.runs.size(); ++r) {
      const RunBins& run = data.runs[r];
      for (std::size_t k = 0; k < run.y.size(); ++k) {
        host.push_back(static_cast<Real>(run.y[k]));
        if (!y_only)
          host.push_back(data.statistic == Statistic::chi2 ? static_cast<Real>(1.0 / (run.sigma[k] * run.sigma[k])) : Real(0));
      }
    }
    if (host.empty()) host.assign(2, Real(0));
    cuda::require_device_memory(static_cast<double>(host.size() * sizeof(Real)), "musr cuda: histograms");
    yw = cuda::DeviceBuffer<Real>(std::span<const Real>(host));
    std::vector<Real> times;
    for (std::size_t r = 0; r < data.runs.size() && uneven; ++r)
      for (double x : data.runs[r].t) times.push_back(static_cast<Real>(x));
    if (times.empty()) times.push_back(Real(0));
    t = cuda::DeviceBuffer<Real>(std::span<const Real>(times));
  }

  double run(std::span<const double> params, std::span<double> grad, bool gradient) {
    if (static_cast<int>(params.size()) != num_params_)
      throw Error(str_cat("musr cuda: ", params.size(), " parameters given, the fit has ", num_params_));
    if (blocks_ == 0) throw Error("musr cuda: evaluate() before upload()");
    std::copy(params.begin(), params.end(), args_.begin());
    const void* runs = runs_.data();
    const void* block_run = block_run_.data();
    const void* param_map = param_map_.data();
    const void* yw = single_ ? static_cast<const void*>(yw_f_.data()) : yw_d_.data();
    const void* t = single_ ? static_cast<const void*>(t_f_.data()) : t_d_.data();
    int nruns = nruns_;
    void* partials = partials_.data();
    void* runsum = runsum_.data();
    const void* ptr = param_ptr_.data();
    const void* entry = param_entry_.data();
    void* counter = counter_.data();
    void* out = mapped_out_ ? static_cast<void*>(mapped_out_) : static_cast<void*>(out_.data());
    // The first argument is the parameter struct by value: the kernel copies NP doubles from here.
    void* argv[] = {args_.data(), &runs, &nruns, &param_map, &block_run, &yw, &t, &partials, &runsum, &ptr, &entry, &counter, &out};
    TOMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(gradient ? gradient_kernel_ : value_kernel_),
                                     dim3(static_cast<unsigned>(blocks_)), dim3(kCudaBlockThreads), argv, 0, stream_));
    const std::size_t n = gradient ? 1 + static_cast<std::size_t>(num_params_) : 1;
    if (!mapped_out_)
      TOMO_CUDA_CHECK(cudaMemcpyAsync(host_out_.data(), out_.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    stream_.synchronize();
    if (gradient) std::copy(host_out_.begin() + 1, host_out_.begin() + 1 + num_params_, grad.begin());
    return host_out_[0];
  }

  EvaluatorOptions options_;
  cuda::Stream stream_;
  int num_params_ = 0, ns_ = 1, blocks_ = 0, nruns_ = 0;
  bool single_ = false;
  cudaKernel_t value_kernel_ = nullptr, gradient_kernel_ = nullptr;
  cuda::DeviceBuffer<CudaRunInfo> runs_;
  cuda::DeviceBuffer<int> block_run_, param_map_, param_ptr_, param_entry_;
  cuda::DeviceBuffer<double> yw_d_, t_d_, partials_, runsum_, out_;
  cuda::DeviceBuffer<float> yw_f_, t_f_;
  cuda::DeviceBuffer<unsigned> counter_;
  cuda::PinnedBuffer<double> host_out_;
  double* mapped_out_ = nullptr;  // device address of host_out_ (mapped pinned memory) or null
  std::vector<double> args_;
};

const BackendRegistrar<Chi2Evaluator> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                     [] { return std::make_unique<CudaChi2Evaluator>(); }});

}  // namespace

}  // namespace tomo::musr
