// bench_pet's prior rows (pet_bench_prior.hpp). A pass reads x and κ and writes one value per
// voxel (12 bytes; the 26 neighbours come from caches): its bandwidth is set against a copy's
// (8 bytes per float) of the same size.
#include "bench/pet_bench_prior.hpp"

#include <algorithm>
#include <cstdio>

#include "bench/gl_ceilings.hpp"
#include "compute/core/registry.hpp"
#include "compute/pet/prior.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/pet/bindings.hpp"

#if defined(TOMO_HAVE_CUDA)
#include "bench/cuda/pet/prior_probes.hpp"
#endif

namespace tomo::bench::pet_prior {

namespace {

constexpr double kPassBytes = 12.0;  // x and κ read, the result written

struct Times {
  double value_ms = 0, gradient_ms = 0, hessian_ms = 0, copy_gbps = 0;
  double derivatives_ms = 0;  // gradient and Hessian from one pass (16 bytes a voxel), 0: none
  double lean_gradient_ms = 0, lean_rel_l2 = 0;  // cuda's lab variant (bench/cuda/pet), 0: none
  double tiled_value_ms = 0, tiled_gradient_ms = 0, tiled_hessian_ms = 0, tiled_rel_l2 = 0;  // cuda's previous kernel
  double v1_gradient_ms = 0, v1_rel_l2 = 0;  // cuda's first pair kernel
};

nlohmann::json row(const std::string& backend, const std::array<int, 3>& d, const Times& t) {
  const double n = double(d[0]) * d[1] * d[2];
  auto gbps = [&](double ms) { return kPassBytes * n / (ms * 1e-3) / 1e9; };
  const double g = gbps(t.gradient_ms);
  std::printf("  prior %-10s %dx%dx%d: value %.3f ms, gradient %.3f ms (%.0f GB/s), hessian %.3f ms; copy %.0f GB/s;"
              " gradient at %.0f %% of copy\n",
              backend.c_str(), d[0], d[1], d[2], t.value_ms, t.gradient_ms, g, t.hessian_ms, t.copy_gbps,
              100.0 * g / t.copy_gbps);
  nlohmann::json j = {{"backend", backend}, {"dims", d},          {"value_ms", t.value_ms},
                      {"gradient_ms", t.gradient_ms}, {"hessian_ms", t.hessian_ms}, {"gradient_gbps", g},
                      {"value_gbps", gbps(t.value_ms)}, {"hessian_gbps", gbps(t.hessian_ms)}, {"copy_gbps", t.copy_gbps},
                      {"gradient_over_copy", g / t.copy_gbps}};
  if (t.derivatives_ms > 0) {
    const double db = 16.0 * n / (t.derivatives_ms * 1e-3) / 1e9;
    std::printf("  prior %-10s gradient + Hessian in one pass %.3f ms (%.0f GB/s at 16 bytes a voxel, %.0f %% of copy)"
                " against the two passes' %.3f ms: %.2fx\n",
                backend.c_str(), t.derivatives_ms, db, 100.0 * db / t.copy_gbps, t.gradient_ms + t.hessian_ms,
                (t.gradient_ms + t.hessian_ms) / t.derivatives_ms);
    j["derivatives_ms"] = t.derivatives_ms;
    j["derivatives_gbps"] = db;
    j["derivatives_over_copy"] = db / t.copy_gbps;
    j["derivatives_speedup_vs_separate"] = (t.gradient_ms + t.hessian_ms) / t.derivatives_ms;
  }
  if (t.lean_gradient_ms > 0) {
    const double lg = gbps(t.lean_gradient_ms);
    std::printf("  prior %-10s lab variant of the gradient (host weights, 3D blocks): %.3f ms (%.0f GB/s, %.0f %% of copy),"
                " rel L2 vs the previous kernel %.1e\n",
                backend.c_str(), t.lean_gradient_ms, lg, 100.0 * lg / t.copy_gbps, t.lean_rel_l2);
    j["lean_gradient_ms"] = t.lean_gradient_ms;
    j["lean_gradient_over_copy"] = lg / t.copy_gbps;
    j["lean_rel_l2"] = t.lean_rel_l2;
  }
  if (t.tiled_gradient_ms > 0) {
    const double tg = gbps(t.tiled_gradient_ms);
    std::printf("  prior %-10s previous kernel (26 terms gathered per voxel): value %.3f ms, gradient %.3f ms (%.0f GB/s,"
                " %.0f %% of copy), hessian %.3f ms; product gradient vs it: rel L2 %.1e\n",
                backend.c_str(), t.tiled_value_ms, t.tiled_gradient_ms, tg, 100.0 * tg / t.copy_gbps, t.tiled_hessian_ms,
                t.tiled_rel_l2);
    j["tiled_value_ms"] = t.tiled_value_ms;
    j["tiled_gradient_ms"] = t.tiled_gradient_ms;
    j["tiled_hessian_ms"] = t.tiled_hessian_ms;
    j["tiled_gradient_over_copy"] = tg / t.copy_gbps;
    j["tiled_rel_l2"] = t.tiled_rel_l2;
  }
  if (t.v1_gradient_ms > 0) {
    const double vg = gbps(t.v1_gradient_ms);
    std::printf("  prior %-10s first pair kernel (guarded, unshifted): gradient %.3f ms (%.0f GB/s, %.0f %% of copy),"
                " rel L2 vs the previous kernel %.1e\n",
                backend.c_str(), t.v1_gradient_ms, vg, 100.0 * vg / t.copy_gbps, t.v1_rel_l2);
    j["v1_gradient_ms"] = t.v1_gradient_ms;
    j["v1_gradient_over_copy"] = vg / t.copy_gbps;
    j["v1_rel_l2"] = t.v1_rel_l2;
  }
  return j;
}

struct RdpPass {
  const gl::Program& program;
  gl::Uniform<gl::Vec3i> dims;
  gl::Uniform<gl::Vec3f> voxel;
  gl::Uniform<gl::Vec2f> params;
  explicit RdpPass(const gl::Program& p) : program(p), dims(p, "u_dims"), voxel(p, "u_voxel"), params(p, "u_params") {}
};

// The invocations to dispatch for the pair shader (shaders/bench/rdp_pairs.comp.glsl): a group of
// 32 × 4 writes 30 columns along x, 4 × 8 rows along y and 16 planes along z.
std::array<int, 3> pairs_dispatch_size(const std::array<int, 3>& d) {
  return {(d[0] + 29) / 30 * 32, (d[1] + 31) / 32 * 4, (d[2] + 15) / 16};
}

// One gl-compute prior shader's three passes on buffers that stay on the GPU: the product's
// (renderer/pet/gl_compute_prior.cpp) or the pair candidate (shaders/bench/rdp_pairs.comp.glsl).
Times gl_compute(const std::array<int, 3>& d, int reps, bool pairs) {
  gl::shared_context().make_current();
  const std::size_t n = std::size_t(d[0]) * d[1] * d[2];
  std::vector<float> x(n), kappa(n);
  for (std::size_t v = 0; v < n; ++v) {
    const int i = int(v % d[0]), j = int((v / d[0]) % d[1]);
    const double u = (i + 0.5) / d[0] - 0.5, w = (j + 0.5) / d[1] - 0.5;
    kappa[v] = u * u + w * w < 0.25 ? 1.0f : 0.0f;
    x[v] = 0.5f + float((v * 2654435761u) % 1000u) / 1000.0f;
  }
  gl::Buffer bx(n * sizeof(float), x.data()), bk(n * sizeof(float), kappa.data()), bo(n * sizeof(float)),
      bo2(n * sizeof(float));
  Times t;
  double* out[4] = {&t.value_ms, &t.gradient_ms, &t.hessian_ms, &t.derivatives_ms};
  const char* shader = pairs ? "bench/rdp_pairs.comp.glsl" : "pet/rdp.comp.glsl";
  const std::array<int, 3> inv = pairs ? pairs_dispatch_size(d) : std::array<int, 3>{d[0], d[1], (d[2] + 15) / 16};
  for (int term = 0; term < (pairs ? 3 : 4); ++term) {  // the product shader also has both at once
    const RdpPass& p = gl::shaders().get_compute<RdpPass>(shader, {{"TERM", std::to_string(term)}});
    *out[term] = gpu_ms(
        [&] {
          p.program.use();
          p.dims.set({d[0], d[1], d[2]});
          p.voxel.set({1.0f, 1.0f, 1.0f});
          p.params.set({2.0f, 1e-9f});
          bx.bind_base(GL_SHADER_STORAGE_BUFFER, pet::binding::kImage);
          bk.bind_base(GL_SHADER_STORAGE_BUFFER, pet::binding::kKappa);
          bo.bind_base(GL_SHADER_STORAGE_BUFFER, pet::binding::kOut);
          bo2.bind_base(GL_SHADER_STORAGE_BUFFER, pet::binding::kOut2);
          p.program.dispatch(inv[0], inv[1], inv[2]);
          glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        },
        reps);
  }
  t.copy_gbps = copy_tbps(n) * 1e3;
  return t;
}

}  // namespace

nlohmann::json run(std::array<int, 3> dims, int reps, const std::vector<std::string>& backends) {
  nlohmann::json rows = nlohmann::json::array();
  auto wants = [&](const char* b) { return std::find(backends.begin(), backends.end(), b) != backends.end(); };
  auto& reg = BackendRegistry<pet::PriorOperator>::instance();
#if defined(TOMO_HAVE_CUDA)
  if (wants("cuda") && reg.available("cuda").ok) {
    const auto c = pet::probes::time_cuda_prior(dims, reps);
    rows.push_back(row("cuda", dims,
                      {c.value_ms, c.gradient_ms, c.hessian_ms, c.copy_gbps, c.derivatives_ms, c.lean_gradient_ms, c.lean_rel_l2,
                       c.tiled_value_ms, c.tiled_gradient_ms, c.tiled_hessian_ms, c.tiled_rel_l2,
                       c.v1_gradient_ms, c.v1_rel_l2}));
    const double n = double(dims[0]) * dims[1] * dims[2];
    nlohmann::json cands = nlohmann::json::array();
    for (const auto& v : c.v3) {
      const double gb = kPassBytes * n / (v.gradient_ms * 1e-3) / 1e9;
      std::printf("  prior cuda       candidate %-38s gradient %.3f ms (%.0f GB/s, %.0f %% of copy), rel L2 vs the"
                  " previous kernel %.1e, max vs product %.1e; smooth kappa %.3f ms (product %.3f), max vs product %.1e;"
                  " kappa 1: %.3f ms, kappa 0: %.3f ms\n",
                  v.name.c_str(), v.gradient_ms, gb, 100.0 * gb / c.copy_gbps, v.rel_l2, v.max_rel, v.smooth_ms,
                  c.smooth_gradient_ms, v.smooth_max_rel, v.ones_ms, v.zeros_ms);
      cands.push_back({{"name", v.name}, {"gradient_ms", v.gradient_ms}, {"gradient_over_copy", gb / c.copy_gbps},
                       {"rel_l2", v.rel_l2}, {"max_rel_vs_product", v.max_rel}, {"smooth_kappa_ms", v.smooth_ms},
                       {"smooth_kappa_product_ms", c.smooth_gradient_ms}, {"smooth_max_rel_vs_product", v.smooth_max_rel},
                       {"kappa_ones_ms", v.ones_ms}, {"kappa_zeros_ms", v.zeros_ms}});
    }
    rows.back()["candidates"] = cands;
    std::printf("  prior cuda       one pass vs the separate passes: gradient max rel %.1e, Hessian max rel %.1e\n",
                c.derivatives_gradient_max_rel, c.derivatives_hessian_max_rel);
    rows.back()["derivatives_gradient_max_rel"] = c.derivatives_gradient_max_rel;
    rows.back()["derivatives_hessian_max_rel"] = c.derivatives_hessian_max_rel;
  }
#endif
  if ((wants("gl-compute") || wants("gl")) && reg.available("gl-compute").ok)
  {
    rows.push_back(row("gl-compute", dims, gl_compute(dims, reps, false)));
    rows.push_back(row("gl-compute pairs", dims, gl_compute(dims, reps, true)));
  }
  return rows;
}

}  // namespace tomo::bench::pet_prior
