// The JSON run report (report.json): problem, backend, devices, resolved scene,
// timings per stage and metrics. Timings are wall-clock milliseconds.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace tomo {

class RunReport {
 public:
  RunReport();
  nlohmann::json& json() { return j_; }
  const nlohmann::json& json() const { return j_; }

  void set(const std::string& key, nlohmann::json value) { j_[key] = std::move(value); }
  // Adds to the stage's total (a stage run each iteration accumulates) and counts calls.
  void add_timing(const std::string& stage, double ms);
  void set_metric(const std::string& name, double value);
  void add_device(const std::string& description);

  class Timer {
   public:
    Timer(RunReport& r, std::string stage) : r_(r), stage_(std::move(stage)), t0_(clock::now()) {}
    ~Timer() { r_.add_timing(stage_, elapsed_ms()); }
    double elapsed_ms() const { return std::chrono::duration<double, std::milli>(clock::now() - t0_).count(); }
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
   private:
    using clock = std::chrono::steady_clock;
    RunReport& r_;
    std::string stage_;
    clock::time_point t0_;
  };
  Timer time(std::string stage) { return Timer(*this, std::move(stage)); }

  void write(const std::filesystem::path& path) const;  // atomic

 private:
  nlohmann::json j_;
};

}  // namespace tomo
