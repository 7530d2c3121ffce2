// CUDA–GL interop round trips on the GPU (label gpu): GL compute writes, CUDA modifies in place
// through a mapped resource, GL reads back; the same through the forced copy path; and textures
// (2D, 2D array, 3D) written by CUDA through surfaces and read by GL, or written by GL and read by
// CUDA through a texture object. All values are small integers times 0.5, so every check is exact.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/interop.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/stream.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/shader_library.hpp"
#include "tests/cuda/interop_kernels.hpp"
#include "tests/support/gl_test.hpp"

namespace tc = tomo::cuda;
namespace tg = tomo::gl;

namespace {

// v[i] = a * v[i] + b + c * i
constexpr const char* kAffineComp = R"(#version 450 core
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { float v[]; };
uniform uint n;
uniform float a, b, c;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) v[i] = a * v[i] + b + c * float(i);
}
)";

class InteropGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tomo::cuda::have_device()) GTEST_SKIP() << "no CUDA device";
    tomo::runtime_options().cuda_device = 0;  // the EGL device that is CUDA device 0, when EGL tells
    ctx_ = &tomo::test::gl_context();  // validation on; a CUDA machine without GL fails, not skips
    if (ctx_->info().cuda_device >= 0) tc::select_device(ctx_->info().cuda_device);
    // Zero-copy is expected where the GL context runs on NVIDIA's driver (the EGL device platform).
    expect_zero_copy_ = ctx_->info().gl_vendor.find("NVIDIA") != std::string::npos;
    std::printf("GL: %s; zero-copy expected: %s\n", ctx_->info().summary().c_str(), expect_zero_copy_ ? "yes" : "no");
  }

  void affine_gl(const tg::Buffer& buf, std::size_t n, float a, float b, float c) {
    if (!affine_) affine_ = tg::ShaderLibrary::build({{tg::Stage::Compute, kAffineComp}}, "interop_test_affine");
    buf.bind_base(GL_SHADER_STORAGE_BUFFER, 0);
    affine_.set("n", unsigned(n));
    affine_.set("a", a);
    affine_.set("b", b);
    affine_.set("c", c);
    affine_.dispatch(int(n));
    TOMO_GL_CHECK(glMemoryBarrier(GL_ALL_BARRIER_BITS));
  }

  static tc::HostTransfer buffer_transfer(tg::Buffer& buf) {
    tc::HostTransfer t;
    t.read_from_gl = [&buf](void* dst, std::size_t bytes) { buf.download(dst, bytes); };
    t.write_to_gl = [&buf](const void* src, std::size_t bytes) { buf.upload(src, bytes); };
    return t;
  }
  static tc::HostTransfer texture_transfer(tg::Texture& tex) {
    tc::HostTransfer t;
    t.read_from_gl = [&tex](void* dst, std::size_t bytes) {
      const auto v = tex.read_float(1);
      ASSERT_EQ(v.size() * sizeof(float), bytes);
      std::memcpy(dst, v.data(), bytes);
    };
    t.write_to_gl = [&tex](const void* src, std::size_t) { tex.upload_float(static_cast<const float*>(src), 1); };
    return t;
  }

  // GL fills, CUDA computes 2v + 1 in place, GL adds 3 and reads back: v = 2 * (i / 2) + 1 + 3.
  void buffer_round_trip(tc::InteropMode mode) {
    const std::size_t n = 100'003;
    tg::Buffer buf(n * sizeof(float));
    buf.clear_zero();  // storage starts undefined, and 0 * NaN would stay NaN
    affine_gl(buf, n, 0.f, 0.f, 0.5f);  // v[i] = i / 2
    tc::GlBufferResource res(buf.id(), buf.bytes(), tc::MapAccess::ReadWrite, mode, buffer_transfer(buf));
    if (mode == tc::InteropMode::ForceCopy) {
      EXPECT_FALSE(res.is_zero_copy());
    } else if (expect_zero_copy_) {
      EXPECT_TRUE(res.is_zero_copy()) << res.fallback_reason();
    }
    tc::Stream stream;
    for (int round = 0; round < 2; ++round) {  // maps twice: the copy path reuses its staging memory
      {
        tc::MappedBuffer m(res, stream);
        ASSERT_EQ(m.bytes(), n * sizeof(float));
        tc::test::launch_affine(m.as<float>(), n, 2.f, 1.f, stream);
      }
      affine_gl(buf, n, 1.f, 3.f, 0.f);
    }
    const auto got = buf.read<float>();
    ASSERT_EQ(got.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      const float v1 = 2.f * (0.5f * float(i)) + 1.f + 3.f;
      ASSERT_EQ(got[i], 2.f * v1 + 1.f + 3.f) << "i=" << i;
    }
  }

  static tg::Texture make_texture(GLenum target, int w, int h, int n) {
    if (target == GL_TEXTURE_2D) return tg::Texture::create_2d(GL_R32F, w, h);
    if (target == GL_TEXTURE_2D_ARRAY) return tg::Texture::create_2d_array(GL_R32F, w, h, n);
    return tg::Texture::create_3d(GL_R32F, w, h, n);
  }
  static tc::GlImageDesc image_desc(GLenum target, int w, int h, int n) {
    tc::GlImageDesc desc;
    desc.target = target;
    desc.internal_format = GL_R32F;  // channel format derived from it
    desc.width = std::size_t(w);
    desc.height = std::size_t(h);
    desc.depth = target == GL_TEXTURE_2D ? 0 : std::size_t(n);
    return desc;
  }
  static std::vector<float> pattern(int w, int h, int n) {
    std::vector<float> v(std::size_t(w) * h * n);
    for (int z = 0; z < n; ++z)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) v[(std::size_t(z) * h + y) * w + x] = tc::test::pattern_value(x, y, z, w);
    return v;
  }

  // CUDA writes the pattern through surfaces of the mapped texture (one per layer of a 2D array,
  // one 3D surface for a 3D texture); GL reads it back. n = layers or depth (1 for 2D).
  void image_write(GLenum target, int w, int h, int n, tc::InteropMode mode) {
    tg::Texture tex = make_texture(target, w, h, n);
    tex.clear_zero();
    tc::GlImageResource res(tex.id(), image_desc(target, w, h, n), tc::MapAccess::WriteDiscard, mode,
                            texture_transfer(tex));
    if (mode == tc::InteropMode::ForceCopy) {
      EXPECT_FALSE(res.is_zero_copy());
    } else if (expect_zero_copy_) {
      EXPECT_TRUE(res.is_zero_copy()) << res.fallback_reason();
    }
    const bool volume = target == GL_TEXTURE_3D;
    tc::Stream stream;
    {
      tc::MappedImage m(res, stream);
      ASSERT_EQ(m.layers(), target == GL_TEXTURE_2D_ARRAY ? unsigned(n) : 1u);
      std::vector<tc::SurfaceObject> surfaces;
      for (unsigned l = 0; l < m.layers(); ++l) {
        // How CUDA presents a sub-resource: 2D per layer of a 2D array, 3D for a 3D texture.
        cudaChannelFormatDesc cd{};
        cudaExtent ext{};
        unsigned flags = 0;
        TOMO_CUDA_CHECK(cudaArrayGetInfo(&cd, &ext, &flags, m.array(0, l)));
        EXPECT_EQ(cd.x, 32);
        EXPECT_EQ(cd.f, cudaChannelFormatKindFloat);
        EXPECT_EQ(ext.width, std::size_t(w));
        EXPECT_EQ(ext.height, std::size_t(h));
        EXPECT_EQ(ext.depth, volume ? std::size_t(n) : 0u) << "layer " << l;
        EXPECT_FALSE(flags & cudaArrayLayered);
        surfaces.push_back(m.surface(0, l));
        tc::test::launch_write_pattern(surfaces.back(), w, h, volume ? n : 0, int(l), stream);
      }
      stream.synchronize();  // the surfaces are destroyed before the unmap, after the kernels
    }
    EXPECT_EQ(tex.read_float(1), pattern(w, h, n));
  }

  // GL uploads the pattern; CUDA samples it through texture objects of the mapped sub-resources.
  void image_read(GLenum target, int w, int h, int n, tc::InteropMode mode) {
    tg::Texture tex = make_texture(target, w, h, n);
    const auto want = pattern(w, h, n);
    tex.upload_float(want.data(), 1);
    auto desc = image_desc(target, w, h, n);
    desc.surface_load_store = false;
    tc::GlImageResource res(tex.id(), desc, tc::MapAccess::ReadOnly, mode, texture_transfer(tex));
    if (mode != tc::InteropMode::ForceCopy && expect_zero_copy_) {
      EXPECT_TRUE(res.is_zero_copy()) << res.fallback_reason();
    }
    const bool volume = target == GL_TEXTURE_3D;
    tc::Stream stream;
    tc::DeviceBuffer<float> out(want.size());
    {
      tc::MappedImage m(res, stream);
      std::vector<tc::TextureObject> textures;
      for (unsigned l = 0; l < m.layers(); ++l) {
        textures.push_back(m.texture(tc::TextureOptions::point_clamp(), 0, l));
        tc::test::launch_read_texture(textures.back(), out.data() + std::size_t(l) * w * h, w, h, volume ? n : 0,
                                      stream);
      }
      stream.synchronize();
    }
    EXPECT_EQ(out.to_host(), want);
  }

  tg::Context* ctx_ = nullptr;
  bool expect_zero_copy_ = false;
  tg::Program affine_;
};

}  // namespace

