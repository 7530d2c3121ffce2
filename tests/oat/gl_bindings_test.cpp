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
#include "tests/support/gl_introspection.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using test::glsl_values;
using test::ssbo_binding;
using test::unit_of;

using Named = std::vector<std::pair<std::string, int>>;

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
  const std::vector<int> got = glsl_values("bindings/oat.glsl", names);
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
    EXPECT_EQ(unit_of(fbp, "u_table"), GLint(b::kFbpTable)) << name;
  }
  for (const gl::Defines& d : {gl::Defines{}, gl::Defines{{"EXACT", "1"}}}) {
    const gl::Program& srt = gl::shaders().compute("oat/srt.comp.glsl", d);
    EXPECT_EQ(ssbo_binding(srt, "Frames"), GLint(b::kShellFrames));
    EXPECT_EQ(ssbo_binding(srt, "Caps"), GLint(b::kShellCaps));
    EXPECT_EQ(ssbo_binding(srt, "Shells"), GLint(b::kShellSums));
    if (d.empty()) EXPECT_EQ(unit_of(srt, "u_volume"), GLint(b::kVolume));  // the hardware fetch
    else EXPECT_EQ(ssbo_binding(srt, "Alpha"), GLint(b::kShellAlpha));
  }
  const gl::Program& adj = gl::shaders().compute("oat/srt_gather.comp.glsl");  // the tiled gather
  EXPECT_EQ(ssbo_binding(adj, "Frames"), GLint(b::kShellFrames));
  EXPECT_EQ(ssbo_binding(adj, "Caps"), GLint(b::kShellCaps));
  EXPECT_EQ(ssbo_binding(adj, "Shells"), GLint(b::kShellSums));
  EXPECT_EQ(ssbo_binding(adj, "Alpha"), GLint(b::kShellAlpha));
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
