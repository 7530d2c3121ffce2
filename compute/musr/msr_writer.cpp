// The msr file after a fit, as musrfit writes it back: new FITPARAMETER block (value, error
// in `step` — negative when MINOS ran — and the positive MINOS error) and a STATISTIC block.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "compute/musr/msr.hpp"

namespace tomo::musr {
namespace {

bool is_block_line(const std::string& line) {
  static const char* const kBlocks[] = {"FITPARAMETER", "THEORY", "FUNCTIONS", "GLOBAL", "RUN",
                                        "COMMANDS", "FOURIER", "PLOT", "STATISTIC"};
  for (const char* b : kBlocks) {
    std::string k(b);
    if (line.compare(0, k.size(), k) == 0 && (line.size() == k.size() || std::isspace(static_cast<unsigned char>(line[k.size()]))))
      return true;
  }
  return false;
}

// Decimals that keep ~4 significant digits of the error (musrfit rounds to the error).
int decimals_for(double err) {
  if (!(err > 0.0) || !std::isfinite(err)) return 6;
  int d = 3 - static_cast<int>(std::floor(std::log10(err)));
  return std::clamp(d, 0, 12);
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); }

std::string parameter_line(const MsrParameter& p) {
  const int dec = decimals_for(p.step != 0.0 ? std::fabs(p.step) : std::fabs(p.value) * 1e-4);
  char no[16];
  std::snprintf(no, sizeof no, "%10d ", p.number);
  std::string line = std::string(no) + pad(p.name, 12) + pad(fixed(p.value, dec), 12) + pad(fixed(p.step, dec), 12);
  const bool bounds = p.lower || p.upper;
  if (p.pos_error || bounds) line += pad(p.pos_error ? fixed(*p.pos_error, dec) : "none", 12);
  if (bounds) {
    auto b = [](const std::optional<double>& v) {
      if (!v) return std::string("none");
      std::ostringstream os;
      os.precision(10);
      os << *v;
      return os.str();
    };
    line += pad(b(p.lower), 8) + b(p.upper);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace

std::string format_msr(const MsrFile& msr, const std::vector<MsrParameter>& fitted, const MsrStatistic& stat) {
  std::ostringstream os;
  bool skipping = false;
  for (std::size_t i = 0; i < msr.lines.size(); ++i) {
    const std::string& line = msr.lines[i];
    if (i > 0 && is_block_line(line)) {
      skipping = false;
      if (line.starts_with("STATISTIC")) {
        skipping = true;  // replaced at the end
        continue;
      }
      if (line.starts_with("FITPARAMETER")) {
        os << "FITPARAMETER\n";
        os << "#      No Name        Value       Step        Pos_Error   Boundaries\n";
        for (const auto& p : fitted) os << parameter_line(p) << '\n';
        os << '\n';
        skipping = true;  // the old parameter lines
        continue;
      }
    }
    if (!skipping) os << line << '\n';
  }
  // A trailing block separator as musrfit writes between blocks.
  os << "###############################################################\n";
  os << "STATISTIC --- " << stat.date << '\n';
  char buf[160];
  const char* what = stat.max_likelihood ? "maxLH" : "chisq";
  std::snprintf(buf, sizeof buf, "  %s = %.1f, NDF = %d, %s/NDF = %.6f\n", what, stat.value, stat.ndf, what,
                stat.ndf > 0 ? stat.value / stat.ndf : 0.0);
  os << buf;
  // musrfit's marker of a fit that did not converge (the numbers above are where it stopped).
  if (!stat.converged) os << "*** FIT DID NOT CONVERGE ***\n";
  return os.str();
}

}  // namespace tomo::musr