TEST_F(InteropGpu, BufferRoundTripAuto) { buffer_round_trip(tc::InteropMode::Auto); }
TEST_F(InteropGpu, BufferRoundTripForceCopy) { buffer_round_trip(tc::InteropMode::ForceCopy); }

TEST_F(InteropGpu, BufferReadOnlyAndWriteDiscard) {
  const std::size_t n = 4099;
  tg::Buffer buf(n * sizeof(float));
  buf.clear_zero();
  affine_gl(buf, n, 0.f, 1.f, 0.5f);  // v[i] = 1 + i / 2
  for (auto mode : {tc::InteropMode::Auto, tc::InteropMode::ForceCopy}) {
    tc::Stream stream;
    {  // CUDA reads: the mapped contents are GL's, and nothing is written back.
      tc::GlBufferResource ro(buf.id(), buf.bytes(), tc::MapAccess::ReadOnly, mode, buffer_transfer(buf));
      tc::DeviceBuffer<float> copy(n);
      {
        tc::MappedBuffer m(ro, stream);
        TOMO_CUDA_CHECK(cudaMemcpyAsync(copy.data(), m.ptr(), m.bytes(), cudaMemcpyDeviceToDevice, stream));
      }
      stream.synchronize();
      const auto got = copy.to_host();
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 1.f + 0.5f * float(i));
    }
    {  // CUDA overwrites everything.
      tc::GlBufferResource wd(buf.id(), buf.bytes(), tc::MapAccess::WriteDiscard, mode, buffer_transfer(buf));
      {
        tc::MappedBuffer m(wd, stream);
        TOMO_CUDA_CHECK(cudaMemsetAsync(m.ptr(), 0, m.bytes(), stream));
        tc::test::launch_affine(m.as<float>(), n, 1.f, 7.f, stream);
        m.unmap();  // explicit unmap reports errors as exceptions
      }
      const auto got = buf.read<float>();
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 7.f);
    }
    affine_gl(buf, n, 0.f, 1.f, 0.5f);  // restore for the next mode
  }
}

