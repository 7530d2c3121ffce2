// Reader of TRIM.SP implantation profiles and their startup XML (compute/musr/rge_profiles.hpp).
// The XML is read for the few elements musrfit's rge handler takes; anything else is skipped.
#include "compute/musr/rge_profiles.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/quoted_text.hpp"

namespace tomo::musr {
namespace {

std::size_t line_of(std::string_view text, std::size_t pos) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(pos, text.size())), '\n'));
}

[[noreturn]] void fail(const std::string& where, std::string_view text, std::size_t pos, const std::string& what) {
  throw InputError(where + ":" + std::to_string(line_of(text, pos)) + ": " + what);
}

std::string_view trim(std::string_view s) {
  const auto ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// A whole decimal integer in [lo, hi] (energies in eV).
bool to_int(std::string_view s, long long lo, long long hi, long long& out) {
  s = trim(s);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty() && out >= lo && out <= hi;
}

bool to_double(std::string_view s, double& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty() && std::isfinite(out);
}

// The text of the first <name>…</name> inside [from, to), or npos when absent.
std::size_t element(std::string_view text, std::size_t from, std::size_t to, std::string_view name, std::string_view& body,
                    const std::string& where) {
  std::string open(1, '<'), close("</");
  open.append(name).push_back('>');
  close.append(name).push_back('>');
  const auto b = text.substr(0, to).find(open, from);
  if (b == std::string_view::npos) return b;
  const auto e = text.substr(0, to).find(close, b);
  if (e == std::string_view::npos) fail(where, text, b, "<" + std::string(name) + "> is not closed");
  body = trim(text.substr(b + open.size(), e - b - open.size()));
  return e + close.size();
}

// The value of attribute `name` of the tag text `tag` (name="value").
bool attribute(std::string_view tag, std::string_view name, std::string_view& value) {
  for (std::size_t p = tag.find(name); p != std::string_view::npos; p = tag.find(name, p + 1)) {
    if (p > 0 && tag[p - 1] != ' ' && tag[p - 1] != '\t' && tag[p - 1] != '\n') continue;
    auto q = tag.find_first_not_of(" \t", p + name.size());
    if (q == std::string_view::npos || tag[q] != '=') continue;
    q = tag.find_first_not_of(" \t", q + 1);
    if (q == std::string_view::npos || (tag[q] != '"' && tag[q] != '\'')) continue;
    const auto e = tag.find(tag[q], q + 1);
    if (e == std::string_view::npos) return false;
    value = tag.substr(q + 1, e - q - 1);
    return true;
  }
  return false;
}

void add_energy(std::vector<int>& out, long long e, const std::string& where, std::string_view text, std::size_t pos) {
  if (out.size() >= kRgeMaxEnergies)
    fail(where, text, pos, "more than " + std::to_string(kRgeMaxEnergies) + " implantation energies");
  out.push_back(static_cast<int>(e));
}

}  // namespace

RgeStartup parse_rge_startup(std::string_view text, const std::string& where) {
  const auto b = text.find("<trim_sp>");
  if (b == std::string_view::npos) throw InputError(where + ": no <trim_sp> element");
  const auto e = text.find("</trim_sp>", b);
  if (e == std::string_view::npos) fail(where, text, b, "<trim_sp> is not closed");
  RgeStartup s;
  std::string_view body;
  if (element(text, b, e, "data_path", body, where) == std::string_view::npos || body.empty())
    fail(where, text, b, "<trim_sp> has no <data_path>");
  s.data_path = std::string(body);
  if (element(text, b, e, "rge_fln_pre", body, where) == std::string_view::npos || body.empty())
    fail(where, text, b, "<trim_sp> has no <rge_fln_pre>");
  s.file_prefix = std::string(body);
  for (const auto& part : {s.data_path, s.file_prefix})
    if (part.find('\0') != std::string::npos || part.size() > 4096) fail(where, text, b, "a file name part is not a path");
  constexpr long long kMaxEv = 1000000000;  // 1 GeV: far beyond any muon implantation energy
  if (const auto v = text.substr(0, e).find("<energy_vect", b); v != std::string_view::npos) {
    const auto close = text.substr(0, e).find('>', v);
    if (close == std::string_view::npos) fail(where, text, v, "<energy_vect> is not closed");
    const auto tag = text.substr(v, close - v);
    long long val[3] = {0, 0, 0};
    const char* names[3] = {"start", "stop", "step"};
    for (int k = 0; k < 3; ++k) {
      std::string_view a;
      if (!attribute(tag, names[k], a)) fail(where, text, v, std::string("<energy_vect> has no attribute ") + names[k]);
      if (!to_int(a, 0, kMaxEv, val[k]))
        fail(where, text, v, std::string("<energy_vect> ") + names[k] + " '" + quoted_excerpt(a) + "' is not a whole number of eV in [0, 1e9]");
    }
    if (val[0] > val[1]) fail(where, text, v, "<energy_vect> start > stop");
    if (val[2] <= 0) fail(where, text, v, "<energy_vect> step must be > 0");
    for (long long en = val[0]; en <= val[1]; en += val[2]) add_energy(s.energies_ev, en, where, text, v);
  }
  for (std::size_t p = b;;) {
    std::string_view en;
    const auto at = text.substr(0, e).find("<energy>", p);
    const auto next = element(text, p, e, "energy", en, where);
    if (next == std::string_view::npos) break;
    long long val = 0;
    if (!to_int(en, 0, kMaxEv, val)) fail(where, text, at, "<energy> '" + quoted_excerpt(en) + "' is not a whole number of eV in [0, 1e9]");
    add_energy(s.energies_ev, val, where, text, at);
    p = next;
  }
  if (s.energies_ev.empty()) fail(where, text, b, "<trim_sp> names no implantation energy (<energy_vect> or <energy>)");
  return s;
}

