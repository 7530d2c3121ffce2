// NVRTC (cuda/core/nvrtc.hpp) and its on-disk image cache (cuda/core/nvrtc_cache.hpp): NVRTC and
// nvJitLink run on the host, so these run without a GPU. Each test points TOMORASTER_CACHE_DIR at
// its own folder.
#include <gtest/gtest.h>

#ifdef TOMO_HAVE_CUDA
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#ifdef TOMO_HAVE_NVJITLINK
#include <nvJitLink.h>
#endif

#include "cuda/core/nvrtc.hpp"
#include "cuda/core/nvrtc_cache.hpp"
#include "tests/support/env_var.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::cuda::test {
namespace {

namespace fs = std::filesystem;
using ::tomo::test::EnvVar;
using ::tomo::test::TempDir;
using CacheIn = ::tomo::test::NvrtcCacheIn;

// Unrolled double arithmetic: about a second of NVRTC, an image of ~100 kB.
const std::string kHeavyKernel =
    "extern \"C\" __global__ void heavy(double* x) {\n"
    "  double a = x[threadIdx.x], s = 0.0;\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < 40; ++i) { s += exp(a * i) / (sqrt(a + i) + cos(s)); a = s / (a + 1.0); }\n"
    "  x[threadIdx.x] = s;\n"
    "}\n";

const char* kSmallKernel = "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n";

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(NvrtcCache, SecondCompileComesFromTheFileBitIdenticalAndFaster) {
  TempDir tmp("nvrtc-cache");
  CacheIn cache(tmp.dir.string());
  const auto before = nvrtc_cache_counters();
  auto t0 = std::chrono::steady_clock::now();
  const std::vector<char> first = nvrtc_compile(kHeavyKernel, "heavy.cu", NvrtcOutput::cubin, 9, 0);
  const double compile_s = seconds_since(t0);
  const auto after_first = nvrtc_cache_counters();
  EXPECT_EQ(after_first.misses - before.misses, 1);
  EXPECT_EQ(after_first.stored - before.stored, 1);
  ASSERT_EQ(entries(tmp.dir).size(), 1u);
  // The entry holds the image whole (plus its header and key).
  EXPECT_GT(fs::file_size(entries(tmp.dir)[0]), first.size() + kHeavyKernel.size());

  t0 = std::chrono::steady_clock::now();
  const std::vector<char> second = nvrtc_compile(kHeavyKernel, "heavy.cu", NvrtcOutput::cubin, 9, 0);
  const double cached_s = seconds_since(t0);
  const auto after_second = nvrtc_cache_counters();
  EXPECT_EQ(after_second.hits - after_first.hits, 1);
  EXPECT_EQ(after_second.stored, after_first.stored);
  EXPECT_EQ(second, first);
  // A compile takes ~1 s of NVRTC here, a cached read a few milliseconds.
  EXPECT_LT(cached_s, compile_s / 10) << "compile " << compile_s << " s, cached " << cached_s << " s";
}

TEST(NvrtcCache, AChangedOptionSourceOrTargetMisses) {
  TempDir tmp("nvrtc-cache");
  CacheIn cache(tmp.dir.string());
  const std::vector<char> plain = nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0);
  auto c0 = nvrtc_cache_counters();
  // Each variant is compiled (a miss and a new entry), and gives a different image.
  const std::vector<char> ftz = nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0, {"--ftz=true"});
  const std::vector<char> edited = nvrtc_compile(std::string(kSmallKernel) + "extern \"C\" __global__ void noop() {}\n", "k.cu", NvrtcOutput::ptx, 9, 0);
  const std::vector<char> sm80 = nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 8, 0);
  const std::vector<char> cubin = nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::cubin, 9, 0);
  auto c1 = nvrtc_cache_counters();
  EXPECT_EQ(c1.hits - c0.hits, 0);
  EXPECT_EQ(c1.misses - c0.misses, 4);
  EXPECT_EQ(c1.stored - c0.stored, 4);
  EXPECT_EQ(entries(tmp.dir).size(), 5u);
  for (const auto* other : {&ftz, &edited, &sm80, &cubin}) EXPECT_NE(*other, plain);
  // The first one is still there.
  EXPECT_EQ(nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0), plain);
  EXPECT_EQ(nvrtc_cache_counters().hits - c1.hits, 1);
}

