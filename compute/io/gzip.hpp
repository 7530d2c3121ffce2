// gzip (.gz) streams through zlib for the readers and writers of compressed files
// (.nii.gz): inflate piece by piece with a bound on the output, deflate into a stream.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace tomo {

// True when the bytes start with the gzip magic (1f 8b).
bool is_gzip(const unsigned char* bytes, std::size_t size);

// Inflates a whole gzip file (one or more members) held in memory, on demand.
class GzipReader {
 public:
  // `name` prefixes every message ("NIfTI file 'a.nii.gz'").
  GzipReader(std::vector<unsigned char> compressed, std::string name);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Up to n bytes into dst; fewer only where the data end. InputError on corrupt or
  // truncated data, naming the file and the offset in the uncompressed stream.
  std::size_t read(void* dst, std::size_t n);
  // Discards n bytes (an extension block); returns how many there were.
  std::size_t skip(std::size_t n);
  // The most bytes the file can inflate to: deflate never compresses more than 1032:1, so
  // a header asking for more is refused before anything is allocated.
  std::uint64_t max_output() const;
  std::uint64_t position() const { return produced_; }

 private:
  struct State;
  std::unique_ptr<State> s_;
  std::vector<unsigned char> in_;
  std::string name_;
  std::uint64_t produced_ = 0;
  bool finished_ = false;
};

// Deflates everything written to it into `out` as one gzip member; finish() flushes it.
class GzipWriter {
 public:
  explicit GzipWriter(std::ostream& out, int level = 6);
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;

  void write(const void* data, std::size_t n);
  void finish();

 private:
  void pump(int flush);
  struct State;
  std::unique_ptr<State> s_;
  std::ostream& out_;
  std::vector<unsigned char> buf_;
  bool finished_ = false;
};

}  // namespace tomo
