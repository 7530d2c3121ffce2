// Atomic file writes: data go to a temporary file beside the target, which is
// renamed over it only when complete, so no reader ever sees half a file.
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string_view>

namespace tomo {

// Calls `fill` with a binary stream on a temp file, then renames it to `path`.
// On any exception the temp file is removed and the exception propagates.
void write_file_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill);
void write_bytes_atomic(const std::filesystem::path& path, const void* data, std::size_t bytes);
void write_text_atomic(const std::filesystem::path& path, std::string_view text);

}  // namespace tomo
