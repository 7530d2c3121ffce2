// The resident musr grid (resident_grid.hpp): cooperative launch, the command protocol in mapped
// host memory (codegen_cuda.hpp: kResident*), bounded waits, stop and relaunch, and one resident
// grid per process at a time (a grid holds every SM's slots while it waits).
#include "cuda/musr/resident_grid.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/musr/codegen_cuda.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"

namespace tomo::musr {
namespace {

// The grid that holds the device (one per process): a new one asks it to stop first.
std::mutex& owner_mutex() {
  static std::mutex m;
  return m;
}
ResidentGrid*& owner() {
  static ResidentGrid* g = nullptr;
  return g;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ResidentGrid::ResidentGrid(cudaKernel_t kernel, int blocks, int np, int npar, double idle_exit_s, cudaStream_t stream,
                           const ResidentArgs& args)
    : kernel_(kernel), blocks_(blocks), np_(np), npar_(npar),
      idle_ns_(static_cast<unsigned long long>(std::max(idle_exit_s, 1e-3) * 1e9)), stream_(stream), args_(args) {
  const int device = cuda::current_device();
  int coop = 0, sms = 0, per_sm = 0;
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TOMO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(kernel), kCudaBlockThreads, 0));
  if (coop == 0) why_ = "the device has no cooperative launch";
  else if (static_cast<long long>(per_sm) * sms < blocks)
    why_ = str_cat(blocks, " blocks are not co-resident (", per_sm, " an SM × ", sms, " SMs)");
  else if (args.out == nullptr) why_ = "no mapped host memory for the results";
  if (!why_.empty()) return;
  ctl_.resize(static_cast<std::size_t>(kResidentCtlHeader + np));
  std::fill(ctl_.begin(), ctl_.end(), 0ull);
  done_.resize(kResidentDoneWords);
  std::fill(done_.begin(), done_.end(), 0ull);
  void* dev = nullptr;
  if (cudaHostGetDevicePointer(&dev, ctl_.data(), 0) != cudaSuccess) {
    (void)cudaGetLastError();
    why_ = "the device cannot map host memory";
    return;
  }
  ctl_dev_ = static_cast<unsigned long long*>(dev);
  TOMO_CUDA_CHECK(cudaHostGetDevicePointer(&dev, done_.data(), 0));
  done_dev_ = static_cast<unsigned long long*>(dev);
  state_.resize(static_cast<std::size_t>(kResidentStateHeader + np));
}

ResidentGrid::~ResidentGrid() {
  {
    std::lock_guard lock(owner_mutex());
    if (owner() == this) owner() = nullptr;
  }
  stop();
}

bool ResidentGrid::launch(unsigned long long seen) {
  if (!why_.empty()) return false;
  {
    // Take the device from another resident grid of this process (it would hold every SM until
    // its idle exit); a grid inside a call keeps it, and our launch waits for its end.
    std::lock_guard lock(owner_mutex());
    if (owner() != nullptr && owner() != this) owner()->yield();
    owner() = this;
  }
  state_.fill_zero(stream_);
  TOMO_CUDA_CHECK(cudaMemsetAsync(args_.counter, 0, sizeof(unsigned), stream_));
  done_[1] = 0;
  const unsigned long long* ctl = ctl_dev_;
  unsigned long long* st = state_.data();
  unsigned long long* done = done_dev_;
  unsigned long long idle = idle_ns_;
  int npar = npar_;
  ResidentArgs a = args_;
  void* argv[] = {&ctl, &st, &seen, &idle, &npar, &a.runs, &a.nruns, &a.param_map, &a.block_run, &a.bins, &a.t,
                  &a.partials, &a.runsum, &a.param_ptr, &a.param_entry, &a.counter, &a.out, &done};
  const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel_), dim3(static_cast<unsigned>(blocks_)),
                                                    dim3(kCudaBlockThreads), argv, 0, stream_);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    why_ = str_cat("cooperative launch failed: ", cudaGetErrorString(e));
    return false;
  }
  running_ = true;
  ++launches_;
  return true;
}

