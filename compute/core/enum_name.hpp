// Enum ↔ name tables: a string option of a scene is parsed once into an enum
// (Scene::get_enum) and printed back by name (enum_name).
#pragma once
#include <array>
#include <cstddef>
#include <string_view>

namespace tomo {

// One row of an enum's name table.
template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

// The name of `value` in `table` ("?" when absent, which a complete table never is).
template <class E, std::size_t N>
constexpr std::string_view enum_name(const std::array<EnumName<E>, N>& table, E value) {
  for (const auto& row : table)
    if (row.value == value) return row.name;
  return "?";
}

}  // namespace tomo
