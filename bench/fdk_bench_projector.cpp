// bench_fdk --projector: the cone-beam projector pair (A, exact Aᵀ, voxel-driven B), FDK's
// back-projector and one SIRT and one CGLS iteration with every array on the GPU, cuda beside
// cpu, on a circular scan (default 256³ over 256 mm from 360 views of 512², the head phantom's
// closed-form line integrals). With --dump DIR the inputs and our results go to .npy files for
// bench/python/astra_side_by_side.py --projector, which runs ASTRA on the same arrays.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/fdk_bench_projector.hpp"
#include "bench/harness.hpp"
#include "compute/core/registry.hpp"
#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/iterative.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/ray_model.hpp"
#include "compute/fdk/simulate.hpp"
#include "compute/io/npy.hpp"
#ifdef TOMO_HAVE_CUDA
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/fdk/cuda_projector.hpp"
#include "cuda/fdk/projector_kernels.hpp"
#include "bench/cuda/fdk/projector_scatter.hpp"
#endif

namespace tomo::fdk::bench_projector {


namespace {

struct Problem {
  CArmGeometry carm;
  ConeGeometry g;
  VolumeF x;             // the voxelised head
  std::vector<float> b;  // its closed-form line integrals
};

Problem make_problem(const Options& o) {
  Problem p;
  p.carm.projections = o.views;
  p.carm.arc_deg = 360.0 * (o.views - 1) / o.views;  // a full circle, no view twice
  p.carm.sx = o.sx;
  p.carm.sy = o.sy;
  p.carm.pixel_mm = 600.0 / o.sx;  // the 256 mm cube's shadow at magnification 1.53 fits
  const Grid3 grid = rabbit_grid(o.L, 256.0);
  p.g = {grid, o.sx, o.sy, p.carm.matrices()};
  const Phantom ph = shepp_logan_3d(100.0, 0.02);
  p.x = ph.voxelize(grid, 1);
  p.b = simulate_projections(ph, p.carm);
  return p;
}

void dump(const Options& o, const std::string& name, std::span<const float> v, std::vector<std::size_t> shape) {
  // The two settings the ASTRA side by side compares (exact at half a voxel, hardware at one).
  const bool wanted = name.find("_exact_half") != std::string::npos ||
                      name.find("_hardware_one") != std::string::npos || name.find('_') == std::string::npos ||
                      name == "line_integrals";
  if (o.dump.empty() || !wanted) return;
  write_npy(std::filesystem::path(o.dump) / (name + ".npy"), v, shape);
}

template <class F, class S>
double median_ms(int reps, F&& f, S&& sync) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(bench::time_ms(f, sync));
  return bench::median_of(t);
}

// Per-iteration time of `o` on projector A: the median of the gaps between consecutive
// iteration callbacks (setup, weights and the first iteration excluded).
double iteration_ms(ConeBeamProjector& A, const Problem& p, IterativeOptions o, int reps, std::vector<float>* out) {
  o.iterations = reps + 1;
  std::vector<bench::Clock::time_point> at;
  VolumeF v = reconstruct_iterative(A, p.g, p.b, o, [&](int, double) { at.push_back(bench::Clock::now()); });
  std::vector<double> gaps;
  for (std::size_t k = 1; k < at.size(); ++k)
    gaps.push_back(std::chrono::duration<double, std::milli>(at[k] - at[k - 1]).count());
  if (out) *out = std::move(v.data);
  return bench::median_of(gaps);
}

void cpu_rows(const Options& o, const Problem& p, nlohmann::json& out) {
  auto A = BackendRegistry<ConeBeamProjector>::instance().create("cpu");
  A->setup(p.g);
  std::vector<int> views;
  for (int k = 0; k < o.cpu_views; ++k) views.push_back(k * o.views / o.cpu_views);
  std::vector<float> y(views.size() * p.g.image_size()), x(p.g.grid.count());
  const double scale = double(o.views) / views.size();
  auto sync = [] {};
  const double f = scale * bench::time_ms([&] { A->forward(p.x.data, y, views); }, sync);
  const double b = scale * bench::time_ms([&] { A->back(y, x, views); }, sync);
  const double bv = scale * bench::time_ms([&] { A->back_voxel(y, x, views); }, sync);
  out["cpu"] = {{"views_run", views.size()}, {"forward_ms", f}, {"back_ms", b}, {"back_voxel_ms", bv},
                {"sirt_iteration_ms_estimate", f + bv}, {"cgls_iteration_ms_estimate", f + b}};
  std::printf("cpu (%zu views, scaled to %d): forward %.0f ms, exact back %.0f ms, voxel back %.0f ms\n",
              views.size(), o.views, f, b, bv);
}

#ifdef TOMO_HAVE_CUDA
using tomo::cuda::DeviceBuffer;

// Every view's rays and the list of all views, on the device (the kernels' launch inputs).
struct DeviceRays {
  DeviceBuffer<ViewRays> rays;
  DeviceBuffer<int> views;
  explicit DeviceRays(const ConeGeometry& g) {
    std::vector<ViewRays> r(g.views());
    std::vector<int> all(g.views());
    for (int n = 0; n < g.views(); ++n) {
      r[n] = view_rays(g.grid, g.matrices[n], n);
      all[n] = n;
    }
    rays = DeviceBuffer<ViewRays>{std::span<const ViewRays>(r)};
    views = DeviceBuffer<int>{std::span<const int>(all)};
  }
};

// The ray-driven kernels over block shapes (the product's is 32×4).
void sweep_blocks(const Problem& p, nlohmann::json& out) {
  const ConeGeometry& g = p.g;
  const DeviceRays dr(g);
  const ViewRays* rd = dr.rays.data();
  const int* vd = dr.views.data();
  DeviceBuffer<float> y(g.views() * g.image_size()), xd{std::span<const float>(p.x.data)};
  auto arr = cuda::CudaArray::of<float>({std::size_t(g.grid.dims[0]), std::size_t(g.grid.dims[1]),
                                         std::size_t(g.grid.dims[2])});
  arr.copy_from_device(xd.data());
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  cuda::TextureObject lin(arr, cuda::TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  cuda::TextureObject pt(arr, cuda::TextureOptions::point_clamp().with_address(cudaAddressModeBorder));
  const dim3 shapes[] = {{32, 4}, {32, 8}, {16, 8}, {16, 16}, {8, 8}, {8, 16}, {64, 2}, {64, 4}, {128, 1}, {32, 2}};
  auto sync = [] { TOMO_CUDA_CHECK(cudaDeviceSynchronize()); };
  nlohmann::json rows = nlohmann::json::array();
  std::printf("block sweep (ms):      shape   fwd hw   fwd exact   scatter back\n");
  for (const dim3& s : shapes) {
    cuda_detail::RayLaunch l{rd, vd, g.views(), g.sx, g.sy, g.grid.dims, 0.5 * g.grid.voxel_mm[0], s};
    const double hw = median_ms(3, [&] { cuda_detail::launch_forward(l, lin, true, y.data(), nullptr); }, sync);
    const double ex = median_ms(3, [&] { cuda_detail::launch_forward(l, pt, false, y.data(), nullptr); }, sync);
    // The scatter Aᵀ (one thread a pixel, as A) is slow: timed once, on the first three shapes only.
    const double bk = &s - shapes < 3 ? median_ms(1, [&] {
      tomo::bench::fdk_projector::launch_back_scatter(l, y.data(), xd.data(), nullptr);
    }, sync) : 0.0;
    std::printf("                     %3ux%-3u  %7.2f  %9.2f  %11.2f\n", s.x, s.y, hw, ex, bk);
    rows.push_back(
        {{"block", {s.x, s.y}}, {"forward_hardware_ms", hw}, {"forward_exact_ms", ex}, {"back_scatter_ms", bk}});
  }
  out["block_sweep_step_half_voxel"] = rows;
}

// The exact transpose Aᵀ two ways on the same stacks: the global-atomic scatter and the tiled
// form (shared-memory boxes, the product's) at two sizes of its passes, with the image difference.
// Two stacks: the line integrals plus 0.01 everywhere (as CGLS's residual: no zeros) and the line
// integrals themselves (zero outside the head's shadow, whose rays both skip).
void transpose_rows(const Options& o, const Problem& p, nlohmann::json& out) {
  const ConeGeometry& g = p.g;
  const DeviceRays dr(g);
  DeviceBuffer<float> x(g.grid.count());
  const cuda_detail::RayLaunch l{dr.rays.data(), dr.views.data(), g.views(), g.sx, g.sy, g.grid.dims,
                                 0.5 * g.grid.voxel_mm[0]};
  auto sync = [] { TOMO_CUDA_CHECK(cudaDeviceSynchronize()); };
  auto zero = [&] { TOMO_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.size() * sizeof(float), nullptr)); };
  std::vector<float> dense(p.b);
  for (float& e : dense) e += 0.01f;
  const int passes[] = {64, 16};  // views a pass: the product's (1 GiB of rays) and fewer
  DeviceBuffer<float> scratch(cuda_detail::tiled_scratch_floats(g.grid.dims, g.sx, g.sy, 64));
  nlohmann::json rows = nlohmann::json::array();
  const int reps = std::max(1, std::min(o.reps, 3));
  std::printf("exact transpose, step 1/2 voxel (ms, median of %d):  stack  kernel  views/pass  ms  rel L2 vs scatter\n",
              reps);
  for (int d = 0; d < 2; ++d) {
    DeviceBuffer<float> y{std::span<const float>(d == 0 ? dense : p.b)};
    const char* stack = d == 0 ? "dense (+0.01)" : "line integrals";
    const double ts = median_ms(reps, [&] {
      zero();
      tomo::bench::fdk_projector::launch_back_scatter(l, y.data(), x.data(), nullptr);
    }, sync);
    const std::vector<float> ref = x.to_host();
    std::printf("  %-15s %-28s     %9.2f\n", stack, "scatter", ts);
    std::fflush(stdout);
    rows.push_back({{"stack", stack}, {"kernel", "scatter"}, {"ms", ts}});
    for (const int per : passes) {
      const double tt = median_ms(reps, [&] {
        zero();
        cuda_detail::launch_back_tiled(l, y.data(), x.data(), scratch.data(), per, nullptr);
      }, sync);
      const double diff = relative_l2(x.to_host(), ref);
      std::printf("  %-15s %-28s %3d %9.2f  %.2e\n", stack, "tiled", per, tt, diff);
      std::fflush(stdout);
      rows.push_back({{"stack", stack}, {"kernel", "tiled"}, {"views_per_pass", per}, {"ms", tt},
                      {"rel_l2_vs_scatter", diff}});
    }
  }
  out["exact_transpose_step_half_voxel"] = rows;
}

