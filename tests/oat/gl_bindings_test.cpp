// oat's named binding points: the generated bindings/oat.glsl carries renderer/oat/bindings.hpp's
// numbers, and every oat pass binds its buffers and samplers where the C++ side binds them
// (read back by program introspection), so a renumbered entry moves both sides together.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "compute/core/error.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/oat/bindings.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using Named = std::vector<std::pair<std::string, int>>;

// Every macro of bindings/oat.glsl, written by a compute shader into a buffer: what GLSL sees.
std::vector<int> glsl_values(const Named& names) {
  std::string src = "#version 450 core\n" + gl::shaders().load("bindings/oat.glsl") +
                    "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer Out { int v[]; };\nvoid main() {\n";
  for (std::size_t i = 0; i < names.size(); ++i)
    src += "  v[" + std::to_string(i) + "] = int(" + names[i].first + ");\n";
  src += "}\n";
  gl::Program p = gl::ShaderLibrary::build({{gl::Stage::Compute, src}}, "oat bindings probe");
  gl::Buffer out(names.size() * sizeof(int));
  out.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
  p.dispatch(1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  return out.read<int>();
}

GLint ssbo_binding(const gl::Program& p, const char* block) {
  const GLuint index = glGetProgramResourceIndex(p.id(), GL_SHADER_STORAGE_BLOCK, block);
  EXPECT_NE(index, GL_INVALID_INDEX) << p.name() << ": no active block " << block;
  if (index == GL_INVALID_INDEX) return -1;
  const GLenum prop = GL_BUFFER_BINDING;
  GLint binding = -1;
  glGetProgramResourceiv(p.id(), GL_SHADER_STORAGE_BLOCK, index, 1, &prop, 1, nullptr, &binding);
  return binding;
}

GLint sampler_unit(const gl::Program& p, const char* sampler) {
  const GLint loc = glGetUniformLocation(p.id(), sampler);
  EXPECT_GE(loc, 0) << p.name() << ": no active sampler " << sampler;
  GLint unit = -1;
  if (loc >= 0) glGetUniformiv(p.id(), loc, &unit);
  return unit;
}

}  // namespace

TEST(OatGlBindings, GeneratedIncludeCarriesTheHeadersNumbers) {
  test::gl_context();
  namespace b = oat::binding;
  namespace s = oat::stage;
  const Named names = {{"OAT_FBP_TRANSDUCERS", b::kFbpTransducers},
                       {"OAT_FBP_IMAGE", b::kFbpImage},
                       {"OAT_FBP_POSITIONS", b::kFbpPositions},
                       {"OAT_SHELL_FRAMES", b::kShellFrames},
                       {"OAT_SHELL_ALPHA", b::kShellAlpha},
                       {"OAT_SHELL_SUMS", b::kShellSums},
                       {"OAT_SHELL_CAPS", b::kShellCaps},
                       {"OAT_STAGE_IN", b::kStageIn},
                       {"OAT_STAGE_OUT", b::kStageOut},
                       {"OAT_STAGE_TAPS", b::kStageTaps},
                       {"OAT_SPH_POINTS", b::kSphPoints},
                       {"OAT_SPH_FORWARD_ALPHA", b::kSphForwardAlpha},
                       {"OAT_SPH_FORWARD_SUMS", b::kSphForwardSums},
                       {"OAT_SPH_ADJOINT_WEIGHTED", b::kSphAdjointWeighted},
                       {"OAT_SPH_ADJOINT_ALPHA", b::kSphAdjointAlpha},
                       {"OAT_FBP_TABLE", b::kFbpTable},
                       {"OAT_VOLUME", b::kVolume},
                       {"OAT_STAGE_DERIVATIVE", s::kStageDerivative},
                       {"OAT_STAGE_DERIVATIVE_ADJOINT", s::kStageDerivativeAdjoint},
                       {"OAT_STAGE_EIR", s::kStageEir},
                       {"OAT_STAGE_EIR_ADJOINT", s::kStageEirAdjoint}};
  const std::vector<int> got = glsl_values(names);
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(got[i], names[i].second) << names[i].first;
  // Every #define of the include is one of the names above: a new header entry needs a line here.
  const std::string text = gl::shaders().load("bindings/oat.glsl");
  std::size_t defines = 0;
  for (std::size_t at = text.find("#define "); at != std::string::npos; at = text.find("#define ", at + 1)) ++defines;
  EXPECT_EQ(defines, names.size() + 1);  // + the include guard
}

