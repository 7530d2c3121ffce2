#include "compute/core/nearest_name.hpp"

#include <algorithm>
#include <limits>

namespace tomo {

// Optimal string alignment distance over three rolling rows (the swap looks two rows back).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = b.size();
  std::vector<std::size_t> prev2(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::string nearest_name(std::string_view name, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& k : known)
    if (const std::size_t d = edit_distance(name, k); d < best_d) {
      best_d = d;
      best = k;
    }
  return best;
}

}  // namespace tomo
