// The on-disk NVRTC image cache (see nvrtc_cache.hpp). An entry is one file:
//   header  "tomoraster-nvrtc 1\n", then key size, image size (8 bytes each, little endian),
//           CRC-32 of the key and of the image (4 bytes each)
//   key     the full key text (so that a file-name collision is a miss, never a wrong image)
//   image   the CUBIN, PTX or LTO-IR bytes
// A file whose size, key or image checksum disagrees with its header is a miss.
#include "cuda/core/nvrtc_cache.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>

#include "compute/core/log.hpp"

namespace tomo::cuda {
namespace {

constexpr char kMagic[] = "tomoraster-nvrtc 1\n";
constexpr std::size_t kMagicSize = sizeof(kMagic) - 1;
constexpr std::size_t kHeaderSize = kMagicSize + 8 + 8 + 4 + 4;

std::mutex counters_mutex;
NvrtcCacheCounters counters;

void count(long NvrtcCacheCounters::*field) {
  std::lock_guard lock(counters_mutex);
  ++(counters.*field);
}

std::uint32_t crc(const char* data, std::size_t size) {
  uLong c = crc32(0L, Z_NULL, 0);
  // crc32 takes at most 4 GiB (uInt) a call.
  while (size > 0) {
    const uInt n = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    c = crc32(c, reinterpret_cast<const Bytef*>(data), n);
    data += n;
    size -= n;
  }
  return static_cast<std::uint32_t>(c);
}

void put(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

std::uint64_t get(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// The file name: two independent 32-bit checksums of the key (CRC-32 and Adler-32) in hex.
std::string file_name(const std::string& key) {
  const uLong a = adler32(adler32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size()));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08x%08x.nvrtc", crc(key.data(), key.size()), static_cast<std::uint32_t>(a));
  return buf;
}

void report_unwritable(const std::filesystem::path& dir, const std::string& why) {
  static std::atomic<bool> said{false};
  count(&NvrtcCacheCounters::unwritable);
  if (!said.exchange(true))
    log_info(str_cat("NVRTC cache: cannot write ", dir.string(), " (", why, "); compiling without a cache"));
}

}  // namespace

std::filesystem::path nvrtc_cache_dir() {
  const char* off = std::getenv("TOMORASTER_NVRTC_CACHE");
  if (off != nullptr && std::string(off) == "0") return {};
  if (const char* d = std::getenv("TOMORASTER_CACHE_DIR"); d != nullptr && *d != '\0') return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0')
    return std::filesystem::path(x) / "tomoraster" / "nvrtc";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::filesystem::path(h) / ".cache" / "tomoraster" / "nvrtc";
  return {};
}

std::optional<std::vector<char>> nvrtc_cache_load(const std::filesystem::path& dir, const std::string& key) {
  const std::filesystem::path path = dir / file_name(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    count(&NvrtcCacheCounters::misses);
    return std::nullopt;
  }
  const auto damaged = [&](const char* why) -> std::optional<std::vector<char>> {
    log_info(str_cat("NVRTC cache: ", path.string(), " is damaged (", why, "); compiling again"));
    count(&NvrtcCacheCounters::damaged);
    count(&NvrtcCacheCounters::misses);
    return std::nullopt;
  };
  std::string header(kHeaderSize, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(kHeaderSize))) return damaged("short header");
  if (header.compare(0, kMagicSize, kMagic) != 0) return damaged("not a cache entry");
  const char* h = header.data() + kMagicSize;
  const std::uint64_t key_size = get(h, 8), image_size = get(h + 8, 8);
  const auto key_crc = static_cast<std::uint32_t>(get(h + 16, 4)), image_crc = static_cast<std::uint32_t>(get(h + 20, 4));
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  if (ec || file_size != kHeaderSize + key_size + image_size) return damaged("size differs from its header");
  if (key_size != key.size() || key_crc != crc(key.data(), key.size())) {
    // Another key with the same file name: a plain miss, the entry is replaced.
    count(&NvrtcCacheCounters::misses);
    return std::nullopt;
  }
  std::string stored_key(key_size, '\0');
  std::vector<char> image(image_size);
  if (!in.read(stored_key.data(), static_cast<std::streamsize>(key_size)) ||
      !in.read(image.data(), static_cast<std::streamsize>(image_size)))
    return damaged("short read");
  if (stored_key != key) {
    count(&NvrtcCacheCounters::misses);
    return std::nullopt;
  }
  if (crc(image.data(), image.size()) != image_crc) return damaged("image checksum differs");
  count(&NvrtcCacheCounters::hits);
  return image;
}

void nvrtc_cache_store(const std::filesystem::path& dir, const std::string& key, const std::vector<char>& image) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return report_unwritable(dir, ec.message());
  std::string header(kMagic, kMagicSize);
  put(header, key.size(), 8);
  put(header, image.size(), 8);
  put(header, crc(key.data(), key.size()), 4);
  put(header, crc(image.data(), image.size()), 4);
  const std::filesystem::path path = dir / file_name(key);
  // A name of this process and a random number: concurrent writers never share a temporary file.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%016llx", static_cast<long>(getpid()), static_cast<unsigned long long>(rng()));
  const std::filesystem::path tmp = path.string() + suffix;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return report_unwritable(dir, "cannot create a file");
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return report_unwritable(dir, "write failed");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return report_unwritable(dir, "rename failed");
  }
  count(&NvrtcCacheCounters::stored);
}

NvrtcCacheCounters nvrtc_cache_counters() {
  std::lock_guard lock(counters_mutex);
  return counters;
}

}  // namespace tomo::cuda
