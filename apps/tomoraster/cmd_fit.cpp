// `tomoraster fit FILE.msr [--backend NAME] [-o DIR] [--force]`: a musrfit-style fit of an msr
// file. It runs the musr problem on a one-line scene, so apps/ needs nothing of compute/musr.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "apps/tomoraster/command.hpp"
#include "apps/tomoraster/scene_args.hpp"
#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/output_dir.hpp"

namespace tomo::cli {
namespace {

struct FitArgs {
  std::string msr;
  std::string output;
  std::string backend = "auto";
  std::vector<std::string> sets;
  bool force = false;
} args;

CLI::App* setup(CLI::App& root) {
  auto* sub = root.add_subcommand("fit", "Fit a μSR msr file (musrfit's format; PSI-BIN data beside it)");
  sub->footer(
      "Examples:\n"
      "  tomoraster fit run2650.msr                      # out/run2650: fitted msr, plots, report.json\n"
      "  tomoraster fit run2650.msr --backend cuda -o out/fit\n"
      "  tomoraster run musr_default.toml                # simulate eq. (5) data, write msr + bin, fit");
  sub->add_option("msr", args.msr, "msr file")->required();
  sub->add_option("-o,--output", args.output, "Output directory (default: out/<msr name>[-N])");
  sub->add_option("--backend", args.backend, "cpu | gl-compute | cuda | auto (default auto)");
  sub->add_option("--set", args.sets, "Override a musr option: key=value, e.g. musr.threads=4 (repeatable)")->take_all();
  sub->add_flag("--force", args.force, "Write into an existing output directory");
  return sub;
}

int run() {
  const std::filesystem::path msr = std::filesystem::absolute(args.msr);
  if (!std::filesystem::is_regular_file(msr)) throw InputError("msr file '" + args.msr + "' does not exist");
  const std::string text = "problem = \"musr\"\n[musr]\nmsr = " + nlohmann::json(msr.string()).dump() + "\n";
  Scene scene = Scene::load_string(text, "fit " + args.msr);
  for (const auto& s : args.sets) scene.apply_override(s);
  const ProblemInfo& problem = ProblemRegistry::instance().find("musr");
  OutputDir out(args.output.empty() ? default_output(msr.stem().string()) : std::filesystem::path(args.output), args.force);
  run_into(problem, scene, args.backend, out, [&](RunReport& r) { r.set("msr", msr.string()); });
  std::printf("wrote %zu files to %s\n", out.files().size(), out.final_dir().string().c_str());
  return kExitOk;
}

const CommandRegistrar kRegister({"fit", setup, run});

}  // namespace
}  // namespace tomo::cli
