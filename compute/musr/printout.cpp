// musrfit-style result table and the fitted parameter set (compute/musr/printout.hpp).
#include "compute/musr/printout.hpp"

#include <cmath>
#include <cstdio>

namespace tomo::musr {

MsrStatistic statistic_of(const FitResult& r, const FitSetup& setup, const std::string& date) {
  MsrStatistic s;
  s.max_likelihood = setup.data.statistic == Statistic::max_likelihood;
  s.value = r.fmin;
  s.ndf = static_cast<int>(setup.data.bins()) - r.free_count();
  s.date = date;
  s.converged = r.converged && r.hesse_ok && std::isfinite(r.fmin);
  return s;
}

std::vector<MsrParameter> fitted_parameters(const MsrFile& msr, const FitResult& r) {
  std::vector<MsrParameter> out = msr.params;
  for (std::size_t i = 0; i < out.size() && i < r.params.size(); ++i) {
    const auto& s = r.params[i];
    auto& p = out[i];
    p.pos_error.reset();
    // A failed fit (χ² not finite, HESSE without a positive-definite matrix) keeps the input's
    // value and step: a step of 0 would fix the parameter in the next fit.
    if (!std::isfinite(s.value)) continue;
    p.value = s.value;
    if (s.free && !(std::isfinite(s.error) && s.error > 0.0) && !(s.minos_minus && s.minos_plus)) continue;
    if (!s.free) {
      p.step = 0.0;
      continue;
    }
    if (s.minos_minus && s.minos_plus) {
      p.step = -std::fabs(*s.minos_minus);
      p.pos_error = std::fabs(*s.minos_plus);
    } else {
      p.step = s.error;
    }
  }
  return out;
}

std::string format_printout(const MsrFile& msr, const FitResult& r, const MsrStatistic& stat,
                            const std::string& backend, double seconds) {
  std::string out;
  char buf[256];
  out += "*************************************************************************\n";
  out += " " + msr.title + "\n";
  out += " backend " + backend + "\n";
  for (const auto& l : r.log) out += " " + l + "\n";
  out += "-------------------------------------------------------------------------\n";
  out += "  NO.  NAME            VALUE          ERROR       NEG-ERROR    POS-ERROR\n";
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    const auto& s = r.params[i];
    std::snprintf(buf, sizeof buf, "  %3zu  %-14s %13.6g", i + 1, s.name.c_str(), s.value);
    out += buf;
    if (!s.free) {
      out += "   fixed\n";
      continue;
    }
    std::snprintf(buf, sizeof buf, "  %12.5g", s.error);
    out += buf;
    if (s.minos_minus && s.minos_plus) {
      std::snprintf(buf, sizeof buf, "  %11.5g  %11.5g", *s.minos_minus, *s.minos_plus);
      out += buf;
    }
    out += "\n";
  }
  const char* what = stat.max_likelihood ? "maxLH" : "chisq";
  std::snprintf(buf, sizeof buf, " %s = %.4f, NDF = %d, %s/NDF = %.6f\n", what, stat.value, stat.ndf, what,
                stat.ndf > 0 ? stat.value / stat.ndf : 0.0);
  out += "-------------------------------------------------------------------------\n";
  out += buf;
  std::snprintf(buf, sizeof buf, " EDM = %.3g, %d evaluations, %.3f s%s\n", r.edm, r.evaluations, seconds,
                r.converged ? "" : "  (NOT CONVERGED)");
  out += buf;
  out += "*************************************************************************\n";
  return out;
}

nlohmann::json fit_json(const FitResult& r, const MsrStatistic& stat, const FitSetup& setup) {
  nlohmann::json j;
  j["statistic"] = stat.max_likelihood ? "max_likelihood" : "chi2";
  j["value"] = stat.value;
  j["ndf"] = stat.ndf;
  j["up"] = r.up;
  j["edm"] = r.edm;
  j["converged"] = r.converged;
  j["hesse_ok"] = r.hesse_ok;
  j["evaluations"] = r.evaluations;
  j["bins"] = setup.data.bins();
  j["runs"] = setup.data.runs.size();
  auto& ps = j["parameters"] = nlohmann::json::array();
  for (const auto& s : r.params) {
    nlohmann::json p{{"name", s.name}, {"value", s.value}, {"free", s.free}};
    if (s.free) p["error"] = s.error;
    if (s.minos_minus) p["minos_minus"] = *s.minos_minus;
    if (s.minos_plus) p["minos_plus"] = *s.minos_plus;
    ps.push_back(p);
  }
  return j;
}

}  // namespace tomo::musr
