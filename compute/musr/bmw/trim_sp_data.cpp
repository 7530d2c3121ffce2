// libFitPofB's TRIM.SP profiles (compute/musr/bmw/trim_sp_data.hpp).
#include "compute/musr/bmw/trim_sp_data.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/bmw/startup.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/rge_profiles.hpp"  // kRgeMaxBytes

namespace tomo::musr::bmw {
namespace {

constexpr double kPadEndA = 2100.0;  // the library appends zeros up to this depth (Å)

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The next white-space separated token from `pos` on (empty at the end).
std::string_view next_token(std::string_view text, std::size_t& pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  const std::size_t b = pos;
  while (pos < text.size() && !is_space(text[pos])) ++pos;
  return text.substr(b, pos - b);
}

double number(std::string_view tok, const char* what, const std::string& where) {
  double v = 0.0;
  const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (r.ec != std::errc() || r.ptr != tok.data() + tok.size() || !std::isfinite(v))
    throw InputError(where + ": " + what + " '" + quoted_excerpt(tok) + "' is not a number");
  return v;
}

}  // namespace

TrimSpProfile parse_trim_sp_profile(std::string_view text, double energy_kev, const std::string& where) {
  TrimSpProfile p;
  p.energy_kev = energy_kev;
  std::size_t pos = 0;
  for (;;) {
    const auto tok = next_token(text, pos);
    if (tok.empty()) throw InputError(where + ": no PARTICLES header: not a TRIM.SP range file");
    if (tok == "PARTICLES") break;
  }
  for (;;) {
    const auto z = next_token(text, pos);
    if (z.empty()) break;
    const auto n = next_token(text, pos);
    if (n.empty()) throw InputError(where + ": depth '" + quoted_excerpt(z) + "' has no particle count");
    const double zv = number(z, "depth", where), nv = number(n, "particle count", where);
    if (!p.depth_a.empty() && !(zv > p.depth_a.back()))
      throw InputError(where + ": depth " + quoted_excerpt(z) + " Å is not above the previous one");
    if (nv < 0.0) throw InputError(where + ": particle count " + quoted_excerpt(n) + " is negative");
    if (p.depth_a.size() >= kTrimSpMaxRows) throw InputError(where + ": more than 1000000 depth rows");
    p.depth_a.push_back(zv);
    p.counts.push_back(nv);
  }
  if (p.depth_a.size() < 3) throw InputError(where + ": fewer than three depth rows");
  // The library reads pairs until end of file: after a final separator one more read fails and
  // leaves the last pair in place, which it stores again.
  if (is_space(text.back())) {
    p.depth_a.push_back(p.depth_a.back());
    p.counts.push_back(p.counts.back());
  }
  // The library's step for the appended zeros: TRIM.SP may alternate two step sizes, so the mean
  // of the first two.
  const double dz = 0.5 * (p.depth_a[2] - p.depth_a[0]);
  const double rows = std::ceil((kPadEndA - p.depth_a.back()) / dz);
  if (rows > 0.0 && static_cast<double>(p.depth_a.size()) + rows > static_cast<double>(kTrimSpMaxRows))
    throw InputError(where + ": a depth step of " + std::to_string(dz) + " Å needs more than 1000000 rows up to 2100 Å");
  for (double z = p.depth_a.back(); z < kPadEndA;) {
    z += dz;
    p.depth_a.push_back(z);
    p.counts.push_back(0.0);
  }
  return p;
}

double trim_sp_density(const TrimSpProfile& p, double z_nm) {
  if (z_nm < 0.0) return 0.0;
  const auto& z = p.depth_a;
  // The first row whose depth, in nm, reaches z (z/10 is monotone in z, as the library compares).
  const auto it = std::lower_bound(z.begin(), z.end(), z_nm, [](double za, double zn) { return za / 10.0 < zn; });
  if (it == z.end()) return 0.0;
  const auto i = static_cast<std::size_t>(it - z.begin());
  const auto& nz = p.counts;
  if (i == 0) return nz[0] * 10.0 * z_nm / z[0];
  return std::fabs(nz[i - 1] + (nz[i] - nz[i - 1]) * (10.0 * z_nm - z[i - 1]) / (z[i] - z[i - 1]));
}

double trim_sp_layer_fraction(const TrimSpProfile& p, double d_nm) {
  double total = 0.0, layer = 0.0;
  for (std::size_t j = 0; j < p.depth_a.size(); ++j) {
    total += p.counts[j];
    if (p.depth_a[j] < d_nm * 10.0) layer += p.counts[j];
  }
  return layer / total;
}

std::vector<TrimSpProfile> load_trim_sp_profiles(const std::filesystem::path& startup) {
  const BmwStartup s = parse_bmw_startup(io::input_file_bytes(startup, kBmwStartupMaxBytes, "BMW startup file"), startup.string());
  if (s.energies_kev.empty()) throw InputError(startup.string() + ": no <energy_list> of TRIM.SP profiles in its <LEM> section");
  if (s.data_path.empty()) throw InputError(startup.string() + ": no <data_path> for the TRIM.SP profiles");
  // Ascending energy; a repeated energy keeps the label given last.
  std::vector<std::size_t> order(s.energies_kev.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.energies_kev[a] < s.energies_kev[b]; });
  std::vector<TrimSpProfile> out;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    if (k + 1 < order.size() && s.energies_kev[order[k + 1]] == s.energies_kev[i]) continue;
    const auto file = startup.parent_path() / (s.data_path + s.energy_labels[i] + ".rge");
    out.push_back(parse_trim_sp_profile(io::input_file_bytes(file, kRgeMaxBytes, "TRIM.SP rge file"), s.energies_kev[i], file.string()));
  }
  return out;
}

int find_trim_sp_energy(const std::vector<TrimSpProfile>& sorted, double energy_kev) {
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (std::fabs(sorted[i].energy_kev - energy_kev) < 0.05) return static_cast<int>(i);
  return -1;
}

}  // namespace tomo::musr::bmw
