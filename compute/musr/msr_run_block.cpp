// The GLOBAL and RUN entries of the msr reader (msr_run_block.hpp).
#include "compute/musr/msr_run_block.hpp"

namespace tomo::musr::msr_line {

// Keys shared by GLOBAL and RUN; true when handled.
bool parse_setting(const LineContext& c, const std::vector<std::string>& t, RunSettings& s) {
  const std::string key = lower(t[0]);
  if (key == "fittype") {
    if (t.size() != 2) c.fail("fittype takes one value");
    int ft = c.integer(t[1], "fittype");
    if (ft < 0 || (ft > 5 && ft != 8))
      c.fail("fittype '" + t[1] + "' is not supported (0 single histogram, 1 single histogram RRF, 2 asymmetry, 3 asymmetry RRF, 4 mu minus, 5 beta-NMR, 8 x-y data)");
    s.fittype = ft;
  } else if (key == "data") {
    if (t.size() != 3 && t.size() != 5) c.fail("data takes 2 or 4 bin numbers");
    s.data.clear();
    for (std::size_t i = 1; i < t.size(); ++i) s.data.push_back(c.integer(t[i], "data bin"));
  } else if (key == "t0") {
    if (t.size() < 2) c.fail("t0 needs a value");
    s.t0.clear();
    for (std::size_t i = 1; i < t.size(); ++i) s.t0.push_back(c.number(t[i], "t0"));
  } else if (key == "packing") {
    if (t.size() != 2) c.fail("packing takes one value");
    s.packing = c.integer(t[1], "packing", 1);
  } else if (key == "fit") {
    if (t.size() != 3) c.fail("fit takes 2 values (t_start t_end in µs, or fgb+n0 lgb-n1)");
    FitRange r;
    if (lower(t[1]).starts_with("fgb")) {
      r.in_bins = true;
      if (!lower(t[2]).starts_with("lgb")) c.fail("fit '" + t[2] + "': expected lgb-n1 after fgb+n0");
      auto off = [&](const std::string& tok, char sign) {
        if (tok.size() == 3) return 0;
        if (tok[3] != sign) c.fail("fit '" + tok + "': expected " + tok.substr(0, 3) + sign + "n");
        return c.integer(tok.substr(4), "fit offset");
      };
      r.start_offset = off(t[1], '+');
      r.end_offset = off(t[2], '-');
    } else {
      r.start = c.number(t[1], "fit start");
      r.end = c.number(t[2], "fit end");
      if (r.end <= r.start) c.fail("fit end '" + t[2] + "' is not after fit start '" + t[1] + "'");
    }
    s.fit = r;
  } else {
    return false;
  }
  return true;
}

// GLOBAL's rrf_freq, rrf_packing, rrf_phase (musrfit's units: MHz, Mc, T, case-insensitive);
// true when handled.
bool parse_rrf_setting(const LineContext& c, const std::vector<std::string>& t, MsrRrf& rrf) {
  const std::string key = lower(t[0]);
  if (key == "rrf_freq") {
    if (t.size() != 3) c.fail("rrf_freq takes a value and a unit (MHz, Mc or T)");
    const std::string u = lower(t[2]);
    if (u != "mhz" && u != "mc" && u != "t") c.fail("rrf_freq unit '" + t[2] + "' is not MHz, Mc or T");
    const double f = c.number(t[1], "rrf_freq");
    if (!(f > 0.0)) c.fail("rrf_freq '" + t[1] + "' must be > 0");
    rrf.freq = f;
    rrf.unit = u == "mhz" ? "MHz" : u == "mc" ? "Mc" : "T";
  } else if (key == "rrf_packing") {
    if (t.size() != 2) c.fail("rrf_packing takes one value");
    rrf.packing = c.integer(t[1], "rrf_packing", 1);
  } else if (key == "rrf_phase") {
    if (t.size() != 2) c.fail("rrf_phase takes one value (degrees)");
    rrf.phase = c.number(t[1], "rrf_phase");
  } else {
    return false;
  }
  return true;
}

void parse_run_line(const LineContext& c, const std::vector<std::string>& t, MsrRun& r) {
  if (parse_setting(c, t, r.settings)) return;
  const std::string key = lower(t[0]);
  auto one_int = [&](const char* what) {
    if (t.size() != 2) c.fail(std::string(what) + " takes one value");
    return c.integer(t[1], what, 1);
  };
  if (key == "norm") {
    if (t.size() != 2) c.fail("norm takes one value");
    if (lower(t[1]).starts_with("fun")) r.norm = {true, c.integer(t[1].substr(3), "norm function", 1)};
    else r.norm = {false, c.integer(t[1], "norm parameter", 1)};
  } else if (key == "backgr.fit") {
    r.backgr_fit = one_int("backgr.fit");
  } else if (key == "backgr.fix") {
    if (t.size() != 2 && t.size() != 3) c.fail("backgr.fix takes 1 or 2 values");
    for (std::size_t i = 1; i < t.size(); ++i) r.backgr_fix.push_back(c.number(t[i], "backgr.fix"));
  } else if (key == "lifetime") {
    r.lifetime = one_int("lifetime");
  } else if (key == "lifetimecorrection") {
    r.lifetime_correction = true;
  } else if (key == "map") {
    for (std::size_t i = 1; i < t.size(); ++i) r.map.push_back(c.integer(t[i], "map entry"));
  } else if (key == "forward" || key == "backward") {
    auto list = parse_histogram_list({t.begin() + 1, t.end()}, c.where() + ":" + std::to_string(c.line()));
    (key == "forward" ? r.forward : r.backward) = list;
  } else if (key == "background") {
    if (t.size() != 3 && t.size() != 5) c.fail("background takes 2 or 4 bin numbers");
    for (std::size_t i = 1; i < t.size(); ++i) r.background.push_back(c.integer(t[i], "background bin"));
  } else if (key == "addrun") {
    if (t.size() < 5) c.fail("ADDRUN needs <file> <beamline> <institute> <format>");
    r.addruns.push_back({t[1], t[2], t[3], upper(t[4]), c.line()});
  } else if (key == "addt0") {
    if (t.size() < 2) c.fail("addt0 needs at least one t0");
    std::vector<double> v;
    for (std::size_t i = 1; i < t.size(); ++i) v.push_back(c.number(t[i], "addt0"));
    r.addt0.push_back(v);
  } else if (key == "alpha" || key == "beta") {
    // parN or funN (kept as −N)
    if (t.size() != 2) c.fail(key + " takes one value");
    int& v = key == "alpha" ? r.alpha : r.beta;
    if (lower(t[1]).starts_with("fun")) v = -c.integer(t[1].substr(3), (key + " function").c_str(), 1);
    else v = c.integer(t[1], key.c_str(), 1);
  } else if (key == "xy-data") {  // fittype 8: x and y column, each a number or a tag
    if (t.size() != 3) c.fail("xy-data takes 2 values (x and y column: numbers or tags)");
    r.xy_data = {t[1], t[2]};
  } else {
    c.fail("unknown RUN entry '" + t[0] + "'");
  }
}

}  // namespace tomo::musr::msr_line