void cuda_rows(const Options& o, const Problem& p, nlohmann::json& out) {
  const ConeGeometry& g = p.g;
  DeviceBuffer<float> xd{std::span<const float>(p.x.data)}, bd{std::span<const float>(p.b)};
  DeviceBuffer<float> yd(p.b.size()), vd(g.grid.count());
  nlohmann::json rows = nlohmann::json::array();
  std::printf("cuda, arrays on the GPU (ms, median of %d): interpolation step  forward  exact back  voxel back\n",
              o.reps);
  for (Interpolation m : {Interpolation::exact, Interpolation::hardware})
    for (double step : {0.5, 1.0}) {
      const std::string tag = to_string(m) + (step == 0.5 ? "_half" : "_one");
      if (!o.settings.empty() && ("," + o.settings + ",").find("," + tag + ",") == std::string::npos) continue;
      cuda_impl::CudaProjector A;
      A.configure({.step_voxels = step, .interpolation = m});
      A.setup(g);
      auto sync = [&] { A.synchronize(); };
      const double f = median_ms(o.reps, [&] { A.forward_device(xd.data(), yd.data()); }, sync);
      dump(o, "ours_fp_" + tag, yd.to_host(), {std::size_t(g.views()), std::size_t(g.sy), std::size_t(g.sx)});
      const double bv = median_ms(o.reps, [&] { A.back_voxel_device(bd.data(), vd.data()); }, sync);
      dump(o, "ours_bp_voxel_" + tag, vd.to_host(), {std::size_t(o.L), std::size_t(o.L), std::size_t(o.L)});
      // The exact transpose Aᵀ (tiled; transpose_rows times the scatter it replaced): timed twice,
      // CGLS (which needs it) on two of the four settings.
      const double b = o.exact_transpose
                           ? median_ms(std::min(o.reps, 2), [&] { A.back_device(bd.data(), vd.data()); }, sync)
                           : 0.0;
      const bool with_cgls = o.exact_transpose && (m == Interpolation::exact) == (step == 0.5);
      std::printf("                                            %-8s %4.1f  %8.2f  %10.2f  %10.2f\n",
                  to_string(m).c_str(), step, f, b, bv);
      nlohmann::json row = {{"interpolation", to_string(m)}, {"step_voxels", step}, {"forward_ms", f},
                            {"back_exact_ms", b}, {"back_voxel_ms", bv}};
      for (Algorithm a : {Algorithm::sirt, Algorithm::cgls}) {
        if (a == Algorithm::cgls && !with_cgls) continue;
        std::vector<float> v;
        const double ms = iteration_ms(A, p, {.algorithm = a}, o.reps, &v);
        row[to_string(a) + "_iteration_ms"] = ms;
        std::printf("                                            %s one iteration: %.2f ms\n", to_string(a).c_str(), ms);
        dump(o, "ours_" + to_string(a) + "_" + tag, v, {std::size_t(o.L), std::size_t(o.L), std::size_t(o.L)});
      }
      {  // CGLS with B, as ASTRA's CGLS3D_CUDA: every setting (a gather, as cheap as SIRT's step)
        std::vector<float> v;
        const double ms = iteration_ms(A, p, {.algorithm = Algorithm::cgls, .cgls_back = CglsBack::voxel}, o.reps, &v);
        row["cgls_voxel_iteration_ms"] = ms;
        std::printf("                                            cgls (B) one iteration: %.2f ms\n", ms);
        dump(o, "ours_cgls_voxel_" + tag, v, {std::size_t(o.L), std::size_t(o.L), std::size_t(o.L)});
      }
      rows.push_back(row);
    }
  out["cuda"] = rows;
  out["iterations_of_dumped_volumes"] = o.reps + 1;
  // FDK's voxel-driven back-projector (RabbitCT weights 1/w²), projections on the GPU.
  auto bp = BackendRegistry<ConeBeamBackprojector>::instance().create("cuda");
  bp->configure({.interpolation = Interpolation::hardware});
  const ProjectionView view{g.sx, g.sy, g.views(), g.matrices.data(), bd.data()};
  bp->reset(g.grid);
  bp->prepare(view);
  const double fdk_ms = median_ms(o.reps, [&] {
    bp->reset(g.grid);
    bp->backproject(view);
  }, [&] { bp->synchronize(); });
  out["cuda_fdk_backprojector_hardware_ms"] = fdk_ms;
  std::printf("cuda FDK back-projector (hardware bilinear, 1/w^2): %.2f ms\n", fdk_ms);
}
#endif

}  // namespace

