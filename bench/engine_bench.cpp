// bench_engine: the GL ceilings every raster/compute pass is measured against, on this
// GPU in this run (DESIGN.md "GPU facts"), plus the demo problem's backends side by side.
//   bench_engine [--quick] [--json FILE]
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/registry.hpp"
#include "core/runtime_options.hpp"
#include "core/shutdown.hpp"
#include "demo/voxelizer.hpp"
#include "gl/engine.hpp"
#include "gl/objects.hpp"
#include "gl/shader_library.hpp"

using namespace tomo;

namespace {

struct Row {
  std::string name, unit;
  double value;
  double reference;  // DESIGN.md figure on the H200 (0: none)
};

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
  return t[t.size() / 2];
}

const char* kFmaBody = R"(
  float a0 = seed, a1 = seed + 1.0, a2 = seed + 2.0, a3 = seed + 3.0;
  float a4 = seed + 4.0, a5 = seed + 5.0, a6 = seed + 6.0, a7 = seed + 7.0;
  for (int i = 0; i < ITERS; ++i) {
    a0 = fma(a0, 0.9999, 0.0001); a1 = fma(a1, 0.9999, 0.0001); a2 = fma(a2, 0.9999, 0.0001); a3 = fma(a3, 0.9999, 0.0001);
    a4 = fma(a4, 0.9999, 0.0001); a5 = fma(a5, 0.9999, 0.0001); a6 = fma(a6, 0.9999, 0.0001); a7 = fma(a7, 0.9999, 0.0001);
  }
  float r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
)";

double compute_fma_tflops(int threads, int iters) {
  std::string src = "#version 450 core\n#define ITERS " + std::to_string(iters) +
                    "\nlayout(local_size_x = 256) in;\nlayout(std430, binding = 0) buffer O { float o[]; };\n"
                    "void main() { float seed = float(gl_GlobalInvocationID.x & 7u);\n" + kFmaBody +
                    "  if (r == 12345.678) o[0] = r; }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "fma.comp");
  gl::Buffer out(16);
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  double ms = gpu_ms([&] { p.dispatch(threads); });
  return double(threads) * iters * 8 * 2 / (ms * 1e-3) / 1e12;
}

