// The FOURIER block and musrview's Fourier transform (compute/musr/fourier.hpp).
#include "compute/musr/fourier.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <numbers>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/core/fftw_planner.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/plot_block.hpp"
#include "compute/musr/quoted_text.hpp"

namespace tomo::musr {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A token in a message: quoted, cut and escaped.
std::string q(const std::string& token) {
  std::string out(1, '\'');
  out += quoted_excerpt(token);
  out += '\'';
  return out;
}

// Largest zero padding: 2^24 points (256 MiB of complex doubles in and out).
constexpr int kMaxFourierPower = 24;

// A non-negative decimal integer, or -1.
long whole(const std::string& s) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
  return std::stol(s);
}

// musrview's phase forms: values `v0, v1, …`; parameters `parX0 parX1 …`, one of which may be
// `parRX` (the reference: every other phase is its parameter plus the reference's value); or
// `par(X0, offset, n)` / `parR(X0, offset, n)` for parameters X0, X0+offset, … (parR: X0 is
// the reference). Separators: blanks, commas, semicolons.
template <class Bad>
std::vector<double> phase_list(const std::string& rest, std::span<const double> params, Bad&& bad) {
  std::string text = lower(rest);
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) bad("'phase' needs a value");
  text = text.substr(first);
  std::vector<long> numbers;  // 1-based parameter numbers
  long reference = -1;
  if (text.starts_with("par(") || text.starts_with("parr(")) {
    const bool relative = text[3] == 'r';
    const auto open = text.find('('), close = text.rfind(')');
    if (close == std::string::npos || close < open)
      bad("phase " + q(rest) + " is not par(X0, offset, #param)");
    std::string inner = text.substr(open + 1, close - open - 1);
    std::replace(inner.begin(), inner.end(), ';', ',');
    std::vector<long> v;
    std::istringstream ss(inner);
    for (std::string w; std::getline(ss, w, ',');) {
      w.erase(0, w.find_first_not_of(" \t"));
      w.erase(w.find_last_not_of(" \t") + 1);
      v.push_back(whole(w));
    }
    if (v.size() != 3 || v[0] < 1 || v[1] < 0 || v[2] < 1)
      bad("phase " + q(rest) + " is not par(X0, offset, #param) with whole numbers");
    for (long k = 0; k < v[2]; ++k) numbers.push_back(v[0] + k * v[1]);
    if (relative) reference = v[0];
  } else {
    std::replace_if(text.begin(), text.end(), [](char c) { return c == ',' || c == ';' || c == '\t'; }, ' ');
    std::istringstream ss(text);
    std::vector<std::string> words;
    for (std::string w; ss >> w;) words.push_back(w);
    if (!words.front().starts_with("par")) {
      std::vector<double> values;
      for (const auto& w : words) {
        char* end = nullptr;
        const double v = std::strtod(w.c_str(), &end);
        if (*end != '\0' || !std::isfinite(v)) bad("'phase' value " + q(w) + " is not a number");
        values.push_back(v);
      }
      return values;
    }
    for (const auto& w : words) {
      const bool ref = w.starts_with("parr");
      const long n = w.starts_with("par") ? whole(w.substr(ref ? 4 : 3)) : -1;
      if (n < 1) bad("phase " + q(w) + " is not parX or parRX with X a parameter number");
      if (ref && reference != -1) bad("phase " + q(rest) + " marks more than one reference phase (parR)");
      if (ref) reference = n;
      numbers.push_back(n);
    }
  }
  std::vector<double> out;
  for (const long n : numbers) {
    if (n > static_cast<long>(params.size()))
      bad("phase " + q("par" + std::to_string(n)) + " names no parameter");
    const double v = params[static_cast<std::size_t>(n - 1)];
    out.push_back(reference == -1 || n == reference ? v : v + params[static_cast<std::size_t>(reference - 1)]);
  }
  return out;
}

}  // namespace

const char* unit_name(FourierUnit u) {
  switch (u) {
    case FourierUnit::gauss: return "G";
    case FourierUnit::tesla: return "T";
    case FourierUnit::mhz: return "MHz";
    case FourierUnit::mc_per_s: return "Mc/s";
  }
  return "";
}

