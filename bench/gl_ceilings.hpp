// GL ceilings measured on this GPU in this run (DESIGN.md "GPU facts"), shared by
// bench_engine (its table) and bench_glpet (each pass beside the ceiling it is bound by).
// Header-only: bench/CMakeLists.txt builds one executable per *_bench.cpp.
#pragma once
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
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
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    work();
    glFinish();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return std::max(t[t.size() / 2], 1e-6);  // never 0: callers divide by it
}

namespace detail {

inline const char* kFmaBody = R"(
  float a0 = seed, a1 = seed + 1.0, a2 = seed + 2.0, a3 = seed + 3.0;
  float a4 = seed + 4.0, a5 = seed + 5.0, a6 = seed + 6.0, a7 = seed + 7.0;
  for (int i = 0; i < ITERS; ++i) {
    a0 = fma(a0, 0.9999, 0.0001); a1 = fma(a1, 0.9999, 0.0001); a2 = fma(a2, 0.9999, 0.0001); a3 = fma(a3, 0.9999, 0.0001);
    a4 = fma(a4, 0.9999, 0.0001); a5 = fma(a5, 0.9999, 0.0001); a6 = fma(a6, 0.9999, 0.0001); a7 = fma(a7, 0.9999, 0.0001);
  }
  float r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
)";

// A full-screen triangle (gl_VertexID 0..2), for the fragment-side ceilings.
inline const char* kFullScreenVs =
    "#version 450 core\nvoid main() { vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);"
    " gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0); }\n";

// σ_t march of one line, as the glpet passes do it (shaders/glpet/correspondence.frag.glsl,
// line_set.glsl): `u_samples` trilinear σ_t samples along a line through voxel v. Line
// `line` = tile·16384 + pixel: the tile picks v (consecutive voxels, x fastest, from the
// central z-slice: the order the passes batch them in), the pixel of a
// 128×128 tile a direction within ±22° of z (the default scene's fan), and the samples are
// spread evenly over the grid's z extent (the part of a line that fetches: samples outside
// the grid read 0 without a fetch in the real passes too).
// MODE 0: one hardware-filtered texture() of a sampler3D (the seed's way);
// MODE 1: 8 texelFetch of a sampler3D + fp32 trilinear (the `gl` contract);
// MODE 2: 8 loads from an SSBO + fp32 trilinear (the `gl-compute` / `cuda` contract).
inline const char* kMarchBody = R"(
uniform ivec3 u_dims;
uniform int u_samples;
#if MODE == 0
uniform sampler3D u_sigma;
float sigma_at(vec3 g) { return texture(u_sigma, (g + 0.5) / vec3(u_dims)).r; }
#else
#if MODE == 1
uniform sampler3D u_sigma;
float sigma_fetch(ivec3 c) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return 0.0;
  return texelFetch(u_sigma, c, 0).r;
}
#else
layout(std430, binding = 0) readonly buffer Sigma { float sigma[]; };
float sigma_fetch(ivec3 c) {
  if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, u_dims))) return 0.0;
  return sigma[uint(c.x) + uint(u_dims.x) * (uint(c.y) + uint(u_dims.y) * uint(c.z))];
}
#endif
@TRILINEAR@
#endif
float march(uint line) {
  uint tile = line >> 14u, pix = line & 16383u;
  uvec3 d = uvec3(u_dims);
  vec3 v = vec3(float(tile % d.x), float((tile / d.x) % d.y), float((d.z / 2u + tile / (d.x * d.y)) % d.z));
  vec3 dir = vec3((vec2(float(pix & 127u), float(pix >> 7u)) + 0.5) / 128.0 * 0.8 - 0.4, 1.0);
  float z0 = -0.5, z1 = float(u_dims.z) - 0.5, sum = 0.0;
  for (int k = 0; k < u_samples; ++k) {
    float z = mix(z0, z1, (float(k) + 0.5) / float(u_samples));
    sum += sigma_at(v + dir * (z - v.z));
  }
  return sum;
}
)";

inline std::string march_defines(int mode) { return "#define MODE " + std::to_string(mode) + "\n"; }

// kMarchBody with the passes' own fp32 trilinear sampler (shaders/common/trilinear.glsl).
inline std::string march_body() {
  std::string body = kMarchBody;
  const std::string mark = "@TRILINEAR@";
  body.replace(body.find(mark), mark.size(), gl::shaders().load("common/trilinear.glsl"));
  return body;
}

}  // namespace detail

// Compute-shader fp32 FMA rate (TFLOP/s): 8 independent FMA chains per invocation.
inline double compute_fma_tflops(int threads, int iters) {
  std::string src = "#version 450 core\n#define ITERS " + std::to_string(iters) +
                    "\nlayout(local_size_x = 256) in;\nlayout(std430, binding = 0) buffer O { float o[]; };\n"
                    "void main() { float seed = float(gl_GlobalInvocationID.x & 7u);\n" + detail::kFmaBody +
                    "  if (r == 12345.678) o[0] = r; }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "fma.comp");
  gl::Buffer out(16);
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  double ms = gpu_ms([&] { p.dispatch(threads); });
  return double(threads) * iters * 8 * 2 / (ms * 1e-3) / 1e12;
}

