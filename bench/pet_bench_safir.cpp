// bench_pet's per-stage breakdown of safir's cuda OSEM iteration (pet_bench_safir.hpp). The
// windows are made as the backend makes them (label + sort, line records, tile plan with the
// switches each row names); then the zeroing of ȳ, the tiled forward and back passes and the
// update are timed kernel by kernel (mean of `repeats` iterations, CUDA events on one stream),
// and the iteration as a whole as the backend runs it (first kernel to last, gaps included; the
// update clears the next window's ȳ, so only the first window has a zeroing of its own).
#include "bench/pet_bench_safir.hpp"

#include <cstdio>

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <span>
#include <string>

#include "bench/cuda/safir/probes.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/subsets.hpp"
#include "compute/safir/projector.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/safir/device_operator.hpp"
#include "cuda/safir/kernels.hpp"
#include "cuda/safir/sort_buffers.hpp"
#include "cuda/safir/tiled_pass.hpp"
#endif

namespace tomo::bench::pet_safir {

#if defined(TOMO_HAVE_CUDA)

namespace {

using namespace tomo::safir;
using namespace tomo::safir::cuda_impl;
namespace probes = tomo::safir::probes;

struct Made {
  std::array<std::size_t, 4> counts{};
  cuda::DeviceBuffer<float4> records;
  std::size_t n = 0;
};

class Timer {
 public:
  explicit Timer(cudaStream_t s) : s_(s) {
    TOMO_CUDA_CHECK(cudaEventCreate(&a_));
    TOMO_CUDA_CHECK(cudaEventCreate(&b_));
  }
  ~Timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  void start() { TOMO_CUDA_CHECK(cudaEventRecord(a_, s_)); }
  double stop() {
    TOMO_CUDA_CHECK(cudaEventRecord(b_, s_));
    TOMO_CUDA_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    TOMO_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms;
  }

 private:
  cudaStream_t s_;
  cudaEvent_t a_{}, b_{};
};

struct Stages {
  double zero = 0, forward = 0, back = 0, update = 0, whole = 0;
  int blocks = 0;            // blocks of a pass, summed over the windows
  std::vector<float> image;  // after one iteration from a flat image
};

double relative_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, n = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    n += double(b[i]) * b[i];
  }
  return n > 0 ? std::sqrt(d / n) : std::sqrt(d);
}

// How a row runs: the tile plan's switches, and whether the iteration is replayed as one CUDA
// graph (captured once) instead of launched kernel by kernel.
struct Variant {
  std::string name;
  TileConfig config;
  bool graph = false;
};

