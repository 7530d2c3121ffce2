// BMW_startup.xml (compute/musr/bmw/startup.hpp): the few elements the native libFitPofB
// functions use, found by their tags; the rest of the file (comments, wisdom, LF settings) is
// not read.
#include "compute/musr/bmw/startup.hpp"

#include <charconv>
#include <cmath>

#include "compute/core/error.hpp"

namespace tomo::musr::bmw {
namespace {

std::string_view trim(std::string_view s) {
  const auto ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// The body of every <name>…</name> from `from` on, in order.
std::vector<std::string_view> elements(std::string_view text, std::string_view name, const std::string& where) {
  const std::string open = "<" + std::string(name) + ">", close = "</" + std::string(name) + ">";
  std::vector<std::string_view> out;
  for (auto b = text.find(open); b != std::string_view::npos; b = text.find(open, b + 1)) {
    const auto e = text.find(close, b);
    if (e == std::string_view::npos) throw InputError(where + ": <" + std::string(name) + "> is not closed");
    out.push_back(trim(text.substr(b + open.size(), e - b - open.size())));
    if (out.size() > 1000) throw InputError(where + ": more than 1000 <" + std::string(name) + "> elements");
  }
  return out;
}

double number(std::string_view s, std::string_view name, const std::string& where) {
  double v = 0.0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty() || !std::isfinite(v))
    throw InputError(where + ": <" + std::string(name) + "> '" + std::string(s.substr(0, 40)) + "' is not a number");
  return v;
}

// The single element `name` as a number in (lo, hi], or `fallback` when absent.
double single(std::string_view text, std::string_view name, double lo, double hi, double fallback, const std::string& where) {
  const auto all = elements(text, name, where);
  if (all.empty()) return fallback;
  if (all.size() > 1) throw InputError(where + ": <" + std::string(name) + "> appears more than once");
  const double v = number(all[0], name, where);
  if (!(v > lo && v <= hi))
    throw InputError(where + ": <" + std::string(name) + "> " + std::string(all[0]) + " is outside (" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  return v;
}

}  // namespace

BmwStartup parse_bmw_startup(std::string_view text, const std::string& where) {
  BmwStartup s;
  s.delta_t = single(text, "delta_t", 0.0, 1.0, s.delta_t, where);
  s.delta_b = single(text, "delta_B", 0.0, 1e4, s.delta_b, where);
  const double bins = 1.0 / (0.0135538817 * s.delta_t * s.delta_b);
  if (bins > 1e7)
    throw InputError(where + ": <delta_t> × <delta_B> gives a P(B) of " + std::to_string(bins) + " bins, more than 1e7");
  const double grid = single(text, "N_VortexGrid", 0.0, 2048.0, 0.0, where);
  if (grid != std::floor(grid) || (grid != 0.0 && grid < 8.0))
    throw InputError(where + ": <N_VortexGrid> " + std::to_string(grid) + " is not a whole number in [8, 2048]");
  s.vortex_grid = static_cast<int>(grid);
  if (s.vortex_grid % 2) ++s.vortex_grid;  // the library rounds an odd grid up
  const auto paths = elements(text, "data_path", where);
  if (paths.size() > 1) throw InputError(where + ": <data_path> appears more than once");
  if (!paths.empty()) s.data_path = std::string(paths[0]);
  for (auto l : elements(text, "energy_label", where)) s.energy_labels.emplace_back(l);
  for (auto e : elements(text, "energy", where)) {
    const double v = number(e, "energy", where);
    if (!(v >= 0.0 && v <= 1000.0)) throw InputError(where + ": <energy> " + std::string(e) + " keV is outside [0, 1000]");
    s.energies_kev.push_back(v);
  }
  if (s.energies_kev.size() != s.energy_labels.size())
    throw InputError(where + ": " + std::to_string(s.energy_labels.size()) + " <energy_label> but " +
                     std::to_string(s.energies_kev.size()) + " <energy> elements");
  s.n_theory = static_cast<int>(single(text, "N_theory", 0.0, 1e6, 0.0, where));
  return s;
}

}  // namespace tomo::musr::bmw
