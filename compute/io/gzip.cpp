// gzip through zlib (Debian's zlib1g): raw z_stream calls, because gzread on a path cannot
// tell a truncated member from a short file and its errors say nothing of where.
#include "compute/io/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <ostream>

#include "compute/core/error.hpp"

namespace tomo {

struct GzipReader::State {
  z_stream z{};
};
struct GzipWriter::State {
  z_stream z{};
};

namespace {
constexpr int kGzipWindow = 15 + 16;  // windowBits 15, gzip wrapper (not zlib, not raw)
constexpr std::size_t kChunk = std::size_t{1} << 30;  // avail_in/avail_out are 32-bit
}  // namespace

bool is_gzip(const unsigned char* bytes, std::size_t size) { return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b; }

GzipReader::GzipReader(std::vector<unsigned char> compressed, std::string name)
    : s_(std::make_unique<State>()), in_(std::move(compressed)), name_(std::move(name)) {
  if (inflateInit2(&s_->z, kGzipWindow) != Z_OK) throw Error(name_ + ": zlib inflateInit2 failed");
  s_->z.next_in = in_.data();
  s_->z.avail_in = static_cast<uInt>(std::min(in_.size(), kChunk));
}

GzipReader::~GzipReader() { inflateEnd(&s_->z); }

std::uint64_t GzipReader::max_output() const { return static_cast<std::uint64_t>(in_.size()) * 1032 + 1024; }

std::size_t GzipReader::read(void* dst, std::size_t n) {
  z_stream& z = s_->z;
  auto* out = static_cast<unsigned char*>(dst);
  std::size_t done = 0;
  while (done < n && !finished_) {
    const std::size_t consumed = static_cast<std::size_t>(z.next_in - in_.data());
    if (z.avail_in == 0 && consumed < in_.size())
      z.avail_in = static_cast<uInt>(std::min(in_.size() - consumed, kChunk));
    z.next_out = out + done;
    z.avail_out = static_cast<uInt>(std::min(n - done, kChunk));
    const uInt before = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t got = before - z.avail_out;
    done += got;
    produced_ += got;
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated .gz files are one stream); trailing zeros are padding.
      const std::size_t at = static_cast<std::size_t>(z.next_in - in_.data());
      const bool more = at + 2 <= in_.size() && is_gzip(in_.data() + at, in_.size() - at);
      if (!more) { finished_ = true; break; }
      if (inflateReset(&z) != Z_OK) throw Error(name_ + ": zlib inflateReset failed");
      continue;
    }
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT)
      throw InputError(name_ + ": corrupt gzip data after " + std::to_string(produced_) + " uncompressed bytes (" +
                       (z.msg ? z.msg : "data error") + ")");
    if (rc == Z_MEM_ERROR) throw Error(name_ + ": zlib ran out of memory");
    if (rc == Z_BUF_ERROR || (rc == Z_OK && got == 0 && z.avail_in == 0)) {
      const std::size_t at = static_cast<std::size_t>(z.next_in - in_.data());
      if (at >= in_.size())
        throw InputError(name_ + ": gzip data end early (truncated file) after " + std::to_string(produced_) +
                         " uncompressed bytes");
    }
  }
  return done;
}

std::size_t GzipReader::skip(std::size_t n) {
  unsigned char buf[4096];
  std::size_t done = 0;
  while (done < n) {
    const std::size_t got = read(buf, std::min(n - done, sizeof buf));
    done += got;
    if (got == 0) break;
  }
  return done;
}

GzipWriter::GzipWriter(std::ostream& out, int level) : s_(std::make_unique<State>()), out_(out), buf_(1 << 16) {
  if (deflateInit2(&s_->z, level, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("zlib deflateInit2 failed");
}

GzipWriter::~GzipWriter() { deflateEnd(&s_->z); }

void GzipWriter::pump(int flush) {
  z_stream& z = s_->z;
  int rc;
  do {
    z.next_out = buf_.data();
    z.avail_out = static_cast<uInt>(buf_.size());
    rc = deflate(&z, flush);
    if (rc == Z_STREAM_ERROR) throw Error("zlib deflate failed");
    out_.write(reinterpret_cast<const char*>(buf_.data()), static_cast<std::streamsize>(buf_.size() - z.avail_out));
  } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

void GzipWriter::write(const void* data, std::size_t n) {
  if (finished_) throw Error("GzipWriter::write after finish");
  const auto* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const std::size_t part = std::min(n, kChunk);
    s_->z.next_in = const_cast<unsigned char*>(p);  // zlib's API is not const, it does not write
    s_->z.avail_in = static_cast<uInt>(part);
    pump(Z_NO_FLUSH);
    p += part;
    n -= part;
  }
}

void GzipWriter::finish() {
  if (finished_) return;
  s_->z.next_in = nullptr;
  s_->z.avail_in = 0;
  pump(Z_FINISH);
  finished_ = true;
}

}  // namespace tomo
