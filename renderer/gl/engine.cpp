#include "renderer/gl/engine.hpp"

#include <mutex>
#include <optional>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/shutdown.hpp"

namespace tomo::gl {
namespace {

struct EngineState {
  std::unique_ptr<Context> context;
  std::unique_ptr<ShaderLibrary> shaders;
  std::optional<Availability> availability;
  int cuda_device = -1;  // the device to make the context on; -1: --cuda-device
};

// A multi-GPU rank's own engine (ThreadEngine), else the process's.
thread_local EngineState* t_thread_state = nullptr;

// Never destroyed by static destructors: drivers tear EGL down at exit in their own
// order (NVIDIA's before ours, which crashed). main() and the test environment call
// release_shared_context() while the driver is still alive.
EngineState& state() {
  if (t_thread_state) return *t_thread_state;
  static EngineState* s = new EngineState;
  return *s;
}

const ShutdownRegistrar release_at_shutdown(release_shared_context);

// Mesa's CPU rasterisers: correct and tested, but slower than our own CPU code.
bool is_software(const ContextInfo& info) {
  for (const char* name : {"llvmpipe", "softpipe", "SwiftShader"})
    if (info.gl_renderer.find(name) != std::string::npos) return true;
  return false;
}

}  // namespace

Context& shared_context() {
  auto& s = state();
  if (!s.context) {
    if (s.availability && !s.availability->ok) throw UnavailableError(s.availability->why);
    ContextOptions options;
    options.validate = runtime_options().gl_validate;
    options.cuda_device = s.cuda_device >= 0 ? s.cuda_device : runtime_options().cuda_device;
    try {
      // EGL and GL entry points are loaded into process-wide pointers: one creation at a time
      // (the multi-GPU ranks' threads make their contexts side by side).
      static std::mutex creation;
      std::lock_guard lock(creation);
      s.context = HeadlessContext::create(options);
    } catch (const UnavailableError& e) {
      s.availability = Availability{false, e.what()};
      throw;
    }
    s.availability = Availability{true, {}, is_software(s.context->info())};
  }
  return *s.context;
}

ShaderLibrary& shaders() {
  auto& s = state();
  shared_context();
  if (!s.shaders) s.shaders = std::make_unique<ShaderLibrary>(runtime_options().shader_dir);
  return *s.shaders;
}

Availability availability() {
  auto& s = state();
  if (!s.availability) {
    try {
      shared_context();
    } catch (const UnavailableError&) {
      // recorded in s.availability
    }
  }
  return *s.availability;
}

std::pair<std::vector<StageSource>, Defines> layered_stages(const std::string& fragment, Defines defines) {
  std::vector<StageSource> stages{{Stage::Vertex, "common/layered_triangle.vert.glsl"}};
  if (shared_context().info().caps.layer_from_vertex) defines.insert(defines.begin(), {"TOMO_VS_LAYER", "1"});
  else stages.push_back({Stage::Geometry, "common/layered_triangle.geom.glsl"});
  stages.push_back({Stage::Fragment, fragment});
  return {std::move(stages), std::move(defines)};
}

const Program& layered_program(const std::string& fragment, Defines defines) {
  auto [stages, defs] = layered_stages(fragment, std::move(defines));
  return shaders().program(stages, defs);
}

Availability availability(std::initializer_list<const char*> extensions) {
  Availability a = availability();
  if (!a.ok) return a;
  try {
    const auto& info = shared_context().info();
    for (const char* e : extensions)
      if (!info.has(e)) return {false, str_cat(info.gl_renderer, " lacks ", e)};
  } catch (const std::exception& e) {
    return {false, e.what()};
  }
  return a;
}

void require_extensions(const std::string& who, std::initializer_list<const char*> extensions) {
  const auto& info = shared_context().info();
  for (const char* e : extensions)
    if (!info.has(e)) throw UnavailableError(str_cat(who, ": ", info.gl_renderer, " lacks ", e));
}

Context* current_shared_context() { return state().context.get(); }

void install_context(std::unique_ptr<Context> context) {
  auto& s = state();
  s.shaders.reset();
  s.context = std::move(context);
  s.availability = Availability{true, {}, is_software(s.context->info())};
}

ThreadEngine::ThreadEngine(int cuda_device) {
  if (t_thread_state) throw Error("a thread can hold one GL engine of its own");
  t_thread_state = new EngineState;
  t_thread_state->cuda_device = cuda_device;
}

ThreadEngine::~ThreadEngine() {
  release_shared_context();  // this thread's: its context is released and destroyed here
  delete t_thread_state;
  t_thread_state = nullptr;
}

int ThreadEngine::device() const {
  const Context* c = t_thread_state ? t_thread_state->context.get() : nullptr;
  return c ? c->info().cuda_device : -1;
}

void release_shared_context() {
  auto& s = state();
  s.shaders.reset();
  s.context.reset();
  s.availability.reset();
}

}  // namespace tomo::gl
