#include "renderer/gl/context.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/debug.hpp"
#include "renderer/gl/gl.hpp"

namespace tomo::gl {
namespace {

GLint get_int(GLenum e) {
  GLint v = 0;
  glGetIntegerv(e, &v);
  return v;
}

// Extension flags and limits; run before debug output is installed, since an enum the driver
// rejects (subgroup queries without the extension's support) must not throw.
Capabilities read_capabilities(const ContextInfo& info) {
  Capabilities c;
  c.float_atomics = info.has("GL_NV_shader_atomic_float");
  c.ballot = info.has("GL_ARB_shader_ballot");
  c.group_vote = info.has("GL_ARB_shader_group_vote");
  c.subgroup = info.has("GL_KHR_shader_subgroup");
  c.shuffle = info.has("GL_NV_shader_thread_shuffle");
  c.layer_from_vertex = info.has("GL_ARB_shader_viewport_layer_array");
  c.int64 = info.has("GL_ARB_gpu_shader_int64");
  c.bindless_texture = info.has("GL_ARB_bindless_texture");
  while (glGetError() != GL_NO_ERROR) {
  }
  if (c.subgroup) {
    const GLint size = get_int(GL_SUBGROUP_SIZE_KHR);
    const GLint features = get_int(GL_SUBGROUP_SUPPORTED_FEATURES_KHR);
    if (glGetError() == GL_NO_ERROR) {
      c.subgroup_size = size;
      c.subgroup_arithmetic = (features & GL_SUBGROUP_FEATURE_ARITHMETIC_BIT_KHR) != 0;
    }
  }
  c.max_texture_size = get_int(GL_MAX_TEXTURE_SIZE);
  c.max_3d_texture_size = get_int(GL_MAX_3D_TEXTURE_SIZE);
  c.max_array_texture_layers = get_int(GL_MAX_ARRAY_TEXTURE_LAYERS);
  c.max_framebuffer_width = get_int(GL_MAX_FRAMEBUFFER_WIDTH);
  c.max_framebuffer_height = get_int(GL_MAX_FRAMEBUFFER_HEIGHT);
  c.max_framebuffer_layers = get_int(GL_MAX_FRAMEBUFFER_LAYERS);
  GLint64 ssbo = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &ssbo);
  c.max_ssbo_block_size = ssbo;
  if (info.gl_renderer.find("llvmpipe") != std::string::npos) c.max_loop_iterations = 65535;
  while (glGetError() != GL_NO_ERROR) {
  }
  return c;
}

}  // namespace

std::string ContextInfo::summary() const {
  return gl_renderer + ", OpenGL " + gl_version + " (" + platform + ")";
}

void Context::finish_setup(void* (*get_proc)(const char*), bool validate) {
  int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(get_proc));
  if (version == 0) throw UnavailableError("could not load OpenGL functions");
  info_.major = GLAD_VERSION_MAJOR(version);
  info_.minor = GLAD_VERSION_MINOR(version);
  auto str = [](GLenum e) {
    const GLubyte* s = glGetString(e);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
  };
  info_.gl_version = str(GL_VERSION);
  info_.gl_renderer = str(GL_RENDERER);
  info_.gl_vendor = str(GL_VENDOR);
  info_.glsl_version = str(GL_SHADING_LANGUAGE_VERSION);
  if (info_.major < 4 || (info_.major == 4 && info_.minor < 5))
    throw UnavailableError("OpenGL " + info_.gl_version + " on " + info_.gl_renderer +
                           " is too old: tomoraster needs OpenGL 4.5 core or newer");
  GLint n = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n);
  for (GLint i = 0; i < n; ++i)
    info_.extensions.insert(reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i))));
  info_.caps = read_capabilities(info_);
  install_debug_output(validate);
  log_debug("OpenGL ", info_.major, ".", info_.minor, " core on ", info_.gl_renderer, " (", info_.platform, ")");
}

}  // namespace tomo::gl
