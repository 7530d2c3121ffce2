// bench_fdk --b-variants: the candidate kernels of B (bench/cuda/fdk/back_voxel_variants.hpp)
// beside the product's B (CudaProjector::back_voxel_device, hardware and exact) on one synthetic
// stack, on the projector bench's circular scan: 256³ from 360 views of 512² and RabbitCT's size
// (512³ from 496 views of 1248×960). Each row: median ms (weighting pass included, as the
// product's), max |Δ| / max |B| and relative L2 against the product's hardware B, and relative
// L2 against its exact B (fp32 bilinear weights), which is each variant's accuracy. With --dump
// the geometry (and at 256³ the stack and the product's volumes) go to .npy files for
// bench/python/astra_bp_variants.py, which times ASTRA's BP3D_CUDA on the same geometry.
#include "bench/fdk_bench_bvariants.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "bench/fdk_bench_cases.hpp"
#include "bench/harness.hpp"
#include "compute/fdk/forward_projector.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/orbit_symmetry.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/fdk/ray_model.hpp"
#include "compute/fdk/voxel_back_fdk.hpp"
#include "compute/io/npy.hpp"
#ifdef TOMO_HAVE_CUDA
#include "bench/cuda/fdk/back_voxel_sym.hpp"
#include "bench/cuda/fdk/back_voxel_variants.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/surface.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/fdk/cuda_projector.hpp"
#include "cuda/fdk/voxel_back_kernels.hpp"
#endif

