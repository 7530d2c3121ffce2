// The fixed-function state of a raster pass, written once per pass with designated
// initialisers (`gl::PipelineState{.blend = gl::Blend::Add}`) and set by apply(), which
// writes every field: no pass depends on what the previous one left enabled.
#pragma once

namespace tomo::gl {

enum class Blend {
  Off,
  Add,  // target += fragment (GL_FUNC_ADD, GL_ONE, GL_ONE): accumulation passes
};

struct PipelineState {
  Blend blend = Blend::Off;
  bool depth_test = false;
  // Off by default: the passes' camera bases may be left-handed, so no winding is "front".
  bool cull_face = false;
  bool scissor_test = false;
};

// Sets blend (enable, equation, factors), depth test, face culling and scissor test.
void apply(const PipelineState& state);

}  // namespace tomo::gl
