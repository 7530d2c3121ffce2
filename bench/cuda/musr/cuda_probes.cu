// bench_musr's probes (see cuda_probes.hpp): copy bandwidth, call overhead, kernel time.
#include "bench/cuda/musr/cuda_probes.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/pinned_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/musr/cuda_chi2_evaluator.hpp"
#include "cuda/core/nvrtc.hpp"

namespace tomo::musr {

double measure_copy_gbps(std::size_t bytes) {
  cuda::DeviceBuffer<unsigned char> a(bytes), b(bytes);
  cuda::Stream stream;
  cuda::Event start, stop;
  double best_ms = 1e30;
  for (int rep = 0; rep < 6; ++rep) {
    start.record(stream);
    TOMO_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    stop.record(stream);
    const double ms = start.elapsed_ms(stop);
    if (rep > 0) best_ms = std::min(best_ms, ms);  // the first copy warms up
  }
  return 2.0 * static_cast<double>(bytes) / (best_ms * 1e-3) / 1e9;
}

namespace {

// Median of `reps` timed calls of f (µs) after a few untimed ones.
template <class F>
double median_us(int reps, F&& f) {
  for (int i = 0; i < 10; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
  return t[t.size() / 2];
}

}  // namespace

CallProbe measure_call_overhead(int np, int reps) {
  np = std::max(np, 1);
  reps = std::max(reps, 1);
  const std::string src = str_cat(
      "struct Args { double p[", np, "]; };\n"
      "extern \"C\" __global__ void probe_empty() {}\n"
      "extern \"C\" __global__ void probe_ptr(const double* p, double* out) { out[0] = p[0]; }\n"
      "extern \"C\" __global__ void probe_args(const __grid_constant__ Args a, double* out, unsigned long long* done,\n"
      "                                       unsigned long long seq) {\n"
      "  out[0] = a.p[0];\n"
      "  if (done != nullptr) { __threadfence_system(); *(volatile unsigned long long*)done = seq; }\n"
      "}\n");
  const auto k = cuda::load_kernels(src, "musr_call_probe.cu", {"probe_empty", "probe_ptr", "probe_args"});
  cuda::Stream stream;
  cuda::DeviceBuffer<double> p_dev(static_cast<std::size_t>(np)), out_dev(1);
  std::vector<double> params(static_cast<std::size_t>(np), 1.5);  // pageable, as a std::vector of the caller
  cuda::PinnedBuffer<double> out_host(1);
  cuda::PinnedBuffer<unsigned long long> done_host(1);
  done_host[0] = 0;
  void* out_mapped = nullptr;
  void* done_mapped = nullptr;
  TOMO_CUDA_CHECK(cudaHostGetDevicePointer(&out_mapped, out_host.data(), 0));
  TOMO_CUDA_CHECK(cudaHostGetDevicePointer(&done_mapped, done_host.data(), 0));
  const dim3 one(1);
  CallProbe r;
  r.launch_sync_us = median_us(reps, [&] {
    TOMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(k[0]), one, one, nullptr, 0, stream));
    stream.synchronize();
  });
  r.memcpy_path_us = median_us(reps, [&] {
    double result = 0.0;
    TOMO_CUDA_CHECK(cudaMemcpy(p_dev.data(), params.data(), params.size() * sizeof(double), cudaMemcpyHostToDevice));
    const void* p = p_dev.data();
    void* o = out_dev.data();
    void* argv[] = {&p, &o};
    TOMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(k[1]), one, one, argv, 0, nullptr));
    TOMO_CUDA_CHECK(cudaMemcpy(&result, out_dev.data(), sizeof(double), cudaMemcpyDeviceToHost));
  });
  unsigned long long seq = 0;
  auto by_value = [&](bool poll) {
    void* done = poll ? done_mapped : nullptr;
    unsigned long long s = ++seq;
    void* argv[] = {params.data(), &out_mapped, &done, &s};
    TOMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(k[2]), one, one, argv, 0, stream));
    if (!poll) {
      stream.synchronize();
      return;
    }
    const volatile unsigned long long* d = done_host.data();
    for (unsigned spins = 1; *d != s; ++spins)
      if (spins % 4096 == 0 && cudaStreamQuery(stream) == cudaSuccess && *d != s) throw Error("musr call probe: no result published");
  };
  r.args_sync_us = median_us(reps, [&] { by_value(false); });
  r.args_poll_us = median_us(reps, [&] { by_value(true); });
  stream.synchronize();
  return r;
}

double kernel_us(CudaChi2Evaluator& ev, std::span<const double> params, bool gradient, int launches) {
  launches = std::max(launches, 1);
  ev.synchronize();
  const auto stream = static_cast<cudaStream_t>(ev.stream());
  cuda::Event start, stop;
  start.record(stream);
  for (int i = 0; i < launches; ++i) ev.enqueue(params, gradient);
  stop.record(stream);
  return static_cast<double>(start.elapsed_ms(stop)) * 1e3 / launches;
}

}  // namespace tomo::musr
