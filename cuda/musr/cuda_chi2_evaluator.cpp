// The `cuda` backend of musr::Chi2Evaluator: the fit's theory generated as CUDA source
// (compute/musr/codegen_cuda), compiled by NVRTC once per theory, histograms uploaded once.
// A call is one kernel launch (parameters by value; bins, block and final reduction in one
// pass, the gradient in the same pass) whose last block writes the 1 + N results into mapped
// pinned host memory, then (v2) a sequence number the host polls for, or (v1) one stream
// synchronize: no allocation, no memset, no copy. The resident designs launch one grid that
// stays on the device and waits for calls (resident_grid.hpp). Double by default (cpu within
// 1e-9), float data and arithmetic on request. bench_musr selects the kernel design
// (cuda_chi2_evaluator.hpp).
#include "cuda/musr/cuda_chi2_evaluator.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
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
#include "cuda/core/event.hpp"
#include "cuda/core/pinned_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/musr/nvrtc_module.hpp"
#include "cuda/musr/resident_grid.hpp"

namespace tomo::musr {

namespace {

class CudaChi2Evaluator final : public Chi2Evaluator {
 public:
  explicit CudaChi2Evaluator(const CudaEvaluatorVariant& variant) : variant_(variant) {}
  std::string describe() const override {
    const auto devices = cuda::list_devices();
    const int d = cuda::current_device();
    std::string resident;
    if (resident_) resident = str_cat(", resident grid (idle exit ", variant_.idle_exit_s, " s)");
    else if (!resident_why_.empty()) resident = str_cat(", no resident grid (", resident_why_, "): a launch per call");
    return str_cat("cuda (", (blocks_ ? single_ : options_.single_precision) ? "float32" : "float64", ", NVRTC-generated theory, kernel ",
                   variant_.label(), counts16_ ? ", 16-bit counts" : "", stepped_ ? ", stepped exp/cos" : "",
                   blocks_ ? str_cat(", ", blocks_, " blocks") : std::string(), resident, "): ",
                   d >= 0 && d < static_cast<int>(devices.size()) ? cuda::describe(devices[d]) : std::string("no device"));
  }
  // A resident grid's calls have all returned (and it never ends by itself while in use).
  void synchronize() override {
    if (!resident_ || !resident_->running()) stream_.synchronize();
  }
  ResidentGrid* resident() { return resident_.get(); }
  void configure(const EvaluatorOptions& options) override { options_ = options; }