std::optional<FourierSettings> read_fourier_block(const MsrFile& msr, std::span<const double> params) {
  std::optional<FourierSettings> out;
  bool in_block = false;
  for (std::size_t i = 0; i < msr.lines.size(); ++i) {
    const std::string& line = msr.lines[i];
    if (i > 0 && is_msr_block_line(line)) {
      in_block = line.starts_with("FOURIER");
      if (in_block) out = FourierSettings{};
      continue;
    }
    if (!in_block) continue;
    std::istringstream ss(line);
    std::vector<std::string> t;
    for (std::string w; ss >> w && w[0] != '#' && w[0] != '(';) t.push_back(w);
    if (t.empty()) continue;
    const std::string where = msr.path.string() + ":" + std::to_string(i + 1) + ": FOURIER ";
    auto bad = [&](const std::string& what) { throw InputError(where + tidy_message(what)); };
    auto number = [&](const std::string& tok) {
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (tok.empty() || *end != '\0' || !std::isfinite(v)) bad("'" + t[0] + "' value " + q(tok) + " is not a number");
      return v;
    };
    const std::string key = lower(t[0]);
    const std::string val = t.size() > 1 ? lower(t[1]) : "";
    if (t.size() < 2) bad("'" + t[0] + "' needs a value");
    if (key == "units") {
      if (val == "gauss") out->unit = FourierUnit::gauss;
      else if (val == "tesla") out->unit = FourierUnit::tesla;
      else if (val == "mhz") out->unit = FourierUnit::mhz;
      else if (val == "mc/s") out->unit = FourierUnit::mc_per_s;
      else bad("units " + q(t[1]) + " is not Gauss, Tesla, MHz or Mc/s");
    } else if (key == "fourier_power") {
      const double p = number(t[1]);
      if (p != std::floor(p) || p < 0 || p > kMaxFourierPower)
        bad("fourier_power " + q(t[1]) + " is not an integer in 0.." + std::to_string(kMaxFourierPower));
      out->power = static_cast<int>(p);
    } else if (key == "dc-corrected") {
      if (val != "true" && val != "false" && val != "1" && val != "0") bad("dc-corrected " + q(t[1]) + " is not true or false");
      out->dc_corrected = val == "true" || val == "1";
    } else if (key == "apodization") {
      if (val == "none") out->apodization = Apodization::none;
      else if (val == "weak") out->apodization = Apodization::weak;
      else if (val == "medium") out->apodization = Apodization::medium;
      else if (val == "strong") out->apodization = Apodization::strong;
      else bad("apodization " + q(t[1]) + " is not NONE, WEAK, MEDIUM or STRONG");
    } else if (key == "plot") {
      if (val == "real") out->plot = FourierPlot::real;
      else if (val == "imag") out->plot = FourierPlot::imag;
      else if (val == "real_and_imag") out->plot = FourierPlot::real_and_imag;
      else if (val == "power") out->plot = FourierPlot::power;
      else if (val == "phase" || val == "phase_opt_real") out->plot = FourierPlot::phase;
      else bad("plot " + q(t[1]) + " is not REAL, IMAG, REAL_AND_IMAG, POWER or PHASE");
    } else if (key == "phase") {
      std::string rest = line.substr(line.find(t[0]) + t[0].size());
      rest = rest.substr(0, rest.find('#'));
      rest.erase(0, rest.find_first_not_of(" \t"));
      rest.erase(rest.find_last_not_of(" \t\r") + 1);
      out->phases_deg = phase_list(rest, params, bad);
      out->phase_deg = out->phases_deg.front();
      const auto plot_runs = first_plot_runs(msr);
      if (out->phases_deg.size() > 1 && !plot_runs.empty() && plot_runs.size() != out->phases_deg.size())
        bad("phase lists " + std::to_string(out->phases_deg.size()) + " phases for the " + std::to_string(plot_runs.size()) +
            " runs of the first PLOT block (one phase, or one per plotted run)");
    } else if (key == "range") {
      if (t.size() != 3) bad("range takes two values");
      const double lo = number(t[1]), hi = number(t[2]);
      if (!(hi > lo)) bad("range end " + q(t[2]) + " is not above its start");
      out->range = std::pair{lo, hi};
    }
    // range_for_phase_correction and other keys: musrview's interactive options, not used here.
  }
  return out;
}

double run_phase(const FourierSettings& s, const std::vector<int>& plot_runs, std::size_t run) {
  if (s.phases_deg.size() <= 1) return s.phase_deg;
  if (plot_runs.empty()) return run < s.phases_deg.size() ? s.phases_deg[run] : s.phase_deg;
  for (std::size_t k = 0; k < plot_runs.size() && k < s.phases_deg.size(); ++k)
    if (plot_runs[k] == static_cast<int>(run) + 1) return s.phases_deg[k];
  return s.phase_deg;
}

