// bench_fdk --pipeline: the cuda FDK pipeline (cuda/fdk/device_fdk.hpp, as fdk.fdk runs it on a
// CUDA stack) and its two stages alone, on a device-resident stack of Shepp–Logan line integrals
// (simulated on a 4× coarser detector, each value spread over 4×4 pixels; timing does not depend
// on the values): the cuFFT filter over the whole stack in chunks, with its weights fused into
// cuFFT's kernels as callbacks and in kernels of their own, against one device copy of the stack
// (a read and a write of every pixel: the memory's pace); the back-projection of the filtered
// stack alone (hardware bilinear); the pipeline with either filter (and, fused, with a ring of
// device slots that holds the whole stack). Medians of --pipeline-reps
// after a warm-up; the two filters' outputs and volumes are compared (relative L2).
#include "bench/fdk_bench_pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "bench/fdk_bench_cases.hpp"
#include "bench/harness.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/simulate.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/fdk/cufft_filter.hpp"
#include "cuda/fdk/device_fdk.hpp"
#endif

namespace tomo::fdk::bench_pipeline {
namespace {

using bench_cases::Case;

#ifdef TOMO_HAVE_CUDA
using tomo::cuda::DeviceBuffer;

CArmGeometry orbit(const Case& c) {
  CArmGeometry g;
  g.projections = c.views;
  g.arc_deg = 360.0 * (c.views - 1) / c.views;
  g.sx = c.sx;
  g.sy = c.sy;
  g.pixel_mm = 600.0 / c.sx;
  return g;
}

std::vector<float> line_integrals(const CArmGeometry& g) {
  CArmGeometry coarse = g;
  coarse.sx = (g.sx + 3) / 4;
  coarse.sy = (g.sy + 3) / 4;
  coarse.pixel_mm = g.pixel_mm * 4;
  const std::vector<float> small = simulate_projections(shepp_logan_3d(), coarse);
  std::vector<float> out(static_cast<std::size_t>(g.sx) * g.sy * g.projections);
  for (int n = 0; n < g.projections; ++n)
    for (int j = 0; j < g.sy; ++j)
      for (int i = 0; i < g.sx; ++i)
        out[(static_cast<std::size_t>(n) * g.sy + j) * g.sx + i] =
            small[(static_cast<std::size_t>(n) * coarse.sy + j / 4) * coarse.sx + i / 4];
  return out;
}

std::vector<float> host_copy(const DeviceBuffer<float>& d) {
  std::vector<float> h(d.size());
  TOMO_CUDA_CHECK(cudaMemcpy(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

double median_event_ms(cudaStream_t s, int reps, const auto& work) {
  work();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    tomo::cuda::Event a, b;
    a.record(s);
    work();
    b.record(s);
    b.synchronize();
    t.push_back(a.elapsed_ms(b));
  }
  return bench::median_of(t);
}

const char* passes_name(FilterPasses p) { return p == FilterPasses::fused ? "fused" : "separate"; }

void run_case(const Case& c, const Options& o, nlohmann::json& out) {
  const CArmGeometry g = orbit(c);
  const Grid3 grid = rabbit_grid(c.L, 256.0);
  const std::vector<Mat34> mats = g.matrices();
  const std::size_t image = static_cast<std::size_t>(g.sx) * g.sy, n = image * g.projections;
  const double gb = n * sizeof(float) / 1e9;
  std::printf("\n%s: %d^3 from %d views of %dx%d (%.2f GB), chunks of %d\n", c.name.c_str(), c.L, g.projections, g.sx,
              g.sy, gb, o.chunk);
  const std::vector<float> host = line_integrals(g);
  DeviceBuffer<float> raw{std::span<const float>(host)}, filtered(n), scratch(n);
  tomo::cuda::Stream stream;
  nlohmann::json& j = out[c.name];

  const double copy_ms = median_event_ms(stream, o.reps, [&] {
    TOMO_CUDA_CHECK(cudaMemcpyAsync(scratch.data(), raw.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  });
  j["stack_copy_ms"] = copy_ms;
  std::printf("  device copy of the stack (read + write)     %8.2f ms  (%.0f GB/s)\n", copy_ms, 2 * gb / copy_ms * 1e3);

  std::vector<std::vector<float>> outputs;
  for (const FilterPasses p : {FilterPasses::fused, FilterPasses::separate}) {
    CufftFilter f(g, FilterOptions{}, o.chunk, p);
    DeviceBuffer<float>& dst = outputs.empty() ? filtered : scratch;
    const double ms = median_event_ms(stream, o.reps, [&] {
      for (int n0 = 0; n0 < g.projections; n0 += o.chunk)
        f.apply_device(n0, std::min(o.chunk, g.projections - n0), raw.data() + n0 * image, dst.data() + n0 * image,
                       stream);
    });
    const std::string key = std::string("filter_") + passes_name(f.passes()) + "_ms";
    j[key] = ms;
    std::printf("  cuFFT filter, %-8s (padded %d)           %8.2f ms  (%.2f× the copy)\n", passes_name(f.passes()),
                f.padded_size(), ms, ms / copy_ms);
    outputs.push_back(host_copy(dst));
  }
  const double filt_rel = relative_l2(outputs[0], outputs[1]);
  j["filter_fused_vs_separate_rel_l2"] = filt_rel;
  std::printf("  filtered stacks, fused vs separate: relative L2 %.2e\n", filt_rel);
  outputs.clear();

  BackprojectorOptions bo;
  bo.interpolation = Interpolation::hardware;
  auto op = BackendRegistry<ConeBeamBackprojector>::instance().create("cuda");
  op->configure(bo);
  std::vector<double> bp;
  for (int r = 0; r <= o.reps; ++r) {
    const double ms = bench::time_ms(
        [&] {
          op->reset(grid);
          for (int n0 = 0; n0 < g.projections; n0 += o.chunk) {
            const int cnt = std::min(o.chunk, g.projections - n0);
            op->backproject(ProjectionView{g.sx, g.sy, cnt, mats.data() + n0, filtered.data() + n0 * image});
          }
        },
        [&] { op->synchronize(); });
    if (r > 0) bp.push_back(ms);
  }
  j["backprojection_ms"] = bench::median_of(bp);
  std::printf("  back-projection of the filtered stack      %8.2f ms\n", bench::median_of(bp));

  // The pipeline as fdk.fdk makes it (a ring of 1 GiB of filtered chunks), with either filter, and
  // with a ring that holds the whole stack (no slot is waited for).
  struct Config {
    FilterPasses passes;
    double ring_mb;
    const char* name;
  };
  std::vector<std::vector<float>> volumes;
  for (const Config& cfg : {Config{FilterPasses::fused, 1024, "pipeline_fused"},
                            Config{FilterPasses::separate, 1024, "pipeline_separate"},
                            Config{FilterPasses::fused, 16384, "pipeline_fused_whole_ring"}}) {
    DeviceFdk run(g, FilterOptions{}, *op, grid, o.chunk, runtime_options().cuda_device, cfg.ring_mb, cfg.passes);
    DeviceBuffer<float> vol(grid.count());
    std::vector<double> t;
    for (int r = 0; r <= o.reps; ++r) {
      const auto t0 = bench::Clock::now();
      run.begin();
      for (int n0 = 0; n0 < g.projections; n0 += run.chunk()) {
        const int cnt = std::min(run.chunk(), g.projections - n0);
        run.add(n0, cnt, raw.data() + n0 * image, true, std::span<const Mat34>(mats).subspan(n0, cnt));
      }
      run.finish(vol.data(), true);
      if (r > 0) t.push_back(bench::ms_since(t0));
    }
    const DeviceFdkTimes tm = run.times();
    j[cfg.name] = {{"ms", bench::median_of(t)}, {"filter_gpu_ms", tm.filter_ms}, {"wait_ms", tm.wait_ms},
                   {"store_ms", tm.store_ms}, {"describe", run.describe()}};
    std::printf("  %-26s                    %8.2f ms  (filter events %.2f ms, host waits %.2f ms)\n    %s\n", cfg.name,
                bench::median_of(t), tm.filter_ms, tm.wait_ms, run.describe().c_str());
    if (volumes.size() < 2) volumes.push_back(host_copy(vol));
  }
  const double vol_rel = relative_l2(volumes[0], volumes[1]);
  j["volume_fused_vs_separate_rel_l2"] = vol_rel;
  std::printf("  volumes, fused vs separate: relative L2 %.2e\n", vol_rel);
}
#endif

}  // namespace

int run(const Options& o, nlohmann::json& out) {
  std::vector<Case> cases;
  if (!bench_cases::parse(o.cases, "--pipeline-cases", cases)) return 2;
#ifdef TOMO_HAVE_CUDA
  if (!tomo::cuda::have_device()) {
    std::printf("bench_fdk --pipeline: skipped: no CUDA device\n");
    return 0;
  }
  tomo::cuda::select_device(runtime_options().cuda_device);
  for (const Case& c : cases) run_case(c, o, out);
  return 0;
#else
  (void)o;
  (void)out;
  (void)cases;
  std::printf("bench_fdk --pipeline: skipped: built without CUDA\n");
  return 0;
#endif
}

}  // namespace tomo::fdk::bench_pipeline