// Fragment-shader fp32 FMA rate (TFLOP/s): a size² full-screen pass into R32F.
inline double fragment_fma_tflops(int size, int iters) {
  std::string fs = "#version 450 core\n#define ITERS " + std::to_string(iters) +
                   "\nout float o;\nvoid main() { float seed = gl_FragCoord.x;\n" + detail::kFmaBody + "  o = r; }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Vertex, detail::kFullScreenVs}, {gl::Stage::Fragment, fs}}, "fma.frag");
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
// (G points/s): the glpet atlas pass (seed §III).
inline double point_blend_gpoints(int size, int points) {
  std::string vs = "#version 450 core\nuniform int u_size;\nvoid main() { uint h = uint(gl_VertexID) * 2654435761u;"
                   " vec2 c = (vec2(h % uint(u_size), (h >> 16) % uint(u_size)) + 0.5) / float(u_size);"
                   " gl_Position = vec4(c * 2.0 - 1.0, 0.0, 1.0); gl_PointSize = 1.0; }\n";
  std::string fs = "#version 450 core\nout float o;\nvoid main() { o = 1.0; }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Vertex, vs}, {gl::Stage::Fragment, fs}}, "blend");
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
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glDrawArrays(GL_POINTS, 0, points);
    glDisable(GL_BLEND);
  });
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return points / (ms * 1e-3) / 1e9;
}

// Compute-shader atomicAdd on hashed SSBO counters (G ops/s); `float_atomics`: float
// atomicAdd (GL_NV_shader_atomic_float, what the gl-compute forward scatter uses).
inline double atomic_gops(int threads, int per_thread, int counters, bool float_atomics = false) {
  const std::string type = float_atomics ? "float" : "uint", one = float_atomics ? "1.0" : "1u";
  std::string src = std::string("#version 450 core\n") +
                    (float_atomics ? "#extension GL_NV_shader_atomic_float : require\n" : "") +
                    "layout(local_size_x = 256) in;\nlayout(std430, binding = 0) buffer C { " + type + " c[]; };\n"
                    "uniform int u_n; uniform int u_counters;\nvoid main() { uint h = gl_GlobalInvocationID.x * 2654435761u;\n"
                    "  for (int i = 0; i < u_n; ++i) { atomicAdd(c[(h + uint(i) * 40503u) % uint(u_counters)], " + one +
                    "); } }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, float_atomics ? "atomics.float" : "atomics");
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
  std::string src = "#version 450 core\nlayout(local_size_x = 256) in;\nlayout(std430, binding = 0) readonly buffer A { vec4 a[]; };\n"
                    "layout(std430, binding = 1) writeonly buffer B { vec4 b[]; };\nuniform uint u_n;\n"
                    "void main() { for (uint i = gl_GlobalInvocationID.x; i < u_n; i += gl_NumWorkGroups.x * 256u) b[i] = a[i]; }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "copy");
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
// texel (G fragments/s): the most a per-pixel pass like glpet's terms pass (seed §IV) can do.
inline double fragment_copy_gfrags(int size) {
  std::string fs = "#version 450 core\nuniform sampler2D u_src;\nout vec4 o;\n"
                   "void main() { o = texelFetch(u_src, ivec2(gl_FragCoord.xy), 0) + vec4(1.0); }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Vertex, detail::kFullScreenVs}, {gl::Stage::Fragment, fs}}, "copy.frag");
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
// `dims` (x fastest, `sigma` = its voxels), see detail::kMarchBody.
enum class March { FragmentFiltered, FragmentTexelFetch, ComputeLoads };

// Fragment side: a (128·tiles)² full-screen pass, one line per fragment, written as RGBA32F
// (r, s, weight, 1) like the correspondence target: the ceiling of the `gl` pass 1.
inline double march_glines(March mode, const std::array<int, 3>& dims, const std::vector<float>& sigma, int samples,
                           int tiles) {
  const int m = mode == March::FragmentFiltered ? 0 : mode == March::FragmentTexelFetch ? 1 : 2;
  double ms = 0, lines = 0;
  if (mode == March::ComputeLoads) {
    std::string src = "#version 450 core\n" + detail::march_defines(m) +
                      "layout(local_size_x = 128) in;\nlayout(std430, binding = 1) buffer O { float o[]; };\n" +
                      detail::march_body() +
                      "void main() { float s = march(gl_GlobalInvocationID.x); if (s < -1.0) o[0] = s; }\n";
    auto p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "march.comp");
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
    std::string fs = "#version 450 core\n" + detail::march_defines(m) + "out vec4 o;\n" + detail::march_body() +
                     "void main() { uvec2 P = uvec2(gl_FragCoord.xy);\n"
                     "  uint tile = (P.y >> 7u) * uint(u_tiles) + (P.x >> 7u), pix = (P.y & 127u) * 128u + (P.x & 127u);\n"
                     "  o = vec4(1.0, 2.0, exp(-march(tile * 16384u + pix)), 1.0); }\n";
    fs.insert(fs.find("out vec4 o;"), "uniform int u_tiles;\n");
    auto p = gl::ShaderLibrary::build({{gl::Stage::Vertex, detail::kFullScreenVs}, {gl::Stage::Fragment, fs}},
                                      m == 0 ? "march.filtered" : "march.texelfetch");
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
