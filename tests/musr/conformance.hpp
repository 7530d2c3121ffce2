// The conformance suite's pieces (tests/musr/conformance_test.cpp): the manifest
// tests/musr/musrfit/cases.tsv, one fit of a case as `tomoraster fit` runs it on the cpu, the
// comparison with musrfit's stored result in the same msr file, and the printed table.
//
// cases.tsv: one line per msr file, tab-separated, `#` starts a comment line:
//   <case>  agree    -                 [note]
//   <case>  differs  <our statistic>   <reason, with the number under current musrfit's rule>
//   <case>  refused  <tomoraster's one-line refusal, paths relative to tests/musr/musrfit>  <reason>
//   <case>  data     -                 <what the file is: a MUD data file named .msr>
// <case> is the msr file's path, optionally followed by " --auto-t0" (t0 from the prompt peaks
// first, as `tomoraster fit --auto-t0`).
// `agree`: χ² (or maxLH) within 0.1 % of the STATISTIC block and the same NDF; every parameter
// musrfit fitted within 0.1 σ of its value and every error (HESSE, or MINOS − and +) within 2 %,
// each beyond the half unit of the last digit musrfit printed (it rounds what it saves).
#pragma once
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/auto_t0.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/printout.hpp"

namespace tomo::musr {

enum class CaseStatus { agree, differs, refused, data };

inline const char* status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::agree: return "agree";
    case CaseStatus::differs: return "differs";
    case CaseStatus::refused: return "refused";
    case CaseStatus::data: return "data";
  }
  return "?";
}

struct ManifestLine {
  std::string name{};  // path relative to tests/musr/musrfit
  CaseStatus status = CaseStatus::agree;
  std::string expect{};  // differs: our statistic; refused: the message; else "-"
  std::string reason{};
  double ours = std::numeric_limits<double>::quiet_NaN();  // differs: expect as a number
};

