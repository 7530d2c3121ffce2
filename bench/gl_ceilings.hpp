// GL ceilings measured on this GPU in this run (DESIGN.md "GPU facts"), shared by
// bench_engine (its table) and bench_glpet (each pass beside the ceiling it is bound by).
// Header-only; the GLSL is in shaders/bench/, loaded through the engine's shader library.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/pipeline_state.hpp"
#include "renderer/gl/shader_library.hpp"

namespace tomo::bench {

// Median wall time (ms) of `work` + glFinish over `reps` runs. (GL_TIME_ELAPSED
// queries do not time compute dispatches on llvmpipe; the workloads are large
// enough on the GPU that the finish costs little.)
template <class F>
double gpu_ms(F&& work, int reps = 5) {
  work();  // warm-up: compilation, first-touch allocation
  glFinish();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(time_ms(work, [] { glFinish(); }));
  return std::max(median_of(t), 1e-6);  // never 0: callers divide by it
}

namespace detail {

// A program of shaders/bench/ (embedded like every pass; variants through #defines).
inline const gl::Program& program(std::vector<gl::StageSource> stages, const gl::Defines& defines = {}) {
  return gl::shaders().program(stages, defines);
}
inline const gl::Program& fragment_program(const std::string& fs, const gl::Defines& defines = {}) {
  return program({{gl::Stage::Vertex, "bench/fullscreen.vert.glsl"}, {gl::Stage::Fragment, fs}}, defines);
}

}  // namespace detail

// Compute-shader fp32 FMA rate (TFLOP/s): 8 independent FMA chains per invocation.
inline double compute_fma_tflops(int threads, int iters) {
  const auto& p = detail::program({{gl::Stage::Compute, "bench/fma.comp.glsl"}}, {{"ITERS", std::to_string(iters)}});
  gl::Buffer out(16);
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  double ms = gpu_ms([&] { p.dispatch(threads); });
  return double(threads) * iters * 8 * 2 / (ms * 1e-3) / 1e12;
}

// Fragment-shader fp32 FMA rate (TFLOP/s): a size² full-screen pass into R32F.
inline double fragment_fma_tflops(int size, int iters) {
  const auto& p = detail::fragment_program("bench/fma.frag.glsl", {{"ITERS", std::to_string(iters)}});
  auto target = gl::Texture::create_2d(GL_R32F, size, size);
  auto fbo = gl::Framebuffer::create();
  fbo.attach(GL_COLOR_ATTACHMENT0, target);
  fbo.set_draw_buffers(1);
  auto vao = gl::VertexArray::create();
  double ms = gpu_ms([&] {
    fbo.bind();
    vao.bind();
    p.use();
    glViewport(0, 0, size, size);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  });
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return double(size) * size * iters * 8 * 2 / (ms * 1e-3) / 1e12;
}

// Points additively blended (GL_ONE, GL_ONE) into a size² R32F target, hashed positions
// (G points/s): the glpet atlas pass ([Toth2010] §III).
inline double point_blend_gpoints(int size, int points) {
  const auto& p =
      detail::program({{gl::Stage::Vertex, "bench/blend.vert.glsl"}, {gl::Stage::Fragment, "bench/blend.frag.glsl"}});
  auto target = gl::Texture::create_2d(GL_R32F, size, size);
  auto fbo = gl::Framebuffer::create();
  fbo.attach(GL_COLOR_ATTACHMENT0, target);
  fbo.set_draw_buffers(1);
  auto vao = gl::VertexArray::create();
  p.set("u_size", size);
  double ms = gpu_ms([&] {
    fbo.bind();
    vao.bind();
    p.use();
    glViewport(0, 0, size, size);
    gl::apply({.blend = gl::Blend::Add});  // as the glpet atlas pass
    glDrawArrays(GL_POINTS, 0, points);
    gl::apply(gl::PipelineState{});
  });
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return points / (ms * 1e-3) / 1e9;
}

// Compute-shader atomicAdd on hashed SSBO counters (G ops/s); `float_atomics`: float
// atomicAdd (GL_NV_shader_atomic_float, what the gl-compute forward scatter uses).
inline double atomic_gops(int threads, int per_thread, int counters, bool float_atomics = false) {
  const auto& p = detail::program({{gl::Stage::Compute, "bench/atomics.comp.glsl"}},
                                  {{"FLOAT_ATOMICS", float_atomics ? "1" : "0"}});
  gl::Buffer c(static_cast<std::size_t>(counters) * 4);
  c.clear_zero();
  c.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  p.set("u_n", per_thread);
  p.set("u_counters", counters);
  double ms = gpu_ms([&] { p.dispatch(threads); });
  return double(threads) * per_thread / (ms * 1e-3) / 1e9;
}

// Compute-shader copy of `floats` floats (TB/s, bytes read + written).
inline double copy_tbps(std::size_t floats) {
  const auto& p = detail::program({{gl::Stage::Compute, "bench/copy.comp.glsl"}});
  gl::Buffer a(floats * 4), b(floats * 4);
  a.clear_zero();
  a.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  b.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
  p.set("u_n", static_cast<unsigned>(floats / 4));
  double ms = gpu_ms([&] { p.dispatch(static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(floats / 4, 132 * 2048 * 4)))); });
  return 2.0 * floats * 4 / (ms * 1e-3) / 1e12;
}