RgeProfile parse_rge(std::string_view text, int energy_ev, const std::string& where) {
  RgeProfile p;
  p.energy_ev = energy_ev;
  std::vector<double> counts;
  std::size_t line = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const auto l = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line;
    // As musrfit: blank lines and lines not starting with a digit (the header) are skipped.
    if (l.empty() || l[0] < '0' || l[0] > '9') continue;
    const std::string at = where + ":" + std::to_string(line) + ": ";
    const auto sep = l.find_first_of(" \t");
    const auto second = sep == std::string_view::npos ? sep : l.find_first_not_of(" \t", sep);
    if (second == std::string_view::npos || l.find_first_of(" \t", second) != std::string_view::npos)
      throw InputError(at + "expected two columns (depth in Å, particles), got '" + quoted_excerpt(l) + "'");
    double z = 0.0, n = 0.0;
    if (!to_double(l.substr(0, sep), z)) throw InputError(at + "depth '" + quoted_excerpt(l.substr(0, sep)) + "' is not a number");
    if (!to_double(l.substr(second), n)) throw InputError(at + "particles '" + quoted_excerpt(l.substr(second)) + "' is not a number");
    z /= 10.0;  // Å → nm
    if (!(z > (p.depth_nm.empty() ? 0.0 : p.depth_nm.back())))
      throw InputError(at + "depth " + quoted_excerpt(l.substr(0, sep)) + " Å is not above the previous one (depths must increase from > 0)");
    if (n < 0.0) throw InputError(at + "particles " + quoted_excerpt(l.substr(second)) + " is negative");
    if (p.depth_nm.size() >= kRgeMaxRows) throw InputError(at + "more than " + std::to_string(kRgeMaxRows) + " depths");
    p.depth_nm.push_back(z);
    counts.push_back(n);
  }
  if (p.depth_nm.size() < 2) throw InputError(where + ": fewer than two depth rows");
  double norm = 0.0, prev = 0.0;
  for (std::size_t j = 0; j < counts.size(); ++j) norm += counts[j] * (p.depth_nm[j] - prev), prev = p.depth_nm[j];
  if (!(norm > 0.0) || !std::isfinite(norm)) throw InputError(where + ": no particles (every count is 0)");
  double c = 0.0;
  for (double n : counts) {
    p.density.push_back(n / norm);
    p.cfd.push_back(c += n / norm);
  }
  return p;
}

std::vector<RgeProfile> read_rge_profiles(const std::filesystem::path& startup) {
  const RgeStartup s = parse_rge_startup(io::input_file_bytes(startup, kRgeStartupMaxBytes, "depth-profile startup file"),
                                         startup.string());
  std::vector<RgeProfile> out;
  for (int e : s.energies_ev) {
    const auto file = startup.parent_path() / s.data_path / (s.file_prefix + std::to_string(e) + ".rge");
    out.push_back(parse_rge(io::input_file_bytes(file, kRgeMaxBytes, "TRIM.SP rge file"), e, file.string()));
  }
  return out;
}

}  // namespace tomo::musr