  void upload(const FitData& data) override {
    resident_.reset();  // stops the grid before its buffers change
    resident_why_.clear();
    check_fit_data(data, "musr cuda");
    num_params_ = data.num_params;
    nruns_ = static_cast<int>(data.runs.size());
    const bool single = single_ = options_.single_precision;  // the layout run() reads
    CudaCodegenOptions co;
    co.single_precision = single;
    co.version = variant_.version;
    co.fast_math = variant_.fast_math;
    co.counts16 = variant_.counts16;
    co.step = variant_.step;
    co.resident = variant_.resident;
    co.lean = variant_.lean;
    const CudaSource src = cuda_chi2_source(data, co);
    v2_ = src.version == CudaKernelVersion::v2;
    stepped_ = src.stepped;
    ns_ = src.slots;
    std::vector<std::string> names{src.value_kernel, src.gradient_kernel};
    if (!src.resident_kernel.empty()) names.push_back(src.resident_kernel);
    const auto kernels = cuda::load_kernels(src.text, "musr_chi2.cu (generated)", names, src.nvrtc_options);
    value_kernel_ = kernels[0];
    gradient_kernel_ = kernels[1];
    int sms = 0;
    TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cuda::current_device()));
    // v2: one wave of the blocks its launch bounds make resident (src.min_blocks an SM).
    const long long per_block = v2_ ? cuda_bins_per_block_v2(data, sms * src.min_blocks) : cuda_bins_per_block(data, sms);
    const CudaTables tables = cuda_tables(data, src, per_block);
    blocks_ = tables.blocks;
    runs_ = cuda::DeviceBuffer<CudaRunInfo>(std::span<const CudaRunInfo>(tables.runs));
    block_run_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.block_run));
    param_map_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_map));
    param_ptr_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_ptr));
    param_entry_ = cuda::DeviceBuffer<int>(std::span<const int>(tables.param_entry));
    yw_d_.clear(), t_d_.clear(), yw_f_.clear(), t_f_.clear(), yw_h_.clear();
    counts16_ = src.counts16;
    if (counts16_) upload_counts16(data, tables);
    if (single) upload_bins(data, tables, src.y_only, yw_f_, t_f_);
    else upload_bins(data, tables, src.y_only, yw_d_, t_d_);
    if (counts16_) yw_f_.clear(), yw_d_.clear();  // the kernels read the counts; keep only the times
    partials_.resize(static_cast<std::size_t>(blocks_) * static_cast<std::size_t>(ns_));
    runsum_.resize(data.runs.size() * static_cast<std::size_t>(ns_));
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
    if (v2_ && mapped_out_ && cudaHostGetDevicePointer(&dev, host_done_.data(), 0) == cudaSuccess)
      mapped_done_ = static_cast<unsigned long long*>(dev);
    else (void)cudaGetLastError();
    polling_ = variant_.poll && mapped_done_ != nullptr;
    args_.assign(static_cast<std::size_t>(src.np), 0.0);
    // The uploads went through the legacy default stream (cudaMemcpy from pageable memory may
    // return before its DMA ends) and stream_ does not wait for it: wait for that stream once
    // (not the device: another evaluator's resident grid may be waiting on it).
    TOMO_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (kernels.size() > 2) make_resident(kernels[2], src);
  }

  double evaluate(std::span<const double> params) override { return run(params, {}, false); }
  double evaluate_with_gradient(std::span<const double> params, std::span<double> grad) override {
    if (static_cast<int>(grad.size()) != num_params_)
      throw Error(str_cat("musr cuda: gradient of ", grad.size(), " entries, the fit has ", num_params_, " parameters"));
    return run(params, grad, true);
  }

 private:

  // Bins as y (y_only) or (y, 1/σ²) pairs of the kernel's real type at the tables' run offsets
  // (v2: runs padded with zeros to whole groups); t only where a run's times are uneven.
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

  // 16-bit counts (exact: counts16_fit) at the tables' run offsets, padded with zeros; the
  // real-typed arrays stay for the times of uneven runs.
  void upload_counts16(const FitData& data, const CudaTables& tables) {
    std::vector<std::uint16_t> host(std::max<std::size_t>(4, static_cast<std::size_t>(tables.device_bins)), 0);
    for (std::size_t r = 0; r < data.runs.size(); ++r)
      std::transform(data.runs[r].y.begin(), data.runs[r].y.end(), host.begin() + tables.runs[r].offset,
                     [](double y) { return static_cast<std::uint16_t>(y); });
    cuda::require_device_memory(static_cast<double>(host.size() * sizeof(std::uint16_t)), "musr cuda: histograms");
    yw_h_ = cuda::DeviceBuffer<std::uint16_t>(std::span<const std::uint16_t>(host));
  }

  // The resident grid over this upload's buffers, or why there is none (then a launch per call).
  void make_resident(cudaKernel_t kernel, const CudaSource& src) {
    ResidentArgs a;
    a.runs = runs_.data(), a.nruns = nruns_, a.param_map = param_map_.data(), a.block_run = block_run_.data();
    a.bins = counts16_ ? static_cast<const void*>(yw_h_.data()) : single_ ? static_cast<const void*>(yw_f_.data()) : yw_d_.data();
    a.t = single_ ? static_cast<const void*>(t_f_.data()) : t_d_.data();
    a.partials = partials_.data(), a.runsum = runsum_.data(), a.param_ptr = param_ptr_.data(), a.param_entry = param_entry_.data();
    a.counter = counter_.data(), a.out = mapped_out_;
    auto grid = std::make_unique<ResidentGrid>(kernel, blocks_, src.np, num_params_, variant_.idle_exit_s, stream_.get(), a);
    resident_why_ = grid->unavailable();
    if (resident_why_.empty()) resident_ = std::move(grid);
    else log_warn("musr cuda: no resident grid (", resident_why_, "); a kernel launch per call");
  }

  double run(std::span<const double> params, std::span<double> grad, bool gradient) {
    if (resident_ && static_cast<int>(params.size()) != num_params_)
      throw Error(str_cat("musr cuda: ", params.size(), " parameters given, the fit has ", num_params_));
    if (resident_ && !resident_->call(params, gradient)) {
      resident_why_ = resident_->unavailable();
      log_warn("musr cuda: the resident grid could not start (", resident_why_, "); a kernel launch per call");
      resident_.reset();
    }
    if (!resident_) {
      enqueue(params, gradient);
      wait();
    }
    if (gradient) std::copy(host_out_.begin() + 1, host_out_.begin() + 1 + num_params_, grad.begin());
    return host_out_[0];
  }

 public:
  cudaStream_t stream() const { return stream_; }

  // One launch (and, without mapped memory, the copy back), no wait.
  void enqueue(std::span<const double> params, bool gradient) {
    if (static_cast<int>(params.size()) != num_params_)
      throw Error(str_cat("musr cuda: ", params.size(), " parameters given, the fit has ", num_params_));
    if (blocks_ == 0) throw Error("musr cuda: evaluate() before upload()");
    std::copy(params.begin(), params.end(), args_.begin());
    const void* runs = runs_.data();
    const void* block_run = block_run_.data();
    const void* param_map = param_map_.data();
    const void* yw = counts16_ ? static_cast<const void*>(yw_h_.data())
                               : single_ ? static_cast<const void*>(yw_f_.data()) : yw_d_.data();
    const void* t = single_ ? static_cast<const void*>(t_f_.data()) : t_d_.data();
    int nruns = nruns_;
    void* partials = partials_.data();
    void* runsum = runsum_.data();
    const void* ptr = param_ptr_.data();
    const void* entry = param_entry_.data();
    void* counter = counter_.data();
    void* out = mapped_out_ ? static_cast<void*>(mapped_out_) : static_cast<void*>(out_.data());
    // vflag: a value call's result is its own completion flag (the sentinel is a signalling
    // NaN, which no arithmetic produces; the previous call's store has landed, it was waited for).
    value_flag_ = polling_ && mapped_out_ != nullptr && variant_.value_flag && !gradient;
    if (value_flag_) *static_cast<volatile double*>(host_out_.data()) = std::bit_cast<double>(kValueSentinel);
    void* done = value_flag_ ? nullptr : mapped_done_;
    unsigned long long seq = value_flag_ ? seq_ : ++seq_;
    // The first argument is the parameter struct by value: the kernel copies NP doubles from here.
    void* argv[] = {args_.data(), &runs, &nruns, &param_map, &block_run, &yw, &t, &partials, &runsum, &ptr, &entry, &counter, &out, &done, &seq};
    TOMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(gradient ? gradient_kernel_ : value_kernel_),
                                     dim3(static_cast<unsigned>(blocks_)), dim3(kCudaBlockThreads), argv, 0, stream_));
    const std::size_t n = gradient ? 1 + static_cast<std::size_t>(num_params_) : 1;
    if (!mapped_out_)
      TOMO_CUDA_CHECK(cudaMemcpyAsync(host_out_.data(), out_.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_));
  }

 private:
  // Until the last enqueue()'s results are in host_out_: polling its sequence number (a launch
  // error or a kernel that ends without publishing is caught by querying the stream now and
  // then), or a stream synchronize.
  void wait() {
    if (!polling_) {
      stream_.synchronize();
      return;
    }
    const volatile unsigned long long* done = host_done_.data();
    const volatile double* value = host_out_.data();
    const auto published = [&] { return value_flag_ ? std::bit_cast<std::uint64_t>(*value) != kValueSentinel : *done == seq_; };
    for (unsigned spins = 1; !published(); ++spins) {
      if (spins % 4096 != 0) continue;
      const cudaError_t e = cudaStreamQuery(stream_);
      if (e == cudaSuccess && !published()) throw Error("musr cuda: the kernel ended without publishing its result");
      if (e != cudaSuccess && e != cudaErrorNotReady) TOMO_CUDA_CHECK(e);
    }
    std::atomic_thread_fence(std::memory_order_acquire);  // the results were written before seq
  }
  static constexpr std::uint64_t kValueSentinel = 0x7ff4c0dec0dec0deULL;  // a signalling NaN

  CudaEvaluatorVariant variant_;
  EvaluatorOptions options_;
  cuda::Stream stream_;
  int num_params_ = 0, ns_ = 1, blocks_ = 0, nruns_ = 0;
  bool single_ = false, v2_ = false, polling_ = false, counts16_ = false;
  bool value_flag_ = false;  // the last enqueue() waits for its value, not for seq
  cudaKernel_t value_kernel_ = nullptr, gradient_kernel_ = nullptr;
  cuda::DeviceBuffer<CudaRunInfo> runs_;
  cuda::DeviceBuffer<int> block_run_, param_map_, param_ptr_, param_entry_;
  cuda::DeviceBuffer<double> yw_d_, t_d_, partials_, runsum_, out_;
  cuda::DeviceBuffer<float> yw_f_, t_f_;
  cuda::DeviceBuffer<std::uint16_t> yw_h_;  // counts16: the bins as 16-bit counts
  cuda::DeviceBuffer<unsigned> counter_;
  cuda::PinnedBuffer<double> host_out_;
  double* mapped_out_ = nullptr;  // device address of host_out_ (mapped pinned memory) or null
  cuda::PinnedBuffer<unsigned long long> host_done_;  // v2: the last published sequence number
  unsigned long long* mapped_done_ = nullptr;         // its device address, or null
  unsigned long long seq_ = 0;
  std::vector<double> args_;
  bool stepped_ = false;
  std::string resident_why_;               // why a resident design launches per call (empty: it does not)
  std::unique_ptr<ResidentGrid> resident_;  // last member: stopped before the buffers are freed
};

