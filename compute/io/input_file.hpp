// Every reader of a user's file starts here: the path must name a regular file (not a folder,
// FIFO, socket or device, which would block or never end) no larger than what the format can
// sensibly hold, checked before a byte is read. Messages name the file and what it was taken
// for, and are InputError (exit 2).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tomo::io {

inline constexpr std::uintmax_t kMiB = std::uintmax_t(1) << 20;
inline constexpr std::uintmax_t kGiB = std::uintmax_t(1) << 30;

// The size of `path` in bytes after the checks above; `what` names the role ("msr file",
// "PSI-BIN data", "list-mode file") and `max_bytes` the cap.
std::uintmax_t check_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, std::string_view what);

// check_input_file, then the whole file as bytes (no format: a reader parses them, and that
// reader has the fuzz target).
std::string input_file_bytes(const std::filesystem::path& path, std::uintmax_t max_bytes, std::string_view what);

// A byte count for messages: "3.2 GiB", "12 MiB", "512 bytes".
std::string byte_count(std::uintmax_t bytes);

}  // namespace tomo::io
