// The headless context, GL error reporting and RAII objects.
#include <gtest/gtest.h>

#include "compute/core/error.hpp"
#include "renderer/gl/objects.hpp"
#include "tests/support/gl_test.hpp"

using namespace tomo;

TEST(GlContext, Is45CoreOrNewerWithRenderer) {
  const gl::ContextInfo& info = test::gl_context().info();
  EXPECT_GE(info.major * 10 + info.minor, 45) << info.gl_version;
  EXPECT_FALSE(info.gl_renderer.empty());
  EXPECT_EQ(info.glsl_version.rfind("4.", 0), 0u) << info.glsl_version;
  EXPECT_FALSE(info.platform.empty());
  GLint profile = 0;
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  EXPECT_TRUE(profile & GL_CONTEXT_CORE_PROFILE_BIT);
}

TEST(GlContext, ErrorsThrowWithCallAndEnumName) {
  test::gl_context();
  try {
    TOMO_GL_CHECK(glBindBuffer(GL_TEXTURE_2D, 0));  // not a buffer target
    FAIL() << "expected an exception";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("GL_INVALID_ENUM"), std::string::npos) << msg;
    EXPECT_NE(msg.find("glBindBuffer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gl_context_test.cpp"), std::string::npos) << msg;
  }
  // The error was consumed: the next check passes.
  EXPECT_NO_THROW(TOMO_GL_CHECK(glFlush()));
}

TEST(GlObjects, BufferRoundTripMoveAndRelease) {
  test::gl_context();
  std::vector<float> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = 0.5f * static_cast<float>(i) - 7.f;
  gl::Buffer a = gl::Buffer::from(data);
  EXPECT_EQ(a.read<float>(), data);
  gl::Buffer b = std::move(a);
  EXPECT_EQ(a.id(), 0u);
  EXPECT_EQ(b.bytes(), data.size() * sizeof(float));
  GLuint raw = b.release();
  EXPECT_EQ(b.id(), 0u);
  EXPECT_TRUE(glIsBuffer(raw));  // release() gave ownership away: still alive
  {
    // wrap() borrows by default: the view reads the buffer and leaves it alive.
    gl::Buffer view = gl::Buffer::wrap(raw, data.size() * sizeof(float));
    EXPECT_FALSE(view.owns());
    EXPECT_EQ(view.read<float>()[10], data[10]);
    gl::Buffer moved = std::move(view);
    EXPECT_FALSE(moved.owns());
  }
  EXPECT_TRUE(glIsBuffer(raw));
  gl::Buffer adopted = gl::Buffer::wrap(raw, data.size() * sizeof(float), gl::Ownership::Adopt);
  EXPECT_EQ(adopted.read<float>()[10], data[10]);
  adopted.reset();
  EXPECT_FALSE(glIsBuffer(raw));
}

TEST(GlObjects, FenceWaitsAndIsMoveOnly) {
  test::gl_context();
  gl::Buffer b(64);
  b.clear_zero();
  gl::Fence f = gl::Fence::insert();
  EXPECT_TRUE(static_cast<bool>(f));
  gl::Fence g = std::move(f);
  EXPECT_FALSE(static_cast<bool>(f));
  EXPECT_NO_THROW(g.wait("test fence"));
  EXPECT_FALSE(static_cast<bool>(g));  // waited fences are deleted
  EXPECT_NO_THROW(g.wait("empty fence"));
}

TEST(GlObjects, Texture3DAndArrayRoundTrip) {
  test::gl_context();
  std::vector<float> v(5 * 4 * 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 1.25f;
  auto t3 = gl::Texture::create_3d(GL_R32F, 5, 4, 3);
  t3.upload_float(v.data(), 1);
  EXPECT_EQ(t3.read_float(1), v);
  std::vector<float> rgba(4 * 2 * 2 * 3);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = -static_cast<float>(i);
  auto arr = gl::Texture::create_2d_array(GL_RGBA32F, 2, 2, 3);
  arr.upload_float(rgba.data(), 4);
  EXPECT_EQ(arr.read_float(4), rgba);
}
