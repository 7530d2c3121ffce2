// The PLOT blocks of an msr as the run plots use them: per RUN, the time range (`range`,
// `sub_ranges`, or the fit range with `use_fit_ranges`) and the asymmetry range when given.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "compute/musr/msr.hpp"

namespace tomo::musr {

struct PlotView {
  std::optional<std::pair<double, double>> t{};  // µs; none: the fitted bins' range
  std::optional<std::pair<double, double>> y{};  // asymmetry; none: from the data
};

// One view per RUN (`runs` of them), from the first PLOT block listing the RUN. A malformed
// entry is refused naming file:line and token.
std::vector<PlotView> read_plot_views(const MsrFile& msr, std::size_t runs);

// The `runs` of the first PLOT block (1-based RUN numbers as written; empty without a block).
// musrview pairs a FOURIER phase list with them.
std::vector<int> first_plot_runs(const MsrFile& msr);

}  // namespace tomo::musr