// One iteration over `windows`: per kernel (each timed alone, from a flat image: the forward
// from zeroed ȳ, the back from ȳ of that image, the update from the accumulator of that back
// pass) and as a whole (first kernel to last, from a flat image). Graph rows: the whole only.
Stages time_iteration(std::vector<Made>& windows, const TileDevice& dev, const Variant& v, const BoxParams<float>& g,
                      std::size_t voxels, const cuda::DeviceBuffer<float>& ones, cuda::DeviceBuffer<float>& f,
                      cuda::DeviceBuffer<float>& acc, cuda::DeviceBuffer<float>& s, cuda::DeviceBuffer<float>& ybar,
                      int repeats) {
  cudaStream_t st = nullptr;
  if (v.graph) TOMO_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  std::vector<TiledArgs> args;
  Stages out;
  for (std::size_t k = 0; k < windows.size(); ++k) {
    Made& w = windows[k];
    TiledArgs t;
    t.plan = plan_for_device(g, w.counts, dev, v.config);
    t.pairs = v.config.pair_access;
    t.records = w.records.data();
    t.box = g;
    t.f = f.data();
    t.ybar = ybar.data();
    t.acc = acc.data();
    args.push_back(t);
    out.blocks += t.plan.blocks;
  }
  std::size_t most = 0;  // the update clears ȳ of the largest window, as the backend does
  for (const Made& w : windows) most = std::max(most, w.n);
  auto flat = [&] {
    TOMO_CUDA_CHECK(cudaMemcpyAsync(f.data(), ones.data(), voxels * sizeof(float), cudaMemcpyDeviceToDevice, st));
    acc.fill_zero(st);
  };
  auto zero = [&](std::size_t k) {
    TOMO_CUDA_CHECK(cudaMemsetAsync(ybar.data(), 0, windows[k].n * sizeof(float), st));
  };
  auto fwd = [&](std::size_t k) { launch_forward_tiled(args[k], st); };
  auto back = [&](std::size_t k) {
    TiledArgs t = args[k];
    t.mode = BackValues::ratio;
    launch_back_tiled(t, st);
  };
  auto upd = [&](std::size_t) { launch_update_clear(f.data(), acc.data(), s.data(), voxels, ybar.data(), most, st); };
  auto iteration = [&] {
    zero(0);  // later windows' ȳ is cleared by the update before them
    for (std::size_t k = 0; k < windows.size(); ++k) fwd(k), back(k), upd(k);
  };
  Timer timer(st);
  // Mean over repeats of the stage summed over the windows; `before` runs untimed ahead of each call.
  auto each = [&](auto&& before, auto&& stage) {
    double ms = 0;
    for (int r = 0; r < repeats; ++r)
      for (std::size_t k = 0; k < windows.size(); ++k) {
        before(k);
        timer.start();
        stage(k);
        ms += timer.stop();
      }
    return ms / repeats;
  };
  flat();
  iteration();  // warm-up
  cudaGraphExec_t exec = nullptr;
  if (v.graph) {
    cudaGraph_t graph = nullptr;
    TOMO_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
    iteration();
    TOMO_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
    TOMO_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    TOMO_CUDA_CHECK(cudaGraphDestroy(graph));
    flat();
    TOMO_CUDA_CHECK(cudaGraphLaunch(exec, st));  // warm-up of the graph
  } else {
    out.zero = each([&](std::size_t) { flat(); }, zero);
    out.forward = each([&](std::size_t k) { flat(), zero(k); }, fwd);
    out.back = each([&](std::size_t k) { flat(), zero(k), fwd(k); }, back);
    out.update = each([&](std::size_t k) { flat(), zero(k), fwd(k), back(k); }, upd);
  }
  std::vector<double> whole;
  for (int r = 0; r < repeats; ++r) {
    flat();
    timer.start();
    if (exec) TOMO_CUDA_CHECK(cudaGraphLaunch(exec, st));
    else iteration();
    whole.push_back(timer.stop());
  }
  std::sort(whole.begin(), whole.end());
  out.whole = whole[whole.size() / 2];
  flat();
  if (exec) TOMO_CUDA_CHECK(cudaGraphLaunch(exec, st));
  else iteration();
  out.image.resize(voxels);
  f.download_async(out.image.data(), voxels, st);
  TOMO_CUDA_CHECK(cudaStreamSynchronize(st));
  if (exec) TOMO_CUDA_CHECK(cudaGraphExecDestroy(exec));
  if (st) {
    TOMO_CUDA_CHECK(cudaStreamSynchronize(st));
    TOMO_CUDA_CHECK(cudaStreamDestroy(st));
  }
  return out;
}

nlohmann::json row(const std::string& what, const Stages& st) {
  std::printf("    %-44s zero %6.3f  forward %6.3f  back %6.3f  update %6.3f  sum %6.3f  iteration %6.3f ms  (%d blocks)\n",
              what.c_str(), st.zero, st.forward, st.back, st.update, st.zero + st.forward + st.back + st.update,
              st.whole, st.blocks);
  return {{"what", what}, {"zero_ms", st.zero}, {"forward_ms", st.forward}, {"back_ms", st.back},
          {"update_ms", st.update}, {"iteration_ms", st.whole}, {"blocks", st.blocks}};
}

// The rows: the product's plan, its tiles loaded and flushed one voxel at a time (as before), and
// the iteration replayed as one CUDA graph.
std::vector<Variant> variants() {
  const TileConfig product;
  TileConfig scalar = product;
  scalar.pair_access = false;
  return {{"product", product}, {"scalar tile loads and flushes", scalar}, {"product, one CUDA graph an iteration", product, true}};
}

}  // namespace