bool ResidentGrid::call(std::span<const double> params, bool gradient) {
  std::lock_guard lock(mutex_);
  if (static_cast<int>(params.size()) > np_) throw Error(str_cat("musr cuda: ", params.size(), " parameters for ", np_, " slots"));
  const volatile unsigned long long* done = done_.data();
  if (running_ && done[1] != 0) {  // the grid ended by itself (idle): wait for its last blocks
    TOMO_CUDA_CHECK(cudaStreamSynchronize(stream_));
    running_ = false;
  }
  if (!running_ && !launch(seq_)) return false;
  for (std::size_t i = 0; i < params.size(); ++i) ctl_[kResidentCtlHeader + i] = std::bit_cast<unsigned long long>(params[i]);
  ctl_[1] = gradient ? kResidentGradient : kResidentValue;
  std::atomic_thread_fence(std::memory_order_release);  // cmd and parameters before seq
  const unsigned long long seq = ++seq_;
  *static_cast<volatile unsigned long long*>(ctl_.data()) = seq;
  wait(seq);
  return true;
}

// Spins on done[0]; once a call takes longer than kQuietS, asks the stream now and then whether
// the grid failed or ended without answering (idle exit just before the command: relaunch once,
// it finds the command waiting). Quick calls make no driver call at all.
void ResidentGrid::wait(unsigned long long seq) {
  constexpr double kQuietS = 200e-6;
  const volatile unsigned long long* done = done_.data();
  auto t0 = std::chrono::steady_clock::now();
  int relaunches = 0;
  for (unsigned spins = 1; done[0] != seq; ++spins) {
    if (spins % 1024 != 0 || seconds_since(t0) < kQuietS) continue;
    const cudaError_t e = cudaStreamQuery(stream_);
    if (e == cudaErrorNotReady) {
      if (seconds_since(t0) < kCallTimeoutS) continue;
      stop_locked();
      throw Error(str_cat("musr cuda: the resident kernel gave no result within ", kCallTimeoutS, " s (call ", seq, ")"));
    }
    running_ = false;
    if (e != cudaSuccess) TOMO_CUDA_CHECK(e);
    if (done[0] == seq) break;
    if (++relaunches > 1) throw Error("musr cuda: the resident kernel ended twice without answering");
    if (!launch(seq - 1)) throw Error(str_cat("musr cuda: relaunching the resident kernel: ", why_));
    t0 = std::chrono::steady_clock::now();
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // the results were written before seq
}

void ResidentGrid::stop_locked() noexcept {
  if (!running_) return;
  running_ = false;
  const volatile unsigned long long* done = done_.data();
  if (done[1] == 0) {
    ctl_[1] = kResidentStop;
    std::atomic_thread_fence(std::memory_order_release);
    *static_cast<volatile unsigned long long*>(ctl_.data()) = ++seq_;
  }
  const auto t0 = std::chrono::steady_clock::now();
  cudaError_t e = cudaErrorNotReady;
  while ((e = cudaStreamQuery(stream_)) == cudaErrorNotReady && seconds_since(t0) < kCallTimeoutS) {
  }
  if (e == cudaErrorNotReady) log_error("musr cuda: the resident kernel did not stop within ", kCallTimeoutS, " s");
  else if (e != cudaSuccess) log_error("musr cuda: the resident kernel failed: ", cudaGetErrorString(e));
  (void)cudaGetLastError();
}

void ResidentGrid::stop() noexcept {
  std::lock_guard lock(mutex_);
  stop_locked();
}

void ResidentGrid::yield() noexcept {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) stop_locked();
}

bool ResidentGrid::running() const {
  std::lock_guard lock(mutex_);
  return running_ && cudaStreamQuery(stream_) == cudaErrorNotReady;
}

double ResidentGrid::last_device_us() const {
  const volatile unsigned long long* done = done_.data();
  return static_cast<double>(done[2]) * 1e-3;
}

}  // namespace tomo::musr
