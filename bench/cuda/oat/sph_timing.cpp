// Timings for bench_oat_sph (see sph_timing.hpp): events around the device-resident H_sph.
#include "bench/cuda/oat/sph_timing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "bench/cuda/oat/sph_baselines.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/sph_device.hpp"

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
  std::vector<std::complex<double>> ours(dev.samples());
  dev.download_data(ours);
  const cuda_detail::SphParams& p = dev.params();
  tomo::cuda::DeviceBuffer<float2> paper_u(dev.samples()), w(dev.samples());
  tomo::cuda::DeviceBuffer<float> paper_alpha(dev.voxels());
  t.seed_forward_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] {
    bench_cuda::launch_sph_forward_paper(p, dev.alpha_floats(), paper_u.data(), dev.stream());
  });
  dev.synchronize();
  const std::vector<float2> seed = paper_u.to_host();
  double e = 0, n = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const std::complex<double> s(seed[i].x, seed[i].y);
    e += std::norm(ours[i] - s), n += std::norm(s);
  }
  t.seed_rel_l2 = n > 0 ? std::sqrt(e / n) : 0.0;
  dev.upload_data(u);
  t.adjoint_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] { dev.adjoint(); });
  t.seed_adjoint_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] {
    bench_cuda::launch_sph_adjoint_paper(p, dev.data_device(), w.data(), paper_alpha.data(), dev.stream());
  });
  tomo::cuda::DeviceBuffer<float> out(kProbeThreads);
  t.probe_ms = tomo::cuda::best_event_ms(dev.stream(), reps, [&] {
    bench_cuda::launch_sph_probe(kProbeThreads, kProbeIterations, kProbePerSincos, out.data(), dev.stream());
  });
  t.probe_updates = double(kProbeThreads) * kProbeIterations * kProbePerSincos;
  dev.synchronize();
  return t;
}

}  // namespace tomo::oat
