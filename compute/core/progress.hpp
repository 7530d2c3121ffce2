// A progress bar for iterations on stderr: redrawn in place on a terminal,
// a line every 10 % otherwise (logs, CI). Silent when runtime_options().progress is off.
#pragma once
#include <chrono>
#include <string>

namespace tomo {

// Usage: Progress p("ML-EM", iterations); for (...) { ...; p.step(1, "ll=-3.2e5"); } p.finish();
// Terminal: "\r label [#####.....] 5/10  1.2 s  note"; otherwise one such line per decile.
class Progress {
 public:
  Progress(std::string label, long total);
  ~Progress();
  void step(long n = 1, const std::string& note = {});
  void finish();

 private:
  void draw(bool final_line);
  std::string label_;
  long total_;
  long done_ = 0;
  int last_decile_ = -1;
  bool tty_;
  bool enabled_;
  bool finished_ = false;
  std::string note_;
  std::chrono::steady_clock::time_point t0_;
  std::chrono::steady_clock::time_point last_draw_{};  // terminal redraws are throttled
};

}  // namespace tomo
