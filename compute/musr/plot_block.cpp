// PLOT blocks (compute/musr/plot_block.hpp).
#include "compute/musr/plot_block.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "compute/core/error.hpp"
#include "compute/musr/quoted_text.hpp"

namespace tomo::musr {
namespace {

struct Block {
  std::vector<int> runs;
  std::vector<double> range, sub_ranges;
  bool use_fit_ranges = false;
};

std::vector<Block> read_blocks(const MsrFile& msr) {
  std::vector<Block> blocks;
  bool in_block = false;
  for (std::size_t i = 0; i < msr.lines.size(); ++i) {
    const std::string& line = msr.lines[i];
    if (i > 0 && is_msr_block_line(line)) {
      in_block = line.starts_with("PLOT");
      if (in_block) blocks.emplace_back();
      continue;
    }
    if (!in_block) continue;
    std::istringstream ss(line);
    std::vector<std::string> t;
    for (std::string w; ss >> w && w[0] != '#' && w[0] != '(';) t.push_back(w);
    if (t.empty()) continue;
    const std::string where = msr.path.string() + ":" + std::to_string(i + 1);
    auto numbers = [&](std::vector<double>& out) {
      for (std::size_t k = 1; k < t.size(); ++k) {
        char* end = nullptr;
        const double v = std::strtod(t[k].c_str(), &end);
        if (*end != '\0' || !std::isfinite(v))
          throw InputError(where + ": PLOT " + t[0] + " value '" + quoted_excerpt(t[k]) + "' is not a number");
        out.push_back(v);
      }
    };
    Block& b = blocks.back();
    if (t[0] == "runs") b.runs = parse_histogram_list({t.begin() + 1, t.end()}, where);
    else if (t[0] == "range") numbers(b.range);
    else if (t[0] == "sub_ranges") numbers(b.sub_ranges);
    else if (t[0] == "use_fit_ranges") {
      b.use_fit_ranges = true;
      numbers(b.range);  // optional ymin ymax
    }
    // lifetimecorrection, view_packing, logx/logy, rrf_*: display options of musrview.
  }
  return blocks;
}

}  // namespace

std::vector<int> first_plot_runs(const MsrFile& msr) {
  const auto blocks = read_blocks(msr);
  return blocks.empty() ? std::vector<int>{} : blocks.front().runs;
}

std::vector<PlotView> read_plot_views(const MsrFile& msr, std::size_t runs) {
  const auto blocks = read_blocks(msr);
  std::vector<PlotView> views(runs);
  std::vector<bool> set(runs, false);
  for (const auto& b : blocks) {
    for (std::size_t k = 0; k < b.runs.size(); ++k) {
      const auto r = static_cast<std::size_t>(b.runs[k] - 1);
      if (b.runs[k] < 1 || r >= runs || set[r]) continue;
      set[r] = true;
      PlotView& v = views[r];
      if (b.use_fit_ranges) {
        if (b.range.size() >= 2) v.y = std::pair{b.range[0], b.range[1]};
      } else if (b.sub_ranges.size() >= 2 * b.runs.size()) {
        v.t = std::pair{b.sub_ranges[2 * k], b.sub_ranges[2 * k + 1]};
        if (b.sub_ranges.size() >= 2 * b.runs.size() + 2)
          v.y = std::pair{b.sub_ranges[2 * b.runs.size()], b.sub_ranges[2 * b.runs.size() + 1]};
      } else if (b.range.size() >= 2) {
        v.t = std::pair{b.range[0], b.range[1]};
        if (b.range.size() >= 4) v.y = std::pair{b.range[2], b.range[3]};
      }
      if (v.t && !(v.t->second > v.t->first)) v.t.reset();
      if (v.y && !(v.y->second > v.y->first)) v.y.reset();
    }
  }
  return views;
}

}  // namespace tomo::musr
