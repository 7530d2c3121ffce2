// CPU-runnable tests of cuda/core: the no-device path (device_count, availability, selection),
// the check macros, and the argument validation that happens before any CUDA call.
#include <gtest/gtest.h>

#include <string>

#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/interop.hpp"

namespace tc = tomo::cuda;

TEST(CudaDevice, DeviceCountNeverThrowsAndExplainsZero) {
  std::string why;
  int n = -1;
  EXPECT_NO_THROW(n = tc::device_count(&why));
  if (n > 0) {
    EXPECT_GT(n, 0);
    EXPECT_TRUE(tc::have_device());
    EXPECT_TRUE(tc::cuda_availability().ok);
  } else {
    EXPECT_EQ(n, 0);
    EXPECT_FALSE(why.empty());
    EXPECT_FALSE(tc::have_device());
    const auto a = tc::cuda_availability();
    EXPECT_FALSE(a.ok);
    EXPECT_EQ(a.why.rfind("no CUDA device (", 0), 0u) << a.why;
    EXPECT_TRUE(tc::list_devices(&why).empty());
  }
}

TEST(CudaDevice, SelectOutOfRangeIsInputError) {
  const int n = tc::device_count();
  EXPECT_THROW(tc::select_device(n), tomo::InputError);
  EXPECT_THROW(tc::select_device(-1), tomo::InputError);
}

TEST(CudaDevice, DescribeFormat) {
  tc::DeviceInfo d;
  d.index = 0;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.total_mem = 150106865664ull;  // 139.797 GiB
  EXPECT_EQ(tc::describe(d), "CUDA 0: NVIDIA H200, cc 9.0, 132 SMs, 139.8 GiB");
}

// cudaSetDevice(-1) fails with or without a device (invalid device / no driver), so the throwing
// path of the macro is exercised on every machine.
TEST(CudaCheck, ThrowsWithCallFileAndError) {
  try {
    TOMO_CUDA_CHECK(cudaSetDevice(-1));
    FAIL() << "TOMO_CUDA_CHECK did not throw";
  } catch (const tc::CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaSetDevice(-1)"), std::string::npos) << what;
    EXPECT_NE(what.find("cuda_core_test.cpp"), std::string::npos) << what;
    EXPECT_NE(what.find("TOMO_CUDA_CHECK failed"), std::string::npos) << what;
    EXPECT_NE(what.find(cudaGetErrorName(e.code())), std::string::npos) << what;
    EXPECT_NE(e.code(), cudaSuccess);
  }
  EXPECT_THROW(TOMO_CUDA_CHECK(cudaSetDevice(-1)), tomo::Error);  // a tomo::Error for generic handlers
  const auto level = tomo::log_level();
  tomo::set_log_level(tomo::LogLevel::Quiet);  // the log-only variant must not throw; keep CI logs clean
  EXPECT_NO_THROW(TOMO_CUDA_LOG(cudaSetDevice(-1)));
  tomo::set_log_level(level);
}

TEST(CudaBuffer, EmptyBufferNeedsNoDeviceAndChecksRanges) {
  tc::DeviceBuffer<float> b;
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_NO_THROW(b.resize(0));
  float x[4] = {};
  EXPECT_THROW(b.upload(x, 4), tomo::Error);  // range check precedes any CUDA call
  EXPECT_THROW(b.download(x, 1, 0), tomo::Error);
  tc::DeviceBuffer<float> c = std::move(b);
  EXPECT_EQ(c.size(), 0u);
  if (!tc::have_device()) {
    EXPECT_THROW(c.resize(16), tc::CudaError);
  }
}

TEST(CudaInterop, GlFormatTable) {
  const auto r32f = tc::channel_desc_for_gl_format(0x822E);  // GL_R32F
  ASSERT_TRUE(r32f.has_value());
  EXPECT_EQ(r32f->x, 32);
  EXPECT_EQ(r32f->y, 0);
  EXPECT_EQ(r32f->f, cudaChannelFormatKindFloat);
  const auto rgba8 = tc::channel_desc_for_gl_format(0x8058);  // GL_RGBA8
  ASSERT_TRUE(rgba8.has_value());
  EXPECT_EQ(tc::element_bytes(*rgba8), 4u);
  EXPECT_FALSE(tc::channel_desc_for_gl_format(0x1234).has_value());
}

// Argument checks of the interop resources run before CUDA or GL are touched.
TEST(CudaInterop, ValidationBeforeAnyCall) {
  using tc::InteropMode;
  using tc::MapAccess;
  EXPECT_THROW(tc::GlBufferResource(7, 64, MapAccess::ReadWrite, InteropMode::ForceCopy), tomo::UnavailableError);
  tc::HostTransfer read_only;
  read_only.read_from_gl = [](void*, std::size_t) {};
  EXPECT_THROW(tc::GlBufferResource(7, 64, MapAccess::ReadWrite, InteropMode::ForceCopy, read_only),
               tomo::UnavailableError);  // no write_to_gl for a read-write mapping
  EXPECT_NO_THROW(tc::GlBufferResource(7, 64, MapAccess::ReadOnly, InteropMode::ForceCopy, read_only));
  EXPECT_THROW(tc::GlBufferResource(7, 0, MapAccess::ReadOnly, InteropMode::ForceCopy, read_only), tomo::Error);

  tc::GlImageDesc d;
  d.target = 0x0DE0;  // GL_TEXTURE_1D: not supported
  d.internal_format = 0x822E;
  d.width = d.height = 4;
  EXPECT_THROW(tc::GlImageResource(3, d, MapAccess::ReadOnly, InteropMode::ForceCopy, read_only), tomo::InputError);
  d.target = tc::kGlTexture2DArray;  // no layers
  EXPECT_THROW(tc::GlImageResource(3, d, MapAccess::ReadOnly, InteropMode::ForceCopy, read_only), tomo::InputError);
  d.depth = 2;
  d.channel = cudaCreateChannelDesc<unsigned char>();  // contradicts GL_R32F
  EXPECT_THROW(tc::GlImageResource(3, d, MapAccess::ReadOnly, InteropMode::ForceCopy, read_only), tomo::InputError);
  d.channel = {};
  tc::GlImageResource ok(3, d, MapAccess::ReadOnly, InteropMode::ForceCopy, read_only);
  EXPECT_FALSE(ok.is_zero_copy());
  EXPECT_EQ(ok.desc().channel.x, 32);
  EXPECT_EQ(ok.desc().layers(), 2u);  // a 2D array is one 2D sub-resource per layer
  EXPECT_EQ(ok.desc().extent().depth, 0u);
}
