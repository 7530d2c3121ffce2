// Timings for bench_oat (see fbp_model_timing.hpp): CUDA events around the device-resident
// operators and the bench-only probes.
#include "bench/cuda/oat/fbp_model_timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/cuda/oat/fbp_probes.hpp"
#include "bench/cuda/oat/srt_probes.hpp"
#include "compute/core/error.hpp"
#include "compute/core/metrics.hpp"
#include "cuda/core/event.hpp"
#include "cuda/oat/fbp_device.hpp"
#include "cuda/oat/model_device.hpp"

namespace tomo::oat {

CudaFbpTimes time_cuda_fbp(const OatGeometry& g, std::span<const double> pressure, int reps,
                           const CudaFbpRequest& request) {
  FbpDevice dev(g);
  dev.upload(pressure);
  CudaFbpTimes t;
  t.default_kernel = std::string(kernel_name(dev.choose()));
  t.slot = dev.window_slot();
  for (FbpKernel k : {FbpKernel::deferred, FbpKernel::pinned, FbpKernel::texture, FbpKernel::ldg}) {
    const std::string name(kernel_name(k));
    if (!dev.available(k)) continue;
    if (!request.kernels.empty() && std::find(request.kernels.begin(), request.kernels.end(), name) == request.kernels.end())
      continue;
    const double ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.run(k); });
    if (request.error) t.errors.emplace_back(name, request.error(dev.image()));
    switch (k) {
      case FbpKernel::deferred:
        t.deferred_ms = ms;
        t.deferred_entries = dev.deferred_entries();
        t.deferred_overflow = dev.deferred_overflowed();
        t.deferred_capacity = dev.deferred_capacity();
        break;
      case FbpKernel::pinned: t.pinned_ms = ms; break;
      case FbpKernel::texture: t.texture_ms = ms; break;
      case FbpKernel::ldg: t.ldg_ms = ms; break;
    }
  }
  dev.synchronize();
  try {  // the probes need the table in a texture, as the texture kernel does
    FbpProbes probes(g);
    probes.upload(pressure);
    t.fetch_probe_ms = tomo::cuda::best_event_ms(probes.stream(), reps, [&] { probes.fetch(); });
    t.arithmetic_probe_ms = tomo::cuda::best_event_ms(probes.stream(), reps, [&] { probes.arithmetic(); });
    probes.synchronize();
  } catch (const UnavailableError&) {
  }
  return t;
}

namespace {

// ⟨Hα, u⟩ − ⟨α, Hᵀu⟩ normalised by ‖Hα‖‖u‖ (Hα: the exact forward; Hᵀu: an adjoint's image).
double identity_mismatch(const std::vector<float>& h_alpha, std::span<const double> u, std::span<const double> alpha,
                         const std::vector<float>& ht_u) {
  double ax_y = 0, x_aty = 0, n_ax = 0, n_y = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    ax_y += static_cast<double>(h_alpha[i]) * u[i];
    n_ax += static_cast<double>(h_alpha[i]) * h_alpha[i];
    n_y += u[i] * u[i];
  }
  for (std::size_t i = 0; i < alpha.size(); ++i) x_aty += alpha[i] * static_cast<double>(ht_u[i]);
  return std::abs(ax_y - x_aty) / std::sqrt(n_ax * n_y);
}

// max |a − ref| / max |ref|.
double max_relative(const std::vector<float>& a, const std::vector<float>& ref) {
  double d = 0, m = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    d = std::max(d, std::abs(static_cast<double>(a[i]) - ref[i]));
    m = std::max(m, std::abs(static_cast<double>(ref[i])));
  }
  return m > 0 ? d / m : d;
}

}  // namespace