TEST_F(InteropGpu, Texture2DSurfaceWrite) { image_write(GL_TEXTURE_2D, 70, 37, 1, tc::InteropMode::Auto); }
TEST_F(InteropGpu, Texture2DArraySurfaceWrite) { image_write(GL_TEXTURE_2D_ARRAY, 33, 19, 5, tc::InteropMode::Auto); }
TEST_F(InteropGpu, Texture3DSurfaceWrite) { image_write(GL_TEXTURE_3D, 17, 13, 6, tc::InteropMode::Auto); }
TEST_F(InteropGpu, TextureSurfaceWriteForceCopy) {
  image_write(GL_TEXTURE_2D, 70, 37, 1, tc::InteropMode::ForceCopy);
  image_write(GL_TEXTURE_2D_ARRAY, 33, 19, 5, tc::InteropMode::ForceCopy);
  image_write(GL_TEXTURE_3D, 17, 13, 6, tc::InteropMode::ForceCopy);
}
TEST_F(InteropGpu, TextureReadThroughCuda) {
  for (auto mode : {tc::InteropMode::Auto, tc::InteropMode::ForceCopy}) {
    image_read(GL_TEXTURE_2D, 70, 37, 1, mode);
    image_read(GL_TEXTURE_2D_ARRAY, 33, 19, 5, mode);
    image_read(GL_TEXTURE_3D, 17, 13, 6, mode);
  }
}