// Two LTO-IR modules as cuFFT's callbacks are used: one defines a device function, the other a
// kernel that calls it; only a link of both resolves it.
const char* kLtoFunction = "__device__ float lto_scaled(const float* p, unsigned i) { return 3.0f * p[i]; }\n";
const char* kLtoKernel =
    "__device__ float lto_scaled(const float* p, unsigned i);\n"
    "extern \"C\" __global__ void lto_probe_kernel(float* x) { x[threadIdx.x] = lto_scaled(x, threadIdx.x); }\n";

#ifdef TOMO_HAVE_NVJITLINK
// nvJitLink's link of LTO-IR modules into one CUBIN for sm_90 (what cuFFT does with its callbacks).
std::vector<char> jit_link(const std::vector<std::vector<char>>& modules) {
  nvJitLinkHandle h = nullptr;
  const char* options[] = {"-lto", "-arch=sm_90"};
  EXPECT_EQ(nvJitLinkCreate(&h, 2, options), NVJITLINK_SUCCESS);
  std::vector<char> cubin;
  bool ok = true;
  for (const auto& m : modules)
    ok = ok && nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, m.data(), m.size(), "module") == NVJITLINK_SUCCESS;
  ok = ok && nvJitLinkComplete(h) == NVJITLINK_SUCCESS;
  std::size_t size = 0;
  if (ok && nvJitLinkGetLinkedCubinSize(h, &size) == NVJITLINK_SUCCESS) {
    cubin.resize(size);
    if (nvJitLinkGetLinkedCubin(h, cubin.data()) != NVJITLINK_SUCCESS) cubin.clear();
  } else {
    std::size_t log_size = 0;
    nvJitLinkGetErrorLogSize(h, &log_size);
    std::string log(log_size, '\0');
    if (log_size > 1) nvJitLinkGetErrorLog(h, log.data());
    ADD_FAILURE() << "nvJitLink: " << log;
  }
  nvJitLinkDestroy(&h);
  return cubin;
}
#endif

TEST(NvrtcCache, LtoIrIsCachedApartFromPtxAndLinksWithNvJitLink) {
  TempDir tmp("nvrtc-cache");
  CacheIn cache(tmp.dir.string());
  const std::vector<char> ptx = nvrtc_compile(kLtoFunction, "lto_function.cu", NvrtcOutput::ptx, 9, 0);
  const auto c0 = nvrtc_cache_counters();
  const std::vector<char> function = nvrtc_compile(kLtoFunction, "lto_function.cu", NvrtcOutput::ltoir, 9, 0);
  const std::vector<char> kernel = nvrtc_compile(kLtoKernel, "lto_kernel.cu", NvrtcOutput::ltoir, 9, 0);
  const auto c1 = nvrtc_cache_counters();
  // Same source, name and target as the PTX: a miss and an entry of its own, another image.
  EXPECT_EQ(c1.hits - c0.hits, 0);
  EXPECT_EQ(c1.misses - c0.misses, 2);
  EXPECT_EQ(c1.stored - c0.stored, 2);
  EXPECT_EQ(entries(tmp.dir).size(), 3u);
  EXPECT_NE(function, ptx);
  // LTO-IR is NVVM bitcode, not PTX text.
  EXPECT_EQ(std::string(function.begin(), function.end()).find(".version"), std::string::npos);
  // A later compile reads it back bit for bit.
  EXPECT_EQ(nvrtc_compile(kLtoFunction, "lto_function.cu", NvrtcOutput::ltoir, 9, 0), function);
  EXPECT_EQ(nvrtc_compile(kLtoKernel, "lto_kernel.cu", NvrtcOutput::ltoir, 9, 0), kernel);
  EXPECT_EQ(nvrtc_cache_counters().hits - c1.hits, 2);
#ifdef TOMO_HAVE_NVJITLINK
  // The cached modules link into an sm_90 ELF that holds the kernel.
  const std::vector<char> cubin = jit_link({function, kernel});
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(std::string(cubin.begin(), cubin.begin() + 4), "\x7f" "ELF");
  EXPECT_NE(std::string(cubin.begin(), cubin.end()).find("lto_probe_kernel"), std::string::npos);
#endif
}

