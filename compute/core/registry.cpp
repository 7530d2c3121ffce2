#include "compute/core/registry.hpp"

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

void note_cpu_fallback(const std::string& chosen, const std::string& why, const WorkEstimate& work) {
  std::string line = "backend auto: no GPU backend can run here (" + why + "); running on " +
                     (chosen == "cpu" ? std::string("the cpu") : chosen + " (emulated on the cpu)");
  if (work.units > 0 && work.cpu_units_per_s > 0)
    line += ", " + duration_words(work.units / work.cpu_units_per_s) + " of work at the cpu's rate";
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