namespace tomo::fdk::bench_bvariants {
namespace {

using bench_cases::Case;

ConeGeometry geometry(const Case& c, double* pixel_mm) {
  CArmGeometry carm;
  carm.projections = c.views;
  carm.arc_deg = 360.0 * (c.views - 1) / c.views;  // as the projector bench
  carm.sx = c.sx;
  carm.sy = c.sy;
  carm.pixel_mm = 600.0 / c.sx;
  *pixel_mm = carm.pixel_mm;
  return {rabbit_grid(c.L, 256.0), c.sx, c.sy, carm.matrices()};
}

#ifdef TOMO_HAVE_CUDA
using tomo::cuda::DeviceBuffer;
namespace fb = tomo::bench::fdk_b;

// Every `stride`-th z-slice of a device volume (the comparison's sample at 512³).
std::vector<float> slices(const float* d, int L, int stride) {
  std::vector<float> h;
  const std::size_t plane = static_cast<std::size_t>(L) * L;
  for (int k = 0; k < L; k += stride) {
    h.resize(h.size() + plane);
    TOMO_CUDA_CHECK(cudaMemcpy(h.data() + h.size() - plane, d + k * plane, plane * sizeof(float),
                               cudaMemcpyDeviceToHost));
  }
  return h;
}

struct Diff {
  double max_rel = 0, rel_l2 = 0;
};
Diff diff(const std::vector<float>& a, const std::vector<float>& ref) {
  double m = 0, md = 0, num = 0, den = 0;
  for (std::size_t e = 0; e < a.size(); ++e) {
    const double d = double(a[e]) - ref[e];
    m = std::max(m, std::abs(double(ref[e])));
    md = std::max(md, std::abs(d));
    num += d * d;
    den += double(ref[e]) * ref[e];
  }
  return {m > 0 ? md / m : 0, den > 0 ? std::sqrt(num / den) : 0};
}

template <class F>
double median_ms(int reps, cudaStream_t s, F&& f) {
  cudaEvent_t a, b;
  TOMO_CUDA_CHECK(cudaEventCreate(&a));
  TOMO_CUDA_CHECK(cudaEventCreate(&b));
  f();
  TOMO_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    TOMO_CUDA_CHECK(cudaEventRecord(a, s));
    f();
    TOMO_CUDA_CHECK(cudaEventRecord(b, s));
    TOMO_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    TOMO_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  TOMO_CUDA_CHECK(cudaEventDestroy(a));
  TOMO_CUDA_CHECK(cudaEventDestroy(b));
  return bench::median_of(t);
}

void write_meta(const std::filesystem::path& dir, const Case& c, double pixel_mm, const ConeGeometry& g) {
  std::filesystem::create_directories(dir);
  std::vector<double> m;
  for (const Mat34& P : g.matrices)
    for (int r = 0; r < 3; ++r)
      for (int col = 0; col < 4; ++col) m.push_back(P.at(r, col));
  write_npy(dir / "matrices.npy", m, std::vector<std::size_t>{std::size_t(c.views), 3, 4});
  nlohmann::json meta = {{"L", c.L}, {"views", c.views}, {"cols", c.sx}, {"rows", c.sy}, {"pixel_mm", pixel_mm}};
  std::ofstream(dir / "meta.json") << meta.dump(2);
}

nlohmann::json run_case(const Options& o, const Case& c) {
  double pixel_mm = 0;
  const ConeGeometry g = geometry(c, &pixel_mm);
  const std::size_t voxels = g.grid.count(), pixels = g.views() * g.image_size();
  std::printf("\nB variants, %s: %d^3 over 256 mm from %d views of %dx%d (pixel %.3g mm), median of %d, ms\n",
              c.name.c_str(), c.L, c.views, c.sx, c.sy, pixel_mm, o.reps);
  if (!every_voxel_in_front(g)) {
    std::printf("  not every voxel in front of every source: the candidates leave out the t > 0 test; skipped\n");
    return {{"skipped", "voxels behind a source"}};
  }
  cuda_impl::CudaProjector hw, ex;
  hw.configure({.interpolation = Interpolation::hardware});
  ex.configure({.interpolation = Interpolation::exact});
  hw.setup(g);
  ex.setup(g);
  cudaStream_t s = hw.stream();
  DeviceBuffer<float> y(pixels), ref_hw(voxels), ref_ex(voxels), x(voxels);
  fb::synthetic_stack(y.data(), g.views(), g.sx, g.sy, s);
  TOMO_CUDA_CHECK(cudaStreamSynchronize(s));

  const double hw_ms = median_ms(o.reps, s, [&] { hw.back_voxel_device(y.data(), ref_hw.data()); });
  const double ex_ms = median_ms(o.reps, ex.stream(), [&] { ex.back_voxel_device(y.data(), ref_ex.data()); });
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  const int stride = c.L > 256 ? 8 : 1;
  const std::vector<float> h_hw = slices(ref_hw.data(), c.L, stride), h_ex = slices(ref_ex.data(), c.L, stride);
  const Diff hw_vs_ex = diff(h_hw, h_ex);
  std::printf("  product B, hardware bilinear: %8.2f   (rel L2 vs exact B %.2e, max rel %.2e)\n", hw_ms, hw_vs_ex.rel_l2,
              hw_vs_ex.max_rel);
  std::printf("  product B, exact:             %8.2f\n", ex_ms);
  nlohmann::json out = {{"L", c.L},
                        {"views", c.views},
                        {"detector", {c.sx, c.sy}},
                        {"pixel_mm", pixel_mm},
                        {"product_hardware_ms", hw_ms},
                        {"product_exact_ms", ex_ms},
                        {"product_hardware_rel_l2_vs_exact", hw_vs_ex.rel_l2},
                        {"compared_slices_stride", stride}};

  // The product's weights and matrices, as CudaProjector::setup makes them.
  std::vector<float> mats(12 * std::size_t(g.views())), weights(tomo::fdk::cuda_detail::kPixelWeightFloats * g.views());
  std::vector<int> ids(g.views());
  for (int n = 0; n < g.views(); ++n) {
    ids[n] = n;
    const VoxelView v = voxel_view(g.grid, g.matrices[n], n);
    for (int e = 0; e < 12; ++e) mats[12 * n + e] = static_cast<float>(v.p[e]);
    float* w = weights.data() + tomo::fdk::cuda_detail::kPixelWeightFloats * n;
    for (int a = 0; a < 3; ++a) {
      w[a] = static_cast<float>(v.du_mm[a]);
      w[3 + a] = static_cast<float>(v.dv_mm[a]);
      w[6 + a] = static_cast<float>(v.d1_mm[a]);
    }
    w[9] = static_cast<float>(v.scale);
  }
  DeviceBuffer<float> wd{std::span<const float>(weights)};
  DeviceBuffer<int> idd{std::span<const int>(ids)};
  auto layers = cuda::CudaArray::of<float>({std::size_t(g.sx), std::size_t(g.sy), std::size_t(g.views())},
                                           cudaArrayLayered | cudaArraySurfaceLoadStore);
  cuda::SurfaceObject surf(layers);
  cuda::TextureObject tex(layers, cuda::TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  DeviceBuffer<float> padded(std::size_t(g.sx + 2) * (g.sy + 2) * g.views());
  fb::Inputs in;
  in.x = x.data();
  in.nx = g.grid.dims[0];
  in.ny = g.grid.dims[1];
  in.nz = g.grid.dims[2];
  for (int a = 0; a < 3; ++a) {
    in.origin[a] = static_cast<float>(g.grid.origin_mm[a]);
    in.voxel[a] = static_cast<float>(g.grid.voxel_mm[a]);
  }
  in.sx = g.sx;
  in.sy = g.sy;
  in.views = g.views();
  in.y = y.data();
  in.view_ids = idd.data();
  in.weights = wd.data();
  in.surface = surf.get();
  in.tex = tex.get();
  in.padded = padded.data();
  in.mats = mats.data();
  // The orbit's turn symmetry, checked on the double matrices (relative 1e-6): the symmetric
  // candidates run only where it holds.
  std::vector<std::array<double, 12>> dp(g.views());
  for (int n = 0; n < g.views(); ++n) dp[n] = voxel_view(g.grid, g.matrices[n], n).p;
  const OrbitSymmetry half = orbit_symmetry(g.grid, dp, 2), quarter = orbit_symmetry(g.grid, dp, 4);
  auto inv_c2 = [&](const OrbitSymmetry& o) {
    std::vector<float> f(g.views(), 1.0f);
    for (std::size_t m = 0; m < o.scale.size(); ++m) f[m] = static_cast<float>(1.0 / (o.scale[m] * o.scale[m]));
    return f;
  };
  DeviceBuffer<float> half_c{std::span<const float>(inv_c2(half))}, quarter_c{std::span<const float>(inv_c2(quarter))};
  std::printf("  half-turn pairs (n, n+N/2): %s (max rel %.1e)\n", half.order == 2 ? "yes" : half.reason.c_str(),
              half.max_rel);
  std::printf("  quarter-turn quads (n + r*N/4): %s (max rel %.1e, sense %+d)\n",
              quarter.order == 4 ? "yes" : quarter.reason.c_str(), quarter.max_rel, quarter.sense);
  in.half_turn = half.order == 2;
  in.quarter_sense = quarter.order == 4 ? quarter.sense : 0;
  in.half_weight_max = tomo::fdk::cuda_detail::turn_weight_max(weights.data(), inv_c2(half).data(), g.views(), g.sx, g.sy);
  in.quarter_weight_max =
      tomo::fdk::cuda_detail::turn_weight_max(weights.data(), inv_c2(quarter).data(), g.views(), g.sx, g.sy);
  in.half_inv_c2 = half_c.data();
  in.quarter_inv_c2 = quarter_c.data();
  fb::clear_padded(in, s);
  std::printf("  z-invariant geometry (p[2] = p[10] = 0 in every view): %s\n",
              fb::z_invariant(mats.data(), g.views()) ? "yes" : "no");
  std::printf("  %-52s %8s %8s %10s %10s %10s\n", "variant", "ms", "vs prod", "max rel", "relL2 hw", "relL2 exact");

  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::pair<double, fb::Variant>> ranked;
  auto time_one = [&](const fb::Variant& v, bool dump_volume) {
    double ms = 0;
    bool ok = true;
    ms = median_ms(o.reps, s, [&] { ok = fb::run_variant(v, in, s); });
    if (!ok) {
      std::printf("  %-52s %8s\n", v.name.c_str(), "n/a");
      return;
    }
    TOMO_CUDA_CHECK(cudaStreamSynchronize(s));
    const std::vector<float> h = slices(x.data(), c.L, stride);
    const Diff d = diff(h, h_hw), e = diff(h, h_ex);
    std::printf("  %-52s %8.2f %7.2fx %10.2e %10.2e %10.2e\n", v.name.c_str(), ms, hw_ms / ms, d.max_rel, d.rel_l2,
                e.rel_l2);
    rows.push_back({{"variant", v.name}, {"ms", ms}, {"speedup_vs_product", hw_ms / ms}, {"max_rel_vs_product", d.max_rel},
                    {"rel_l2_vs_product", d.rel_l2}, {"rel_l2_vs_exact", e.rel_l2}, {"block", {v.bx, v.by}},
                    {"kz", v.kz}, {"ldg_every", v.ldg_every}});
    ranked.push_back({ms, v});
    // The turn-symmetric rows' volumes for ASTRA's image comparison (256³ only, as the product's).
    if (dump_volume && !o.dump.empty() && c.L <= 256 && v.sym != 0) {
      std::string slug = v.name;
      for (char& ch : slug)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      const std::filesystem::path dir = std::filesystem::path(o.dump) / c.name;
      std::filesystem::create_directories(dir);
      write_npy(dir / ("ours_b_" + slug + ".npy"), h,
                std::vector<std::size_t>{std::size_t(c.L), std::size_t(c.L), std::size_t(c.L)});
    }
  };
  auto chosen = [&](const std::string& name) {
    if (o.only.empty()) return true;
    std::stringstream parts(o.only);
    for (std::string part; std::getline(parts, part, ',');)
      if (!part.empty() && name.find(part) != std::string::npos) return true;
    return false;
  };
  for (const fb::Variant& v : fb::variants())
    if (chosen(v.name)) time_one(v, true);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto best = ranked;
  std::printf("  block shapes of the %d fastest:\n", o.sweep_top);
  for (int k = 0; k < o.sweep_top && k < static_cast<int>(best.size()); ++k)
    for (const fb::Variant& v : fb::block_sweep(best[k].second)) time_one(v, false);
  out["rows"] = rows;
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!ranked.empty()) {
    std::printf("  fastest: %s, %.2f ms = %.2fx the product's B\n", ranked[0].second.name.c_str(), ranked[0].first,
                hw_ms / ranked[0].first);
    out["fastest"] = {{"variant", ranked[0].second.name}, {"ms", ranked[0].first}};
  }

  fb::release_sym();
  if (!o.dump.empty()) {
    const std::filesystem::path dir = std::filesystem::path(o.dump) / c.name;
    write_meta(dir, c, pixel_mm, g);
    std::ofstream(dir / "ours.json") << out.dump(2);
    if (c.L <= 256) {  // the arrays for the image comparison (the 512³ stack is 2.4 GB: timing only)
      const std::vector<std::size_t> vol{std::size_t(c.L), std::size_t(c.L), std::size_t(c.L)};
      write_npy(dir / "stack.npy", y.to_host(), std::vector<std::size_t>{std::size_t(c.views), std::size_t(c.sy),
                                                                       std::size_t(c.sx)});
      write_npy(dir / "ours_b_hardware.npy", h_hw, vol);
      write_npy(dir / "ours_b_exact.npy", h_ex, vol);
    }
  }
  return out;
}
#endif

}  // namespace

int run(const Options& o, nlohmann::json& out) {
#ifdef TOMO_HAVE_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("b-variants: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp p{};
  TOMO_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("b-variants on %s\n", p.name);
  out["device"] = p.name;
  std::vector<Case> cases;
  if (!bench_cases::parse(o.cases, "--b-cases", cases)) return 2;
  for (const Case& c : cases) out["b_variants"][c.name] = run_case(o, c);
  // The summary: ms and relative L2 against the exact B of every row, per case.
  std::printf("\nB variants summary (%s), median ms / rel L2 vs exact B\n", p.name);
  for (const Case& c : cases) {
    const nlohmann::json& r = out["b_variants"][c.name];
    if (!r.contains("product_hardware_ms")) continue;
    std::printf("  %-8s %-52s %8.2f %10.2e\n", c.name.c_str(), "product B, hardware", r["product_hardware_ms"].get<double>(),
                r["product_hardware_rel_l2_vs_exact"].get<double>());
    std::printf("  %-8s %-52s %8.2f %10s\n", c.name.c_str(), "product B, exact", r["product_exact_ms"].get<double>(), "0");
    for (const nlohmann::json& row : r["rows"])
      std::printf("  %-8s %-52s %8.2f %10.2e\n", c.name.c_str(), row["variant"].get<std::string>().c_str(),
                  row["ms"].get<double>(), row["rel_l2_vs_exact"].get<double>());
  }
  return 0;
#else
  (void)o;
  (void)out;
  std::printf("b-variants: built without CUDA\n");
  return 0;
#endif
}

}  // namespace tomo::fdk::bench_bvariants
