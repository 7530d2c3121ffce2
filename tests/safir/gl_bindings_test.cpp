// The safir GL compute passes bind their buffers where renderer/safir/bindings.hpp says (the
// C++ side binds there), in every mode: read back from the linked programs.
#include <gtest/gtest.h>

#include <string>

#include "renderer/gl/engine.hpp"
#include "renderer/safir/bindings.hpp"
#include "tests/support/gl_introspection.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

namespace {

using test::block_binding;

constexpr GLenum kSsbo = GL_SHADER_STORAGE_BLOCK;

}  // namespace

TEST(GlBindingsSafir, PassesBindWhereTheProjectorBinds) {
  test::gl_context();
  namespace b = safir::binding;
  for (int mode : {b::kModeForward, b::kModeBack, b::kModeMlem}) {
    const gl::Program& p = gl::shaders().compute("safir/project.comp.glsl", {{"MODE", std::to_string(mode)}});
    EXPECT_EQ(block_binding(p, kSsbo, "Crystals"), GLint(b::kCrystals)) << mode;
    EXPECT_EQ(block_binding(p, kSsbo, "Events"), GLint(b::kEvents)) << mode;
    EXPECT_EQ(block_binding(p, kSsbo, "Values"), GLint(b::kValues)) << mode;
    if (mode != b::kModeBack) EXPECT_EQ(block_binding(p, kSsbo, "Image"), GLint(b::kImage)) << mode;
    if (mode != b::kModeForward) EXPECT_EQ(block_binding(p, kSsbo, "FloatAddTarget"), GLint(b::kAcc)) << mode;
  }
  const gl::Program& forward = gl::shaders().compute("safir/tiled.comp.glsl", {{"MODE", std::to_string(b::kModeForward)}, {"TILE", "256"}});
  EXPECT_EQ(block_binding(forward, kSsbo, "Records"), GLint(b::kRecords));
  EXPECT_EQ(block_binding(forward, kSsbo, "Image"), GLint(b::kImage));
  EXPECT_EQ(block_binding(forward, kSsbo, "Values"), GLint(b::kValues));
  const gl::Program& back = gl::shaders().compute("safir/tiled.comp.glsl", {{"MODE", std::to_string(b::kModeBack)}, {"TILE", "256"}});
  EXPECT_EQ(block_binding(back, kSsbo, "Records"), GLint(b::kRecords));
  EXPECT_EQ(block_binding(back, kSsbo, "Values"), GLint(b::kValues));
  EXPECT_EQ(block_binding(back, kSsbo, "Acc"), GLint(b::kAcc));
  const gl::Program& update = gl::shaders().compute("safir/update.comp.glsl");
  EXPECT_EQ(block_binding(update, kSsbo, "Image"), GLint(b::kImage));
  EXPECT_EQ(block_binding(update, kSsbo, "Acc"), GLint(b::kAcc));
  EXPECT_EQ(block_binding(update, kSsbo, "Sens"), GLint(b::kSensitivity));
  EXPECT_EQ(block_binding(update, kSsbo, "Values"), GLint(b::kValues));
  const gl::Program& spheres = gl::shaders().compute("safir/spheres.comp.glsl");
  EXPECT_EQ(block_binding(spheres, kSsbo, "Image"), GLint(b::kImage));
  EXPECT_EQ(block_binding(spheres, kSsbo, "Offsets"), GLint(b::kOffsets));
  EXPECT_EQ(block_binding(spheres, kSsbo, "Sums"), GLint(b::kSums));
}
