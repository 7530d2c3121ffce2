// TRIM.SP muon implantation profiles as musrfit's depth-profile user functions read them: a
// startup XML (`<trim_sp>` with `<data_path>`, `<rge_fln_pre>` and the energies as
// `<energy_vect start= stop= step=/>` or `<energy>` elements, in eV) naming one `.rge` file per
// energy, `<data_path><rge_fln_pre><energy>.rge`: lines "depth[Å] particles" after a header.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tomo::musr {

// One implantation energy: depths in nm (strictly increasing, > 0) and the cumulative stopping
// distribution as musrfit forms it: n_j = N_j / Σ_i N_i (z_i − z_{i−1}) (z_{−1} = 0), the
// density per nm, and cfd_j = Σ_{i≤j} n_i.
struct RgeProfile {
  int energy_ev = 0;
  std::vector<double> depth_nm;
  std::vector<double> density;  // n_j
  std::vector<double> cfd;
  bool operator==(const RgeProfile&) const = default;
};

struct RgeStartup {
  std::string data_path, file_prefix;
  std::vector<int> energies_ev;  // in the file's order (energy_vect expanded, then <energy> elements)
};

// Bounds: a startup file at most 1 MiB naming at most 1000 energies; an rge file at most 16 MiB
// and 10⁶ depth rows.
inline constexpr std::uintmax_t kRgeStartupMaxBytes = std::uintmax_t(1) << 20;
inline constexpr std::uintmax_t kRgeMaxBytes = std::uintmax_t(16) << 20;
inline constexpr std::size_t kRgeMaxEnergies = 1000;
inline constexpr std::size_t kRgeMaxRows = 1000000;

// The text parsers; `where` names the file in the one-line InputError ("file:LINE: …").
RgeStartup parse_rge_startup(std::string_view text, const std::string& where);
RgeProfile parse_rge(std::string_view text, int energy_ev, const std::string& where);

// The startup file and every rge file it names (data_path relative to the startup file's
// folder), each through the common input gate.
std::vector<RgeProfile> read_rge_profiles(const std::filesystem::path& startup);

}  // namespace tomo::musr
