#include "compute/musr/msr_checks.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "compute/core/error.hpp"
#include "compute/musr/quoted_text.hpp"

namespace tomo::musr {

namespace {
std::string upper_ascii(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}
}  // namespace

void check_references(const MsrFile& m, const std::string& where) {
  const int np = static_cast<int>(m.params.size());
  auto bad = [&](int line, const std::string& what) { throw InputError(where + ":" + std::to_string(line) + ": " + tidy_message(what)); };
  for (const auto& term : m.theory)
    for (const auto& f : term)
      for (const auto& a : f.args) {
        if (a.kind == TheoryArg::Kind::param && a.n > np) bad(f.line, "parameter " + std::to_string(a.n) + " does not exist");
        if (a.kind == TheoryArg::Kind::fun && !m.function(a.n)) bad(f.line, "fun" + std::to_string(a.n) + " is not defined in FUNCTIONS");
      }
  for (const auto& r : m.runs) {
    auto chk = [&](int n, const char* what) {
      if (n > np) bad(r.line, std::string(what) + " parameter " + std::to_string(n) + " does not exist");
    };
    if (!r.norm.is_fun) chk(r.norm.n, "norm");
    else if (!m.function(r.norm.n)) bad(r.line, "norm fun" + std::to_string(r.norm.n) + " is not defined");
    chk(r.backgr_fit, "backgr.fit");
    chk(r.lifetime, "lifetime");
    for (auto [n, what] : {std::pair{r.alpha, "alpha"}, std::pair{r.beta, "beta"}}) {
      chk(n, what);
      if (n < 0 && !m.function(-n)) bad(r.line, std::string(what) + " fun" + std::to_string(-n) + " is not defined");
    }
    for (int n : r.map) chk(n, "map");
    if (r.addt0.size() > r.addruns.size())
      bad(r.line, "RUN has " + std::to_string(r.addt0.size()) + " addt0 lines for " + std::to_string(r.addruns.size()) + " ADDRUN lines");
    const int ft = r.settings.fittype.value_or(m.global.fittype.value_or(0));
    if (ft == 8 && r.xy_data.empty()) bad(r.line, "non-μSR RUN (fittype 8) needs xy-data <x column> <y column>");
    if (ft != 8 && r.forward.empty()) bad(r.line, "RUN has no forward histogram");
    if (ft == 0 && !r.norm.set()) bad(r.line, "single-histogram RUN needs norm");
    if ((ft == 2 || ft == 3) && r.backward.empty()) bad(r.line, "asymmetry RUN needs backward");
    if (ft == 5 && (r.forward.size() != 2 || r.backward.size() != 2))
      bad(r.line, "beta-NMR RUN needs 2 forward and 2 backward histograms (helicity + then -)");
    if ((ft == 1 || ft == 3) && (!m.rrf.freq || !m.rrf.packing))
      bad(r.line, "fittype " + std::to_string(ft) + " (RRF) needs rrf_freq and rrf_packing in the GLOBAL block");
  }
  if (m.theory.empty()) throw InputError(where + ": no THEORY block");
  if (m.runs.empty()) throw InputError(where + ": no RUN block");
}


// The queries of a read msr file (msr.hpp).
bool MsrFile::max_likelihood() const {
  return std::any_of(commands.begin(), commands.end(), [](const std::string& c) { return c == "MAX_LIKELIHOOD"; });
}
bool MsrFile::scale_n0_bkg() const {
  bool on = true;
  for (const auto& c : commands)
    if (c.starts_with("SCALE_N0_BKG")) on = upper_ascii(c).ends_with("TRUE");
  return on;
}
bool MsrFile::minos() const {
  return std::any_of(commands.begin(), commands.end(), [](const std::string& c) { return c == "MINOS"; });
}
const MsrFunction* MsrFile::function(int n) const {
  for (const auto& f : functions)
    if (f.number == n) return &f;
  return nullptr;
}

}  // namespace tomo::musr
