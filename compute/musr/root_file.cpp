// ROOT file container and object stream (layout: ROOT's TFile/TKey/TBufferFile documentation).
// File header: "root", version (≥ 1000000: 64-bit seek fields), begin of the first key, end.
// Key: nbytes, version (> 1000: 64-bit seeks), object length, date, key length, cycle, seek
// key, seek directory, class name, name, title. A compressed object is a chain of blocks of a
// 9-byte header (algorithm "ZL", "L4", "ZS" or "XZ", method, 3-byte compressed size, 3-byte
// uncompressed size, little-endian) and the compressed bytes: a zlib stream, an 8-byte
// big-endian XXH64 of the rest and an LZ4 block, a ZSTD frame, or an xz stream.
#include "compute/musr/root_file.hpp"

#include <lz4.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#define XXH_INLINE_ALL  // header-only: no run-time library
#include <xxhash.h>

#include <bit>
#include <cstring>

#include "compute/core/error.hpp"

namespace tomo::musr::root {
namespace {

std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) {
  return (std::uint32_t(b[at]) << 24) | (std::uint32_t(b[at + 1]) << 16) | (std::uint32_t(b[at + 2]) << 8) | b[at + 3];
}
std::uint16_t be16(std::span<const std::uint8_t> b, std::size_t at) { return static_cast<std::uint16_t>((b[at] << 8) | b[at + 1]); }

constexpr std::uint32_t kByteCount = 0x40000000u, kNewClass = 0xFFFFFFFFu, kClassRef = 0x80000000u;
constexpr std::uint32_t kMapOffset = 2;  // ROOT's tag offsets start at 2

}  // namespace

void File::fail(const std::string& what) const { throw InputError("ROOT '" + where_ + "': " + what); }

File::File(std::span<const std::uint8_t> b, std::string where) : b_(b), where_(std::move(where)) {
  if (b.size() < 64 || std::memcmp(b.data(), "root", 4) != 0) fail("does not start with \"root\" (not a ROOT file)");
  const std::uint32_t version = be32(b, 4);
  const std::size_t begin = be32(b, 8);
  const std::uint64_t end = version >= 1000000 ? (std::uint64_t(be32(b, 12)) << 32 | be32(b, 16)) : be32(b, 12);
  if (begin < 64 || begin >= b.size()) fail("first key at byte " + std::to_string(begin) + " is outside the file");
  const std::size_t stop = static_cast<std::size_t>(std::min<std::uint64_t>(end, b.size()));
  // The keys lie one after another from `begin`; a negative length marks a free gap.
  for (std::size_t pos = begin; pos + 4 <= stop;) {
    const auto n = static_cast<std::int32_t>(be32(b, pos));
    if (n < 0) {
      if (std::size_t(-static_cast<std::int64_t>(n)) > stop - pos) fail("free gap at byte " + std::to_string(pos) + " runs past the end");
      pos += static_cast<std::size_t>(-static_cast<std::int64_t>(n));
      continue;
    }
    if (n < 26 || std::size_t(n) > stop - pos) fail("key at byte " + std::to_string(pos) + " has length " + std::to_string(n) + " (" + std::to_string(stop - pos) + " bytes left)");
    Key k;
    k.pos = pos;
    k.nbytes = static_cast<std::uint32_t>(n);
    const std::uint16_t kv = be16(b, pos + 4);
    k.object_bytes = be32(b, pos + 6);
    k.key_bytes = be16(b, pos + 14);
    k.cycle = be16(b, pos + 16);
    std::size_t at = pos + 18;
    std::uint64_t seek_dir;
    if (kv > 1000) {
      if (at + 16 > pos + k.nbytes) fail("key at byte " + std::to_string(pos) + " is cut short");
      seek_dir = (std::uint64_t(be32(b, at + 8)) << 32) | be32(b, at + 12);
      at += 16;
    } else {
      seek_dir = be32(b, at + 4);
      at += 8;
    }
    if (k.key_bytes > k.nbytes || k.key_bytes < at - pos) fail("key at byte " + std::to_string(pos) + " has key length " + std::to_string(k.key_bytes));
    auto text = [&](std::string& s) {
      if (at >= pos + k.key_bytes) fail("key at byte " + std::to_string(pos) + ": its names run past the key");
      std::size_t len = b[at++];
      if (len == 255) {
        if (at + 4 > pos + k.key_bytes) fail("key at byte " + std::to_string(pos) + ": its names run past the key");
        len = be32(b, at);
        at += 4;
      }
      if (len > pos + k.key_bytes - at) fail("key at byte " + std::to_string(pos) + ": its names run past the key");
      s.assign(reinterpret_cast<const char*>(b.data() + at), len);
      at += len;
    };
    text(k.class_name);
    text(k.name);
    text(k.title);
    if (seek_dir == begin && k.class_name != "TFile") {
      bool replaced = false;
      for (auto& old : keys_)
        if (old.name == k.name) {
          if (k.cycle > old.cycle) old = k;
          replaced = true;
        }
      if (!replaced) keys_.push_back(k);
    }
    pos += k.nbytes;
  }
}

