#include "compute/io/input_file.hpp"

#include <cstdio>
#include <fstream>

#include "compute/core/error.hpp"

namespace tomo::io {

std::string byte_count(std::uintmax_t bytes) {
  char text[32];
  if (bytes >= kGiB) std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(kGiB));
  else if (bytes >= kMiB) std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(kMiB));
  else std::snprintf(text, sizeof text, "%ju bytes", bytes);
  return text;
}

std::uintmax_t check_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, std::string_view what) {
  namespace fs = std::filesystem;
  const std::string head = std::string(what) + " '" + path.string() + "'";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows links: a link to a FIFO is a FIFO
  if (!fs::exists(st)) throw InputError(head + ": no such file");
  if (fs::is_directory(st)) throw InputError(head + ": is a folder, not a file");
  if (!fs::is_regular_file(st))
    throw InputError(head + ": is not a regular file (a device, FIFO or socket cannot be read as one)");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError(head + ": cannot read: " + ec.message());
  if (size > max_bytes)
    throw InputError(head + ": " + byte_count(size) + " is larger than the " + byte_count(max_bytes) + " a " +
                     std::string(what) + " may have");
  return size;
}

std::string input_file_bytes(const std::filesystem::path& path, std::uintmax_t max_bytes, std::string_view what) {
  const std::uintmax_t size = check_input_file(path, max_bytes, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(std::string(what) + " '" + path.string() + "': cannot be opened");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

}  // namespace tomo::io