double fragment_fma_tflops(int size, int iters) {
  std::string vs = "#version 450 core\nvoid main() { vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);"
                   " gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0); }\n";
  std::string fs = "#version 450 core\n#define ITERS " + std::to_string(iters) +
                   "\nout float o;\nvoid main() { float seed = gl_FragCoord.x;\n" + kFmaBody + "  o = r; }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Vertex, vs}, {gl::Stage::Fragment, fs}}, "fma.frag");
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

double point_blend_gpoints(int size, int points) {
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

double atomic_gops(int threads, int per_thread, int counters) {
  std::string src = "#version 450 core\nlayout(local_size_x = 256) in;\nlayout(std430, binding = 0) buffer C { uint c[]; };\n"
                    "uniform int u_n; uniform int u_counters;\nvoid main() { uint h = gl_GlobalInvocationID.x * 2654435761u;\n"
                    "  for (int i = 0; i < u_n; ++i) { atomicAdd(c[(h + uint(i) * 40503u) % uint(u_counters)], 1u); } }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "atomics");
  gl::Buffer c(static_cast<std::size_t>(counters) * 4);
  c.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  p.set("u_n", per_thread);
  p.set("u_counters", counters);
  double ms = gpu_ms([&] { p.dispatch(threads); });
  return double(threads) * per_thread / (ms * 1e-3) / 1e9;
}

double copy_tbps(std::size_t floats) {
  std::string src = "#version 450 core\nlayout(local_size_x = 256) in;\nlayout(std430, binding = 0) readonly buffer A { vec4 a[]; };\n"
                    "layout(std430, binding = 1) writeonly buffer B { vec4 b[]; };\nuniform uint u_n;\n"
                    "void main() { for (uint i = gl_GlobalInvocationID.x; i < u_n; i += gl_NumWorkGroups.x * 256u) b[i] = a[i]; }\n";
  auto p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "copy");
  gl::Buffer a(floats * 4), b(floats * 4);
  a.clear_zero();
  a.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  b.bind_base(GL_SHADER_STORAGE_BUFFER, 1);
  p.set("u_n", static_cast<unsigned>(floats / 4));
  double ms = gpu_ms([&] { p.dispatch(static_cast<int>(std::min<std::size_t>(floats / 4, 132 * 2048 * 4))); });
  return 2.0 * floats * 4 / (ms * 1e-3) / 1e12;
}

double mipmap_gbps(int size, int layers) {
  auto t = gl::Texture::create_2d_array(GL_RGBA32F, size, size, layers, 1 + static_cast<int>(std::log2(size)));
  t.clear_zero();
  double ms = gpu_ms([&] { glGenerateTextureMipmap(t.id()); });
  return double(size) * size * layers * 16 / (ms * 1e-3) / 1e9;
}

double demo_seconds(const std::string& backend, const Grid3& grid) {
  Phantom ph;
  for (int i = 0; i < 16; ++i) {
    Shape s;
    s.centre = {-20.0 + 2.5 * i, 3.0 * (i % 5) - 6, 2.0 * (i % 3)};
    s.semi_axes = {6.0 + i % 4, 5.0, 7.0};
    s.value = 1.0 + i;
    ph.shapes.push_back(s);
  }
  auto op = BackendRegistry<demo::Voxelizer>::instance().create(backend);
  op->voxelize(ph, grid, 1, grid.dims[2], [](int) {});  // warm-up
  auto t0 = std::chrono::steady_clock::now();
  op->voxelize(ph, grid, 2, grid.dims[2], [](int) {});
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
  }
  runtime_options().progress = false;
  const auto& info = gl::shared_context().info();
  std::printf("bench_engine on %s\n", info.summary().c_str());
  const int q = quick ? 16 : 1;
  std::vector<Row> rows = {
      {"compute fp32 FMA", "TFLOP/s", compute_fma_tflops(132 * 2048 * 8 / q, 1024 / q), 43.5},
      {"fragment fp32 FMA", "TFLOP/s", fragment_fma_tflops(4096 / q, 256 / (quick ? 4 : 1)), 1.32},
      {"points blended into R32F", "G points/s", point_blend_gpoints(2048 / q, (1 << 26) / (q * q)), 0.51},
      {"compute atomicAdd (uint)", "G ops/s", atomic_gops(132 * 2048 * 4 / q, 64 / (quick ? 4 : 1), 1 << 20), 54},
      {"glGenerateTextureMipmap RGBA32F array", "GB/s", mipmap_gbps(1024 / q, 64 / (quick ? 8 : 1)), 3.7},
      {"compute copy (read+write)", "TB/s", copy_tbps((std::size_t(1) << 28) / (q * q)), 2.1},
  };
  Grid3 grid = Grid3::centred({128 / q * 2, 128 / q * 2, 128 / q * 2}, {0.5, 0.5, 0.5});
  if (quick) grid = Grid3::centred({32, 32, 32}, {2, 2, 2});
  nlohmann::json demo_json;
  double cpu_s = 0;
  std::printf("\n%-40s %12s %12s\n", "demo voxelise (16 shapes, 8 sub-samples)", "seconds", "vs cpu");
  for (const auto& name : BackendRegistry<demo::Voxelizer>::instance().available_names()) {
    double s = demo_seconds(name, grid);
    if (name == "cpu") cpu_s = s;
    demo_json[name] = s;
    std::printf("%-40s %12.4f %12s\n", name.c_str(), s, "");
  }
  if (cpu_s > 0)
    for (auto& [name, s] : demo_json.items())
      std::printf("  %s is %.1fx the cpu speed\n", name.c_str(), cpu_s / s.get<double>());

  std::printf("\n%-40s %12s %-11s %14s %8s\n", "GL ceiling (this GPU, this run)", "measured", "unit", "DESIGN (H200)",
              "ratio");
  nlohmann::json j;
  j["device"] = info.summary();
  j["quick"] = quick;
  for (const auto& r : rows) {
    std::printf("%-40s %12.3f %-11s %14.3f %8.2f\n", r.name.c_str(), r.value, r.unit.c_str(), r.reference,
                r.value / r.reference);
    j["ceilings"][r.name] = {{"value", r.value}, {"unit", r.unit}, {"design_h200", r.reference}};
  }
  j["demo_seconds"] = demo_json;
  j["demo_grid"] = grid.dims;
  if (!json_path.empty()) std::ofstream(json_path) << j.dump(2) << "\n";
  run_shutdown_hooks();
  return 0;
}
