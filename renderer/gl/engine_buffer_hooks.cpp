// Fills core/gl_buffer_hooks.hpp from the GL engine at static-init time, so cuda/ can ask for
// GL buffer objects (CUDA-GL interop) without including renderer/.
#include <map>
#include <mutex>

#include "compute/core/error.hpp"
#include "compute/core/gl_buffer_hooks.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/gl.hpp"

namespace tomo::gl {
namespace {

// Which context each name was made in: a name is deleted only in that context, never in a
// later one (after release_shared_context() or install_context() the same number may be
// another object, or nothing).
std::mutex g_mutex;
std::map<unsigned, const Context*>& owners() {
  static auto* m = new std::map<unsigned, const Context*>;
  return *m;
}

unsigned create_buffer(std::size_t bytes) {
  if (bytes == 0) throw Error("GL buffer hook: empty buffers are not allowed");
  Context& ctx = shared_context();
  ctx.make_current();
  GLuint id = 0;
  TOMO_GL_CHECK(glCreateBuffers(1, &id));
  try {
    TOMO_GL_CHECK(glNamedBufferStorage(id, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_STORAGE_BIT));
    TOMO_GL_CHECK(glClearNamedBufferData(id, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr));
  } catch (...) {
    glDeleteBuffers(1, &id);
    throw;
  }
  std::lock_guard lock(g_mutex);
  owners()[id] = &ctx;
  return id;
}

void destroy_buffer(unsigned name) {
  const Context* made_in = nullptr;
  {
    std::lock_guard lock(g_mutex);
    auto it = owners().find(name);
    if (it == owners().end()) return;
    made_in = it->second;
    owners().erase(it);
  }
  Context* now = current_shared_context();
  if (!now || now != made_in) return;  // its context is gone, and the name with it
  try {
    now->make_current();
    glDeleteBuffers(1, &name);
  } catch (const std::exception& e) {
    log_error("GL buffer hook: could not delete buffer ", name, ": ", e.what());
  }
}

// Never makes a context: buffers from create() exist only while theirs does.
void make_current() {
  Context* c = current_shared_context();
  if (!c) throw Error("GL buffer hook: the GL engine has no context (released, or never made)");
  c->make_current();
}

[[maybe_unused]] const bool kInstalled = [] {
  GlBufferHooks h;
  h.availability = [] { return gl::availability(); };
  h.create = create_buffer;
  h.destroy = destroy_buffer;
  h.make_current = make_current;
  install_gl_buffer_hooks(h);
  return true;
}();

}  // namespace
}  // namespace tomo::gl
