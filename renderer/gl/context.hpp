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
