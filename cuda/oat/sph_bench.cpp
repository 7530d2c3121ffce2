// Timings for bench_oat_sph (see sph_bench.hpp): events around the device-resident H_sph.
#include "cuda/oat/sph_bench.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/oat/sph_device.hpp"
#include "cuda/oat/sph_kernels.hpp"

namespace tomo::oat {

namespace {
// The probe: 2^20 threads × 512 iterations × (one phasor + 4 multiply-adds with a complex
// step), the forward's 2 phasors per 8 frequencies.
constexpr int kProbeThreads = 1 << 20, kProbeIterations = 512, kProbePerSincos = 4;

}  // namespace

CudaSphTimes time_cuda_sph(const OatGeometry& g, const SphOptions& o, std::span<const double> alpha,
                           std::span<const std::complex<double>> u, int reps) {
  SphDevice dev(g, o);
  dev.upload_alpha(alpha);
  CudaSphTimes t;
  t.forward_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward(); });
  std::vector<std::complex<double>> ours(dev.samples()), seed(dev.samples());
  dev.download_data(ours);
  t.seed_forward_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.forward_seed_layout(); });
  dev.download_data(seed);
  double e = 0, n = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) e += std::norm(ours[i] - seed[i]), n += std::norm(seed[i]);
  t.seed_rel_l2 = n > 0 ? std::sqrt(e / n) : 0.0;
  dev.upload_data(u);
  t.adjoint_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.adjoint(); });
  t.seed_adjoint_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.adjoint_seed_layout(); });
  tomo::cuda::DeviceBuffer<float> out(kProbeThreads);
  t.probe_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] {
    cuda_detail::launch_sph_probe(kProbeThreads, kProbeIterations, kProbePerSincos, out.data(), dev.stream());
  });
  t.probe_updates = double(kProbeThreads) * kProbeIterations * kProbePerSincos;
  dev.synchronize();
  return t;
}

}  // namespace tomo::oat