nlohmann::json cuda_stages(const Scanner& sc, const ImageBox& box, std::span<const Event> ev, int subsets, int repeats) {
  if (!cuda::have_device() || ev.empty()) return nullptr;
  repeats = std::max(3, repeats);
  const BoxParams<float> g = box.params<float>();
  const BoxParams<double> gd = box.params<double>();
  auto crystals = crystal_buffer(sc);
  auto crystals_d = crystal_buffer_double(sc);
  cuda::DeviceBuffer<uint2> events;
  events.resize(ev.size());
  events.upload(reinterpret_cast<const uint2*>(ev.data()), ev.size());
  SortBuffers sort;
  sort.resize(ev.size());
  // Windows as the backend makes them: the whole list (ML-EM) and each subset's contiguous run.
  auto make = [&](std::size_t first, std::size_t n) {
    Made m;
    m.n = n;
    m.counts = sort.sort(events.data() + first, n, crystals.data(), g, nullptr);
    m.records.resize(std::max<std::size_t>(1, n));
    launch_records(sort.sorted.data(), m.counts[0], n, crystals_d.data(), gd, m.records.data(), nullptr);
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    return m;
  };
  std::vector<Made> whole, parts;
  whole.push_back(make(0, ev.size()));
  const auto starts = pet::interleave_events(ev.size(), subsets).starts;
  for (int k = 0; k < subsets; ++k) parts.push_back(make(starts[k], starts[k + 1] - starts[k]));
  cuda::DeviceBuffer<float> f, acc, s, ybar;
  for (auto* b : {&f, &acc, &s}) b->resize(box.count());
  ybar.resize(ev.size());
  const std::vector<float> ones(box.count(), 1.0f);
  f.upload(ones.data(), ones.size());
  s.upload(ones.data(), ones.size());
  acc.fill_zero();
  const TileDevice dev = tile_device();
  std::printf("\n  safir cuda stages (ms per iteration, CUDA events; %zu events, %d subsets, %d SMs, 2 blocks/SM):\n",
              ev.size(), subsets, dev.sms);
  // The back pass's flush alone (probes.hpp), with one subset's and the whole list's block counts.
  const TileConfig product;
  const TilePlan sub = plan_for_device(g, parts[0].counts, dev, product), all = plan_for_device(g, whole[0].counts, dev, product);
  Timer timer(nullptr);
  nlohmann::json flush = nlohmann::json::array();
  for (const TilePlan* p : {&sub, &all})
    for (bool pairs : {false, true}) {
      std::vector<double> t;
      for (int r = 0; r < repeats + 1; ++r) {
        timer.start();
        probes::launch_flush(acc.data(), box.count(), p->smem_floats, p->blocks, pairs, nullptr);
        t.push_back(timer.stop());
      }
      std::sort(t.begin(), t.end());
      const double ms = t[t.size() / 2];
      std::printf("    flush probe: %4d blocks x %d voxels, %-7s %.4f ms (%.1f G atomics/s)\n", p->blocks, p->smem_floats,
                  pairs ? "pairs" : "scalar", ms, double(p->blocks) * p->smem_floats / (pairs ? 2.0 : 1.0) / ms * 1e-6);
      flush.push_back({{"blocks", p->blocks}, {"tile", p->smem_floats}, {"pairs", pairs}, {"ms", ms}});
    }
  nlohmann::json out = nlohmann::json::array();
  const cuda::DeviceBuffer<float> ones_d{std::span<const float>(ones)};
  std::vector<float> first_m, first_o;  // the first row's images
  for (const Variant& v : variants()) try {
    const Stages m = time_iteration(whole, dev, v, g, box.count(), ones_d, f, acc, s, ybar, repeats);
    const Stages o = time_iteration(parts, dev, v, g, box.count(), ones_d, f, acc, s, ybar, repeats);
    if (first_m.empty()) first_m = m.image, first_o = o.image;
    const double em = relative_l2(m.image, first_m), eo = relative_l2(o.image, first_o);
    nlohmann::json j = {{"config", v.name}, {"mlem", row("ML-EM, " + v.name, m)}, {"osem", row("OSEM, " + v.name, o)},
                        {"ratio", o.whole / m.whole}, {"mlem_image_rel_l2", em}, {"osem_image_rel_l2", eo}};
    std::printf("    %-44s ratio %.3f  (images vs the first row: ML-EM %.2g, OSEM %.2g)\n", v.name.c_str(), o.whole / m.whole, em, eo);
    out.push_back(j);
  } catch (const std::exception& e) {  // a row that cannot run (e.g. no graph capture) says so
    std::printf("    %-44s failed: %s\n", v.name.c_str(), e.what());
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  }
  return {{"variants", out}, {"flush_probe", flush}};
}

nlohmann::json cuda_projections(const Scanner& sc, const ImageBox& box, std::span<const Event> ev, int repeats) {
  if (!cuda::have_device() || ev.empty()) return nullptr;
  auto op = BackendRegistry<ListModeOperator>::instance().create("cuda");
  op->configure(sc, box, {});
  op->set_events(ev);
  auto* dev = dynamic_cast<DeviceOperator*>(op.get());
  if (!dev) return nullptr;
  const std::vector<float> ones(box.count(), 1.0f);
  const cuda::DeviceBuffer<float> f{std::span<const float>(ones)};
  cuda::DeviceBuffer<float> y(ev.size()), image(box.count());
  auto median = [&](auto&& call) {
    call();  // warm-up
    std::vector<double> t;
    for (int r = 0; r < std::max(3, repeats); ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      call();  // each call waits for its stream
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const double fwd = median([&] { dev->forward_device(f.data(), y.data()); });
  const double back = median([&] { dev->back_device(y.data(), image.data()); });
  std::printf("\n  safir cuda on device memory (as safir.Projector), %zu events: forward %.3f ms, back %.3f ms\n", ev.size(),
              fwd, back);
  return {{"events", ev.size()}, {"forward_ms", fwd}, {"back_ms", back}};
}

#else

nlohmann::json cuda_projections(const safir::Scanner&, const safir::ImageBox&, std::span<const safir::Event>, int) {
  return nullptr;
}

nlohmann::json cuda_stages(const safir::Scanner&, const safir::ImageBox&, std::span<const safir::Event>, int, int) {
  return nullptr;
}

#endif

}  // namespace tomo::bench::pet_safir
