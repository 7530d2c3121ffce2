#include "compute/core/gl_buffer_hooks.hpp"

namespace tomo {
namespace {
// Function-local: installed from another unit's static initialiser, in any order.
GlBufferHooks*& installed() {
  static GlBufferHooks* hooks = nullptr;
  return hooks;
}
}  // namespace

void install_gl_buffer_hooks(const GlBufferHooks& hooks) {
  static GlBufferHooks storage;
  storage = hooks;
  installed() = &storage;
}

const GlBufferHooks* gl_buffer_hooks() { return installed(); }

}  // namespace tomo