const BackendRegistrar<Chi2Evaluator> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                     [] { return std::make_unique<CudaChi2Evaluator>(kCudaDefaultVariant); }});

CudaChi2Evaluator& as_cuda(Chi2Evaluator& ev, const char* who) {
  auto* c = dynamic_cast<CudaChi2Evaluator*>(&ev);
  if (c == nullptr) throw Error(str_cat("musr ", who, ": not a cuda evaluator"));
  return *c;
}

}  // namespace

std::string CudaEvaluatorVariant::label() const {
  if (version == CudaKernelVersion::v1) return "v1";
  const char* wait = resident == CudaResident::poll_one ? " resident" : resident == CudaResident::poll_all ? " resident-all" : poll ? " poll" : " sync";
  return str_cat("v2 ", fast_math ? "fast" : "ieee", wait, counts16 ? " u16" : "", step ? " step" : "", lean.head ? " head" : "",
                 lean.packs ? " packs" : "", lean.tail ? " tail" : "", lean.wide ? " wide" : "", value_flag ? " vflag" : "");
}

std::unique_ptr<Chi2Evaluator> make_cuda_chi2_evaluator(const CudaEvaluatorVariant& variant) {
  return std::make_unique<CudaChi2Evaluator>(variant);
}

double cuda_kernel_us(Chi2Evaluator& ev, std::span<const double> params, bool gradient, int launches) {
  auto* c = &as_cuda(ev, "cuda_kernel_us");
  launches = std::max(launches, 1);
  if (c->resident() != nullptr) {
    std::vector<double> g(params.size());
    double sum = 0.0;
    for (int i = 0; i < launches; ++i) {
      if (gradient) ev.evaluate_with_gradient(params, g);
      else ev.evaluate(params);
      sum += c->resident() != nullptr ? c->resident()->last_device_us() : 0.0;
    }
    return sum / launches;
  }
  c->synchronize();
  cuda::Event start, stop;
  start.record(c->stream());
  for (int i = 0; i < launches; ++i) c->enqueue(params, gradient);
  stop.record(c->stream());
  return static_cast<double>(start.elapsed_ms(stop)) * 1e3 / launches;
}

CudaResidentState cuda_resident_state(Chi2Evaluator& ev) {
  ResidentGrid* g = as_cuda(ev, "cuda_resident_state").resident();
  if (g == nullptr) return {};
  return {true, g->launches(), g->running()};
}

void cuda_resident_stop(Chi2Evaluator& ev) {
  if (ResidentGrid* g = as_cuda(ev, "cuda_resident_stop").resident()) g->stop();
}

}  // namespace tomo::musr
