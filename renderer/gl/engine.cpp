#include "renderer/gl/engine.hpp"

#include <optional>

#include "compute/core/error.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/shutdown.hpp"

namespace tomo::gl {
namespace {

struct EngineState {
  std::unique_ptr<Context> context;
  std::unique_ptr<ShaderLibrary> shaders;
  std::optional<Availability> availability;
};

// Never destroyed by static destructors: drivers tear EGL down at exit in their own
// order (NVIDIA's before ours, which crashed). main() and the test environment call
// release_shared_context() while the driver is still alive.
EngineState& state() {
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
    options.cuda_device = runtime_options().cuda_device;
    try {
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

Context* current_shared_context() { return state().context.get(); }

void install_context(std::unique_ptr<Context> context) {
  auto& s = state();
  s.shaders.reset();
  s.context = std::move(context);
  s.availability = Availability{true, {}, is_software(s.context->info())};
}

void release_shared_context() {
  auto& s = state();
  s.shaders.reset();
  s.context.reset();
  s.availability.reset();
}

}  // namespace tomo::gl
