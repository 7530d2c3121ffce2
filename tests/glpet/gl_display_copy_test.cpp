// What the viewer's display path relies on, on llvmpipe: the GL-buffer hooks cuda/ uses for
// CUDA-GL interop (core/gl_buffer_hooks.hpp, filled by renderer/gl), BackendBuffer::gl_name()
// of the GL backends, and glpet::copy_to_gl (GPU-side for GL vectors, through the host for
// the cpu backend's), checked value for value; and the scene key glpet.cuda_gl_interop.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/gl_buffer_hooks.hpp"
#include "compute/core/scene.hpp"
#include "renderer/gl/objects.hpp"
#include "compute/glpet/cpu_projector.hpp"
#include "renderer/glpet/gl_display_copy.hpp"
#include "compute/glpet/config.hpp"
#include "tests/glpet/gl_fixtures.hpp"
#include "tests/support/gl_test.hpp"

namespace tomo::glpet {
namespace {

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.25f * float(i % 1021) - 3.0f;  // exact in float
  return v;
}

TEST(GlBufferHooks, CreateZeroFilledBuffersInTheEngineContext) {
  tomo::test::gl_context();
  const GlBufferHooks* h = gl_buffer_hooks();
  ASSERT_NE(h, nullptr) << "renderer/gl did not install the hooks";
  ASSERT_TRUE(h->availability().ok);
  const std::size_t bytes = 4 * 1000;
  const unsigned name = h->create(bytes);
  ASSERT_NE(name, 0u);
  h->make_current();
  gl::Buffer view = gl::Buffer::wrap(name, bytes);
  const auto zero = view.read<float>();
  ASSERT_EQ(zero.size(), 1000u);
  for (float v : zero) ASSERT_EQ(v, 0.0f);
  const auto r = ramp(1000);
  view.upload(r.data(), bytes);
  EXPECT_EQ(view.read<float>(), r);
  view.release();  // the hook owns the name
  h->destroy(name);
  EXPECT_FALSE(glIsBuffer(name));
  h->destroy(name);  // unknown names are ignored
  EXPECT_THROW(h->create(0), Error);
}

TEST(GlpetDisplayCopy, GlVectorsAreCopiedOnTheGpu) {
  tomo::test::gl_context();
  const SystemModel sys = test::small_system(8);
  for (const char* name : {"gl", "gl-compute"}) {
    auto op = test::make_backend(name, sys);
    auto x = op->make_image();
    ASSERT_NE(x->gl_name(), 0u) << name;
    const auto v = ramp(x->size());
    x->upload(v);
    gl::Buffer dst((x->size() + 5) * sizeof(float));
    dst.clear_zero();
    EXPECT_EQ(copy_to_gl(*x, dst), CopyPath::Gpu) << name;
    auto got = dst.read<float>();
    ASSERT_EQ(got.size(), v.size() + 5);
    for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(got[i], v[i]) << name << " i=" << i;
    for (std::size_t i = v.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0.0f);  // nothing past the vector
  }
}

TEST(GlpetDisplayCopy, HostVectorsGoThroughTheHost) {
  tomo::test::gl_context();
  const SystemModel sys = test::small_system(8);
  CpuProjector cpu;
  cpu.configure(sys);
  auto y = cpu.make_lors();
  EXPECT_EQ(y->gl_name(), 0u);
  const auto v = ramp(y->size());
  y->upload(v);
  gl::Buffer dst(y->size() * sizeof(float));
  EXPECT_EQ(copy_to_gl(*y, dst), CopyPath::Host);
  EXPECT_EQ(dst.read<float>(), v);
  gl::Buffer small((y->size() - 1) * sizeof(float));
  EXPECT_THROW(copy_to_gl(*y, small), Error);
}

TEST(GlpetDisplayCopy, SceneKeyCudaGlInterop) {
  std::ifstream in(std::filesystem::path(TOMO_SOURCE_DIR) / "scenes" / "glpet_small.toml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Scene s = Scene::load_string(text, "glpet_small(test).toml");
  EXPECT_EQ(read_glpet_scene(s).projector.cuda_gl_interop, Use::automatic);
  s.apply_override("glpet.cuda_gl_interop=\"off\"");
  EXPECT_EQ(read_glpet_scene(s).projector.cuda_gl_interop, Use::off);
  s.apply_override("glpet.cuda_gl_interop=\"sometimes\"");
  EXPECT_THROW(read_glpet_scene(s), InputError);
}

}  // namespace
}  // namespace tomo::glpet
