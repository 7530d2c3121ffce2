// The resident (persistent) grid of the musr χ² kernel: launched cooperatively once, it waits for
// commands in mapped host memory, so a call is a few stores and a poll instead of a launch.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <span>
#include <string>

#include "cuda/core/device_buffer.hpp"
#include "cuda/core/pinned_buffer.hpp"

namespace tomo::musr {

// The kernel arguments after (ctl, state, seen, idle_ns, npar) and before done, as the
// generated musr_persist takes them (compute/musr/codegen_cuda.hpp).
struct ResidentArgs {
  const void* runs = nullptr;
  int nruns = 0;
  const void* param_map = nullptr;
  const void* block_run = nullptr;
  const void* bins = nullptr;
  const void* t = nullptr;
  void* partials = nullptr;
  void* runsum = nullptr;
  const void* param_ptr = nullptr;
  const void* param_entry = nullptr;
  unsigned* counter = nullptr;  // the last-block ticket (zeroed before each launch)
  double* out = nullptr;        // device address of the mapped results (1 + np doubles)
};

class ResidentGrid {
 public:
  // `kernel` runs `blocks` blocks of 256 threads; np: the parameter slots of the generated Args
  // (NP), npar: the fit's parameters. Nothing is launched before the first call().
  ResidentGrid(cudaKernel_t kernel, int blocks, int np, int npar, double idle_exit_s, cudaStream_t stream, const ResidentArgs& args);
  ~ResidentGrid();
  ResidentGrid(const ResidentGrid&) = delete;
  ResidentGrid& operator=(const ResidentGrid&) = delete;

  // Empty when the grid can run here (cooperative launch, the blocks co-resident, mapped host
  // memory), else why not.
  const std::string& unavailable() const { return why_; }
  // One value (or value and gradient) pass; returns when the results are in the mapped output.
  // False when the grid could not be launched (nothing was computed; why in unavailable()).
  // Throws Error when the grid gives no answer within the call timeout or fails.
  bool call(std::span<const double> params, bool gradient);
  // Ends the grid (a stop command, then waiting for it, bounded); the next call relaunches.
  void stop() noexcept;
  bool running() const;  // the grid is on the device now
  int launches() const { return launches_; }
  double last_device_us() const;  // arrival of the last command → its result published (device clock)

  static constexpr double kCallTimeoutS = 2.0;

 private:
  bool launch(unsigned long long seen);
  void wait(unsigned long long seq);
  void stop_locked() noexcept;
  void yield() noexcept;  // another grid wants the device: stop unless inside a call

  cudaKernel_t kernel_;
  int blocks_, np_, npar_;
  unsigned long long idle_ns_;
  cudaStream_t stream_;
  ResidentArgs args_;
  std::string why_;
  mutable std::mutex mutex_;
  cuda::PinnedBuffer<unsigned long long> ctl_, done_;  // host ↔ device words (codegen_cuda.hpp)
  unsigned long long* ctl_dev_ = nullptr;
  unsigned long long* done_dev_ = nullptr;
  cuda::DeviceBuffer<unsigned long long> state_;
  unsigned long long seq_ = 0;
  bool running_ = false;
  int launches_ = 0;
};

}  // namespace tomo::musr
