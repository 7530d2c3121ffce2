// bench_safir's kernel breakdown of the cuda backend (safir_bench_cuda.hpp): the launchers of
// cuda/safir on buffers of its own, each kernel timed with CUDA events, beside the probes.
#include "bench/safir_bench_cuda.hpp"

#include <cstdio>
#include <string>

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <algorithm>
#include <functional>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "bench/cuda/safir/probes.hpp"
#include "cuda/safir/kernels.hpp"
#include "cuda/safir/sort_buffers.hpp"
#include "cuda/safir/tiled_pass.hpp"
#endif

namespace tomo::safir::bench {

#if defined(TOMO_HAVE_CUDA)

namespace {

using namespace tomo::safir::cuda_impl;

// Mean ms per call of `launch` over `reps` calls after one warm-up call (CUDA events, stream 0).
double kernel_ms(const std::function<void()>& launch, int reps) {
  launch();
  cudaEvent_t e0, e1;
  TOMO_CUDA_CHECK(cudaEventCreate(&e0));
  TOMO_CUDA_CHECK(cudaEventCreate(&e1));
  TOMO_CUDA_CHECK(cudaEventRecord(e0, nullptr));
  for (int r = 0; r < reps; ++r) launch();
  TOMO_CUDA_CHECK(cudaEventRecord(e1, nullptr));
  TOMO_CUDA_CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  TOMO_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
  TOMO_CUDA_CHECK(cudaEventDestroy(e0));
  TOMO_CUDA_CHECK(cudaEventDestroy(e1));
  return ms / std::max(1, reps);
}

struct Buffers {
  cuda::DeviceBuffer<float4> crystals, records;
  cuda::DeviceBuffer<double> crystals_d;
  cuda::DeviceBuffer<uint2> events;
  SortBuffers sort;
  cuda::DeviceBuffer<float> values, f, acc, s, sink, scratch;  // probes and update write scratch: f stays 1
};

void upload_all(Buffers& b, const Scanner& sc, const ImageBox& box, std::span<const Event> ev) {
  b.crystals = crystal_buffer(sc);
  b.crystals_d = crystal_buffer_double(sc);
  const std::size_t n = ev.size();
  b.events.resize(n);
  b.events.upload(reinterpret_cast<const uint2*>(ev.data()), n);
  b.sort.resize(n);
  b.records.resize(n);
  b.values.resize(n);
  for (auto* v : {&b.f, &b.acc, &b.s, &b.scratch}) v->resize(box.count());
  const std::vector<float> ones(box.count(), 1.0f);
  b.f.upload(ones.data(), ones.size());
  b.s.upload(ones.data(), ones.size());
  b.scratch.upload(ones.data(), ones.size());
  b.sink.resize(1);
}

// What the parts of the breakdown share: the window's label counts and the probes' size.
struct Window {
  ImageBox box;
  BoxParams<float> g;
  std::array<std::size_t, 4> counts;
  std::size_t n, blocks4;
  int reps;
  double outside_ms;  // zeroing + update per iteration
};

// Label + sort + pack and the records of the window; the label counts.
nlohmann::json time_window(Buffers& b, Window& w) {
  const SortArgs sa = b.sort.args(b.events.data(), w.n, b.crystals.data(), w.g);
  const double sort_ms = kernel_ms([&] { label_and_sort(sa, nullptr); }, 3);
  w.counts = b.sort.label_counts(nullptr);
  const double records_ms = kernel_ms(
      [&] {
        launch_records(b.sort.sorted.data(), w.counts[0], w.n, b.crystals_d.data(), w.box.params<double>(), b.records.data(),
                       nullptr);
      },
      3);
  const double zero_ms = kernel_ms(
      [&] {
        TOMO_CUDA_CHECK(cudaMemsetAsync(b.values.data(), 0, w.n * sizeof(float), nullptr));
        b.acc.fill_zero();
      },
      w.reps);
  const double update_ms =
      kernel_ms([&] { launch_update(b.scratch.data(), b.acc.data(), b.s.data(), w.box.count(), nullptr); }, w.reps);
  w.outside_ms = zero_ms + update_ms;
  std::printf("\n  cuda kernel breakdown (%zu events, labels skip/x/y/z %zu/%zu/%zu/%zu; ms per call, CUDA events):\n", w.n,
              w.counts[0], w.counts[1], w.counts[2], w.counts[3]);
  std::printf("    per window: label + CUB sort + pack %.2f ms, line records %.2f ms\n", sort_ms, records_ms);
  std::printf("    per iteration, outside the passes: zero ybar + acc %.3f ms, update (eq. 10) %.3f ms\n", zero_ms, update_ms);
  return {{"label_sort_ms", sort_ms}, {"records_ms", records_ms}, {"zero_ms", zero_ms}, {"update_ms", update_ms}};
}

// The tiled passes with `per_sm` blocks per SM, beside the shared-atomics + flush probe.
nlohmann::json time_tiled(Buffers& b, const Window& w, const TileDevice& dev, int per_sm) {
  TileConfig cfg;
  cfg.blocks_per_sm = per_sm;
  TiledArgs t;
  t.plan = plan_for_device(w.g, w.counts, dev, cfg);
  t.records = b.records.data();
  t.box = w.g;
  t.f = b.f.data();
  t.ybar = b.values.data();
  t.acc = b.acc.data();
  t.randoms = 0;
  const double fwd = kernel_ms([&] { launch_forward_tiled(t, nullptr); }, w.reps);
  t.mode = BackValues::ratio;
  const double back = kernel_ms([&] { launch_back_tiled(t, nullptr); }, w.reps);
  const double probe = kernel_ms(
      [&] {
        tomo::safir::probes::launch_shared_atomics(b.scratch.data(), w.box.count(), t.plan.smem_floats, t.plan.label[1].ext[0], w.blocks4,
                                    t.plan.blocks, nullptr);
      },
      3);
  const double iter = w.outside_ms + fwd + back;
  std::printf("    tiled, %d blocks/SM (tiles up to %d voxels, %d blocks, %llu events per block): forward %.2f ms, back %.2f ms "
              "(shared-atomics + flush probe %.2f ms: %.0f %%), iteration %.2f ms\n",
              per_sm, t.plan.smem_floats, t.plan.blocks, t.plan.label[0].chunk, fwd, back, probe, 100.0 * probe / back, iter);
  return {{"blocks_per_sm", per_sm}, {"tile_voxels", t.plan.smem_floats}, {"blocks", t.plan.blocks},
          {"events_per_block", t.plan.label[0].chunk}, {"forward_ms", fwd}, {"back_ms", back}, {"shared_probe_ms", probe},
          {"iteration_ms", iter}};
}

// The fused pass and its parts, beside the global atomics and gathers probes (its ceiling).
nlohmann::json time_fused(Buffers& b, const Window& w) {
  const double atomic_ms = kernel_ms([&] { tomo::safir::probes::launch_atomics(b.scratch.data(), w.box.count(), w.box.n[0], w.blocks4, nullptr); }, 3);
  const double gather_ms =
      kernel_ms([&] { tomo::safir::probes::launch_gathers(b.f.data(), w.box.count(), w.box.n[0], w.blocks4, b.sink.data(), nullptr); }, 3);
  ProjectArgs p;
  p.sorted = b.sort.sorted.data();
  p.first = w.counts[0];
  p.n = w.n;
  p.crystals = b.crystals.data();
  p.box = w.g;
  p.f = b.f.data();
  p.values = b.values.data();
  p.acc = b.acc.data();
  const double fused = kernel_ms([&] { launch_mlem(p, nullptr); }, w.reps);
  const double gfwd = kernel_ms([&] { launch_forward(p, nullptr); }, w.reps);
  p.values = nullptr;
  const double gback = kernel_ms([&] { launch_back(p, nullptr); }, w.reps);
  std::printf("    fused (global atomics): ML-EM pass %.2f ms (forward alone %.2f ms, back alone %.2f ms); ceiling of that "
              "formulation from the probes: atomics %.2f ms + gathers %.2f ms = %.2f ms (%.0f %%)\n",
              fused, gfwd, gback, atomic_ms, gather_ms, atomic_ms + gather_ms, 100.0 * (atomic_ms + gather_ms) / fused);
  return {{"mlem_ms", fused}, {"forward_ms", gfwd}, {"back_ms", gback}, {"probe_atomics_ms", atomic_ms},
          {"probe_gathers_ms", gather_ms}, {"iteration_ms", w.outside_ms + fused}};
}

}  // namespace

nlohmann::json cuda_breakdown(const Scanner& sc, const ImageBox& box, std::span<const Event> ev, double voxels_per_event,
                              int reps) {
  if (!cuda::have_device() || ev.empty()) return nullptr;
  Buffers b;
  upload_all(b, sc, box, ev);
  Window w{box, box.params<float>(), {}, ev.size(), 1, std::max(1, reps), 0};
  nlohmann::json out = time_window(b, w);
  // The probes make as many accesses as the passes walk voxels, without the walk.
  w.blocks4 = std::max<std::size_t>(1, static_cast<std::size_t>(double(w.n - w.counts[0]) * voxels_per_event / 4));
  const TileDevice dev = tile_device();
  out["tiled"] = nlohmann::json::array({time_tiled(b, w, dev, 2), time_tiled(b, w, dev, 1)});
  out["fused"] = time_fused(b, w);
  return out;
}

#else

nlohmann::json cuda_breakdown(const Scanner&, const ImageBox&, std::span<const Event>, double, int) { return nullptr; }

#endif

}  // namespace tomo::safir::bench
