// BMW_startup.xml, the settings file of musrfit's BMW libraries (libFitPofB and friends), read
// from beside the msr file: the time and field resolution of P(t) and P(B), the vortex-lattice
// grid, and the LEM section naming one TRIM.SP `.rge` profile per implantation energy
// (`<data_path>` + `<energy_label>` + `.rge`, energies in keV).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tomo::musr::bmw {

struct BmwStartup {
  double delta_t = 0.01;  // µs (the library's default when the tag is absent)
  double delta_b = 0.1;   // G
  int vortex_grid = 0;    // N of the N × N vortex grid; 0 when absent
  std::string data_path;  // LEM: path and file prefix, relative to the startup file's folder
  std::vector<std::string> energy_labels;
  std::vector<double> energies_kev;
  int n_theory = 0;       // LEM: points of B(z) (0 when absent)
};

// Bounds: the file at most 1 MiB, at most 1000 energies, a grid in [8, 2048], a P(B) of at
// most 10⁷ bins (1/(γ_μ/2π · Δt · ΔB)).
inline constexpr std::uintmax_t kBmwStartupMaxBytes = std::uintmax_t(1) << 20;

// The text parser; `where` names the file in the one-line InputError ("file: …").
BmwStartup parse_bmw_startup(std::string_view text, const std::string& where);

}  // namespace tomo::musr::bmw
