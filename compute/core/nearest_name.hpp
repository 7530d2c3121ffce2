// The known name nearest to a mistyped one, for "did you mean …" in error messages.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tomo {

// Edit distance counting insertions, deletions, substitutions and swaps of neighbours
// ("grdi" → "grid" is 1), the measure spelling suggestions use.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name of `known` nearest to `name` by edit distance (the first of equals); "" when none.
std::string nearest_name(std::string_view name, const std::vector<std::string>& known);

}  // namespace tomo
