// The cross-check table every problem fills: one row per (backend, variant) with named
// errors against the cpu reference, printed in one format, written under one JSON schema
// (docs/crosscheck.md) and turned into the process exit status.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"

namespace tomo {

// One named error of a row. A value with a tolerance is checked (ok when value <= tolerance;
// NaN fails); without one (kReported) it is printed and written but decides nothing.
struct CrosscheckValue {
  static constexpr double kReported = -1.0;
  std::string name;
  double value = 0;
  double tolerance = kReported;
  bool checked() const { return tolerance >= 0; }
};
using CrosscheckErrors = std::vector<CrosscheckValue>;

class CrosscheckTable {
 public:
  // `problem` names the table; `setup` says on what it compares (sizes), printed above it.
  CrosscheckTable(std::string problem, std::string setup);

  // Runs one variant of `backend` (the problem's "run this variant") and records its errors;
  // the row is printed as soon as it is known (a variant may take seconds).
  void run(const std::string& backend, const std::string& variant, const std::function<CrosscheckErrors()>& variant_run);
  // A backend that cannot run here (no device, not built): listed with the reason, never a failure.
  void skip(const std::string& backend, const std::string& variant, const std::string& why);

  bool all_ok() const;
  const nlohmann::json& rows() const { return rows_; }
  // Writes the table under "crosscheck" in the report, prints a line when nothing was compared,
  // and returns the exit status: 0 when every compared row is within tolerance, 1 otherwise.
  int finish(RunReport& report) const;

 private:
  std::string problem_, setup_;
  nlohmann::json rows_ = nlohmann::json::array();
  bool header_printed_ = false;
  void print_header();
};

// The loop every problem's crosscheck runs: `compare(name)` for each registered backend of
// Op except the cpu reference; a backend that cannot run here gets a "skipped" row with the
// reason instead, under `skipped_variant` (the variant a problem compares the operator as, when
// the problem has several operators in one table). `compare` adds its own rows with table.run.
template <class Op, class Compare>
void run_backends(CrosscheckTable& table, Compare&& compare, const std::string& skipped_variant = "") {
  const auto& reg = BackendRegistry<Op>::instance();
  for (const std::string& name : reg.names()) {
    if (name == "cpu") continue;
    if (const Availability a = reg.available(name); !a.ok) {
      table.skip(name, skipped_variant, a.why);
      continue;
    }
    compare(name);
  }
}

}  // namespace tomo
