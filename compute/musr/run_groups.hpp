// The steps every fit type's data preparation shares (defined in fit_setup.cpp): parameter,
// map and function references of a RUN, histogram groups summed at t0, data range, background
// window, musrfit's packing and the fit window. The fit types' own files build on them.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/musr/expression.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/psi_bin.hpp"
#include "compute/musr/raw_bins.hpp"

namespace tomo::musr::prep {

// One line "file.msr:LINE: RUN 'name': what" (InputError).
[[noreturn]] void fail(const MsrFile& m, const MsrRun& r, const std::string& what);

// parN, mapN and funN of one RUN as nodes of a program.
class RunResolver : public ExprResolver {
 public:
  RunResolver(const MsrFile& m, const MsrRun& r, ProgramBuilder& b) : m_(m), r_(r), b_(b) {}
  std::int32_t param(int n) override {
    if (n < 1 || n > static_cast<int>(m_.params.size())) fail(m_, r_, "par" + std::to_string(n) + " does not exist");
    return b_.param(n - 1);
  }
  std::int32_t map(int n) override {
    if (n < 1 || n > static_cast<int>(r_.map.size()) || r_.map[n - 1] == 0)
      fail(m_, r_, "map" + std::to_string(n) + " has no parameter in this RUN's map line");
    return param(r_.map[n - 1]);
  }
  std::int32_t fun(int n) override {
    if (auto it = done_.find(n); it != done_.end()) return it->second;
    const MsrFunction* f = m_.function(n);
    if (!f) fail(m_, r_, "fun" + std::to_string(n) + " is not defined in FUNCTIONS");
    if (!active_.insert(n).second) fail(m_, r_, "fun" + std::to_string(n) + " refers to itself");
    if (active_.size() > kMaxFunctionChain)
      throw InputError(m_.path.string() + ":" + std::to_string(f->line) + ": fun" + std::to_string(n) + " is reached through more than " +
                       std::to_string(kMaxFunctionChain) + " functions referring to one another");
    auto id = lower_expression(*f->expr, b_, *this);
    active_.erase(n);
    done_[n] = id;
    return id;
  }
  std::int32_t arg(const TheoryArg& a) {
    switch (a.kind) {
      case TheoryArg::Kind::param: return param(a.n);
      case TheoryArg::Kind::map: return map(a.n);
      case TheoryArg::Kind::fun: return fun(a.n);
    }
    return -1;
  }

 private:
  const MsrFile& m_;
  const MsrRun& r_;
  ProgramBuilder& b_;
  std::map<int, std::int32_t> done_;
  std::set<int> active_;
};

// A run added to a RUN (ADDRUN) with its t0 list (addt0).
struct AddedRun {
  const PsiBinFile* file = nullptr;
  std::vector<double> t0s;
};

// One group of histograms summed after aligning each to the first one's t0.
struct Group {
  std::vector<double> counts;  // raw bins of the summed group
  double t0 = 0.0;
  int fgb = 0, lgb = 0;
};

// Sums `hists` (histogram k's t0 is entry t0_index(k) of the RUN's t0 list), each ADDRUN added
// first; refuses a missing or empty histogram and a t0 outside it.
Group sum_group(const MsrFile& m, const MsrRun& r, const PsiBinFile& f, const std::vector<int>& hists,
                const std::function<std::size_t(std::size_t)>& t0_index, const std::vector<AddedRun>& added);

// The group's data range from the RUN's `data` entries at `offset` (else musrfit's default).
void set_data_range(const MsrFile& m, const MsrRun& r, Group& g, std::size_t offset, double dt);

// musrfit's alignment of an asymmetry pair's data ranges: the histogram whose start lies further
// from its t0 sets the other's start and end (⌊t0 + start − t0'⌋); refuses ranges that leave
// the histograms.
inline void align_at_t0(const MsrFile& m, const MsrRun& r, Group& gf, Group& gb) {
  const double df = std::fabs(gf.fgb - gf.t0), db = std::fabs(gb.fgb - gb.t0);
  if (df > db) {
    const int s = static_cast<int>(gb.t0 + gf.fgb - gf.t0), e = static_cast<int>(gb.t0 + gf.lgb - gf.t0);
    gb.fgb = s;
    gb.lgb = e;
  } else if (df < db) {
    const int s = static_cast<int>(gf.t0 + gb.fgb - gb.t0), e = static_cast<int>(gf.t0 + gb.lgb - gb.t0);
    gf.fgb = s;
    gf.lgb = e;
  }
  for (const Group* g : {&gf, &gb})
    if (g->fgb < 0 || g->lgb > static_cast<int>(g->counts.size()) || g->lgb - g->fgb < 2)
      fail(m, r, "forward and backward data ranges aligned at t0 leave bins " + std::to_string(g->fgb) + ".." +
                     std::to_string(g->lgb) + ", not inside 0.." + std::to_string(g->counts.size()));
}

// The estimated background's window (`background` entries at `offset`, else [0.1·t0, 0.6·t0]),
// cut to whole beam periods counted in bins of p raw bins.
BinRange background_window(const MsrFile& m, const MsrRun& r, const Group& g, std::size_t offset, double dt, int p);

// musrfit's packing of c[fgb, lgb): sums of p bins (the trailing pack dropped; p = 1 keeps all).
std::vector<double> pack(const std::vector<double>& c, int fgb, int lgb, int p);

// The fit window [t_start, t_end] in µs from t0 (the RUN's `fit`, else the data range).
std::pair<double, double> fit_window(const MsrRun& r, const Group& g, double dt);

}  // namespace tomo::musr::prep