inline std::vector<std::string> split_tabs(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (;;) {
    const auto b = s.find('\t', a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

inline std::vector<ManifestLine> read_manifest(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot be read");
  std::vector<ManifestLine> out;
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.empty() || text[0] == '#') continue;
    const auto where = path.filename().string() + ":" + std::to_string(n) + ": ";
    const auto f = split_tabs(text);
    if (f.size() < 3) throw InputError(where + "needs <case> <status> <expect> [reason], tab-separated");
    ManifestLine l{.name = f[0], .expect = f[2], .reason = f.size() > 3 ? f[3] : ""};
    if (f[1] == "agree") l.status = CaseStatus::agree;
    else if (f[1] == "differs") l.status = CaseStatus::differs;
    else if (f[1] == "refused") l.status = CaseStatus::refused;
    else if (f[1] == "data") l.status = CaseStatus::data;
    else throw InputError(where + "status '" + f[1] + "' is not agree, differs, refused or data");
    if (l.status == CaseStatus::differs) {
      char* end = nullptr;
      l.ours = std::strtod(l.expect.c_str(), &end);
      if (l.expect.empty() || *end != '\0' || !std::isfinite(l.ours))
        throw InputError(where + "differs needs our statistic as a number, not '" + l.expect + "'");
      if (l.reason.empty()) throw InputError(where + "differs needs a reason");
    }
    if (l.status == CaseStatus::refused && l.reason.empty()) throw InputError(where + "refused needs a reason");
    out.push_back(std::move(l));
  }
  return out;
}

// Half a unit of the last digit of a printed number: "0.0014" → 5e-5, "1.5e-3" → 5e-5.
inline double half_unit_of_last_digit(const std::string& printed) {
  std::string mant = printed;
  int exp10 = 0;
  if (const auto e = printed.find_first_of("eE"); e != std::string::npos) {
    mant = printed.substr(0, e);
    exp10 = std::stoi(printed.substr(e + 1));
  }
  const auto dot = mant.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(mant.size() - dot - 1);
  return 0.5 * std::pow(10.0, exp10 - decimals);
}

// An error agrees when it lies within 2 % of the interval the printed one was rounded from.
inline bool error_agrees(double ours, const std::string& printed) {
  const double v = std::fabs(std::stod(printed)), h = half_unit_of_last_digit(printed);
  const double a = std::fabs(ours);
  return a >= (v - h) / 1.02 && a <= (v + h) * 1.02;
}

// One FITPARAMETER line as musrfit saved it.
struct PrintedParameter {
  std::string value, step, pos_error;  // pos_error empty or "none" without MINOS
};

inline std::vector<PrintedParameter> printed_parameters(const MsrFile& msr) {
  std::vector<PrintedParameter> out;
  bool in_block = false;
  for (const auto& line : msr.lines) {
    std::istringstream ss(line);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    if (tok.empty() || tok[0][0] == '#') continue;
    if (!line.empty() && line[0] != ' ' && line[0] != '\t') {
      in_block = tok[0] == "FITPARAMETER";
      continue;
    }
    if (in_block && tok.size() >= 4) out.push_back({tok[2], tok[3], tok.size() >= 5 ? tok[4] : ""});
  }
  return out;
}

struct CaseOutcome {
  std::string name{};
  CaseStatus observed = CaseStatus::refused;
  std::string refusal{};  // refused: the message, paths relative to the suite's folder
  bool max_likelihood = false, converged = false;
  double ours = 0.0;
  int ndf = 0;
  bool has_stored = false;
  double stored = 0.0;
  int stored_ndf = 0;
  double worst_sigma = 0.0;  // largest |ours − musrfit| / musrfit's error over fitted parameters
  std::string worst_param{};
  double worst_error = 0.0;  // largest relative error difference (beyond the printed rounding)
  std::string why{};           // what keeps it from agreeing
};

inline std::string relative_message(std::string m, const std::filesystem::path& dir) {
  const std::string prefix = dir.string() + "/";
  for (std::size_t p; (p = m.find(prefix)) != std::string::npos;) m.erase(p, prefix.size());
  return m;
}

inline void compare_parameters(CaseOutcome& o, const MsrFile& msr, const std::vector<MsrParameter>& fitted) {
  const auto printed = printed_parameters(msr);
  for (std::size_t i = 0; i < fitted.size() && i < printed.size(); ++i) {
    const auto& pp = printed[i];
    const double step = std::stod(pp.step);
    if (step == 0.0) continue;  // fixed in musrfit's fit
    const auto& q = fitted[i];
    const std::string who = "par" + std::to_string(i + 1) + " " + q.name;
    if (q.step == 0.0) {
      o.why += who + " is fixed here; ";
      continue;
    }
    const bool minos = !pp.pos_error.empty() && pp.pos_error != "none";
    const double delta = q.value - std::stod(pp.value);
    const double sigma = minos && delta > 0 ? std::stod(pp.pos_error) : std::fabs(step);
    const double dev = std::fabs(delta) / sigma;
    if (dev > o.worst_sigma) {
      o.worst_sigma = dev;
      o.worst_param = q.name;
    }
    if (std::fabs(delta) > 0.1 * sigma + half_unit_of_last_digit(pp.value)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s = %.6g is %.2f σ from musrfit's %s; ", who.c_str(), q.value, dev, pp.value.c_str());
      o.why += buf;
    }
    auto check_error = [&](double ours, const std::string& theirs, const char* kind) {
      const double rel = std::fabs(std::fabs(ours) / std::fabs(std::stod(theirs)) - 1.0);
      if (rel > o.worst_error) o.worst_error = rel;
      if (!error_agrees(ours, theirs)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s %s error %.4g against musrfit's %s; ", who.c_str(), kind, std::fabs(ours), theirs.c_str());
        o.why += buf;
      }
    };
    if (minos) {
      if (!q.pos_error) o.why += who + " has no MINOS errors here; ";
      else {
        check_error(q.step, pp.step, "MINOS −");
        check_error(*q.pos_error, pp.pos_error, "MINOS +");
      }
    } else {
      check_error(q.step, pp.step, "HESSE");
    }
  }
}

// Fits one case as `tomoraster fit` does (cpu backend, the msr's COMMANDS).
// A case is an msr file, optionally followed by " --auto-t0" (fitted as `tomoraster fit --auto-t0`).
inline constexpr std::string_view kAutoT0Suffix = " --auto-t0";
inline std::string case_file(const std::string& name) {
  return name.ends_with(kAutoT0Suffix) ? name.substr(0, name.size() - kAutoT0Suffix.size()) : name;
}

inline CaseOutcome run_case(const std::filesystem::path& dir, const std::string& name, int threads) {
  CaseOutcome o;
  o.name = name;
  try {
    MsrFile msr = read_msr(dir / case_file(name));
    if (name.ends_with(kAutoT0Suffix)) apply_auto_t0(msr, [&](const MsrRun& r) { return load_run_data(msr, r); }, -1);
    const FitSetup setup = prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
    auto ev = BackendRegistry<Chi2Evaluator>::instance().create("cpu");
    ev->configure({.threads = threads});
    ev->upload(setup.data);
    const FitResult r = run_fit(*ev, msr, setup.used, setup.data.statistic);
    const MsrStatistic stat = statistic_of(r, setup, "");
    o.max_likelihood = stat.max_likelihood;
    o.converged = r.converged && r.hesse_ok && std::isfinite(r.fmin);
    o.ours = stat.value;
    o.ndf = stat.ndf;
    if (msr.statistic) {
      o.has_stored = true;
      o.stored = msr.statistic->value;
      o.stored_ndf = msr.statistic->ndf;
    }
    if (!o.converged) o.why += "the fit does not converge; ";
    if (!o.has_stored) o.why += "the file has no STATISTIC block; ";
    else {
      if (msr.statistic->max_likelihood != o.max_likelihood) o.why += "the statistic is not the same kind; ";
      if (std::fabs(o.ours - o.stored) > 1e-3 * std::fabs(o.stored)) o.why += "the statistic differs by more than 0.1 %; ";
      if (o.ndf != o.stored_ndf) o.why += "NDF " + std::to_string(o.ndf) + " against " + std::to_string(o.stored_ndf) + "; ";
    }
    compare_parameters(o, msr, fitted_parameters(msr, r));
    o.observed = o.why.empty() ? CaseStatus::agree : CaseStatus::differs;
  } catch (const InputError& e) {
    o.observed = CaseStatus::refused;
    o.refusal = relative_message(e.what(), dir);
  } catch (const std::exception& e) {
    o.observed = CaseStatus::refused;
    o.refusal = "(not an input error) " + relative_message(e.what(), dir);
  }
  return o;
}

// χ² and gradient of `backend` against the cpu at the msr file's own parameters (musrfit's
// fit), in double, for one case that runs; nullopt when the case is refused.
struct BackendDifference {
  double chi2_rel = 0.0, grad_rel = 0.0;
};
inline std::optional<BackendDifference> backend_difference(const std::filesystem::path& dir, const std::string& name,
                                                            const std::string& backend) {
  FitSetup setup;
  std::vector<double> p;
  try {
    MsrFile msr = read_msr(dir / case_file(name));
    if (name.ends_with(kAutoT0Suffix)) apply_auto_t0(msr, [&](const MsrRun& r) { return load_run_data(msr, r); }, -1);
    setup = prepare_fit(msr, [&](const MsrRun& r) { return load_run_data(msr, r); });
    for (const auto& q : msr.params) p.push_back(q.value);
  } catch (const InputError&) {
    return std::nullopt;
  }
  auto value = [&](const std::string& b, std::vector<double>& g) {
    auto ev = BackendRegistry<Chi2Evaluator>::instance().create(b);
    ev->configure({.threads = 2});
    ev->upload(setup.data);
    g.assign(p.size(), 0.0);
    return ev->evaluate_with_gradient(p, g);
  };
  std::vector<double> gc, gb;
  const double fc = value("cpu", gc), fb = value(backend, gb);
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < gc.size(); ++i) {
    num += (gb[i] - gc[i]) * (gb[i] - gc[i]);
    den += gc[i] * gc[i];
  }
  return BackendDifference{std::fabs(fb - fc) / std::fabs(fc), std::sqrt(num / std::max(den, 1e-300))};
}

