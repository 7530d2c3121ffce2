// The seam through which a backend that must not include renderer/ (cuda/) gets GL buffer
// objects from the process's GL engine: renderer/gl installs the hooks at static-init time,
// the backend uses only the GL names they return (e.g. to register them with CUDA).
#pragma once
#include <cstddef>

#include "compute/core/registry.hpp"

namespace tomo {

struct GlBufferHooks {
  // Whether the engine has, or can make, a GL context (never throws; makes it if needed).
  Availability (*availability)() = nullptr;
  // A buffer object with immutable storage of `bytes` (> 0), zero-filled, in the engine's
  // context (made current). Throws on failure.
  unsigned (*create)(std::size_t bytes) = nullptr;
  // Deletes a name from create() (makes the context current); does nothing once the engine
  // has released its context (the names died with it). Never throws.
  void (*destroy)(unsigned name) = nullptr;
  // Makes the engine's context current on the calling thread (CUDA-GL register/map/unmap
  // need it). Throws when there is none (it never makes one).
  void (*make_current)() = nullptr;
};

void install_gl_buffer_hooks(const GlBufferHooks& hooks);
// The installed hooks, or nullptr when no GL engine is linked into this program.
const GlBufferHooks* gl_buffer_hooks();

}  // namespace tomo
