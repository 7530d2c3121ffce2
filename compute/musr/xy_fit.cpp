// fittype 8 as musrfit's PRunNonMusr prepares it; departures are listed in docs/musr.md.
#include "compute/musr/xy_fit.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/run_file.hpp"

namespace tomo::musr {
namespace {

[[noreturn]] void fail(const MsrFile& m, const MsrRun& r, const std::string& what) {
  throw InputError(m.path.string() + ":" + std::to_string(r.line) + ": RUN " + quoted_excerpt(r.file) + ": " + tidy_message(what));
}

// Column `which` (0 = x, 1 = y) of the RUN's xy-data: a 1-based number or a tag (DB, DAT);
// ASCII files are always x, y (musrfit ignores xy-data there).
std::size_t column(const MsrFile& m, const MsrRun& r, const XyData& d, int which) {
  if (d.positional) return static_cast<std::size_t>(which);
  const std::string& tok = r.xy_data[which];
  const char* what = which == 0 ? "x" : "y";
  if (!tok.empty() && std::all_of(tok.begin(), tok.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const std::size_t n = tok.size() > 9 ? 0 : std::stoul(tok);
    if (n < 1 || n > d.columns.size())
      fail(m, r, std::string("xy-data ") + what + " column '" + tok + "' is not in 1.." + std::to_string(d.columns.size()));
    return n - 1;
  }
  for (std::size_t i = 0; i < d.columns.size(); ++i)
    if (d.columns[i].tag == tok) return i;
  std::string tags;
  for (std::size_t i = 0; i < d.columns.size() && i < 12; ++i) tags += (i ? ", " : "") + d.columns[i].tag;
  if (d.columns.size() > 12) tags += ", …";
  fail(m, r, std::string("xy-data ") + what + " column '" + tok + "' is not a tag of the data file (" + tags + ")");
}

}  // namespace

XyData load_xy_data(const MsrFile& msr, const MsrRun& run) {
  return read_xy_file(find_run_file(msr, run), run.format);
}

RunBins xy_run_bins(const MsrFile& msr, const MsrRun& r, const XyData& d, RunInfo& info) {
  if (r.xy_data.size() != 2) fail(msr, r, "non-μSR RUN (fittype 8) needs xy-data <x column> <y column>");
  const auto& xc = d.columns[column(msr, r, d, 0)];
  const auto& yc = d.columns[column(msr, r, d, 1)];
  const int p = r.settings.packing.value_or(1);
  info.name = r.file;
  info.fittype = 8;
  info.packing = p;
  // musrfit's packing: y summed, errors in quadrature, x between the pack's ends; a pack is
  // emitted when i % p == 0 and i ≠ 0 (the trailing pack is dropped).
  std::vector<double> x, y, e;
  if (p == 1) {
    x = xc.values;
    y = yc.values;
    e = yc.errors;
  } else {
    double v = 0.0, var = 0.0;
    for (std::size_t i = 0; i < xc.values.size(); ++i) {
      if (i % p == 0 && i != 0) {
        x.push_back(xc.values[i] - (xc.values[i] - xc.values[i - p]) / 2.0);
        y.push_back(v);
        e.push_back(std::sqrt(var));
        v = var = 0.0;
      }
      v += yc.values[i];
      var += yc.errors[i] * yc.errors[i];
    }
  }
  if (r.settings.fit && r.settings.fit->in_bins) fail(msr, r, "fit range in bins (fgb/lgb) has no meaning for x-y data: give x_start x_end");
  const double lo = r.settings.fit ? r.settings.fit->start : -HUGE_VAL, hi = r.settings.fit ? r.settings.fit->end : HUGE_VAL;
  RunBins bins;
  ProgramBuilder b(static_cast<int>(msr.params.size()));
  bins.model = b.finish(build_theory(msr, r, b));  // θ(x): the theory with x as its time
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!(x[k] >= lo && x[k] <= hi)) continue;
    if (!(e[k] > 0.0)) {
      std::ostringstream os;
      os << "point " << k + 1 << " (x = " << x[k] << ") of y column '" << yc.tag << "' has error " << e[k]
         << ": χ² needs errors > 0 (a DAT column without an ...Err column has none)";
      fail(msr, r, os.str());
    }
    bins.t.push_back(x[k]);
    bins.y.push_back(y[k]);
    bins.sigma.push_back(e[k]);
  }
  if (bins.t.size() < 2) fail(msr, r, "fit range leaves " + std::to_string(bins.t.size()) + " points");
  return bins;
}

}  // namespace tomo::musr
