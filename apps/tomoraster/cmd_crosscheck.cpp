// `tomoraster crosscheck [SCENE] [--set k=v]...`: every available backend of the scene's
// problem against the cpu reference; non-zero exit above the problem's tolerance.
#include <CLI/CLI.hpp>

#include "apps/tomoraster/command.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "apps/tomoraster/scene_args.hpp"

namespace tomo::cli {
namespace {

struct CrosscheckArgs {
  std::string scene;
  std::vector<std::string> sets;
  std::string report;
} args;

CLI::App* setup(CLI::App& root) {
  auto* sub = root.add_subcommand("crosscheck", "Compare every available backend with the cpu reference");
  sub->add_option("scene", args.scene, "Scene file (.toml); none: the embedded default");
  sub->add_option("--set", args.sets, "Override a scene value: key=value (repeatable)")->take_all();
  sub->add_option("--report", args.report, "Also write the comparison as JSON to this file");
  return sub;
}

int run() {
  Scene scene = load_scene_arg(args.scene, args.sets);
  const ProblemInfo& problem = ProblemRegistry::instance().find(scene.problem());
  if (!problem.crosscheck) throw InputError("problem '" + problem.name + "' has no crosscheck");
  RunReport report;
  report.set("problem", problem.name);
  CrosscheckContext ctx{scene, report};
  int status = problem.crosscheck(ctx);
  if (!args.report.empty()) report.write(args.report);
  return status == 0 ? kExitOk : kExitFailure;
}

const CommandRegistrar kRegister({"crosscheck", setup, run});

}  // namespace
}  // namespace tomo::cli
