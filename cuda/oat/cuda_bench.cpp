// Timings for bench_oat (see cuda_bench.hpp): events around the device-resident operators.
#include "cuda/oat/cuda_bench.hpp"

#include <algorithm>

#include "cuda/core/event.hpp"
#include "cuda/oat/fbp_device.hpp"
#include "cuda/oat/model_device.hpp"

namespace tomo::oat {

namespace {
std::string variant_name(const FbpChoice& c) {
  if (c.variant == FbpVariant::texture) return "texture";
  if (c.variant == FbpVariant::ldg) return "ldg";
  const char* kind = c.lean ? (c.deferred ? "x" : c.fast ? "f" : c.pinned ? (c.unrolled ? "u" : "p") : "l")
                     : c.batched ? "b"
                                 : "";
  return "shared-" + std::to_string(c.voxels_per_thread) + kind;
}
}  // namespace

CudaFbpTimes time_cuda_fbp(const OatGeometry& g, std::span<const double> pressure, int reps,
                           const CudaFbpRequest& request) {
  using cuda_detail::FbpLeanMode;
  using cuda_detail::FbpMode;
  using cuda_detail::FbpSharedMode;
  FbpDevice dev(g);
  dev.upload(pressure);
  CudaFbpTimes t;
  t.default_variant = variant_name(dev.best());
  // A variant's best time, then (request.error) its image's error.
  auto timed = [&](const std::string& name, auto&& run) {
    const double ms = tomo::cuda::best_event_ms(dev.stream(), reps, run);
    if (request.error) t.errors.emplace_back(name, request.error(dev.image()));
    return ms;
  };
  auto probe = [&](auto&& run) { return tomo::cuda::best_event_ms(dev.stream(), reps, run); };
  if (request.texture && dev.available(FbpVariant::texture)) {
    t.exact_ms = timed("texture", [&] { dev.run(FbpMode::exact); });
    t.fetch_probe_ms = probe([&] { dev.run_fetch_probe(); });
    t.compute_probe_ms = probe([&] { dev.run(FbpMode::no_fetch); });
  }
  if (request.ldg) t.exact_ldg_ms = timed("ldg", [&] { dev.run(FbpMode::exact_ldg); });
  if (dev.available(FbpVariant::shared)) {
    t.slot = dev.shared_shape(8).slot;
    t.tile = dev.shared_shape(8).tile;
    for (int s = 0; s < 2; ++s) {
      const bool plain = s == 0 ? request.shared4 : request.shared8;
      const bool batched = s == 0 ? request.shared4b : request.shared8b;
      if (!plain && !batched) continue;
      const int v = s == 0 ? 4 : 8;
      if (plain)
        t.shared_ms[s] = timed(variant_name({FbpVariant::shared, v}), [&] { dev.run_shared(FbpSharedMode::exact, v); });
      if (batched)
        t.batched_ms[s] = timed(variant_name({FbpVariant::shared, v, true}),
                                [&] { dev.run_shared(FbpSharedMode::exact, v, 0, true); });
      t.shared_probe_ms[s] = probe([&] { dev.run_shared(FbpSharedMode::lds_only, v); });
      t.shared_compute_ms[s] = probe([&] { dev.run_shared(FbpSharedMode::no_lds, v); });
    }
    for (int s = 0; s < 2; ++s) {
      const bool lean = s == 0 ? request.lean8 : request.lean16, fast = s == 0 ? request.fast8 : request.fast16;
      const bool pinned = s == 0 ? request.pinned8 : request.pinned16;
      const bool unrolled = s == 0 ? request.unrolled8 : request.unrolled16;
      if (!lean && !fast && !pinned && !unrolled) continue;
      const int v = s == 0 ? 8 : 16;
      auto lean_row = [&](FbpLeanMode mode, bool f, bool pin, bool unr) {
        return timed(variant_name({FbpVariant::shared, v, false, true, f, pin, unr}), [&] { dev.run_lean(mode, v); });
      };
      if (lean) t.lean_ms[s] = lean_row(FbpLeanMode::exact, false, false, false);
      if (pinned) t.pinned_ms[s] = lean_row(FbpLeanMode::pinned, false, true, false);
      if (unrolled) t.unrolled_ms[s] = lean_row(FbpLeanMode::pinned_unrolled, false, true, true);
      if (fast) t.fast_ms[s] = lean_row(FbpLeanMode::fast, true, false, false);
      t.lean_probe_ms[s] = probe([&] { dev.run_lean(FbpLeanMode::lds_only, v); });
      t.lean_compute_ms[s] = probe([&] { dev.run_lean(FbpLeanMode::no_lds, v); });
    }
    for (int s = 0; s < 2; ++s) {
      if (!(s == 0 ? request.deferred8 : request.deferred16)) continue;
      const int v = s == 0 ? 8 : 16;
      FbpChoice c{FbpVariant::shared, v, false, true};
      c.deferred = true;
      t.deferred_ms[s] = timed(variant_name(c), [&] { dev.run_deferred(v); });
      t.deferred_entries[s] = dev.deferred_entries();
      t.deferred_overflow[s] = dev.deferred_overflowed();
      t.deferred_capacity = dev.deferred_capacity();
      if (!t.deferred_overflow[s]) t.fixup_ms[s] = probe([&] { dev.run_fixup(); });  // adds again: timing only
    }
  }
  dev.synchronize();
  return t;
}

CudaModelTimes time_cuda_model(const OatGeometry& g, const ModelOptions& o, std::span<const double> alpha,
                               std::span<const double> u, int reps) {
  using cuda_detail::SrtFetch;
  ModelDevice dev(g, o);
  dev.upload_alpha(alpha);
  CudaModelTimes t;
  t.forward_exact_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(SrtFetch::exact); });
  t.forward_hardware_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(SrtFetch::hardware); });
  t.probe_loads_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(SrtFetch::probe_loads); });
  t.probe_texture_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(SrtFetch::probe_texture); });
  dev.upload_data(u);
  t.adjoint_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.adjoint(false); });
  t.probe_atomics_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.adjoint(true); });
  dev.synchronize();
  return t;
}

}  // namespace tomo::oat
