// HeadlessContext over EGL (glad loads libEGL at run time, so binaries start without it).
#include <glad/egl.h>

#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "renderer/gl/context.hpp"
#include "renderer/gl/gl.hpp"

namespace tomo::gl {
namespace {

void* egl_proc(const char* name) { return reinterpret_cast<void*>(eglGetProcAddress(name)); }

std::string egl_error_name(EGLint e) {
  switch (e) {
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    default: return "EGL error " + std::to_string(e);
  }
}

struct Candidate {
  EGLDisplay display;
  std::string platform;
  int cuda_device;
};

// Creates a 4.6 (else 4.5) core context on an initialised display; EGL_NO_CONTEXT on failure.
EGLContext make_context(EGLDisplay dpy, bool validate, std::string& why) {
  if (!eglBindAPI(EGL_OPENGL_API)) {
    why = "eglBindAPI(EGL_OPENGL_API) failed";
    return EGL_NO_CONTEXT;
  }
  EGLConfig config = nullptr;
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE};
  EGLint n = 0;
  if (!eglChooseConfig(dpy, config_attribs, &config, 1, &n) || n == 0) {
    const EGLint any_surface[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    if (!eglChooseConfig(dpy, any_surface, &config, 1, &n) || n == 0) config = nullptr;
  }
  if (!config && !GLAD_EGL_KHR_no_config_context) {
    why = "no EGL config for desktop OpenGL";
    return EGL_NO_CONTEXT;
  }
  for (int minor : {6, 5}) {
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, minor,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                              EGL_CONTEXT_OPENGL_DEBUG, validate ? EGL_TRUE : EGL_FALSE, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config ? config : EGLConfig(nullptr), EGL_NO_CONTEXT, attribs);
    if (ctx != EGL_NO_CONTEXT) return ctx;
    why = "eglCreateContext(4." + std::to_string(minor) + " core): " + egl_error_name(eglGetError());
  }
  return EGL_NO_CONTEXT;
}

std::vector<Candidate> device_displays(int want_cuda, std::vector<std::string>& reasons) {
  std::vector<Candidate> out;
  // glvnd advertises EGL_EXT_device_base (enumeration + query) rather than the parts.
  bool enumerate = GLAD_EGL_EXT_device_enumeration || GLAD_EGL_EXT_device_base;
  if (!enumerate || !eglQueryDevicesEXT || !eglGetPlatformDisplayEXT || !GLAD_EGL_EXT_platform_device) {
    reasons.push_back("EGL device platform: not offered by this EGL");
    return out;
  }
  EGLint count = 0;
  eglQueryDevicesEXT(0, nullptr, &count);
  std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
  if (count == 0 || !eglQueryDevicesEXT(count, devices.data(), &count)) {
    reasons.push_back("EGL device platform: no devices");
    return out;
  }
  for (EGLDeviceEXT dev : devices) {
    const char* exts = eglQueryDeviceStringEXT(dev, EGL_EXTENSIONS);
    std::string ext = exts ? exts : "";
    // Mesa lists its software rasteriser as a device too; the surfaceless path below covers it.
    if (ext.find("EGL_MESA_device_software") != std::string::npos) continue;
    int cuda = -1;
    EGLAttrib value = 0;
    if (ext.find("EGL_NV_device_cuda") != std::string::npos && eglQueryDeviceAttribEXT &&
        eglQueryDeviceAttribEXT(dev, EGL_CUDA_DEVICE_NV, &value))
      cuda = static_cast<int>(value);
    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, dev, nullptr);
    if (dpy == EGL_NO_DISPLAY) continue;
    out.push_back({dpy, "EGL device", cuda});
  }
  // The device that is the chosen CUDA device goes first.
  if (want_cuda >= 0)
    std::stable_partition(out.begin(), out.end(), [&](const Candidate& c) { return c.cuda_device == want_cuda; });
  if (out.empty()) reasons.push_back("EGL device platform: no hardware device");
  return out;
}

}  // namespace

std::unique_ptr<HeadlessContext> HeadlessContext::create(const ContextOptions& options) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw UnavailableError("no EGL library (libEGL.so.1) could be loaded: install libegl1 and a driver "
                           "(Mesa: libegl-mesa0 libgl1-mesa-dri)");
  std::vector<std::string> reasons;
  std::vector<Candidate> candidates = device_displays(options.cuda_device, reasons);
  if (GLAD_EGL_MESA_platform_surfaceless) {
    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (dpy != EGL_NO_DISPLAY) candidates.push_back({dpy, "EGL surfaceless (Mesa)", -1});
  } else {
    reasons.push_back("EGL surfaceless platform: not offered by this EGL");
  }
  for (const Candidate& c : candidates) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(c.display, &major, &minor)) {
      reasons.push_back(c.platform + ": eglInitialize: " + egl_error_name(eglGetError()));
      continue;
    }
    gladLoaderLoadEGL(c.display);  // display extensions
    std::string why;
    EGLContext ctx = make_context(c.display, options.validate, why);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(c.display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      if (ctx != EGL_NO_CONTEXT) {
        why = "eglMakeCurrent without surface: " + egl_error_name(eglGetError());
        eglDestroyContext(c.display, ctx);
      }
      reasons.push_back(c.platform + ": " + why);
      eglTerminate(c.display);
      continue;
    }
    std::unique_ptr<HeadlessContext> out(new HeadlessContext());
    out->display_ = c.display;
    out->context_ = ctx;
    out->info_.platform = c.platform;
    out->info_.cuda_device = c.cuda_device;
    const char* vendor = eglQueryString(c.display, EGL_VENDOR);
    const char* version = eglQueryString(c.display, EGL_VERSION);
    out->info_.egl_vendor = vendor ? vendor : "";
    out->info_.egl_version = version ? version : "";
    try {
      out->finish_setup(egl_proc, options.validate);
    } catch (const UnavailableError& e) {
      reasons.push_back(c.platform + ": " + e.what());
      continue;  // the destructor releases this display
    }
    for (const auto& r : reasons) log_debug("EGL: skipped ", r);
    return out;
  }
  std::string all;
  for (const auto& r : reasons) all += "\n  - " + r;
  throw UnavailableError("no OpenGL 4.5+ core context could be created headless:" + all);
}

HeadlessContext::~HeadlessContext() {
  if (display_) {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_) eglDestroyContext(display_, context_);
    // No eglTerminate: other contexts of this process may live on the same display.
  }
}

void HeadlessContext::make_current() {
  if (!eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_))
    throw Error("eglMakeCurrent failed: " + egl_error_name(eglGetError()));
}

}  // namespace tomo::gl
