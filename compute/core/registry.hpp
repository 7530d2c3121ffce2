// Registries of problems and of the backend implementations of each problem's operator.
// Modules register themselves with static registrars (the libraries are linked whole),
// so adding a problem or a backend touches no switch in apps/.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compute/core/error.hpp"

namespace tomo {

class Scene;
class OutputDir;
class RunReport;

// Conventional priorities for "auto".
inline constexpr int kPriorityCpu = 0;
inline constexpr int kPriorityGlRaster = 10;
inline constexpr int kPriorityGlCompute = 20;
inline constexpr int kPriorityCuda = 30;

// Availability of a backend on this machine, with the reason when it is not.
struct Availability {
  bool ok = false;
  std::string why;
  bool software = false;  // runs, but emulated on the CPU (Mesa llvmpipe): "auto" ranks it below cpu
};

// What a problem's runner gets from the CLI.
struct RunContext {
  const Scene& scene;
  std::string backend;  // as asked: a name or "auto"
  OutputDir& out;
  RunReport& report;
};

// What a problem's cross-check gets; returns the process exit status.
struct CrosscheckContext {
  const Scene& scene;
  RunReport& report;
};

struct ProblemInfo {
  std::string name;     // short name: scene `problem = "name"`, scene section [name]
  std::string summary;  // one line for `tomoraster info`
  std::function<void(RunContext&)> run;
  std::function<int(CrosscheckContext&)> crosscheck;  // may be empty
  // Backend names with their availability here, for `tomoraster info`.
  std::function<std::vector<std::pair<std::string, Availability>>()> backends;
  bool multi_device = false;  // runs on several GPUs with --gpus (docs/multigpu.md)
  // Reads and validates every scene key the run reads (the problem's settings), without any
  // work or output: the CLI calls it on a copy of the scene before the output folder exists,
  // so an unknown key or a bad value stops the run at once. May be empty (then unknown keys
  // are found when the run has read its settings, and nothing is published).
  std::function<void(const Scene&)> read_config;
};

class ProblemRegistry {
 public:
  static ProblemRegistry& instance();
  void add(ProblemInfo info);
  // Throws InputError listing the known problems.
  const ProblemInfo& find(const std::string& name) const;
  std::vector<const ProblemInfo*> all() const;

 private:
  std::map<std::string, ProblemInfo> problems_;
};

struct ProblemRegistrar {
  explicit ProblemRegistrar(ProblemInfo info) { ProblemRegistry::instance().add(std::move(info)); }
};

// A run's work in the units its cpu cost is known in, so that "auto" falling back to the cpu
// can say how long to expect: units / (cpu_units_per_core_s × the cores OpenMP uses) seconds.
// Each problem states its cost model where it resolves its backend. Zero: not known.
struct WorkEstimate {
  double units = 0;                 // e.g. line samples, kernel evaluations
  double cpu_units_per_core_s = 0;  // rough rate of one core of the cpu backend (measured once)
};

// Why one backend "auto" passed over cannot serve: its name and the reason.
struct PassedOver {
  std::string name;
  std::string why;
};

// The one line "auto" prints when a GPU backend is built but cannot run here and the choice is
// the cpu (or a GPU emulated on it): what was asked, what was chosen, why the GPU backends cannot
// run (backends with the same reason grouped, details left to `tomoraster info`) and, when `work`
// is known, the time to expect on this machine's cores. Once per process for the same text.
void note_cpu_fallback(const std::string& chosen, const std::vector<PassedOver>& passed_over, const WorkEstimate& work);
// The time `work` takes on `cores` cores of the cpu backend; 0 when not known.
double cpu_seconds(const WorkEstimate& work, int cores);
// "about 40 s", "about 3 min", "about 2.5 h".
std::string duration_words(double seconds);

// One registry per operator interface Op (e.g. tomo::demo::Voxelizer).
// `priority` orders "auto": the highest available wins.
template <class Op>
class BackendRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Op>()>;
  struct Entry {
    std::string name;
    int priority = 0;
    std::function<Availability()> available;
    Factory make;
  };

  static BackendRegistry& instance() {
    static BackendRegistry registry;
    return registry;
  }
  void add(Entry e) { entries_[e.name] = std::move(e); }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, e] : entries_) out.push_back(name);
    return out;
  }
  Availability available(const std::string& name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) return {false, "not built into this binary"};
    return it->second.available ? it->second.available() : Availability{true, {}};
  }
  // Names that are available here, best first.
  std::vector<std::string> available_names() const {
    std::vector<const Entry*> ok;
    for (const auto& [name, e] : entries_)
      if (available(name).ok) ok.push_back(&e);
    auto rank = [this](const Entry* e) { return available(e->name).software ? e->priority - 100 : e->priority; };
    std::stable_sort(ok.begin(), ok.end(), [&](auto* a, auto* b) { return rank(a) > rank(b); });
    std::vector<std::string> out;
    for (auto* e : ok) out.push_back(e->name);
    return out;
  }
  // "auto" → best available; unknown or unavailable names → InputError/UnavailableError.
  // An "auto" that lands on the cpu while a GPU backend is built says so (note_cpu_fallback).
  std::string resolve(const std::string& name, const WorkEstimate& work = {}) const {
    if (name == "auto") {
      auto names = available_names();
      if (names.empty()) throw UnavailableError("no backend is available on this machine");
      const std::string& best = names.front();
      if (best == "cpu" || available(best).software) {
        std::vector<PassedOver> passed_over;
        for (const auto& [n, e] : entries_)
          if (e.priority > kPriorityCpu && n != best)
            if (const Availability a = available(n); !a.ok || a.software)
              passed_over.push_back({n, a.ok ? std::string("emulated on the cpu") : a.why});
        if (!passed_over.empty()) note_cpu_fallback(best, passed_over, work);
      }
      return best;
    }
    if (!entries_.count(name)) {
      std::string known;
      for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
      throw InputError("unknown backend '" + name + "' (this problem has: " + known + ", auto)");
    }
    if (auto a = available(name); !a.ok)
      throw UnavailableError("backend '" + name + "' is not available here: " + a.why);
    return name;
  }
  std::unique_ptr<Op> create(const std::string& name) const {
    return entries_.at(resolve(name)).make();
  }

 private:
  std::map<std::string, Entry> entries_;
};

template <class Op>
struct BackendRegistrar {
  explicit BackendRegistrar(typename BackendRegistry<Op>::Entry e) {
    BackendRegistry<Op>::instance().add(std::move(e));
  }
};

// The `backends` lister of a ProblemInfo whose operator interface is Op.
template <class Op>
std::function<std::vector<std::pair<std::string, Availability>>()> list_backends_of() {
  return [] {
    std::vector<std::pair<std::string, Availability>> out;
    auto& reg = BackendRegistry<Op>::instance();
    for (const auto& n : reg.names()) out.emplace_back(n, reg.available(n));
    return out;
  };
}


}  // namespace tomo
