// The JSON run report: tool, version, start time, timings per stage, metrics, devices.
#include "compute/core/report.hpp"

#include <unistd.h>

#include <cmath>
#include <ctime>

#include "compute/core/log.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/io/atomic_file.hpp"

#ifndef TOMO_VERSION
#define TOMO_VERSION "0.1.0"  // keep in step with project(VERSION) in CMakeLists.txt
#endif

namespace tomo {

// The commit of the source tree this binary was built from, "-dirty" when a tracked file differed
// ("unknown" outside a git checkout): a source generated at every build (cmake/commit.cmake).
const char* build_commit();

namespace {

std::string iso8601_utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// A whole number stays one in JSON ("events": 5000, not 5000.0); exact below 2^53.
nlohmann::json number(double v) {
  if (v == std::trunc(v) && std::abs(v) < 9007199254740992.0) return static_cast<long long>(v);
  return v;
}

}  // namespace

RunReport::RunReport() {
  j_["tool"] = "tomoraster";
  j_["version"] = TOMO_VERSION;
  j_["commit"] = build_commit();
  j_["host"] = host_name();
  if (!runtime_options().command_line.empty()) j_["command_line"] = runtime_options().command_line;
  j_["started"] = iso8601_utc_now();
  j_["timings_ms"] = nlohmann::json::object();
  j_["metrics"] = nlohmann::json::object();
  j_["devices"] = nlohmann::json::array();
}

void RunReport::add_timing(const std::string& stage, double ms) {
  record_timing(stage, ms);
  stages_.add_closed(stage_of_timing(stage), ms);
}

void RunReport::record_timing(const std::string& stage, double ms) {
  auto& t = j_["timings_ms"];
  if (!t.is_object()) t = nlohmann::json::object();
  auto& s = t[stage];
  if (!s.is_object()) s = {{"total_ms", 0.0}, {"calls", 0}};
  s["total_ms"] = s["total_ms"].get<double>() + ms;
  s["calls"] = s["calls"].get<long long>() + 1;
}

void RunReport::set_metric(const std::string& name, double value) {
  auto& m = j_["metrics"];
  if (!m.is_object()) m = nlohmann::json::object();
  if (!std::isfinite(value)) {  // JSON has no NaN/Inf: store null and say so
    log_warn("metric '", name, "' is ", value, "; stored as null in the report");
    m[name] = nullptr;
    return;
  }
  m[name] = number(value);
}

void RunReport::add_device(const std::string& description) {
  auto& d = j_["devices"];
  if (!d.is_array()) d = nlohmann::json::array();
  d.push_back(description);
}

void RunReport::write(const std::filesystem::path& path) const {
  const std::string text = j_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  write_text_atomic(path, text);
}

}  // namespace tomo
