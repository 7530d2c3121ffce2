#include "compute/core/registry.hpp"

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

std::vector<const ProblemInfo*> ProblemRegistry::all() const {
  std::vector<const ProblemInfo*> out;
  for (const auto& [n, p] : problems_) out.push_back(&p);
  return out;
}

}  // namespace tomo
