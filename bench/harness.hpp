// The bench harness: CLI11 parsing of the flags every bench_ shares, the JSON report written
// atomically (never half a report) and the wall-clock timing helpers (best/median of N, device
// work waited for through the operator's synchronize()).
#pragma once
#include <chrono>
#include <utility>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace tomo::bench {

using Clock = std::chrono::steady_clock;

// Milliseconds since `t0` (wall clock).
inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Milliseconds `f` takes, with `sync` (an operator's synchronize()) before and after so that
// only the queued device work of `f` is measured.
template <class F, class S>
double time_ms(F&& f, S&& sync) {
  sync();
  const auto t0 = Clock::now();
  f();
  sync();
  return ms_since(t0);
}
template <class F>
double time_ms(F&& f) {
  return time_ms(std::forward<F>(f), [] {});
}

// The smallest and the median (upper middle for an even count) of `times`; empty → 0.
double best_of(std::vector<double> times);
double median_of(std::vector<double> times);

// A CLI11 app with `--json FILE` already added; `parse` exits 0 on --help and 2 on a bad line.
class Cli {
 public:
  Cli(const std::string& name, const std::string& description);
  CLI::App& app() { return app_; }
  const std::string& json_path() const { return json_; }
  void parse(int argc, char** argv);

 private:
  CLI::App app_;
  std::string json_;
};

// Writes `j` (2-space indented, trailing newline) to `path` through the atomic writer; an empty
// path writes nothing.
void write_report(const std::string& path, const nlohmann::json& j);

}  // namespace tomo::bench
