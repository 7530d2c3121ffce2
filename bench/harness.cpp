// The bench harness (see harness.hpp).
#include "bench/harness.hpp"

#include <algorithm>
#include <cstdlib>

#include "compute/io/atomic_file.hpp"

namespace tomo::bench {

double best_of(std::vector<double> times) {
  return times.empty() ? 0.0 : *std::min_element(times.begin(), times.end());
}

double median_of(std::vector<double> times) {
  if (times.empty()) return 0.0;
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

Cli::Cli(const std::string& name, const std::string& description) : app_(description, name) {
  app_.add_option("--json", json_, "write the results as JSON to FILE")->type_name("FILE");
}

void Cli::parse(int argc, char** argv) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with code 0; anything else is the user's: exit 2.
    const int code = app_.exit(e);
    std::exit(code == 0 ? 0 : 2);
  }
}

void write_report(const std::string& path, const nlohmann::json& j) {
  if (path.empty()) return;
  write_text_atomic(path, j.dump(2) + "\n");
}

}  // namespace tomo::bench
