// The process's GL engine: one shared context (headless EGL unless the viewer installed
// a window context) and its shader library, both made on first use from runtime_options().
// GL backends call these; `availability()` never throws, so registries can ask cheaply.
#pragma once
#include <memory>

#include "compute/core/registry.hpp"
#include "renderer/gl/context.hpp"
#include "renderer/gl/shader_library.hpp"

namespace tomo::gl {

Context& shared_context();       // throws UnavailableError when no context can be made
ShaderLibrary& shaders();        // of the shared context; honours --shader-dir
Availability availability();     // cached result of trying shared_context()
// The shared context if one exists now (never makes one): nullptr before first use / after release.
Context* current_shared_context();
// The viewer hands its window context over so every pass renders into it.
void install_context(std::unique_ptr<Context> context);
// Tears the shared context down (tests that need a fresh one).
void release_shared_context();

}  // namespace tomo::gl
