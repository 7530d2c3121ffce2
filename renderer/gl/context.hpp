// An OpenGL 4.5/4.6 core context and what it runs on. HeadlessContext is EGL:
// the device platform first (NVIDIA; matched to a CUDA device when asked), then
// Mesa's surfaceless platform; never EGL_DEFAULT_DISPLAY. Windows live in renderer/window.
#pragma once
#include <memory>
#include <set>
#include <string>

namespace tomo::gl {

struct ContextOptions {
  bool validate = false;   // synchronous debug output, GL errors throw
  int cuda_device = -1;    // prefer the EGL device that is this CUDA device (-1: first that works)
};

// What the passes choose between, read once when the context is made (extensions and limits).
struct Capabilities {
  bool float_atomics = false;        // GL_NV_shader_atomic_float: atomicAdd on float SSBOs/images
  bool ballot = false;               // GL_ARB_shader_ballot
  bool group_vote = false;           // GL_ARB_shader_group_vote
  bool subgroup = false;             // GL_KHR_shader_subgroup (NVIDIA only)
  int subgroup_size = 0;             // GL_SUBGROUP_SIZE_KHR; 0 without subgroups
  bool subgroup_arithmetic = false;  // subgroupAdd & co. (GL_SUBGROUP_FEATURE_ARITHMETIC_BIT_KHR)
  bool shuffle = false;              // GL_NV_shader_thread_shuffle
  bool layer_from_vertex = false;    // GL_ARB_shader_viewport_layer_array: gl_Layer in the vertex shader
  bool int64 = false;                // GL_ARB_gpu_shader_int64
  bool bindless_texture = false;     // GL_ARB_bindless_texture
  int max_texture_size = 0;          // GL_MAX_TEXTURE_SIZE (2D width/height)
  int max_3d_texture_size = 0;       // GL_MAX_3D_TEXTURE_SIZE
  int max_array_texture_layers = 0;  // GL_MAX_ARRAY_TEXTURE_LAYERS
  int max_framebuffer_width = 0, max_framebuffer_height = 0, max_framebuffer_layers = 0;
  long long max_ssbo_block_size = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE, bytes
  // Loop iterations one shader invocation may run before the driver cuts its loops short,
  // silently; 0 = no such limit. Mesa's llvmpipe has one (about 65535, counted over the
  // loops of the invocation: measured in tests/renderer/gl_engine_test.cpp); passes whose
  // loops run longer must refuse there (strip's gl-compute thread kernel does).
  long long max_loop_iterations = 0;
};

struct ContextInfo {
  std::string platform;      // "EGL device", "EGL surfaceless (Mesa)", "GLFW window"
  std::string egl_vendor;    // EGL_VENDOR (empty for windows)
  std::string egl_version;
  std::string gl_version;    // GL_VERSION
  std::string gl_renderer;   // GL_RENDERER
  std::string gl_vendor;     // GL_VENDOR
  std::string glsl_version;  // GL_SHADING_LANGUAGE_VERSION
  int major = 0, minor = 0;
  int cuda_device = -1;      // CUDA device index of the EGL device, when EGL_NV_device_cuda tells
  std::set<std::string> extensions;
  Capabilities caps;

  bool has(const std::string& ext) const { return extensions.count(ext) > 0; }
  std::string summary() const;  // one line: renderer, GL version, platform
};

class Context {
 public:
  virtual ~Context() = default;
  virtual void make_current() = 0;
  const ContextInfo& info() const { return info_; }

 protected:
  // Loads GL with glad through `get_proc`, checks the version (>= 4.5 core, else
  // UnavailableError), fills info_ and installs debug output.
  void finish_setup(void* (*get_proc)(const char*), bool validate);
  ContextInfo info_;
};

class HeadlessContext final : public Context {
 public:
  // Throws UnavailableError with every reason collected when no context can be made.
  static std::unique_ptr<HeadlessContext> create(const ContextOptions& options = {});
  ~HeadlessContext() override;
  void make_current() override;

 private:
  HeadlessContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace tomo::gl
