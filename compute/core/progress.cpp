// Progress bar on stderr: redrawn in place on a terminal, a line per 10 % otherwise.
#include "compute/core/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <omp.h>
#include <unistd.h>

#include "compute/core/interrupt.hpp"
#include "compute/core/runtime_options.hpp"

namespace tomo {
namespace {
constexpr int kBarWidth = 20;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

Progress::Progress(std::string label, long total)
    : label_(std::move(label)),
      total_(total),
      tty_(::isatty(2) != 0),
      enabled_(runtime_options().progress),
      t0_(std::chrono::steady_clock::now()) {
  if (enabled_ && tty_) draw(false);
}

Progress::~Progress() {
  try {
    finish();
  } catch (...) {  // a destructor never throws; a failed progress line is not worth it
  }
}

void Progress::step(long n, const std::string& note) {
  // Long loops report here, so this is where Ctrl-C stops them (never inside a parallel
  // region, where an exception cannot leave; the interrupt watcher ends those runs).
  if (omp_get_level() == 0) throw_if_interrupted();
  if (finished_) return;
  done_ += n;
  if (!note.empty()) note_ = note;
  if (!enabled_) return;
  if (tty_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ >= kRedrawInterval || (total_ > 0 && done_ >= total_)) draw(false);
    return;
  }
  if (total_ <= 0) return;
  const int decile = static_cast<int>(std::clamp(done_, 0L, total_) * 10 / total_);
  if (decile > last_decile_ && decile > 0 && decile < 10) {  // the 100 % line is finish()'s
    last_decile_ = decile;
    draw(false);
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (enabled_) draw(true);
}

void Progress::draw(bool final_line) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  char time_text[32];
  std::snprintf(time_text, sizeof time_text, "%.1f s", seconds);

  std::string line = label_ + " ";
  if (total_ > 0) {
    const long shown = std::clamp(done_, 0L, total_);
    const int filled = static_cast<int>(shown * kBarWidth / total_);
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "[" + string.
    line.append(1, '[').append(static_cast<std::size_t>(filled), '#');
    line.append(static_cast<std::size_t>(kBarWidth - filled), '.').append("] ");
    line += std::to_string(done_) + "/" + std::to_string(total_);
  } else {
    line += std::to_string(done_);
  }
  line += "  " + std::string(time_text);
  if (!note_.empty()) line += "  " + note_;

  if (tty_)
    std::cerr << "\r" << line << "\x1b[K" << (final_line ? "\n" : "") << std::flush;
  else
    std::cerr << line << '\n' << std::flush;
  last_draw_ = std::chrono::steady_clock::now();
}

}  // namespace tomo
