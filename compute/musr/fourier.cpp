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
      if (val.starts_with("par")) {
        char* end = nullptr;
        const long n = std::strtol(val.c_str() + 3, &end, 10);
        if (*end != '\0' || n < 1 || n > static_cast<long>(params.size())) bad("phase " + q(t[1]) + " names no parameter");
        out->phase_deg = params[static_cast<std::size_t>(n - 1)];
      } else {
        out->phase_deg = number(t[1]);
      }
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