const Key* File::find(const std::string& name) const {
  for (const auto& k : keys_)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::uint8_t> File::object(const Key& k) const {
  const std::string what = "object '" + k.name + "'";
  const std::size_t stored = k.nbytes - k.key_bytes;
  const auto in = b_.subspan(k.pos + k.key_bytes, stored);
  if (k.object_bytes > kRootMaxObjectBytes) fail(what + " of " + std::to_string(k.object_bytes) + " bytes is larger than " + std::to_string(kRootMaxObjectBytes));
  if (k.object_bytes == stored) return {in.begin(), in.end()};
  // zlib expands at most about 1032:1 and LZ4 about 255:1: a larger claim is damage, refused
  // before allocating (ZSTD and xz have no such bound; the object size cap holds for them).
  const bool bounded = in.size() >= 2 && ((in[0] == 'Z' && in[1] == 'L') || (in[0] == 'L' && in[1] == '4'));
  if (bounded && k.object_bytes > std::size_t(1100) * stored)
    fail(what + ": " + std::to_string(k.object_bytes) + " bytes cannot come from " + std::to_string(stored) + " compressed bytes");
  std::vector<std::uint8_t> out(k.object_bytes);
  std::size_t at = 0, done = 0;
  while (done < out.size()) {
    if (at + 9 > in.size()) fail(what + ": compressed blocks end after " + std::to_string(done) + " of " + std::to_string(out.size()) + " bytes");
    const std::size_t c = in[at + 3] | (std::size_t(in[at + 4]) << 8) | (std::size_t(in[at + 5]) << 16);
    const std::size_t u = in[at + 6] | (std::size_t(in[at + 7]) << 8) | (std::size_t(in[at + 8]) << 16);
    const std::string algo{static_cast<char>(in[at]), static_cast<char>(in[at + 1])};
    if (c > in.size() - at - 9 || u > out.size() - done) fail(what + ": compressed block at byte " + std::to_string(at) + " has sizes " + std::to_string(c) + "/" + std::to_string(u) + " beyond the object");
    const std::uint8_t* src = in.data() + at + 9;
    std::uint8_t* dst = out.data() + done;
    const std::string block = " block at byte " + std::to_string(at);
    if (algo == "ZL") {
      uLongf got = static_cast<uLongf>(u);
      if (::uncompress(dst, &got, src, static_cast<uLong>(c)) != Z_OK || got != u)
        fail(what + ": zlib" + block + " does not inflate to " + std::to_string(u) + " bytes");
    } else if (algo == "L4") {
      if (c < 8) fail(what + ": LZ4" + block + " is shorter than its checksum");
      std::uint64_t sum = 0;
      for (int i = 0; i < 8; ++i) sum = (sum << 8) | src[i];
      if (XXH64(src + 8, c - 8, 0) != sum) fail(what + ": LZ4" + block + " fails its XXH64 checksum");
      if (LZ4_decompress_safe(reinterpret_cast<const char*>(src + 8), reinterpret_cast<char*>(dst), static_cast<int>(c - 8),
                              static_cast<int>(u)) != static_cast<int>(u))
        fail(what + ": LZ4" + block + " does not decompress to " + std::to_string(u) + " bytes");
    } else if (algo == "ZS") {
      if (ZSTD_decompress(dst, u, src, c) != u) fail(what + ": ZSTD" + block + " does not decompress to " + std::to_string(u) + " bytes");
    } else if (algo == "XZ") {
      std::uint64_t memlimit = std::uint64_t(96) << 20;  // ROOT writes xz presets 1-9: dictionaries up to 64 MiB
      std::size_t in_pos = 0, out_pos = 0;
      if (lzma_stream_buffer_decode(&memlimit, 0, nullptr, src, &in_pos, c, dst, &out_pos, u) != LZMA_OK || out_pos != u)
        fail(what + ": xz" + block + " does not decompress to " + std::to_string(u) + " bytes");
    } else {
      fail(what + ": compression '" + algo + "'" + block + " is not zlib, LZ4, ZSTD or xz");
    }
    done += u;
    at += 9 + c;
  }
  return out;
}

Stream::Stream(std::vector<std::uint8_t> data, std::uint16_t key_bytes, std::string where)
    : d_(std::move(data)), key_bytes_(key_bytes), where_(std::move(where)) {}

void Stream::fail(const std::string& what) const { throw InputError("ROOT '" + where_ + "': " + what + " (byte " + std::to_string(pos_) + ")"); }
void Stream::need(std::size_t n) const {
  if (n > d_.size() - pos_) fail("object data end early");
}
void Stream::seek(std::size_t p) {
  if (p > d_.size()) fail("an object's byte count points past its data");
  pos_ = p;
}
std::uint8_t Stream::u8() {
  need(1);
  return d_[pos_++];
}
std::int16_t Stream::i16() {
  need(2);
  const auto v = be16(d_, pos_);
  pos_ += 2;
  return static_cast<std::int16_t>(v);
}
std::uint32_t Stream::u32() {
  need(4);
  const auto v = be32(d_, pos_);
  pos_ += 4;
  return v;
}
float Stream::f32() { return std::bit_cast<float>(u32()); }
double Stream::f64() {
  const std::uint64_t hi = u32();
  return std::bit_cast<double>((hi << 32) | u32());
}
std::string Stream::tstring() {
  std::size_t n = u8();
  if (n == 255) n = u32();
  need(n);
  std::string s(reinterpret_cast<const char*>(d_.data() + pos_), n);
  pos_ += n;
  return s;
}
int Stream::version(std::size_t& end) {
  end = 0;
  need(4);
  const std::uint32_t first = be32(d_, pos_);
  if (first & kByteCount) {
    const std::size_t count = first & ~kByteCount;
    if (count < 2 || count > d_.size() - pos_ - 4) fail("byte count " + std::to_string(count) + " runs past the object");
    end = pos_ + 4 + count;
    pos_ += 4;
  }
  return i16();
}
void Stream::tobject() {
  std::size_t end;
  (void)version(end);
  (void)u32();  // unique id
  const std::uint32_t bits = u32();
  if (bits & (1u << 4)) (void)i16();  // referenced: process id follows
}
std::string Stream::tnamed(std::string* title) {
  std::size_t end;
  (void)version(end);
  tobject();
  std::string name = tstring();
  std::string t = tstring();
  if (title) *title = std::move(t);
  if (end) seek(end);
  return name;
}

Stream::Pointer Stream::object_any() {
  Pointer p;
  const std::size_t start = pos_;
  std::uint32_t tag = u32();
  if (tag == 0) return p;
  if (!(tag & kByteCount)) fail("an object reference where an object was expected");
  const std::size_t count = tag & ~kByteCount;
  if (count < 4 || count > d_.size() - start - 4) fail("object byte count " + std::to_string(count) + " runs past its data");
  p.end = start + 4 + count;
  const std::size_t tag_at = pos_;
  tag = u32();
  if (tag == kNewClass) {
    std::string name;
    while (true) {
      const char c = static_cast<char>(u8());
      if (c == 0) break;
      if (name.size() >= 256) fail("class name longer than 256 characters");
      name += c;
    }
    classes_.emplace_back(static_cast<std::uint32_t>(tag_at + key_bytes_ + kMapOffset), name);
    p.class_name = name;
  } else if (tag & kClassRef) {
    const std::uint32_t off = tag & ~kClassRef;
    for (const auto& [o, n] : classes_)
      if (o == off) p.class_name = n;
    if (p.class_name.empty()) fail("class tag " + std::to_string(off) + " names no class read before");
  } else {
    fail("class tag " + std::to_string(tag) + " is neither a new class nor a reference");
  }
  if (pos_ > p.end) fail("object byte count is smaller than its class tag");
  p.null = false;
  return p;
}

}  // namespace tomo::musr::root