CudaModelTimes time_cuda_model(const OatGeometry& g, const ModelOptions& o, std::span<const double> alpha,
                               std::span<const double> u, int reps, std::span<const std::string> adjoints) {
  ModelOptions exact = o, hardware = o;
  exact.interpolation = Interpolation::exact;
  hardware.interpolation = Interpolation::hardware;
  CudaModelTimes t;
  std::vector<float> gathered, h_alpha;
  {
    ModelDevice dev(g, exact);
    dev.upload_alpha(alpha);
    t.forward_exact_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(); });
    h_alpha = dev.data();
    dev.upload_data(u);
    t.adjoint_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.adjoint(); });
    t.adjoint_form = dev.symmetric_adjoint() ? "symmetric" : "gather";
    gathered = dev.alpha();
  }
  t.identity = identity_mismatch(h_alpha, u, alpha, gathered);
  ModelDevice dev(g, hardware);
  dev.upload_alpha(alpha);
  t.forward_hardware_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(); });
  dev.synchronize();
  SrtProbes probes(g, o);
  probes.upload(alpha, u);
  t.probe_loads_ms = tomo::cuda::best_event_ms(probes.stream(), reps, [&] { probes.loads(); });
  t.probe_texture_ms = tomo::cuda::best_event_ms(probes.stream(), reps, [&] { probes.texture(); });
  t.probe_atomics_ms = tomo::cuda::best_event_ms(probes.stream(), reps, [&] { probes.atomics(); });
  probes.upload(alpha, u);
  t.forward_table_ms = tomo::cuda::best_event_ms(probes.stream(), reps, [&] { probes.forward_table(); });
  t.forward_table_vs_exact = relative_l2(probes.data(), h_alpha);
  using cuda_detail::AdjointVariant;
  probes.upload(alpha, u);  // the forward probes overwrote u with their H α
  probes.adjoint(AdjointVariant::scatter);
  const std::vector<float> scattered = probes.alpha();
  t.gather_vs_scatter = relative_l2(gathered, scattered);
  for (AdjointVariant v : cuda_detail::kAdjointVariants) {
    AdjointTime a{std::string(cuda_detail::variant_name(v))};
    if (!adjoints.empty() && std::find(adjoints.begin(), adjoints.end(), a.name) == adjoints.end()) continue;
    a.ms = tomo::cuda::best_event_ms(probes.stream(), reps, [&] { probes.adjoint(v); });
    if (v != AdjointVariant::gather_no_adds && v != AdjointVariant::gather_bounds_only &&
        v != AdjointVariant::gather_circle_no_adds && v != AdjointVariant::gather_circle_bounds_only &&
        v != AdjointVariant::gather_refined_no_adds && v != AdjointVariant::gather_refined_bounds_only &&
        v != AdjointVariant::scatter_window_no_adds) {
      const std::vector<float> img = probes.alpha();
      a.rel_l2_vs_scatter = relative_l2(img, scattered);
      a.rel_l2_vs_default = relative_l2(img, gathered);
      a.max_rel_vs_default = max_relative(img, gathered);
      a.identity = identity_mismatch(h_alpha, u, alpha, img);
    }
    const bool scatters = v == AdjointVariant::scatter || v == AdjointVariant::scatter_merged ||
                          v == AdjointVariant::scatter_merged_vector || v == AdjointVariant::scatter_window ||
                          v == AdjointVariant::scatter_window_table || v == AdjointVariant::scatter_window_no_adds ||
                          v == AdjointVariant::scatter_window_coop;
    a.chunks = scatters ? 0 : probes.gather_chunks(v);
    const cuda_detail::KernelResources res = cuda_detail::variant_resources(v);
    std::printf("  timed %s: %.2f ms, identity %.2e, rel. L2 vs scatter %.2e, vs the default %.2e; %d registers, "
                "%d local bytes\n",
                a.name.c_str(), a.ms, a.identity, a.rel_l2_vs_scatter, a.rel_l2_vs_default, res.registers,
                res.local_bytes);
    std::fflush(stdout);
    t.adjoints.push_back(a);
  }
  probes.synchronize();
  return t;
}

}  // namespace tomo::oat
