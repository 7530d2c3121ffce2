// libFitPofB's implantation profiles n(z): one TRIM.SP `.rge` file per energy named by
// BMW_startup.xml (`<data_path><energy_label>.rge`, the path relative to the startup file), read
// as the library reads them, because its P(B) samples the raw counts:
//   - the pairs "depth[Å] particles" after the header word PARTICLES, taken unnormalised;
//   - a text that ends in white space repeats its last pair (the library's end-of-file loop);
//   - zeros appended every ½(z₂ − z₀) from the last depth until 2100 Å;
//   - n(z) at z [nm]: linear between the two depths around 10z (from 0 before the first), 0 for
//     z < 0 and beyond the last depth, |·| of the interpolation;
//   - the profile of energy E [keV]: the first, in ascending energy, within 0.05 keV;
//   - the fraction of a dead layer d [nm]: Σ of the counts at depths < 10d over Σ of all counts.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tomo::musr::bmw {

struct TrimSpProfile {
  double energy_kev = 0.0;
  std::vector<double> depth_a;  // Å, non-decreasing (the appended zeros included)
  std::vector<double> counts;   // particles per depth row, ≥ 0
  bool operator==(const TrimSpProfile&) const = default;
};

// Bounds: at most 10⁶ rows once the zeros up to 2100 Å are appended.
inline constexpr std::size_t kTrimSpMaxRows = 1000000;

// The text of one rge file; `where` names it in the one-line InputError ("file: …").
TrimSpProfile parse_trim_sp_profile(std::string_view text, double energy_kev, const std::string& where);

// n(z) of one profile at depth z [nm] (unnormalised, as the library samples it).
double trim_sp_density(const TrimSpProfile& p, double z_nm);
// The fraction of the profile's counts at depths below d [nm].
double trim_sp_layer_fraction(const TrimSpProfile& p, double d_nm);

// The profiles named by a BMW startup file, sorted by energy (a repeated energy keeps its last
// label, as the library's map does); every file must exist and parse.
std::vector<TrimSpProfile> load_trim_sp_profiles(const std::filesystem::path& startup);

// The index of energy E's profile in `sorted` (the first within 0.05 keV), or -1.
int find_trim_sp_energy(const std::vector<TrimSpProfile>& sorted, double energy_kev);

}  // namespace tomo::musr::bmw
