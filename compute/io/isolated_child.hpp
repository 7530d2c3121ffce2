// Runs the reader of an untrusted file in a forked child when the reader sits on a C library
// that can crash, overflow or ask for terabytes on a malformed file (libhdf5, libhdf4): no check
// before the call can rule that out, so the parent never runs the library on the file itself.
// The child's result travels back as bytes (ByteWriter/ByteReader) with every length checked; a
// child that dies becomes one InputError naming the file and the library.
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "compute/core/error.hpp"

namespace tomo::io {

// produce() in a forked child; its bytes (or its InputError/Error, rethrown here) come back
// through a pipe. The child dies with the parent, an interrupt kills and reaps it at once, and a child
// still reading after 5 s plus 1 s per 10 MB of file is stopped (InputError naming file and library).
std::string run_isolated(const std::filesystem::path& file, const std::string& library, const std::function<std::string()>& produce);

// Appends plain values, length-prefixed texts and vectors to a byte string.
class ByteWriter {
 public:
  template <class T>
  void put(const T& v) {
    b_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void text(const std::string& s) {
    put(std::uint64_t(s.size()));
    b_ += s;
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    put(std::uint64_t(v.size()));
    b_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  std::string take() { return std::move(b_); }

 private:
  std::string b_;
};

// Reads back what ByteWriter wrote; a length beyond the bytes left is an Error, never a read
// past the end or a huge allocation.
class ByteReader {
 public:
  explicit ByteReader(const std::string& b) : b_(b) {}
  template <class T>
  T get() {
    T v{};
    need(sizeof(T));
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string text() {
    const auto n = get<std::uint64_t>();
    need(n);
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = get<std::uint64_t>();
    if (n > (b_.size() - at_) / sizeof(T)) throw Error("isolated read: reply shorter than announced");
    std::vector<T> v(n);
    std::memcpy(v.data(), b_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return v;
  }
  // A count of items of at least `item_bytes` each that the bytes left could hold.
  std::uint64_t count(std::uint64_t item_bytes) {
    const auto n = get<std::uint64_t>();
    if (item_bytes == 0 || n > (b_.size() - at_) / item_bytes) throw Error("isolated read: reply shorter than announced");
    return n;
  }

 private:
  void need(std::uint64_t n) const {
    if (n > b_.size() - at_) throw Error("isolated read: reply shorter than announced");
  }
  const std::string& b_;
  std::size_t at_ = 0;
};

}  // namespace tomo::io
