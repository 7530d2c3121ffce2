// Atomic file writes: a unique temp file beside the target, renamed over it when complete.
#include "compute/io/atomic_file.hpp"

#include <atomic>
#include <fstream>
#include <string>
#include <system_error>

#include <unistd.h>

#include "compute/core/error.hpp"

namespace tomo {
namespace {

std::atomic<unsigned long> g_counter{0};

// name.tmp-<pid>-<counter> in the target's directory, so rename() never crosses filesystems.
std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + std::to_string(static_cast<long>(::getpid())) + "-" + std::to_string(g_counter++);
  return tmp;
}

void remove_quietly(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::remove(p, ec);
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill) {
  if (path.empty()) throw Error("write_file_atomic: empty path");
  const std::filesystem::path tmp = temp_path_for(path);
  try {
    {
      std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
      if (!os) throw Error("cannot create temporary file '" + tmp.string() + "' to write '" + path.string() + "'");
      fill(os);
      os.flush();
      if (!os) throw Error("error while writing '" + path.string() + "' (disk full or I/O error?)");
      os.close();
      if (os.fail()) throw Error("error while closing '" + path.string() + "'");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw Error("cannot rename temporary file onto '" + path.string() + "': " + ec.message());
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
}

void write_bytes_atomic(const std::filesystem::path& path, const void* data, std::size_t bytes) {
  write_file_atomic(path, [&](std::ostream& os) {
    os.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  });
}

void write_text_atomic(const std::filesystem::path& path, std::string_view text) {
  write_bytes_atomic(path, text.data(), text.size());
}

}  // namespace tomo
