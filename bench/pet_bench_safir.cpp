// bench_pet's per-stage breakdown of safir's cuda OSEM iteration (pet_bench_safir.hpp). The
// windows are made as the backend makes them (label + sort, line records, tile plan); then the
// zeroing of ȳ, the tiled forward and back passes and the update are timed kernel by kernel
// (mean of `repeats` iterations, CUDA events on one stream), and the iteration as a whole as the
// backend runs it (first kernel to last, gaps included; the update clears the next window's ȳ,
// so only the first window has a zeroing of its own).
#include "bench/pet_bench_safir.hpp"

#include <cstdio>

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <string>

#include "compute/pet/subsets.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/safir/kernels.hpp"
#include "cuda/safir/sort_buffers.hpp"
#include "cuda/safir/tiled_pass.hpp"
#endif

namespace tomo::bench::pet_safir {

#if defined(TOMO_HAVE_CUDA)

namespace {

using namespace tomo::safir;
using namespace tomo::safir::cuda_impl;

struct Made {
  std::array<std::size_t, 4> counts{};
  cuda::DeviceBuffer<float4> records;
  std::size_t n = 0;
};

class Timer {
 public:
  Timer() {
    TOMO_CUDA_CHECK(cudaEventCreate(&a_));
    TOMO_CUDA_CHECK(cudaEventCreate(&b_));
  }
  ~Timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  void start() { TOMO_CUDA_CHECK(cudaEventRecord(a_, nullptr)); }
  double stop() {
    TOMO_CUDA_CHECK(cudaEventRecord(b_, nullptr));
    TOMO_CUDA_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    TOMO_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms;
  }

 private:
  cudaEvent_t a_{}, b_{};
};

struct Stages {
  double zero = 0, forward = 0, back = 0, update = 0, whole = 0;
  int blocks = 0;  // blocks of a pass, summed over the windows
};

// One iteration over `windows`: per kernel (each timed alone, from a flat image: the forward
// from zeroed ȳ, the back from ȳ of that image, the update from the accumulator of that back
// pass) and as a whole (first kernel to last, from a flat image).
Stages time_iteration(std::vector<Made>& windows, const TileDevice& dev, const TileConfig& cfg, const BoxParams<float>& g,
                      std::size_t voxels, const cuda::DeviceBuffer<float>& ones, cuda::DeviceBuffer<float>& f,
                      cuda::DeviceBuffer<float>& acc, cuda::DeviceBuffer<float>& s, cuda::DeviceBuffer<float>& ybar,
                      int repeats) {
  std::vector<TiledArgs> args;
  Stages st;
  for (Made& w : windows) {
    TiledArgs t;
    t.plan = plan_for_device(g, w.counts, dev, cfg);
    t.records = w.records.data();
    t.box = g;
    t.f = f.data();
    t.ybar = ybar.data();
    t.acc = acc.data();
    args.push_back(t);
    st.blocks += t.plan.blocks;
  }
  std::size_t most = 0;  // the update clears ȳ of the largest window, as the backend does
  for (const Made& w : windows) most = std::max(most, w.n);
  auto flat = [&] {
    TOMO_CUDA_CHECK(cudaMemcpyAsync(f.data(), ones.data(), voxels * sizeof(float), cudaMemcpyDeviceToDevice, nullptr));
    acc.fill_zero();
  };
  auto zero = [&](std::size_t k) {
    TOMO_CUDA_CHECK(cudaMemsetAsync(ybar.data(), 0, windows[k].n * sizeof(float), nullptr));
  };
  auto fwd = [&](std::size_t k) { launch_forward_tiled(args[k], nullptr); };
  auto back = [&](std::size_t k) {
    TiledArgs t = args[k];
    t.mode = BackValues::ratio;
    launch_back_tiled(t, nullptr);
  };
  auto upd = [&](std::size_t) { launch_update_clear(f.data(), acc.data(), s.data(), voxels, ybar.data(), most, nullptr); };
  Timer timer;
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
  for (std::size_t k = 0; k < windows.size(); ++k) zero(k), fwd(k), back(k), upd(k);  // warm-up
  st.zero = each([&](std::size_t) { flat(); }, zero);
  st.forward = each([&](std::size_t k) { flat(), zero(k); }, fwd);
  st.back = each([&](std::size_t k) { flat(), zero(k), fwd(k); }, back);
  st.update = each([&](std::size_t k) { flat(), zero(k), fwd(k), back(k); }, upd);
  std::vector<double> whole;
  for (int r = 0; r < repeats; ++r) {
    flat();
    timer.start();
    zero(0);  // later windows' ȳ is cleared by the update before them
    for (std::size_t k = 0; k < windows.size(); ++k) fwd(k), back(k), upd(k);
    whole.push_back(timer.stop());
  }
  std::sort(whole.begin(), whole.end());
  st.whole = whole[whole.size() / 2];
  return st;
}

nlohmann::json row(const char* what, const Stages& st) {
  std::printf("    %-48s zero %6.3f  forward %6.3f  back %6.3f  update %6.3f  sum %6.3f  iteration %6.3f ms  (%d blocks)\n",
              what, st.zero, st.forward, st.back, st.update, st.zero + st.forward + st.back + st.update, st.whole,
              st.blocks);
  return {{"what", what}, {"zero_ms", st.zero}, {"forward_ms", st.forward}, {"back_ms", st.back},
          {"update_ms", st.update}, {"iteration_ms", st.whole}, {"blocks", st.blocks}};
}

}  // namespace

nlohmann::json cuda_stages(const Scanner& sc, const ImageBox& box, const std::vector<Event>& ev, int subsets, int repeats) {
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
  std::printf("\n  safir cuda stages (ms per iteration, CUDA events; %zu events, %d subsets, %d SMs):\n", ev.size(), subsets,
              dev.sms);
  nlohmann::json out = nlohmann::json::array();
  const cuda::DeviceBuffer<float> ones_d{std::span<const float>(ones)};
  for (int per_sm : {2, 1}) {
    TileConfig cfg;
    cfg.blocks_per_sm = per_sm;
    const std::string tag = std::to_string(per_sm) + " blocks/SM";
    const Stages m = time_iteration(whole, dev, cfg, g, box.count(), ones_d, f, acc, s, ybar, repeats);
    const Stages o = time_iteration(parts, dev, cfg, g, box.count(), ones_d, f, acc, s, ybar, repeats);
    nlohmann::json j = {{"config", tag}, {"mlem", row(("ML-EM, " + tag).c_str(), m)},
                        {"osem", row(("OSEM, " + tag).c_str(), o)}, {"ratio", o.whole / m.whole}};
    std::printf("    %-48s ratio %.3f\n", tag.c_str(), o.whole / m.whole);
    out.push_back(j);
  }
  return out;
}

#else

nlohmann::json cuda_stages(const safir::Scanner&, const safir::ImageBox&, const std::vector<safir::Event>&, int, int) {
  return nullptr;
}

#endif

}  // namespace tomo::bench::pet_safir
