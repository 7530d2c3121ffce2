// `tomoraster info`: what this binary was built with and what this machine offers:
// EGL/OpenGL, CUDA devices (or why none), problems and their backends.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>

#include "apps/tomoraster/command.hpp"
#include "compute/core/info.hpp"
#include "compute/core/registry.hpp"

namespace tomo::cli {
namespace {

CLI::App* setup(CLI::App& root) {
  return root.add_subcommand("info", "Print the GL context, CUDA devices, problems and backends");
}

int run() {
  std::printf("tomoraster %s\n", TOMO_VERSION);
  auto sections = info_sections();
  bool have_cuda = std::any_of(sections.begin(), sections.end(), [](auto& s) { return s.title == "CUDA"; });
  if (!have_cuda)
    sections.push_back({"CUDA", 20, [] {
                          return std::vector<std::string>{"not built into this binary (no CUDA compiler at configure time)"};
                        }});
  std::stable_sort(sections.begin(), sections.end(), [](auto& a, auto& b) { return a.order < b.order; });
  for (const auto& s : sections) {
    std::printf("\n%s\n", s.title.c_str());
    for (const auto& line : s.lines()) std::printf("  %s\n", line.c_str());
  }
  std::printf("\nProblems and backends\n");
  for (const ProblemInfo* p : ProblemRegistry::instance().all()) {
    std::printf("  %-8s %s\n", p->name.c_str(), p->summary.c_str());
    if (!p->backends) continue;
    for (const auto& [name, a] : p->backends())
      std::printf("    %-11s %s\n", name.c_str(), a.ok ? (a.software ? "available (software GL: auto prefers cpu)" : "available")
                                                : ("unavailable: " + a.why).c_str());
  }
  return kExitOk;
}

const CommandRegistrar kRegister({"info", setup, run});

}  // namespace
}  // namespace tomo::cli
