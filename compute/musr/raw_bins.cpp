// musrfit's raw-bin rules (compute/musr/raw_bins.hpp).
#include "compute/musr/raw_bins.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tomo::musr {

double beam_period_us(const std::string& institute) {
  std::string lower = institute;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("psi") != std::string::npos) return 0.01975;
  if (lower.find("triumf") != std::string::npos) return 0.04337;
  return 0.0;
}

int bin_of_maximum(const std::vector<double>& counts) {
  return counts.empty() ? 0 : static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
}

int rising_edge(const std::vector<double>& counts) {
  const int peak = bin_of_maximum(counts);
  const double half = 0.5 * (counts.empty() ? 0.0 : counts[static_cast<std::size_t>(peak)]);
  int edge = peak;
  while (edge > 0 && counts[static_cast<std::size_t>(edge - 1)] >= half) --edge;
  return edge;
}

bool t0_before_prompt_peak(const std::vector<double>& counts, double t0, int edge) {
  const int size = static_cast<int>(counts.size());
  const int start = std::max(0, static_cast<int>(std::floor(t0)));
  if (edge <= start || edge >= size) return false;
  const int after_end = std::min(size, edge + (edge - start));
  double before = 0.0, after = 0.0;
  for (int i = start; i < edge; ++i) before += counts[static_cast<std::size_t>(i)];
  for (int i = edge; i < after_end; ++i) after += counts[static_cast<std::size_t>(i)];
  return before / (edge - start) < 0.5 * after / (after_end - edge);
}

bool pulsed_source(const std::string& institute) {
  std::string u;
  for (char c : institute) u += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u == "ISIS" || u == "RAL" || u == "RIKEN-RAL" || u == "RIKEN";
}

double resolve_t0(const std::vector<double>& msr_t0s, std::size_t index, double header_t0, const std::vector<double>& counts) {
  if (index < msr_t0s.size() && msr_t0s[index] != -1.0) return msr_t0s[index];
  if (header_t0 > 0.0) return header_t0;
  return bin_of_maximum(counts);
}

std::optional<BinRange> resolve_data_range(std::optional<int> start, std::optional<int> end, double t0, double dt_us, int size) {
  BinRange r;
  r.start = start ? *start : static_cast<int>(t0) + static_cast<int>(10.0e-3 / dt_us);
  r.end = end ? *end : size;
  if (r.end < r.start) std::swap(r.start, r.end);
  if (r.start < 0 || r.start > size || r.end < 0) return std::nullopt;
  if (r.end > size) r.end = size - 1;
  return r;
}

BinRange default_background_window(double t0) {
  return {static_cast<int>(t0 * 0.1), static_cast<int>(t0 * 0.6)};
}

BinRange trim_background_window(BinRange w, double dt_us, int packing, double period_us) {
  if (w.end < w.start) std::swap(w.start, w.end);
  if (period_us == 0.0) return w;
  const double packed_dt = dt_us * packing;
  const auto cycles = static_cast<unsigned>(static_cast<double>(w.end - w.start) * packed_dt / period_us);
  const int end = w.start + static_cast<int>(static_cast<unsigned>(cycles * period_us / packed_dt));
  if (end != w.start) w.end = end;
  return w;
}

BackgroundEstimate asymmetry_background(const std::vector<double>& counts, BinRange w) {
  double sum = 0.0;
  for (int i = w.start; i <= w.end; ++i) sum += counts[static_cast<std::size_t>(i)];
  const double n = w.end - w.start + 1;
  const double err = std::sqrt(sum) / n;
  return {sum / n, err * err};
}

double single_histogram_background(const std::vector<double>& counts, BinRange w) {
  double sum = 0.0;
  for (int i = w.start; i < w.end; ++i) sum += counts[static_cast<std::size_t>(i)];
  return sum / (w.end - w.start + 1);
}

std::vector<std::pair<double, double>> packed_means(const std::vector<double>& value, const std::vector<double>& variance, int fgb,
                                                    int lgb, int p, PackCarry& carry) {
  std::vector<std::pair<double, double>> out;
  for (int i = fgb; i < lgb; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (p == 1) {
      out.emplace_back(value[k], std::sqrt(variance[k]));
      continue;
    }
    if ((i - fgb) % p == 0 && i != fgb) {
      const double mean = carry.value / p;
      out.emplace_back(mean, mean == 0.0 ? 1.0 : std::sqrt(carry.variance) / p);
      carry = {};
    }
    carry.value += value[k];
    carry.variance += variance[k];
  }
  return out;
}

}  // namespace tomo::musr
