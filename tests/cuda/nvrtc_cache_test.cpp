// The on-disk NVRTC image cache (cuda/core/nvrtc_cache.hpp): NVRTC runs on the host, so these
// run without a GPU. Each test points TOMORASTER_CACHE_DIR at its own folder.
#include <gtest/gtest.h>

#ifdef TOMO_HAVE_CUDA
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "compute/musr/codegen_cuda.hpp"
#include "cuda/core/nvrtc_cache.hpp"
#include "cuda/core/nvrtc.hpp"
#include "tests/musr/gpu_test_data.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr::test {
namespace {

namespace fs = std::filesystem;
using tomo::cuda::nvrtc_cache_counters;
using tomo::cuda::nvrtc_compile;
using ::tomo::test::TempDir;

// Sets an environment variable (or removes it for nullopt) for the scope, then restores it.
class EnvVar {
 public:
  EnvVar(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~EnvVar() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A cache in `dir`, enabled whatever the caller's environment says.
struct CacheIn {
  explicit CacheIn(const fs::path& dir) : at("TOMORASTER_CACHE_DIR", dir.string()), on("TOMORASTER_NVRTC_CACHE", std::nullopt) {}
  EnvVar at, on;
};

const char* kSmallKernel = "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n";

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(MusrNvrtcCache, SecondCompileComesFromTheFileBitIdenticalAndFaster) {
  TempDir tmp("nvrtc-cache");
  CacheIn cache(tmp.dir);
  const CudaSource src = cuda_chi2_source(eq5_data(2, 20), false);
  const auto before = nvrtc_cache_counters();
  auto t0 = std::chrono::steady_clock::now();
  const std::vector<char> first = nvrtc_compile(src.text, "musr_cache.cu", 9, 0, true, src.nvrtc_options);
  const double compile_s = seconds_since(t0);
  const auto after_first = nvrtc_cache_counters();
  EXPECT_EQ(after_first.misses - before.misses, 1);
  EXPECT_EQ(after_first.stored - before.stored, 1);
  ASSERT_EQ(entries(tmp.dir).size(), 1u);
  // The entry holds the image whole (plus its header and key).
  EXPECT_GT(fs::file_size(entries(tmp.dir)[0]), first.size() + src.text.size());

  t0 = std::chrono::steady_clock::now();
  const std::vector<char> second = nvrtc_compile(src.text, "musr_cache.cu", 9, 0, true, src.nvrtc_options);
  const double cached_s = seconds_since(t0);
  const auto after_second = nvrtc_cache_counters();
  EXPECT_EQ(after_second.hits - after_first.hits, 1);
  EXPECT_EQ(after_second.stored, after_first.stored);
  EXPECT_EQ(second, first);
  // A compile takes ~1 s of NVRTC here, a cached read a few milliseconds.
  EXPECT_LT(cached_s, compile_s / 10) << "compile " << compile_s << " s, cached " << cached_s << " s";
}

TEST(MusrNvrtcCache, AChangedOptionSourceOrTargetMisses) {
  TempDir tmp("nvrtc-cache");
  CacheIn cache(tmp.dir);
  const std::vector<char> plain = nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false);
  auto c0 = nvrtc_cache_counters();
  // Each variant is compiled (a miss and a new entry), and gives a different image.
  const std::vector<char> ftz = nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false, {"--ftz=true"});
  const std::vector<char> edited = nvrtc_compile(std::string(kSmallKernel) + "extern \"C\" __global__ void noop() {}\n", "k.cu", 9, 0, false);
  const std::vector<char> sm80 = nvrtc_compile(kSmallKernel, "k.cu", 8, 0, false);
  const std::vector<char> cubin = nvrtc_compile(kSmallKernel, "k.cu", 9, 0, true);
  auto c1 = nvrtc_cache_counters();
  EXPECT_EQ(c1.hits - c0.hits, 0);
  EXPECT_EQ(c1.misses - c0.misses, 4);
  EXPECT_EQ(c1.stored - c0.stored, 4);
  EXPECT_EQ(entries(tmp.dir).size(), 5u);
  for (const auto* other : {&ftz, &edited, &sm80, &cubin}) EXPECT_NE(*other, plain);
  // The first one is still there.
  EXPECT_EQ(nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false), plain);
  EXPECT_EQ(nvrtc_cache_counters().hits - c1.hits, 1);
}

