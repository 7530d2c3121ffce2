// The `cuda` backend of musr::Chi2Evaluator: the fit's theory generated as CUDA source
// (compute/musr/codegen_cuda), compiled by NVRTC once per theory, histograms uploaded once.
// A call is one kernel launch (parameters by value; bins, block and final reduction in one
// pass, the gradient in the same pass) whose last block writes the 1 + N results into mapped
// pinned host memory; the host polls for them (choose_wait): no allocation, no memset, no copy.
// Double by default (cpu within 1e-9), float data and arithmetic on request.
#include "cuda/musr/cuda_chi2_evaluator.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/codegen_common.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/fit_problem.hpp"
#include "compute/musr/kt_pack.hpp"
#include "compute/musr/run_layout.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/pinned_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/nvrtc.hpp"

namespace tomo::musr {

namespace {

// How the host learns that a call's results are in its memory.
enum class CallWait {
  // A value call polls the value itself: the host puts a signalling NaN (which no arithmetic
  // produces) in the mapped result before the launch and spins until the kernel's 8-byte store
  // replaces it, so the kernel needs no sequence number and no system-scope fence.
  value_flag,
  // A gradient call polls the sequence number the kernel stores after its 1 + N results (it
  // orders them: one 8-byte store cannot).
  sequence,
  // The device cannot map host memory: the results are copied back, then a stream synchronize.
  stream_sync,
};

// Polling mapped host memory answers a call a few µs sooner than a stream synchronize, the bulk
// of a call's fixed cost at the fit's sizes; a stream synchronize only where the device cannot
// address host memory.
CallWait choose_wait(bool mapped, bool gradient) {
  if (!mapped) return CallWait::stream_sync;
  return gradient ? CallWait::sequence : CallWait::value_flag;
}

constexpr std::uint64_t kValueSentinel = 0x7ff4c0dec0dec0deULL;  // a signalling NaN

class Evaluator final : public CudaChi2Evaluator {
 public:
  std::string describe() const override {
    const auto devices = cuda::list_devices();
    const int d = cuda::current_device();
    return str_cat("cuda (", (blocks_ ? single_ : options_.single_precision) ? "float32" : "float64", ", NVRTC-generated theory",
                   stepped_ ? ", stepped exp/cos" : "", blocks_ ? str_cat(", ", blocks_, " blocks") : std::string(),
                   blocks_ ? (polling_ ? ", polled" : ", stream synchronize") : "", "): ",
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
    stepped_ = src.stepped;
    y_only_ = src.y_only;
    // Theories with tabulated functions keep their programs: the tables are rebuilt on the host
    // for each call's parameters (kt_pack.hpp) and uploaded before the launch.
    tables_ = src.tables;
    models_ = FitData{};
    if (tables_ > 0) {
      models_.num_params = data.num_params;
      for (const RunBins& r : data.runs) models_.runs.push_back(RunBins{r.model, {}, {}, {}, r.scale});
    }
    const auto kernels = cuda::load_kernels(src.text, "musr_chi2.cu (generated)", {src.value_kernel, src.gradient_kernel},
                                            src.nvrtc_options);
    value_kernel_ = kernels[0];
    gradient_kernel_ = kernels[1];
    int sms = 0;
    TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cuda::current_device()));
    // One wave of the blocks its launch bounds make resident (src.min_blocks an SM).
    const CudaTables tables = cuda_tables(data, src, cuda_bins_per_block(data, sms * src.min_blocks));
    blocks_ = tables.blocks;
    run_offset_.clear(), run_count_.clear();
    for (std::size_t r = 0; r < data.runs.size(); ++r) {
      run_offset_.push_back(static_cast<std::size_t>(tables.runs[r].offset));
      run_count_.push_back(data.runs[r].y.size());
    }
    runs_ = cuda::DeviceBuffer<CudaRunInfo>(std::span<const CudaRunInfo>(tables.runs));
    block_run_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.block_run));
    param_map_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_map));
    param_ptr_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_ptr));
    param_entry_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_entry));
    yw_d_.clear(), t_d_.clear(), yw_f_.clear(), t_f_.clear();
    if (single) upload_bins(data, tables, src.y_only, yw_f_, t_f_);
    else upload_bins(data, tables, src.y_only, yw_d_, t_d_);
    partials_.resize(static_cast<std::size_t>(blocks_) * static_cast<std::size_t>(src.slots));
    runsum_.resize(data.runs.size() * static_cast<std::size_t>(src.slots));
    counter_.resize(1);
    counter_.fill_zero(stream_);
    out_.resize(1 + static_cast<std::size_t>(src.np));
    host_out_.resize(out_.size());
    // The last block writes the results straight into pinned host memory when the device can
    // address it (one API call per evaluation fewer); else into out_ and one copy back.
    mapped_out_ = nullptr;
    mapped_done_ = nullptr;
    void* dev = nullptr;
    if (cudaHostGetDevicePointer(&dev, host_out_.data(), 0) == cudaSuccess) mapped_out_ = static_cast<double*>(dev);
    else (void)cudaGetLastError();
    host_done_.resize(1);
    host_done_[0] = seq_ = 0;
    if (mapped_out_ && cudaHostGetDevicePointer(&dev, host_done_.data(), 0) == cudaSuccess)
      mapped_done_ = static_cast<unsigned long long*>(dev);
    else (void)cudaGetLastError();
    polling_ = mapped_done_ != nullptr;
    args_.assign(static_cast<std::size_t>(src.np), 0.0);
    // The uploads went through the legacy default stream (cudaMemcpy from pageable memory may
    // return before its DMA ends) and stream_ does not wait for it: wait for that stream once.
    TOMO_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  double evaluate(std::span<const double> params) override { return run(params, {}, false); }
  double evaluate_with_gradient(std::span<const double> params, std::span<double> grad) override {
    if (static_cast<int>(grad.size()) != num_params_)
      throw Error(str_cat("musr cuda: gradient of ", grad.size(), " entries, the fit has ", num_params_, " parameters"));
    return run(params, grad, true);
  }

  void copy_bins_from_device(const void* bins) override {
    if (blocks_ == 0) throw Error("musr cuda: bins from the device before upload()");
    if (!y_only_)
      throw InputError(
          "bins: the fit's errors are not the Poisson errors of its bins (an asymmetry fit, or σ from "
          "elsewhere); bins on the GPU need a χ² of counts or MAX_LIKELIHOOD, whose weights follow "
          "from the bins themselves");
    if (bins == nullptr) throw Error("musr cuda: null bins");
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of the bins, on any stream
    const std::size_t size = single_ ? sizeof(float) : sizeof(double);
    void* dst = single_ ? static_cast<void*>(yw_f_.data()) : static_cast<void*>(yw_d_.data());
    std::size_t at = 0;  // the caller's runs lie end to end; ours start at multiples of a Pack
    for (std::size_t r = 0; r < run_offset_.size(); ++r) {
      TOMO_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + run_offset_[r] * size, static_cast<const char*>(bins) + at * size,
                                      run_count_[r] * size, cudaMemcpyDeviceToDevice, stream_));
      at += run_count_[r];
    }
  }

  void* stream() const override { return stream_.get(); }

  // One launch (and, without mapped memory, the copy back), no wait.
  void enqueue(std::span<const double> params, bool gradient) override {
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
    wait_ = polling_ ? choose_wait(true, gradient) : CallWait::stream_sync;
    // The previous call's store has landed (it was waited for): the sentinel cannot be overwritten late.
    if (wait_ == CallWait::value_flag) *static_cast<volatile double*>(host_out_.data()) = std::bit_cast<double>(kValueSentinel);
    void* done = wait_ == CallWait::value_flag ? nullptr : mapped_done_;
    unsigned long long seq = wait_ == CallWait::value_flag ? seq_ : ++seq_;
    const void* tabs = nullptr;
    const void* tinfo = nullptr;
    if (tables_ > 0) upload_tables(params, gradient, tabs, tinfo);
    // The first argument is the parameter struct by value: the kernel copies NP doubles from here.
    void* argv[] = {args_.data(), &runs, &nruns, &param_map, &block_run, &yw, &t, &partials, &runsum, &ptr, &entry, &counter, &out, &done, &seq,
                    &tabs, &tinfo};
    TOMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(gradient ? gradient_kernel_ : value_kernel_),
                                     dim3(static_cast<unsigned>(blocks_)), dim3(kCudaBlockThreads), argv, 0, stream_));
    const std::size_t n = gradient ? 1 + static_cast<std::size_t>(num_params_) : 1;
    if (!mapped_out_)
      TOMO_CUDA_CHECK(cudaMemcpyAsync(host_out_.data(), out_.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_));
  }

 private:
  // The tables at `params` into tabs_/tinfo_ (grown as needed), copied on stream_ before the
  // launch from pinned staging.
  void upload_tables(std::span<const double> params, bool gradient, const void*& tabs, const void*& tinfo) {
    pack_tables(models_, params, gradient, pack_);
    stream_.synchronize();  // a call enqueued without a wait may still read the staging or the tables
    static_assert(sizeof(TableInfo) == 24, "TableInfo is the generated MuTab");
    if (tab_stage_.size() < pack_.values.size()) tab_stage_.resize(pack_.values.size());
    if (info_stage_.size() < pack_.info.size()) info_stage_.resize(pack_.info.size());
    if (tabs_.size() < pack_.values.size()) tabs_.resize(pack_.values.size());
    if (tinfo_.size() < pack_.info.size()) tinfo_.resize(pack_.info.size());
    std::copy(pack_.values.begin(), pack_.values.end(), tab_stage_.data());
    std::copy(pack_.info.begin(), pack_.info.end(), info_stage_.data());
    TOMO_CUDA_CHECK(cudaMemcpyAsync(tabs_.data(), tab_stage_.data(), pack_.values.size() * sizeof(double), cudaMemcpyHostToDevice, stream_));
    TOMO_CUDA_CHECK(cudaMemcpyAsync(tinfo_.data(), info_stage_.data(), pack_.info.size() * sizeof(TableInfo), cudaMemcpyHostToDevice, stream_));
    tabs = tabs_.data();
    tinfo = tinfo_.data();
  }

  // Bins as y (y_only) or (y, 1/σ²) pairs of the kernel's real type at the tables' run offsets
  // (runs padded with zeros to whole Packs); t only where a run's times are uneven.
  template <class Real>
  static void upload_bins(const FitData& data, const CudaTables& tables, bool y_only, cuda::DeviceBuffer<Real>& yw,
                          cuda::DeviceBuffer<Real>& t) {
    const std::size_t per_bin = y_only ? 1 : 2;
    std::vector<Real> host(std::max<std::size_t>(2, per_bin * static_cast<std::size_t>(tables.device_bins)), Real(0));
    for (std::size_t r = 0; r < data.runs.size(); ++r) {
      const RunBins& run = data.runs[r];
      Real* dst = host.data() + per_bin * static_cast<std::size_t>(tables.runs[r].offset);
      for (std::size_t k = 0; k < run.y.size(); ++k) {
        dst[per_bin * k] = static_cast<Real>(run.y[k]);
        if (!y_only)
          dst[2 * k + 1] = data.statistic == Statistic::chi2 ? static_cast<Real>(1.0 / (run.sigma[k] * run.sigma[k])) : Real(0);
      }
    }
    cuda::require_device_memory(static_cast<double>(host.size() * sizeof(Real)), "musr cuda: histograms");
    yw = cuda::DeviceBuffer<Real>(std::span<const Real>(host));
    std::vector<Real> times(tables.uneven ? static_cast<std::size_t>(tables.device_bins) : 1, Real(0));
    for (std::size_t r = 0; r < data.runs.size() && tables.uneven; ++r)
      std::transform(data.runs[r].t.begin(), data.runs[r].t.end(), times.begin() + tables.runs[r].offset,
                     [](double x) { return static_cast<Real>(x); });
    if (times.empty()) times.push_back(Real(0));
    t = cuda::DeviceBuffer<Real>(std::span<const Real>(times));
  }

  double run(std::span<const double> params, std::span<double> grad, bool gradient) {
    enqueue(params, gradient);
    wait();
    if (gradient) std::copy(host_out_.begin() + 1, host_out_.begin() + 1 + num_params_, grad.begin());
    return host_out_[0];
  }

  // Until the last enqueue()'s results are in host_out_ (choose_wait); while polling, a launch
  // error or a kernel that ends without publishing is caught by querying the stream now and then.
  void wait() {
    if (wait_ == CallWait::stream_sync) {
      stream_.synchronize();
      return;
    }
    const volatile unsigned long long* done = host_done_.data();
    const volatile double* value = host_out_.data();
    const bool flag = wait_ == CallWait::value_flag;
    const auto published = [&] { return flag ? std::bit_cast<std::uint64_t>(*value) != kValueSentinel : *done == seq_; };
    for (unsigned spins = 1; !published(); ++spins) {
      if (spins % 4096 != 0) continue;
      const cudaError_t e = cudaStreamQuery(stream_);
      if (e == cudaSuccess && !published()) throw Error("musr cuda: the kernel ended without publishing its result");
      if (e != cudaSuccess && e != cudaErrorNotReady) TOMO_CUDA_CHECK(e);
    }
    std::atomic_thread_fence(std::memory_order_acquire);  // the results were written before seq
  }

  EvaluatorOptions options_;
  cuda::Stream stream_;
  int num_params_ = 0, blocks_ = 0, nruns_ = 0;
  bool single_ = false, polling_ = false, stepped_ = false, y_only_ = false;
  CallWait wait_ = CallWait::stream_sync;  // how the last enqueue() is waited for
  cudaKernel_t value_kernel_ = nullptr, gradient_kernel_ = nullptr;
  cuda::DeviceBuffer<CudaRunInfo> runs_;
  cuda::DeviceBuffer<int> block_run_, param_map_, param_ptr_, param_entry_;
  cuda::DeviceBuffer<double> yw_d_, t_d_, partials_, runsum_, out_;
  cuda::DeviceBuffer<float> yw_f_, t_f_;
  cuda::DeviceBuffer<unsigned> counter_;
  cuda::PinnedBuffer<double> host_out_;
  double* mapped_out_ = nullptr;  // device address of host_out_ (mapped pinned memory) or null
  cuda::PinnedBuffer<unsigned long long> host_done_;  // the last published sequence number
  unsigned long long* mapped_done_ = nullptr;         // its device address, or null
  unsigned long long seq_ = 0;
  std::vector<double> args_;
  std::vector<std::size_t> run_offset_, run_count_;  // each run's first bin in yw and its bins
  int tables_ = 0;          // table slots a run (CudaSource::tables)
  FitData models_;          // the runs' programs (no bins) where tables_ > 0
  TablePack pack_;
  cuda::DeviceBuffer<double> tabs_;
  cuda::DeviceBuffer<TableInfo> tinfo_;
  cuda::PinnedBuffer<double> tab_stage_;
  cuda::PinnedBuffer<TableInfo> info_stage_;
};

const BackendRegistrar<Chi2Evaluator> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                     [] { return std::make_unique<Evaluator>(); }});

}  // namespace

std::unique_ptr<CudaChi2Evaluator> make_cuda_chi2_evaluator() { return std::make_unique<Evaluator>(); }

}  // namespace tomo::musr
