#include "compute/core/registry.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>

#include "compute/core/log.hpp"

namespace tomo {

ProblemRegistry& ProblemRegistry::instance() {
  static ProblemRegistry registry;
  return registry;
}

void ProblemRegistry::add(ProblemInfo info) {
  std::string name = info.name;
  problems_[name] = std::move(info);
}

const ProblemInfo& ProblemRegistry::find(const std::string& name) const {
  auto it = problems_.find(name);
  if (it != problems_.end()) return it->second;
  std::string known;
  for (const auto& [n, p] : problems_) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown problem '" + name + "' (known: " + known + ")");
}

std::string duration_words(double seconds) {
  if (seconds < 90) return str_cat("about ", std::max(1L, std::lround(seconds)), " s");
  if (seconds < 90 * 60) return str_cat("about ", std::lround(seconds / 60), " min");
  return str_cat("about ", std::round(seconds / 360) / 10, " h");
}

double cpu_seconds(const WorkEstimate& work, int cores) {
  if (!(work.units > 0) || !(work.cpu_units_per_core_s > 0) || cores < 1) return 0;
  return work.units / (work.cpu_units_per_core_s * cores);
}

void note_cpu_fallback(const std::string& chosen, const std::vector<PassedOver>& passed_over, const WorkEstimate& work) {
  // "cuda: no CUDA device; gl, gl-compute: emulated on the cpu": the first clause of each reason
  // (the driver's wording stays in `tomoraster info`), backends with the same reason together.
  std::vector<std::pair<std::string, std::string>> groups;  // reason → names, in registry order
  for (const PassedOver& p : passed_over) {
    const std::string reason = p.why.substr(0, p.why.find(" ("));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == reason; });
    if (it == groups.end()) groups.emplace_back(reason, p.name);
    else it->second += ", " + p.name;
  }
  std::string why;
  for (const auto& [reason, names] : groups) why += (why.empty() ? "" : "; ") + names + ": " + reason;
  std::string line = "backend auto chose " +
                     (chosen == "cpu" ? std::string("the cpu") : chosen + " (emulated on the cpu)") +
                     ": no GPU backend can run here (" + why + ")";
  const int cores = omp_get_max_threads();
  if (const double s = cpu_seconds(work, cores); s > 0)
    line += str_cat("; expect ", duration_words(s), " on this machine's ", cores, cores == 1 ? " core" : " cores");
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  if (said.insert(line).second) log_info(line);
}

std::vector<const ProblemInfo*> ProblemRegistry::all() const {
  std::vector<const ProblemInfo*> out;
  for (const auto& [n, p] : problems_) out.push_back(&p);
  return out;
}

}  // namespace tomo
