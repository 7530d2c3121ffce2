// The msr file's COMMANDS block run on the minimiser (run_fit of minimizer.hpp): the fit's
// parameter states from FITPARAMETER, then MIGRAD/MINIMIZE/SIMPLEX, HESSE, MINOS, FIX and RELEASE
// in order (MIGRAD and HESSE where the block has no minimisation).
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/musr/minimizer.hpp"

namespace tomo::musr {
namespace {

// FIX/RELEASE arguments: parameter numbers or names, separated by blanks or commas.
std::vector<int> command_params(const std::string& cmd, const FitResult& r) {
  std::string text = cmd.substr(cmd.find(' ') == std::string::npos ? cmd.size() : cmd.find(' '));
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream is(text);
  std::vector<int> out;
  for (std::string w; is >> w;) {
    int found = -1;
    for (int i = 0; i < static_cast<int>(r.params.size()); ++i)
      if (r.params[i].name == w || std::to_string(i + 1) == w) found = i;
    if (found < 0) throw InputError("COMMANDS '" + cmd + "': no parameter '" + w + "'");
    out.push_back(found);
  }
  return out;
}

}  // namespace

FitResult run_fit(Chi2Evaluator& ev, const MsrFile& msr, const std::vector<bool>& used, Statistic statistic,
                  const std::function<void(const std::string&)>& progress) {
  FitResult r;
  r.up = statistic == Statistic::chi2 ? 1.0 : 0.5;  // musrfit's PFitterFcn (see docs/musr.md)
  for (std::size_t i = 0; i < msr.params.size(); ++i) {
    const auto& m = msr.params[i];
    FitParameterState s;
    s.name = m.name;
    s.value = m.value;
    s.step = std::fabs(m.step);
    s.lower = m.lower;
    s.upper = m.upper;
    s.free = m.step != 0.0 && i < used.size() && used[i];
    if (s.lower && s.value < *s.lower) s.value = *s.lower;
    if (s.upper && s.value > *s.upper) s.value = *s.upper;
    r.params.push_back(s);
  }
  std::vector<std::string> cmds;
  bool any_min = false;
  for (const auto& c : msr.commands) {
    const std::string k = c.substr(0, c.find(' '));
    if (k == "MIGRAD" || k == "MINIMIZE" || k == "SIMPLEX") any_min = true;
    cmds.push_back(c);
  }
  if (!any_min) cmds.insert(cmds.begin(), {"MIGRAD", "HESSE"});
  for (const auto& c : cmds) {
    const std::string k = c.substr(0, c.find(' '));
    if (progress) progress(k);
    if (k == "MIGRAD" || k == "MINIMIZE" || k == "SIMPLEX") {
      migrad(ev, r);
      r.log.push_back(k + ": f = " + std::to_string(r.fmin) + ", EDM = " + std::to_string(r.edm) +
                      (r.converged ? " (converged)" : " (NOT converged)"));
    } else if (k == "HESSE") {
      hesse(ev, r);
      r.log.push_back(std::string("HESSE: ") + (r.hesse_ok ? "ok" : "matrix not positive definite"));
    } else if (k == "MINOS") {
      minos(ev, r);
      r.log.push_back("MINOS: done");
    } else if (k == "FIX" || k == "RELEASE") {
      for (int i : command_params(c, r)) r.params[i].free = k == "RELEASE" && (i >= static_cast<int>(used.size()) || used[i]);
      r.log.push_back(c);
    }
  }
  return r;
}

}  // namespace tomo::musr
