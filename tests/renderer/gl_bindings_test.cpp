// Named binding points: the GLSL includes generated from renderer/<folder>/bindings.hpp
// (bindings/gl.glsl, bindings/glpet.glsl) carry the header's numbers, and the shipped passes
// bind their buffers, blocks and samplers where the C++ side binds them (program introspection).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "renderer/gl/bindings.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/glpet/bindings.hpp"
#include "tests/support/gl_introspection.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using test::block_binding;
using test::glsl_values;
using test::unit_of;

using Named = std::vector<std::pair<std::string, unsigned>>;

}  // namespace

TEST(GlBindings, GeneratedIncludesCarryTheHeadersNumbers) {
  test::gl_context();
  namespace e = gl::binding;
  namespace g = glpet::binding;
  const Named engine = {{"TOMO_GRID_BLOCK", e::kGridBlock}, {"TOMO_HALVE_SOURCE", e::kHalveSource}};
  const Named pet = {{"GLPET_CAMERAS", g::kCameras},
                     {"GLPET_IMAGE", g::kImage},
                     {"GLPET_LORS", g::kLors},
                     {"GLPET_LORS_ESTIMATE", g::kLorsEstimate},
                     {"GLPET_BACK", g::kBack},
                     {"GLPET_SENSITIVITY", g::kSensitivity},
                     {"GLPET_SIGMA", g::kSigma},
                     {"GLPET_OFFSETS", g::kOffsets},
                     {"GLPET_CORRESPONDENCE_IMAGE", g::kCorrespondenceImage},
                     {"GLPET_UPDATE_IMAGE", g::kUpdateImage},
                     {"GLPET_UPDATE_BACK", g::kUpdateBack},
                     {"GLPET_UPDATE_SENSITIVITY", g::kUpdateSensitivity},
                     {"GLPET_SIGMA_TEXTURE", g::kSigmaTexture},
                     {"GLPET_CORRESPONDENCE", g::kCorrespondence},
                     {"GLPET_REDUCTION", g::kReduction}};
  for (const auto& [include, names] : {std::pair{std::string("bindings/gl.glsl"), engine},
                                       std::pair{std::string("bindings/glpet.glsl"), pet}}) {
    const std::vector<unsigned> got = glsl_values(include, names);
    for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(got[i], names[i].second) << include << " " << names[i].first;
    // Every #define of the include is one of the names above: a new header entry needs a line here.
    const std::string text = gl::shaders().load(include);
    std::size_t defines = 0;
    for (std::size_t at = text.find("#define "); at != std::string::npos; at = text.find("#define ", at + 1)) ++defines;
    EXPECT_EQ(defines, names.size() + 1) << include;  // + the include guard
  }
}

TEST(GlBindings, ShippedPassesBindWhereTheirCallersBind) {
  test::gl_context();
  namespace g = glpet::binding;
  const GLenum ssbo = GL_SHADER_STORAGE_BLOCK;
  const gl::Program& halve = gl::layered_program("common/halve_sum.frag.glsl");
  EXPECT_EQ(unit_of(halve, "u_src"), GLint(gl::binding::kHalveSource));
  const gl::Program& corr = gl::shaders().program(
      {{gl::Stage::Vertex, "glpet/correspondence.vert.glsl"}, {gl::Stage::Fragment, "glpet/correspondence.frag.glsl"}});
  EXPECT_EQ(block_binding(corr, GL_UNIFORM_BLOCK, "GridBlock"), GLint(gl::binding::kGridBlock));
  EXPECT_EQ(block_binding(corr, ssbo, "Cameras"), GLint(g::kCameras));
  EXPECT_EQ(block_binding(corr, ssbo, "X"), GLint(g::kImage));
  EXPECT_EQ(unit_of(corr, "u_sigma"), GLint(g::kSigmaTexture));
  const gl::Program& pts = gl::shaders().program(
      {{gl::Stage::Vertex, "glpet/atlas_points.vert.glsl"}, {gl::Stage::Fragment, "glpet/atlas_points.frag.glsl"}});
  EXPECT_EQ(block_binding(pts, ssbo, "X"), GLint(g::kImage));
  EXPECT_EQ(unit_of(pts, "u_corr"), GLint(g::kCorrespondence));
  const gl::Program& terms = gl::layered_program("glpet/ratio.frag.glsl");
  EXPECT_EQ(block_binding(terms, ssbo, "Y"), GLint(g::kLors));
  EXPECT_EQ(block_binding(terms, ssbo, "T"), GLint(g::kLorsEstimate));
  EXPECT_EQ(unit_of(terms, "u_corr"), GLint(g::kCorrespondence));
  const gl::Program& collect = gl::shaders().compute("glpet/collect.comp.glsl");
  EXPECT_EQ(block_binding(collect, ssbo, "B"), GLint(g::kBack));
  EXPECT_EQ(block_binding(collect, ssbo, "S"), GLint(g::kSensitivity));
  EXPECT_EQ(unit_of(collect, "u_red"), GLint(g::kReduction));
  const gl::Program& update = gl::shaders().compute("glpet/mlem_update.comp.glsl");
  EXPECT_EQ(block_binding(update, ssbo, "X"), GLint(g::kUpdateImage));
  EXPECT_EQ(block_binding(update, ssbo, "B"), GLint(g::kUpdateBack));
  EXPECT_EQ(block_binding(update, ssbo, "S"), GLint(g::kUpdateSensitivity));
  // The line-set compute passes need float atomics (forward) only where the driver has them.
  const gl::Program& gather = gl::shaders().compute("glpet/gather.comp.glsl");
  EXPECT_EQ(block_binding(gather, ssbo, "Sigma"), GLint(g::kSigma));
  EXPECT_EQ(block_binding(gather, ssbo, "Offsets"), GLint(g::kOffsets));
  EXPECT_EQ(block_binding(gather, ssbo, "Z"), GLint(g::kLors));
  EXPECT_EQ(block_binding(gather, ssbo, "T"), GLint(g::kLorsEstimate));
  EXPECT_EQ(block_binding(gather, ssbo, "B"), GLint(g::kBack));
  EXPECT_EQ(block_binding(gather, ssbo, "S"), GLint(g::kSensitivity));
  const gl::Program& out = gl::shaders().compute("glpet/correspondence.comp.glsl");
  EXPECT_EQ(block_binding(out, ssbo, "Out"), GLint(g::kCorrespondenceImage));
}
