// The OpenGL section of `tomoraster info`: EGL platform and vendor, GL version and
// renderer, GLSL version, and the optional extensions our passes look for.
#include "compute/core/info.hpp"
#include "renderer/gl/engine.hpp"

namespace tomo::gl {
namespace {

std::vector<std::string> gl_lines() {
  auto a = availability();
  if (!a.ok) return {"unavailable: " + a.why};
  const ContextInfo& i = shared_context().info();
  std::vector<std::string> out = {
      "platform:  " + i.platform,
      "EGL:       " + i.egl_vendor + " " + i.egl_version,
      "version:   " + i.gl_version + " (core " + std::to_string(i.major) + "." + std::to_string(i.minor) + ")",
      "renderer:  " + i.gl_renderer + " (" + i.gl_vendor + ")",
      "GLSL:      " + i.glsl_version,
  };
  if (i.cuda_device >= 0) out.push_back("CUDA device of this EGL device: " + std::to_string(i.cuda_device));
  std::string have, lack;
  for (const char* ext : {"GL_NV_shader_atomic_float", "GL_ARB_shader_ballot", "GL_KHR_shader_subgroup",
                          "GL_ARB_shader_viewport_layer_array", "GL_ARB_gpu_shader_int64", "GL_ARB_bindless_texture",
                          "GL_NV_shader_thread_shuffle"}) {
    (i.has(ext) ? have : lack) += std::string(have.empty() && i.has(ext) ? "" : " ") + ext;
  }
  out.push_back("extensions: " + (have.empty() ? std::string("(none of ours)") : have));
  if (!lack.empty()) out.push_back("missing:   " + lack);
  const Capabilities& c = i.caps;
  out.push_back("limits:    3D texture " + std::to_string(c.max_3d_texture_size) + ", array layers " +
                std::to_string(c.max_array_texture_layers) + ", SSBO block " +
                std::to_string(c.max_ssbo_block_size >> 20) + " MiB" +
                (c.subgroup ? ", subgroup size " + std::to_string(c.subgroup_size) : std::string()));
  return out;
}

const InfoRegistrar kRegister({"OpenGL", 10, gl_lines});

}  // namespace
}  // namespace tomo::gl
