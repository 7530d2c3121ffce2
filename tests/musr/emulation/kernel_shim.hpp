// The CUDA built-ins musr's generated kernels use (compute/musr/codegen_cuda.cpp), on the host:
// a block is 256 std::threads meeting at std::barrier for __syncthreads and, per warp of 32,
// for the shuffles; blocks run one after another, the grid's last block finishing the sum as on
// the device. Included by the generated case files (generate.cpp) before a kernel's source, so
// that the very text NVRTC compiles runs where no GPU is. __expf, __cosf, __sinf and
// __fdividef are the IEEE functions here (the hardware's are a few ulp off): the emulation
// checks the kernels' algebra, layout and reductions, not the MUFU's accuracy.
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/musr/emulation/emulation.hpp"

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __shared__ static

namespace tomo::musr::emu {

using std::acos, std::acosh, std::asin, std::asinh, std::atan, std::atanh, std::cos, std::cosh, std::exp, std::fabs, std::fma,
    std::log, std::log10, std::pow, std::sin, std::sinh, std::sqrt, std::tan, std::tanh;
struct dim3_ {
  unsigned x, y, z;
};
inline thread_local dim3_ threadIdx, blockIdx;
inline dim3_ blockDim{256, 1, 1}, gridDim{1, 1, 1};
struct float2 {
  float x, y;
};
struct double2 {
  double x, y;
};
inline thread_local std::barrier<>* t_block_barrier = nullptr;
struct Warp {
  double lane[32];
  std::barrier<> meet{32};
};
inline thread_local Warp* t_warps = nullptr;
inline void __syncthreads() { t_block_barrier->arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { __threadfence(); }
inline void __threadfence_system() { __threadfence(); }
template <class T>
T __ldcg(const T* p) {
  return *p;  // the blocks before the last one have been joined
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline double __shfl_down_sync(unsigned, double v, int offset) {
  Warp& w = t_warps[threadIdx.x / 32];
  const unsigned lane = threadIdx.x % 32;
  w.lane[lane] = v;
  w.meet.arrive_and_wait();
  const double r = lane + offset < 32 ? w.lane[lane + offset] : v;
  w.meet.arrive_and_wait();
  return r;
}
inline float __fdividef(float a, float b) { return a / b; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline float __expf(float x) { return std::exp(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __sinf(float x) { return std::sin(x); }
inline double __longlong_as_double(unsigned long long b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// Runs the value kernel, then the gradient kernel, of one generated source over `in` (the layout
// of cuda_tables, bins and times as doubles converted to the kernel's types).
template <class Args, class Real, class Bin, class RunInfo, class Kernel>
EmulatedCall emulate(const EmulationInputs& in, Kernel value, Kernel gradient) {
  std::vector<Bin> bins(in.bins.begin(), in.bins.end());
  std::vector<Real> times(in.t.begin(), in.t.end());
  std::vector<double> partials(static_cast<std::size_t>(in.blocks) * static_cast<std::size_t>(in.slots), 0.0);
  std::vector<double> runsum(static_cast<std::size_t>(in.nruns) * static_cast<std::size_t>(in.slots), 0.0);
  std::vector<double> out(1 + sizeof(Args) / sizeof(double), -1.0);
  Args a{};
  std::memcpy(a.p, in.params.data(), std::min(sizeof a.p, in.params.size() * sizeof(double)));
  gridDim.x = static_cast<unsigned>(in.blocks);
  EmulatedCall call;
  for (int pass = 0; pass < 2; ++pass) {
    const unsigned long long seq = 7 + static_cast<unsigned long long>(pass);
    for (int b = 0; b < in.blocks; ++b) {
      std::barrier<> block(256);
      std::vector<Warp> warps(8);
      std::vector<std::thread> threads;
      for (unsigned x = 0; x < 256; ++x)
        threads.emplace_back([&, x, b] {
          threadIdx = {x, 0, 0};
          blockIdx = {static_cast<unsigned>(b), 0, 0};
          t_block_barrier = &block;
          t_warps = warps.data();
          (pass == 0 ? value : gradient)(a, reinterpret_cast<const RunInfo*>(in.runs.data()), in.nruns, in.param_map.data(),
                                         in.block_run.data(), bins.data(), times.data(), partials.data(), runsum.data(),
                                         in.param_ptr.data(), in.param_entry.data(), &call.counter, out.data(), &call.done[pass], seq);
        });
      for (auto& t : threads) t.join();
    }
    if (pass == 0) call.value = out[0];
    else call.gradient_value = out[0], call.gradient.assign(out.begin() + 1, out.begin() + 1 + in.num_params);
    call.counter_rearmed[pass] = call.counter == 0;
  }
  return call;
}

}  // namespace tomo::musr::emu
