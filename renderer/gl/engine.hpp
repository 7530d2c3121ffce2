// The process's GL engine: one shared context (headless EGL unless the viewer installed
// a window context) and its shader library, both made on first use from runtime_options().
// GL backends call these; `availability()` never throws, so registries can ask cheaply.
#pragma once
#include <initializer_list>
#include <memory>
#include <string>

#include "compute/core/registry.hpp"
#include "renderer/gl/context.hpp"
#include "renderer/gl/shader_library.hpp"

namespace tomo::gl {

Context& shared_context();       // throws UnavailableError when no context can be made
ShaderLibrary& shaders();        // of the shared context; honours --shader-dir
// The program of a layered full-viewport pass: common/layered_triangle.vert.glsl, one
// triangle per instance on layer gl_InstanceID + u_first_layer, and `fragment`, which reads
// the layer as LAYER (common/layer_in.glsl). gl_Layer comes from the vertex shader where the
// context has GL_ARB_shader_viewport_layer_array, else from common/layered_triangle.geom.glsl.
const Program& layered_program(const std::string& fragment, Defines defines = {});
// The stages and defines of layered_program(fragment), for ShaderLibrary::get<Pass>.
std::pair<std::vector<StageSource>, Defines> layered_stages(const std::string& fragment, Defines defines = {});
template <class Pass>
const Pass& layered_pass(const std::string& fragment, Defines defines = {}) {
  auto [stages, defs] = layered_stages(fragment, std::move(defines));
  return shaders().get<Pass>(stages, defs);
}
Availability availability();     // cached result of trying shared_context()
// What every GL backend's registrar asks: availability() and, when a context exists, that
// it has these extensions (never throws; keeps the software-renderer flag for "auto").
Availability availability(std::initializer_list<const char*> extensions);
// Throws UnavailableError "<who>: <renderer> lacks <ext>" when the shared context lacks one.
void require_extensions(const std::string& who, std::initializer_list<const char*> extensions);
// The shared context if one exists now (never makes one): nullptr before first use / after release.
Context* current_shared_context();
// The viewer hands its window context over so every pass renders into it.
void install_context(std::unique_ptr<Context> context);
// Tears the shared context down (tests that need a fresh one).
void release_shared_context();

// For the lifetime of this object, the calling thread has an engine of its own: every call
// above made on this thread uses a context (and shader library) of its own, made on first use
// on the EGL device of `cuda_device` where EGL offers one (else the default device, e.g.
// llvmpipe). The multi-GPU ranks' threads hold one each (docs/multigpu.md); destroy it on the
// same thread, after every GL object made under it.
class ThreadEngine {
 public:
  explicit ThreadEngine(int cuda_device);
  ~ThreadEngine();
  ThreadEngine(const ThreadEngine&) = delete;
  ThreadEngine& operator=(const ThreadEngine&) = delete;
  int device() const;  // the CUDA device its context is on, -1 when none/unknown
};

}  // namespace tomo::gl