int run(const Options& o, nlohmann::json& out) {
  std::printf("projector bench: %d^3 over 256 mm, %d views of %dx%d over 360 deg\n", o.L, o.views, o.sx, o.sy);
  const Problem p = make_problem(o);
  out["projector"] = {{"L", o.L}, {"views", o.views}, {"detector", {o.sx, o.sy}}, {"pixel_mm", p.carm.pixel_mm}};
  if (!o.dump.empty()) {
    std::filesystem::create_directories(o.dump);
    std::vector<double> m;
    for (const Mat34& P : p.g.matrices)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) m.push_back(P.at(r, c));
    write_npy(std::filesystem::path(o.dump) / "matrices.npy", m, std::vector<std::size_t>{std::size_t(o.views), 3, 4});
    dump(o, "volume", p.x.data, {std::size_t(o.L), std::size_t(o.L), std::size_t(o.L)});
    dump(o, "line_integrals", p.b, {std::size_t(o.views), std::size_t(o.sy), std::size_t(o.sx)});
  }
  if (o.cpu_views > 0 && !o.sweep_only) cpu_rows(o, p, out);
#ifdef TOMO_HAVE_CUDA
  if (BackendRegistry<ConeBeamProjector>::instance().available("cuda").ok) {
    if (!o.sweep_only && o.exact_transpose) transpose_rows(o, p, out);
    if (!o.sweep_only) cuda_rows(o, p, out);
    if (o.sweep || o.sweep_only) sweep_blocks(p, out);
  } else {
    std::printf("cuda: no device\n");
  }
#endif
  return 0;
}

}  // namespace tomo::fdk::bench_projector