// glGenerateTextureMipmap of a size² RGBA32F array (GB/s). `all_levels` false: bytes of
// level 0 (bench_engine's figure, DESIGN.md); true: bytes read over all levels (level k's
// size for every k that feeds a next level), the unit of the glpet reduction pass.
inline double mipmap_gbps(int size, int layers, bool all_levels = false) {
  const int levels = 1 + static_cast<int>(std::log2(size));
  auto t = gl::Texture::create_2d_array(GL_RGBA32F, size, size, layers, levels);
  t.clear_zero();
  double ms = gpu_ms([&] { glGenerateTextureMipmap(t.id()); });
  double texels = double(size) * size;
  if (all_levels) {
    texels = 0;
    for (int w = size; w > 1; w /= 2) texels += double(w) * w;
  }
  return texels * layers * 16 / (ms * 1e-3) / 1e9;
}

// A full-screen fragment pass that texelFetches one RGBA32F texel and writes one RGBA32F
// texel (G fragments/s): the most a per-pixel pass like glpet's terms pass ([Toth2010] §IV) can do.
inline double fragment_copy_gfrags(int size) {
  const auto& p = detail::fragment_program("bench/copy.frag.glsl");
  auto src = gl::Texture::create_2d(GL_RGBA32F, size, size);
  src.clear_zero();
  auto target = gl::Texture::create_2d(GL_RGBA32F, size, size);
  auto fbo = gl::Framebuffer::create();
  fbo.attach(GL_COLOR_ATTACHMENT0, target);
  fbo.set_draw_buffers(1);
  auto vao = gl::VertexArray::create();
  p.set("u_src", 0);
  double ms = gpu_ms([&] {
    fbo.bind();
    vao.bind();
    p.use();
    glBindTextureUnit(0, src.id());
    glViewport(0, 0, size, size);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  });
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return double(size) * size / (ms * 1e-3) / 1e9;
}

// σ_t march ceilings (G lines/s): `samples` trilinear samples per line in a volume of
// `dims` (x fastest, `sigma` = its voxels), see shaders/bench/march.glsl.
enum class March { FragmentFiltered, FragmentTexelFetch, ComputeLoads };

// Fragment side: a (128·tiles)² full-screen pass, one line per fragment, written as RGBA32F
// (r, s, weight, 1) like the correspondence target: the ceiling of the `gl` pass 1.
inline double march_glines(March mode, const std::array<int, 3>& dims, const std::vector<float>& sigma, int samples,
                           int tiles) {
  const int m = mode == March::FragmentFiltered ? 0 : mode == March::FragmentTexelFetch ? 1 : 2;
  double ms = 0, lines = 0;
  if (mode == March::ComputeLoads) {
    const auto& p = detail::program({{gl::Stage::Compute, "bench/march.comp.glsl"}}, {{"MODE", std::to_string(m)}});
    auto vol = gl::Buffer::from(sigma);
    gl::Buffer out(16);
    vol.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    out.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
    p.set("u_dims", dims[0], dims[1], dims[2]);
    p.set("u_samples", samples);
    const int n = tiles * tiles * 16384;
    ms = gpu_ms([&] { p.dispatch(n); });
    lines = n;
  } else {
    const auto& p = detail::fragment_program("bench/march.frag.glsl", {{"MODE", std::to_string(m)}});
    auto vol = gl::Texture::create_3d(GL_R32F, dims[0], dims[1], dims[2]);
    vol.upload_float(sigma.data(), 1);
    vol.set_filter(GL_LINEAR, GL_LINEAR);
    vol.set_wrap(GL_CLAMP_TO_BORDER);
    const int size = 128 * tiles;
    auto target = gl::Texture::create_2d(GL_RGBA32F, size, size);
    auto fbo = gl::Framebuffer::create();
    fbo.attach(GL_COLOR_ATTACHMENT0, target);
    fbo.set_draw_buffers(1);
    auto vao = gl::VertexArray::create();
    p.set("u_dims", dims[0], dims[1], dims[2]);
    p.set("u_samples", samples);
    p.set("u_tiles", tiles);
    p.set("u_sigma", 0);
    ms = gpu_ms([&] {
      fbo.bind();
      vao.bind();
      p.use();
      glBindTextureUnit(0, vol.id());
      glViewport(0, 0, size, size);
      glDrawArrays(GL_TRIANGLES, 0, 3);
    });
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    lines = double(size) * size;
  }
  return lines / (ms * 1e-3) / 1e9;
}

// One measured ceiling, for the benches' tables and JSON.
struct Ceiling {
  std::string name, unit;
  double value = 0;      // in `unit`
  double reference = 0;  // DESIGN.md figure on the H200 (0: none)
};

// The engine-wide ceilings (bench_engine's table); `q` ≥ 1 shrinks every workload
// (bench_engine --quick uses 16; software GL wants that too).
inline std::vector<Ceiling> engine_ceilings(int q) {
  const int q4 = q > 1 ? 4 : 1, q8 = q > 1 ? 8 : 1;
  return {
      {"compute fp32 FMA", "TFLOP/s", compute_fma_tflops(132 * 2048 * 8 / q, 1024 / q), 43.5},
      {"fragment fp32 FMA", "TFLOP/s", fragment_fma_tflops(4096 / q, 256 / q4), 1.32},
      {"points blended into R32F", "G points/s", point_blend_gpoints(2048 / q, (1 << 26) / (q * q)), 0.51},
      {"compute atomicAdd (uint)", "G ops/s", atomic_gops(132 * 2048 * 4 / q, 64 / q4, 1 << 20), 54},
      {"glGenerateTextureMipmap RGBA32F array", "GB/s", mipmap_gbps(1024 / q, 64 / q8), 3.7},
      {"compute copy (read+write)", "TB/s", copy_tbps((std::size_t(1) << 28) / (q * q)), 2.1},
  };
}

}  // namespace tomo::bench