TEST(MusrNvrtcCache, ADamagedEntryIsCompiledAgainAndReplaced) {
  TempDir tmp("nvrtc-cache");
  CacheIn cache(tmp.dir);
  const std::vector<char> image = nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false);
  ASSERT_EQ(entries(tmp.dir).size(), 1u);
  const fs::path entry = entries(tmp.dir)[0];
  const auto size = fs::file_size(entry);

  const auto expect_recompiled = [&](const char* what) {
    SCOPED_TRACE(what);
    const auto c0 = nvrtc_cache_counters();
    EXPECT_EQ(nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false), image);
    const auto c1 = nvrtc_cache_counters();
    EXPECT_EQ(c1.damaged - c0.damaged, 1);
    EXPECT_EQ(c1.hits - c0.hits, 0);
    EXPECT_EQ(c1.stored - c0.stored, 1);
    EXPECT_EQ(fs::file_size(entry), size) << "the entry is written anew";
    EXPECT_EQ(nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false), image);
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

TEST(MusrNvrtcCache, AnUnwritableLocationStillCompiles) {
  TempDir tmp("nvrtc-cache");
  const std::vector<char> image = nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false);
  // A folder under a plain file cannot be created, whoever runs the test.
  std::ofstream(tmp.dir / "file") << "x";
  CacheIn cache(tmp.dir / "file" / "cache");
  const auto c0 = nvrtc_cache_counters();
  std::vector<char> again;
  ASSERT_NO_THROW(again = nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false));
  EXPECT_EQ(again, image);
  const auto c1 = nvrtc_cache_counters();
  EXPECT_EQ(c1.unwritable - c0.unwritable, 1);
  EXPECT_EQ(c1.stored - c0.stored, 0);
}

TEST(MusrNvrtcCache, LocationFollowsTheEnvironmentAndZeroDisablesIt) {
  EnvVar home("HOME", "/home/someone");
  {
    EnvVar off("TOMORASTER_NVRTC_CACHE", std::nullopt), dir("TOMORASTER_CACHE_DIR", std::nullopt), xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(tomo::cuda::nvrtc_cache_dir(), fs::path("/home/someone/.cache/tomoraster/nvrtc"));
    EnvVar xdg2("XDG_CACHE_HOME", "/var/cache/x");
    EXPECT_EQ(tomo::cuda::nvrtc_cache_dir(), fs::path("/var/cache/x/tomoraster/nvrtc"));
    EnvVar dir2("TOMORASTER_CACHE_DIR", "/tmp/mine");
    EXPECT_EQ(tomo::cuda::nvrtc_cache_dir(), fs::path("/tmp/mine"));
    EnvVar on("TOMORASTER_NVRTC_CACHE", "1");
    EXPECT_EQ(tomo::cuda::nvrtc_cache_dir(), fs::path("/tmp/mine"));
  }
  TempDir tmp("nvrtc-cache");
  EnvVar dir("TOMORASTER_CACHE_DIR", tmp.dir.string()), off("TOMORASTER_NVRTC_CACHE", "0");
  EXPECT_TRUE(tomo::cuda::nvrtc_cache_dir().empty());
  const auto c0 = nvrtc_cache_counters();
  EXPECT_FALSE(nvrtc_compile(kSmallKernel, "k.cu", 9, 0, false).empty());
  const auto c1 = nvrtc_cache_counters();
  EXPECT_EQ(c1.hits + c1.misses + c1.stored, c0.hits + c0.misses + c0.stored);
  EXPECT_TRUE(entries(tmp.dir).empty());
}

}  // namespace
}  // namespace tomo::musr::test
#endif
