// `tomoraster run [SCENE] [-o DIR] [--backend NAME] [--set k=v]... [--force]`
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>

#include <unistd.h>

#include "apps/tomoraster/command.hpp"
#include "compute/core/log.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/io/output_dir.hpp"
#include "apps/tomoraster/scene_args.hpp"

namespace tomo::cli {
namespace {

struct RunArgs {
  std::string scene;
  std::string output;
  std::string backend;
  std::vector<std::string> sets;
  bool force = false;
} args;

CLI::App* setup(CLI::App& root) {
  auto* sub = root.add_subcommand("run", "Run a scene headless (no SCENE: the embedded default scene)");
  sub->footer(scene_help_footer({"tomoraster run                                   # the default scene into out/default",
                                 "tomoraster run fdk_default.toml -o out/fdk --backend gl-compute",
                                 "tomoraster run strip_default.toml --set strip.iterations=20 --force -o out/strip"}));
  sub->add_option("scene", args.scene, "Scene file (.toml)");
  sub->add_option("-o,--output", args.output, "Output directory (default: out/<scene name>[-N])");
  sub->add_option("--backend", args.backend, "cpu | gl | gl-compute | cuda | auto (default: the scene's, else auto)");
  sub->add_option("--set", args.sets, "Override a scene value: key=value (repeatable)")->take_all();
  sub->add_flag("--force", args.force, "Write into an existing output directory");
  return sub;
}

// Under mpirun, processes other than rank 0 compute their ranks' shares and write nothing the
// user sees: their outputs go to a private folder under the temp directory, removed at once.
int run_as_helper(const ProblemInfo& problem, const Scene& scene, const std::string& backend) {
  const std::filesystem::path scratch = std::filesystem::temp_directory_path() /
                                        str_cat("tomoraster-rank", process_rank(), "-", ::getpid());
  struct Remove {
    std::filesystem::path p;
    ~Remove() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } remove{scratch};
  OutputDir out(scratch / "out", false);
  run_into(problem, scene, backend, out);
  return kExitOk;
}

int run() {
  Scene scene = load_scene_arg(args.scene, args.sets);
  const ProblemInfo& problem = ProblemRegistry::instance().find(scene.problem());
  if (!problem.multi_device) refuse_gpus_option("problem " + problem.name);
  if (process_group() && !problem.multi_device)
    throw InputError("problem " + problem.name + " runs in one process; start it without mpirun (docs/multigpu.md)");
  std::string backend = scene.get<std::string>("backend", "auto");
  if (!args.backend.empty()) backend = args.backend;
  std::filesystem::path dir = args.output.empty() ? default_output(scene_stem(args.scene)) : std::filesystem::path(args.output);

  check_scene_keys(problem, scene);  // an unknown key stops here, before the output folder exists
  if (process_rank() != 0) return run_as_helper(problem, scene, backend);
  OutputDir out(dir, args.force);
  run_into(problem, scene, backend, out);
  std::printf("wrote %zu files to %s\n", out.files().size(), out.final_dir().string().c_str());
  return kExitOk;
}

const CommandRegistrar kRegister({"run", setup, run});

}  // namespace
}  // namespace tomo::cli