TEST(OatGlBindings, PassesBindWhereTheirCallersBind) {
  test::gl_context();
  namespace b = oat::binding;
  for (const char* name : {"oat/fbp.comp.glsl", "oat/fbp_shared.comp.glsl"}) {
    const gl::Defines shared = {{"SLOT", "64"}, {"TILE", "32"}, {"VPT", "4"}};
    const gl::Program& fbp = gl::shaders().compute(name, std::string(name).find("shared") != std::string::npos ? shared : gl::Defines{});
    EXPECT_EQ(ssbo_binding(fbp, "Transducers"), GLint(b::kFbpTransducers)) << name;
    EXPECT_EQ(ssbo_binding(fbp, "Image"), GLint(b::kFbpImage)) << name;
    EXPECT_EQ(ssbo_binding(fbp, "Positions"), GLint(b::kFbpPositions)) << name;
    EXPECT_EQ(sampler_unit(fbp, "u_table"), GLint(b::kFbpTable)) << name;
  }
  for (const gl::Defines& d : {gl::Defines{}, gl::Defines{{"EXACT", "1"}}}) {
    const gl::Program& srt = gl::shaders().compute("oat/srt.comp.glsl", d);
    EXPECT_EQ(ssbo_binding(srt, "Frames"), GLint(b::kShellFrames));
    EXPECT_EQ(ssbo_binding(srt, "Caps"), GLint(b::kShellCaps));
    EXPECT_EQ(ssbo_binding(srt, "Shells"), GLint(b::kShellSums));
    if (d.empty()) EXPECT_EQ(sampler_unit(srt, "u_volume"), GLint(b::kVolume));  // the hardware fetch
    else EXPECT_EQ(ssbo_binding(srt, "Alpha"), GLint(b::kShellAlpha));
  }
  const gl::Program& adj = gl::shaders().compute("oat/srt_adjoint.comp.glsl");  // the compare-and-swap scatter
  EXPECT_EQ(ssbo_binding(adj, "Frames"), GLint(b::kShellFrames));
  EXPECT_EQ(ssbo_binding(adj, "Caps"), GLint(b::kShellCaps));
  EXPECT_EQ(ssbo_binding(adj, "Shells"), GLint(b::kShellSums));
  EXPECT_EQ(ssbo_binding(adj, "FloatAddTarget"), GLint(b::kShellAlpha));
  const gl::Program& eir = gl::shaders().compute("oat/time_stages.comp.glsl",
                                                 {{"STAGE", std::to_string(oat::stage::kStageEir)}});
  EXPECT_EQ(ssbo_binding(eir, "In"), GLint(b::kStageIn));
  EXPECT_EQ(ssbo_binding(eir, "Out"), GLint(b::kStageOut));
  EXPECT_EQ(ssbo_binding(eir, "Taps"), GLint(b::kStageTaps));
  const gl::Program& fwd = gl::shaders().compute("oat/sph_forward.comp.glsl");
  EXPECT_EQ(ssbo_binding(fwd, "Points"), GLint(b::kSphPoints));
  EXPECT_EQ(ssbo_binding(fwd, "Alpha"), GLint(b::kSphForwardAlpha));
  EXPECT_EQ(ssbo_binding(fwd, "Sums"), GLint(b::kSphForwardSums));
  const gl::Program& back = gl::shaders().compute("oat/sph_adjoint.comp.glsl");
  EXPECT_EQ(ssbo_binding(back, "Points"), GLint(b::kSphPoints));
  EXPECT_EQ(ssbo_binding(back, "Weighted"), GLint(b::kSphAdjointWeighted));
  EXPECT_EQ(ssbo_binding(back, "Alpha"), GLint(b::kSphAdjointAlpha));
}

// A STAGE outside bindings.hpp's four does not compile (no stage silently writes nothing).
TEST(OatGlBindings, UnknownTimeStageIsACompileError) {
  test::gl_context();
  EXPECT_THROW(gl::shaders().compute("oat/time_stages.comp.glsl", {{"STAGE", "7"}}), Error);
}
