// bench_pet's line projector rows (pet_bench_joseph.hpp): the cpu reference timed once per pass
// (wall clock), cuda's passes on device arrays and its kernels alone (median of `reps`, CUDA
// events), and cuda against cpu (rel L2 of the forward of a test image and of the back of ones).
#include "bench/pet_bench_joseph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/harness.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/line_projector.hpp"

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "cuda/core/device_buffer.hpp"
#include "cuda/pet/joseph_kernels.hpp"
#endif

namespace tomo::bench::pet_joseph {

std::vector<double> default_lines() {
  std::vector<double> e;
  e.reserve(6 * 1024 * 1024);
  for (int j0 = 0; j0 < 32; ++j0)
    for (int j1 = 0; j1 < 32; ++j1)
      for (int i0 = 0; i0 < 32; ++i0)
        for (int i1 = 0; i1 < 32; ++i1) {
          const double p[6] = {-31 + 2.0 * i0, -31 + 2.0 * j0, -80, -31 + 2.0 * i1, -31 + 2.0 * j1, 80};
          e.insert(e.end(), p, p + 6);
        }
  return e;
}

pet::LineGrid default_grid() {
  pet::LineGrid g;
  g.dims = {128, 128, 128};
  g.voxel_mm = {0.5, 0.5, 0.5};
  g.origin_mm = {-31.75, -31.75, -31.75};
  return g;
}

std::vector<double> test_image(const pet::LineGrid& g) {
  std::vector<double> x(g.count());
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const double px = g.origin_mm[0] + i * g.voxel_mm[0], py = g.origin_mm[1] + j * g.voxel_mm[1],
                     pz = g.origin_mm[2] + k * g.voxel_mm[2];
        double v = px * px + pz * pz <= 625 ? 1.0 : 0.0;
        if ((px - 8) * (px - 8) + py * py + (pz + 5) * (pz + 5) <= 36) v += 3.0;
        x[(std::size_t(k) * g.dims[1] + j) * g.dims[0] + i] = v;
      }
  return x;
}

namespace {

double rel_l2(const std::vector<double>& a, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += (a[i] - ref[i]) * (a[i] - ref[i]), den += ref[i] * ref[i];
  return std::sqrt(num / den);
}


}  // namespace

nlohmann::json run(int reps, const std::vector<std::string>& backends) {
  const pet::LineGrid g = default_grid();
  const std::vector<double> ends = default_lines();
  const std::size_t n = ends.size() / 6;
  std::printf("  joseph: glpet_default.toml's %zu LORs, %dx%dx%d voxels of %g mm\n", n, g.dims[0], g.dims[1], g.dims[2],
              g.voxel_mm[0]);
  const std::vector<double> x = test_image(g), ones(n, 1.0);
  auto cpu = pet::make_line_projector("cpu", g, ends);
  std::vector<double> y_cpu(n), b_cpu(g.count());
  auto t0 = Clock::now();
  cpu->forward(x, y_cpu);
  const double cpu_fwd = ms_since(t0);
  t0 = Clock::now();
  cpu->back(ones, b_cpu);
  const double cpu_back = ms_since(t0);
  std::printf("  joseph cpu (double): forward %.1f ms, back %.1f ms\n", cpu_fwd, cpu_back);
  nlohmann::json j = {{"lines", n}, {"dims", g.dims}, {"voxel_mm", g.voxel_mm[0]},
                      {"cpu_forward_ms", cpu_fwd}, {"cpu_back_ms", cpu_back}};
#if defined(TOMO_HAVE_CUDA)
  const bool want = std::find(backends.begin(), backends.end(), "cuda") != backends.end();
  if (!want || !BackendRegistry<pet::LineProjector>::instance().available("cuda").ok) return j;
  auto gpu = pet::make_line_projector("cuda", g, ends);
  std::vector<double> y_gpu(n), b_gpu(g.count());
  gpu->forward(x, y_gpu);
  gpu->back(ones, b_gpu);
  const std::vector<float> xf(x.begin(), x.end()), of(n, 1.0f);
  cuda::DeviceBuffer<float> dx{std::span<const float>(xf)}, dy{std::span<const float>(of)}, db(g.count());
  const double fwd = median_of(time_device(reps, [&] { gpu->forward_device(dx.data(), dy.data()); }));
  dy.upload(std::span<const float>(of));
  const double back = median_of(time_device(reps, [&] { gpu->back_device(dy.data(), db.data()); }));
  // The product's kernels alone: the forward's gather, the back's float4 atomics into the quad
  // layout (zeroing it included) and its sum into the image.
  const std::vector<pet::cuda_impl::DeviceWalk> walks = pet::cuda_impl::device_walks(g, ends);
  cuda::DeviceBuffer<pet::cuda_impl::DeviceWalk> dw{std::span<const pet::cuda_impl::DeviceWalk>(walks)};
  const pet::cuda_impl::JosephArgs args{dw.data(), n, g.dims[0], g.dims[1], g.dims[2]};
  auto kernel_ms = [&](auto&& launch) { return median_of(time_device(reps, launch)); };
  const double fwd_kernel = kernel_ms([&] { pet::cuda_impl::launch_joseph_forward(args, dx.data(), dy.data(), nullptr); });
  dy.upload(std::span<const float>(of));
  cuda::DeviceBuffer<float4> dq(pet::cuda_impl::quad_count(g, 2));
  float4* const qp[3] = {nullptr, nullptr, dq.data()};
  const double back_kernel = kernel_ms([&] {
    dq.fill_zero();
    pet::cuda_impl::launch_joseph_back_quads(args, dy.data(), qp, nullptr);
  });
  const double to_image = kernel_ms([&] { pet::cuda_impl::launch_quads_to_image(args, qp, db.data(), nullptr); });
  const double ry = rel_l2(y_gpu, y_cpu), rb = rel_l2(b_gpu, b_cpu);
  std::printf("  joseph cuda (float32, device arrays): forward %.3f ms (%.0fx cpu), back %.3f ms (%.0fx cpu);"
              " rel L2 vs cpu: forward %.1e, back of ones %.1e\n",
              fwd, cpu_fwd / fwd, back, cpu_back / back, ry, rb);
  std::printf("  joseph cuda kernels: forward %.3f ms; back into the quads (zeroing included) %.3f ms, quads to image"
              " %.3f ms\n",
              fwd_kernel, back_kernel, to_image);
  j["cuda"] = {{"device", gpu->describe()}, {"forward_ms", fwd}, {"back_ms", back},
               {"forward_speedup_vs_cpu", cpu_fwd / fwd}, {"back_speedup_vs_cpu", cpu_back / back},
               {"forward_rel_l2_vs_cpu", ry}, {"back_rel_l2_vs_cpu", rb},
               {"kernel_forward_ms", fwd_kernel}, {"kernel_back_quads_ms", back_kernel}, {"kernel_quads_to_image_ms", to_image}};
#else
  (void)reps, (void)backends;
#endif
  return j;
}

}  // namespace tomo::bench::pet_joseph
