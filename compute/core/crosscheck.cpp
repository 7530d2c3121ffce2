// The cross-check table (see crosscheck.hpp): one line per named error, so every problem
// prints the same columns whatever errors it measures.
#include "compute/core/crosscheck.hpp"

#include <cmath>
#include <cstdio>

namespace tomo {
namespace {

// JSON has no NaN/Inf: such values are written as null (docs/crosscheck.md).
nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

const char* cell(const std::string& s) { return s.empty() ? "-" : s.c_str(); }

}  // namespace

CrosscheckTable::CrosscheckTable(std::string problem, std::string setup)
    : problem_(std::move(problem)), setup_(std::move(setup)) {}

void CrosscheckTable::print_header() {
  if (header_printed_) return;
  header_printed_ = true;
  std::printf("%s crosscheck against cpu: %s\n", problem_.c_str(), setup_.c_str());
  std::printf("%-12s %-10s %-20s %12s %10s  %s\n", "backend", "variant", "error", "value", "tolerance", "status");
}

void CrosscheckTable::run(const std::string& backend, const std::string& variant,
                          const std::function<CrosscheckErrors()>& variant_run) {
  const CrosscheckErrors errors = variant_run();
  bool ok = true;
  for (const auto& e : errors)
    if (e.checked() && !(e.value <= e.tolerance)) ok = false;
  print_header();
  nlohmann::json values = nlohmann::json::object(), tolerances = nlohmann::json::object();
  for (const auto& e : errors) {
    const bool value_ok = !e.checked() || e.value <= e.tolerance;
    char tol[32] = "-";
    if (e.checked()) std::snprintf(tol, sizeof tol, "%.1e", e.tolerance);
    std::printf("%-12s %-10s %-20s %12.3e %10s  %s\n", backend.c_str(), cell(variant), e.name.c_str(), e.value, tol,
                !e.checked() ? "(reported)" : value_ok ? "ok" : "ABOVE TOLERANCE");
    values[e.name] = number_or_null(e.value);
    if (e.checked()) tolerances[e.name] = e.tolerance;
  }
  std::fflush(stdout);
  rows_.push_back({{"backend", backend}, {"variant", variant}, {"errors", values}, {"tolerance", tolerances},
                   {"ok", ok}, {"skipped", nullptr}});
}

void CrosscheckTable::skip(const std::string& backend, const std::string& variant, const std::string& why) {
  print_header();
  std::printf("%-12s %-10s %-20s %12s %10s  skipped: %s\n", backend.c_str(), cell(variant), "-", "-", "-", why.c_str());
  rows_.push_back({{"backend", backend}, {"variant", variant}, {"errors", nlohmann::json::object()},
                   {"tolerance", nlohmann::json::object()}, {"ok", true}, {"skipped", why}});
}

bool CrosscheckTable::all_ok() const {
  for (const auto& r : rows_)
    if (!r.at("ok").get<bool>()) return false;
  return true;
}

int CrosscheckTable::finish(RunReport& report) const {
  std::size_t compared = 0;
  for (const auto& r : rows_)
    if (r.at("skipped").is_null()) ++compared;
  if (compared == 0) std::printf("%s crosscheck: no backend besides cpu can run here; nothing compared\n", problem_.c_str());
  const bool ok = all_ok();
  report.set("crosscheck", {{"problem", problem_}, {"setup", setup_}, {"rows", rows_}, {"compared", compared}, {"ok", ok}});
  return ok ? 0 : 1;
}

}  // namespace tomo