// Empty when the outcome is the one the line gives; else what differs.
inline std::string compare_with_manifest(const CaseOutcome& o, const ManifestLine& l) {
  if (o.observed == CaseStatus::refused) {
    if (l.status != CaseStatus::refused) return std::string("refused: ") + o.refusal;
    if (o.refusal != l.expect) return "refused with another message: " + o.refusal;
    return "";
  }
  if (l.status == CaseStatus::refused) return std::string("runs now (") + status_name(o.observed) + "), the manifest says refused";
  if (l.status == CaseStatus::agree && o.observed != CaseStatus::agree) return "does not agree: " + o.why;
  if (l.status == CaseStatus::differs) {
    if (o.observed == CaseStatus::agree) return "agrees now: flip the line to agree";
    if (std::fabs(o.ours - l.ours) > 1e-3 * std::fabs(l.ours)) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "statistic %.6g, the manifest's is %s", o.ours, l.expect.c_str());
      return buf;
    }
  }
  return "";
}

inline std::string manifest_line_for(const CaseOutcome& o, const ManifestLine& l) {
  char num[64];
  std::snprintf(num, sizeof num, "%.6g", o.ours);
  switch (o.observed) {
    case CaseStatus::agree: return o.name + "\tagree\t-";
    case CaseStatus::differs: return o.name + "\tdiffers\t" + num + "\t" + (l.reason.empty() ? o.why : l.reason);
    default: return o.name + "\trefused\t" + o.refusal + "\t" + (l.reason.empty() ? "?" : l.reason);
  }
}

inline std::string format_table(const std::vector<CaseOutcome>& outcomes, const std::vector<ManifestLine>& manifest) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-62s %-8s %14s %14s %15s %10s\n", "case", "status", "ours", "musrfit", "NDF ours/mf",
                "worst σ");
  out += buf;
  int counts[4] = {0, 0, 0, 0};
  for (const auto& o : outcomes) {
    ++counts[static_cast<int>(o.observed)];
    if (o.observed == CaseStatus::refused) {
      std::snprintf(buf, sizeof buf, "%-62s %-8s %s\n", o.name.c_str(), "refused", o.refusal.substr(0, 110).c_str());
    } else {
      std::snprintf(buf, sizeof buf, "%-62s %-8s %14.4f %14.4f %7d/%-7d %10.3f %s\n", o.name.c_str(), status_name(o.observed),
                    o.ours, o.stored, o.ndf, o.stored_ndf, o.worst_sigma, o.worst_param.c_str());
    }
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "%zu cases: %d agree, %d differ, %d refused (%zu manifest lines)\n", outcomes.size(), counts[0],
                counts[1], counts[2], manifest.size());
  out += buf;
  return out;
}

}  // namespace tomo::musr
