// `tomoraster crosscheck [SCENE] [--set k=v]...`: every available backend of the scene's
// problem against the cpu reference; non-zero exit above the problem's tolerance.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "apps/tomoraster/command.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/report.hpp"
#include "apps/tomoraster/scene_args.hpp"

namespace tomo::cli {
namespace {

struct CrosscheckArgs {
  std::string scene;
  std::vector<std::string> sets;
  std::string report;
  bool force = false;
} args;

// The report file is checked before the (long) comparison: never an existing file without
// --force, and a folder we can write to (a probe file proves it, also for root).
void check_report_target(const std::filesystem::path& file) {
  std::error_code ec;
  const auto st = std::filesystem::status(file, ec);
  if (std::filesystem::is_directory(st)) throw InputError("--report '" + file.string() + "' is a directory");
  if (std::filesystem::exists(st) && !args.force)
    throw InputError("--report '" + file.string() + "' exists; use --force to replace it");
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : ".";
  const std::filesystem::path probe = dir / (".tomoraster-probe-" + std::to_string(::getpid()));
  if (!std::ofstream(probe)) throw InputError("--report '" + file.string() + "': cannot write in '" + dir.string() + "'");
  std::filesystem::remove(probe, ec);
}

CLI::App* setup(CLI::App& root) {
  auto* sub = root.add_subcommand("crosscheck", "Compare every available backend with the cpu reference");
  sub->footer(scene_help_footer({"tomoraster crosscheck strip_default.toml",
                                 "tomoraster crosscheck glpet_small.toml --report out/glpet-crosscheck.json",
                                 "tomoraster crosscheck fdk_default.toml --set fdk.crosscheck.L=48"}));
  sub->add_option("scene", args.scene, "Scene file (.toml); none: the embedded default");
  sub->add_option("--set", args.sets, "Override a scene value: key=value (repeatable)")->take_all();
  sub->add_option("--report", args.report, "Also write the comparison as JSON to this file (docs/crosscheck.md)");
  sub->add_flag("--force", args.force, "Replace an existing --report file");
  return sub;
}

int run() {
  Scene scene = load_scene_arg(args.scene, args.sets);
  const ProblemInfo& problem = ProblemRegistry::instance().find(scene.problem());
  if (!problem.crosscheck) throw InputError("problem '" + problem.name + "' has no crosscheck");
  refuse_gpus_option("crosscheck");  // each backend is compared on one device
  check_scene_keys(problem, scene);
  if (!args.report.empty()) check_report_target(args.report);
  RunReport report;
  report.set("problem", problem.name);
  CrosscheckContext ctx{scene, report};
  int status = problem.crosscheck(ctx);
  // The comparison reads fewer keys than a run: a run's keys are no typo here.
  if (!problem.read_config)
    for (const auto& key : scene.unused_keys()) log_warn(scene.source(), ": key '", key, "' was not used (typo?)");
  if (!args.report.empty()) report.write(args.report);
  return status == 0 ? kExitOk : kExitFailure;
}

const CommandRegistrar kRegister({"crosscheck", setup, run});

}  // namespace
}  // namespace tomo::cli