TEST(NvrtcCache, ADamagedEntryIsCompiledAgainAndReplaced) {
  TempDir tmp("nvrtc-cache");
  CacheIn cache(tmp.dir.string());
  const std::vector<char> image = nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0);
  ASSERT_EQ(entries(tmp.dir).size(), 1u);
  const fs::path entry = entries(tmp.dir)[0];
  const auto size = fs::file_size(entry);

  const auto expect_recompiled = [&](const char* what) {
    SCOPED_TRACE(what);
    const auto c0 = nvrtc_cache_counters();
    EXPECT_EQ(nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0), image);
    const auto c1 = nvrtc_cache_counters();
    EXPECT_EQ(c1.damaged - c0.damaged, 1);
    EXPECT_EQ(c1.hits - c0.hits, 0);
    EXPECT_EQ(c1.stored - c0.stored, 1);
    EXPECT_EQ(fs::file_size(entry), size) << "the entry is written anew";
    EXPECT_EQ(nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0), image);
    EXPECT_EQ(nvrtc_cache_counters().hits - c1.hits, 1);
  };
  // Truncated (as a crash of a writer without the rename would leave it).
  fs::resize_file(entry, size - 7);
  expect_recompiled("truncated");
  // One flipped byte in the image.
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size - 20));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(size - 20));
    f.write(&c, 1);
  }
  expect_recompiled("flipped byte");
  // Not a cache entry at all.
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << "garbage that is no cache entry but long enough for a header";
  expect_recompiled("garbage");
}

TEST(NvrtcCache, AnUnwritableLocationStillCompiles) {
  TempDir tmp("nvrtc-cache");
  const std::vector<char> image = nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0);
  // A folder under a plain file cannot be created, whoever runs the test.
  std::ofstream(tmp.dir / "file") << "x";
  CacheIn cache((tmp.dir / "file" / "cache").string());
  const auto c0 = nvrtc_cache_counters();
  std::vector<char> again;
  ASSERT_NO_THROW(again = nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0));
  EXPECT_EQ(again, image);
  const auto c1 = nvrtc_cache_counters();
  EXPECT_EQ(c1.unwritable - c0.unwritable, 1);
  EXPECT_EQ(c1.stored - c0.stored, 0);
}

TEST(NvrtcCache, LocationFollowsTheEnvironmentAndZeroDisablesIt) {
  EnvVar home("HOME", "/home/someone");
  {
    EnvVar off("TOMORASTER_NVRTC_CACHE", std::nullopt), dir("TOMORASTER_CACHE_DIR", std::nullopt), xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(nvrtc_cache_dir(), fs::path("/home/someone/.cache/tomoraster/nvrtc"));
    EnvVar xdg2("XDG_CACHE_HOME", "/var/cache/x");
    EXPECT_EQ(nvrtc_cache_dir(), fs::path("/var/cache/x/tomoraster/nvrtc"));
    EnvVar dir2("TOMORASTER_CACHE_DIR", "/tmp/mine");
    EXPECT_EQ(nvrtc_cache_dir(), fs::path("/tmp/mine"));
    EnvVar on("TOMORASTER_NVRTC_CACHE", "1");
    EXPECT_EQ(nvrtc_cache_dir(), fs::path("/tmp/mine"));
  }
  TempDir tmp("nvrtc-cache");
  EnvVar dir("TOMORASTER_CACHE_DIR", tmp.dir.string()), off("TOMORASTER_NVRTC_CACHE", "0");
  EXPECT_TRUE(nvrtc_cache_dir().empty());
  const auto c0 = nvrtc_cache_counters();
  EXPECT_FALSE(nvrtc_compile(kSmallKernel, "k.cu", NvrtcOutput::ptx, 9, 0).empty());
  const auto c1 = nvrtc_cache_counters();
  EXPECT_EQ(c1.hits + c1.misses + c1.stored, c0.hits + c0.misses + c0.stored);
  EXPECT_TRUE(entries(tmp.dir).empty());
}

}  // namespace
}  // namespace tomo::cuda::test
#endif
