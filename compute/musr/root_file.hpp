// A small reader of the ROOT file format, for what musrfit's ROOT-based μSR files hold: the top
// directory's keys, their objects (uncompressed, or compressed with zlib, LZ4, ZSTD or xz: ROOT's
// four algorithms), and ROOT's big-endian object streaming (byte counts, class tags) for
// TFolder, TList, TObjArray, TObjString and TH1F/TH1D. Anything else inside a container is
// skipped by its byte count.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tomo::musr::root {

inline constexpr std::uintmax_t kRootMaxBytes = std::uintmax_t(1) << 30;
inline constexpr std::size_t kRootMaxObjectBytes = std::size_t(256) << 20;  // one decompressed object (examples: 4.4 MB)

struct Key {
  std::string class_name, name, title;
  std::size_t pos = 0;        // of the key in the file
  std::uint32_t nbytes = 0;   // key + (compressed) object
  std::uint32_t object_bytes = 0;
  std::uint16_t key_bytes = 0, cycle = 0;
};

// The keys of the top directory (highest cycle of each name).
class File {
 public:
  File(std::span<const std::uint8_t> bytes, std::string where);
  const Key* find(const std::string& name) const;
  // The object's bytes, decompressed; InputError naming the key when damaged.
  std::vector<std::uint8_t> object(const Key& k) const;
  const std::string& where() const { return where_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::span<const std::uint8_t> b_;
  std::string where_;
  std::vector<Key> keys_;
};

// Reads one key's object: positions are offsets into `data`; class tags refer to offsets
// displaced by the key's length, as ROOT writes them.
class Stream {
 public:
  Stream(std::vector<std::uint8_t> data, std::uint16_t key_bytes, std::string where);
  [[noreturn]] void fail(const std::string& what) const;

  std::size_t pos() const { return pos_; }
  void seek(std::size_t p);
  std::size_t size() const { return d_.size(); }
  std::uint8_t u8();
  std::int16_t i16();
  std::uint32_t u32();
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  float f32();
  double f64();
  std::string tstring();  // u8 length (255: u32 length follows), then the bytes
  // A version header: returns the version; `end` the object's end when a byte count precedes it
  // (0 when none).
  int version(std::size_t& end);
  void tobject();
  // TNamed: returns the name, the title in `title`.
  std::string tnamed(std::string* title = nullptr);

  struct Pointer {
    bool null = true;
    std::string class_name;
    std::size_t end = 0;  // the object's content starts at pos()
  };
  // An object written through a pointer: byte count, class tag (new class by name, or a
  // reference to an earlier one); object references are refused.
  Pointer object_any();

 private:
  void need(std::size_t n) const;
  std::vector<std::uint8_t> d_;
  std::size_t pos_ = 0;
  std::uint16_t key_bytes_;
  std::string where_;
  std::vector<std::pair<std::uint32_t, std::string>> classes_;  // tag offset → class name
};

}  // namespace tomo::musr::root
