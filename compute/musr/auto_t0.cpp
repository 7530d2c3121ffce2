// t0 from the prompt peak (compute/musr/auto_t0.hpp).
#include "compute/musr/auto_t0.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/musr/quoted_text.hpp"
#include "compute/musr/raw_bins.hpp"

namespace tomo::musr {
namespace {

std::string first_token(const std::string& line) {
  std::istringstream ss(line);
  std::string t;
  ss >> t;
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

// The RUN block's `t0` and `data` lines replaced by the new ones (right after the RUN line).
void rewrite_run_block(MsrFile& msr, const MsrRun& r, const std::string& t0_line, const std::string& data_line) {
  auto& lines = msr.lines;
  const std::size_t head = static_cast<std::size_t>(r.line) - 1;  // the RUN line
  if (head >= lines.size()) return;                               // parsed from text without lines
  std::size_t end = head + 1;
  while (end < lines.size() && !is_msr_block_line(lines[end])) ++end;
  std::vector<std::string> body;
  for (std::size_t i = head + 1; i < end; ++i) {
    const auto k = first_token(lines[i]);
    if (k != "t0" && k != "data") body.push_back(lines[i]);
  }
  body.insert(body.begin(), {t0_line, data_line});
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(head) + 1, lines.begin() + static_cast<std::ptrdiff_t>(end));
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(head) + 1, body.begin(), body.end());
}

}  // namespace

int default_first_good_offset(double dt_us) { return static_cast<int>(10.0e-3 / dt_us); }

int t0_warning_bins(double dt_us) { return std::max(3, default_first_good_offset(dt_us)); }

std::vector<std::string> apply_auto_t0(MsrFile& msr, const std::function<PsiBinFile(const MsrRun&)>& load, int offset) {
  std::vector<std::string> report;
  // Later RUN blocks first: rewriting one shifts the text lines of those after it.
  std::vector<std::size_t> order(msr.runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  for (std::size_t i : order) {
    MsrRun& r = msr.runs[i];
    if (r.fittype() == 8) continue;  // x-y data have no time histograms and no t0
    const PsiBinFile f = load(r);
    const int off = offset >= 0 ? offset : default_first_good_offset(f.bin_width_us);
    const int nh = static_cast<int>(f.histograms.size());
    auto peak = [&](int h) {
      if (h < 1 || h > nh)
        throw InputError(msr.path.string() + ":" + std::to_string(r.line) + ": RUN " + quoted_excerpt(r.file) + ": histogram " +
                         std::to_string(h) + " does not exist (the file has " + std::to_string(nh) + ")");
      const auto& raw = f.histograms[h - 1];
      return bin_of_maximum(std::vector<double>(raw.begin(), raw.end()));
    };
    std::vector<double> t0s;
    std::vector<int> data;
    const int bins = f.bins();
    if (r.fittype() == 5)
      throw InputError(msr.path.string() + ":" + std::to_string(r.line) + ": RUN " + quoted_excerpt(r.file) +
                       ": --auto-t0 finds a prompt peak, which a beta-NMR run (fittype 5) does not have: give its t0 lines");
    // Asymmetry runs, in the laboratory and in the rotating frame, list t0 as forward/backward pairs.
    if (r.fittype() == 2 || r.fittype() == 3) {
      const std::size_t groups = std::max(r.forward.size(), r.backward.size());
      for (std::size_t k = 0; k < groups; ++k) {
        t0s.push_back(k < r.forward.size() ? peak(r.forward[k]) : -1.0);
        t0s.push_back(k < r.backward.size() ? peak(r.backward[k]) : -1.0);
      }
      data = {static_cast<int>(t0s[0]) + off, bins, static_cast<int>(t0s[1]) + off, bins};
    } else {
      for (int h : r.forward) t0s.push_back(peak(h));
      data = {static_cast<int>(t0s[0]) + off, bins};
    }
    r.settings.t0 = t0s;
    r.settings.data = data;
    std::string t0_line = "t0              ", data_line = "data            ";
    for (double t : t0s) t0_line += std::to_string(static_cast<int>(t)) + ".0  ";
    for (int d : data) data_line += std::to_string(d) + "  ";
    while (t0_line.back() == ' ') t0_line.pop_back();
    while (data_line.back() == ' ') data_line.pop_back();
    rewrite_run_block(msr, r, t0_line, data_line);
    report.insert(report.begin(), "RUN " + std::to_string(i + 1) + " (" + quoted_excerpt(r.file) + "): " + t0_line + "; " + data_line);
  }
  return report;
}

}  // namespace tomo::musr