FourierSpectrum fourier_transform(std::span<const double> t, std::span<const double> a, const FourierSettings& s) {
  FourierSpectrum f;
  const std::size_t nd = std::min(t.size(), a.size());
  if (nd < 2) return f;
  const double dt = (t[nd - 1] - t[0]) / static_cast<double>(nd - 1);
  const std::size_t n = std::max<std::size_t>(s.power > 0 ? std::size_t(1) << s.power : 0, nd);
  double mean = 0.0;
  if (s.dc_corrected) {
    for (std::size_t i = 0; i < nd; ++i) mean += a[i];
    mean /= static_cast<double>(nd);
  }
  // musrfit's apodization polynomials in (i/N_data)²: Σ c_j (i/N)^(2j).
  double c[5] = {1, 0, 0, 0, 0};
  auto set3 = [&](double a0, double a1, double a2) {
    c[0] = a0 + a1 + a2;
    c[1] = -(a1 + 2.0 * a2);
    c[2] = a2;
  };
  switch (s.apodization) {
    case Apodization::none: break;
    case Apodization::weak: set3(0.384093, -0.087577, 0.703484); break;
    case Apodization::medium: set3(0.152442, -0.136176, 0.983734); break;
    case Apodization::strong: {
      const double a0 = 0.045335, a1 = 0.554883, a2 = 0.399782;
      c[0] = a0 + a1 + a2;
      c[1] = -2.0 * (a1 + 2.0 * a2);
      c[2] = a1 + 6.0 * a2;
      c[3] = -4.0 * a2;
      c[4] = a2;
      break;
    }
  }
  fftw_complex* in = fftw_alloc_complex(n);
  fftw_complex* out = fftw_alloc_complex(n);
  if (!in || !out) {
    fftw_free(in);
    fftw_free(out);
    throw std::bad_alloc();
  }
  fftw_plan plan;
  {
    std::lock_guard lock(fftw_planner_mutex());
    plan = fftw_plan_dft_1d(static_cast<int>(n), in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  }
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0.0;
    if (i < nd) {
      const double x2 = std::pow(static_cast<double>(i) / static_cast<double>(nd), 2.0);
      double q = 0.0, p = 1.0;
      for (double cj : c) {
        q += cj * p;
        p *= x2;
      }
      v = (a[i] - mean) * q;
    }
    in[i][0] = v;
    in[i][1] = 0.0;
  }
  fftw_execute(plan);
  const double mhz = 1.0 / (dt * static_cast<double>(n));
  switch (s.unit) {
    case FourierUnit::gauss: f.resolution = mhz / kGammaMuOver2Pi; break;
    case FourierUnit::tesla: f.resolution = 1e-4 * mhz / kGammaMuOver2Pi; break;
    case FourierUnit::mhz: f.resolution = mhz; break;
    case FourierUnit::mc_per_s: f.resolution = 2.0 * std::numbers::pi * mhz; break;
  }
  const double phi = s.phase_deg * std::numbers::pi / 180.0;
  const std::size_t half = (n + 1) / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const double x = static_cast<double>(i) * f.resolution;
    if (s.range && (x < s.range->first || x > s.range->second)) continue;
    // Refer the phase to t = 0 (the data start at t[0]), then rotate by `phase`.
    const double shift = 2.0 * std::numbers::pi * static_cast<double>(i) * t[0] / (dt * static_cast<double>(n));
    const double re0 = out[i][0] * std::cos(shift) + out[i][1] * std::sin(shift);
    const double im0 = -out[i][0] * std::sin(shift) + out[i][1] * std::cos(shift);
    f.x.push_back(x);
    f.re.push_back(re0 * std::cos(phi) - im0 * std::sin(phi));
    f.im.push_back(re0 * std::sin(phi) + im0 * std::cos(phi));
  }
  {
    std::lock_guard lock(fftw_planner_mutex());
    fftw_destroy_plan(plan);
  }
  fftw_free(in);
  fftw_free(out);
  return f;
}

std::string fourier_csv(const FourierSpectrum& f, const FourierSettings& s) {
  std::string out = std::string("# frequency [") + unit_name(s.unit) + "], real, imag, power = |F|, phase [deg]\n";
  char buf[160];
  for (std::size_t i = 0; i < f.x.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.9g,%.9g,%.9g,%.9g,%.6g\n", f.x[i], f.re[i], f.im[i], std::hypot(f.re[i], f.im[i]),
                  std::atan2(f.im[i], f.re[i]) * 180.0 / std::numbers::pi);
    out += buf;
  }
  return out;
}

}  // namespace tomo::musr
