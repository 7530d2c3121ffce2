// Files compiled into the binary (scenes, shaders) by cmake/embed.cmake.
#pragma once
#include <cstddef>
#include <string_view>

namespace tomo::detail {

struct EmbeddedFile {
  const char* name;  // path relative to its folder, '/'-separated
  const char* data;
  std::size_t size;
};

// Looks a name up in a generated table; empty view when absent.
inline std::string_view find_embedded(const EmbeddedFile* table, std::string_view name) {
  for (const EmbeddedFile* f = table; f->name; ++f)
    if (name == f->name) return {f->data, f->size};
  return {};
}

}  // namespace tomo::detail
