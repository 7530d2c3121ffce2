// `tomoraster fit FILE.msr [--backend NAME] [-o DIR] [--force]`: a musrfit-style fit of an msr
// file. It runs the musr problem on a one-line scene, so apps/ needs nothing of compute/musr.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "apps/tomoraster/command.hpp"
#include "apps/tomoraster/scene_args.hpp"
#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/input_file.hpp"
#include "compute/io/output_dir.hpp"

namespace tomo::cli {
namespace {

// `fit`'s own status: files written, but χ² not finite, HESSE failed or EDM too large.
constexpr int kExitFitNotConverged = 4;

struct FitArgs {
  std::string msr;
  std::string output;
  std::string backend = "auto";
  std::vector<std::string> sets;
  bool force = false;
  bool auto_t0 = false;
  int auto_t0_offset = -1;
} args;

CLI::App* setup(CLI::App& root) {
  auto* sub = root.add_subcommand("fit", "Fit a μSR msr file as musrfit does (its data files beside the msr or in the working directory)");
  sub->footer(
      "Data formats (the RUN line's fourth token): PSI-BIN, PSI-MDU, MUD, MUSR-ROOT, ROOT-NPP, ROOT-PPC,\n"
      "NEXUS (HDF4 and HDF5), and ASCII, DB, DAT x-y data for fittype 8. docs/musr.md lists the fit types,\n"
      "theory functions, user functions and commands, and every difference from musrfit.\n"
      "\n"
      "Exit status: 0 the fit converged; 4 the fit did not converge (files written, the fitted msr's\n"
      "STATISTIC says so); 2 bad input (one line naming file and field); 1 internal error.\n"
      "\n"
      "Examples:\n"
      "  tomoraster fit run2650.msr                      # out/run2650: fitted msr, plots, report.json\n"
      "  tomoraster fit run2650.msr --backend cuda -o out/fit\n"
      "  tomoraster fit 3110_tutorial.msr --auto-t0        # t0 at the prompt peaks first (as musrt0 -g)\n"
      "  tomoraster run musr_default.toml                # simulate eq. (5) data, write msr + bin, fit");
  sub->add_option("msr", args.msr, "msr file")->required();
  sub->add_option("-o,--output", args.output, "Output directory (default: out/<msr name>[-N])");
  sub->add_option("--backend", args.backend, "cpu | gl-compute | cuda | auto (default auto)");
  sub->add_option("--set", args.sets, "Override a musr option: key=value, e.g. musr.threads=4 (repeatable)")->take_all();
  sub->add_flag("--force", args.force, "Write into an existing output directory");
  sub->add_flag("--auto-t0", args.auto_t0,
                "Set every histogram's t0 at its prompt peak (bin of maximum counts) and the data range from t0 + offset "
                "to the end, as musrt0 -g; the fitted msr carries them");
  sub->add_option("--auto-t0-offset", args.auto_t0_offset, "With --auto-t0: bins from t0 to the first good bin (default: 10 ns)")
      ->check(CLI::Range(0, 32767));
  return sub;
}

// True for the names a fit writes into its output folder besides <stem>_fit.msr (which never
// equals its input's name): report.json and run<N>.png.
bool fit_output_name(const std::string& name) {
  if (name == "report.json") return true;
  if (!name.starts_with("run") || !name.ends_with(".png") || name.size() <= 7) return false;
  const std::string digits = name.substr(3, name.size() - 7);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// `--force` into the msr's own folder replaces same-named files: never the msr itself.
void refuse_overwriting_input(const std::filesystem::path& dir, const std::filesystem::path& msr) {
  std::error_code ec;
  if (!std::filesystem::equivalent(dir, msr.parent_path(), ec) || ec) return;
  if (fit_output_name(msr.filename().string()))
    throw InputError("msr file '" + args.msr + "' has the name of an output of the fit and the output folder is its own: choose another -o");
}

int run() {
  const std::filesystem::path msr = std::filesystem::absolute(args.msr);
  // The reader's gate, before any output folder: a folder, FIFO or device says what it is.
  std::error_code ec;
  if (!std::filesystem::exists(msr, ec)) throw InputError("msr file '" + args.msr + "' does not exist");
  io::check_input_file(args.msr, std::uintmax_t(64) << 20, "msr file");
  const std::string text = "problem = \"musr\"\n[musr]\nmsr = " + nlohmann::json(msr.string()).dump() + "\n";
  Scene scene = Scene::load_string(text, "fit " + args.msr);
  if (args.auto_t0_offset >= 0 && !args.auto_t0) throw InputError("--auto-t0-offset needs --auto-t0");
  if (args.auto_t0) scene.apply_override("musr.auto_t0=true");
  if (args.auto_t0_offset >= 0) scene.apply_override("musr.auto_t0_offset=" + std::to_string(args.auto_t0_offset));
  for (const auto& s : args.sets) scene.apply_override(s);
  const ProblemInfo& problem = ProblemRegistry::instance().find(scene.problem());  // reads `problem`: no unused-key warning
  if (!runtime_options().gpus.empty() && !problem.multi_device)
    throw InputError("--gpus: fit runs on one device; choose it with --cuda-device (docs/multigpu.md)");
  const std::filesystem::path dir = args.output.empty() ? default_output(msr.stem().string()) : std::filesystem::path(args.output);
  refuse_overwriting_input(dir, msr);
  OutputDir out(dir, args.force);
  run_into(problem, scene, args.backend, out, [&](RunReport& r) { r.set("msr", msr.string()); });
  std::printf("wrote %zu files to %s\n", out.files().size(), out.final_dir().string().c_str());
  // A fit that failed or did not converge wrote its files (for a look) but is no result.
  std::ifstream report(out.final_dir() / "report.json");
  const auto j = nlohmann::json::parse(report, nullptr, false);
  if (!j.is_discarded() && j.contains("fit") && !j["fit"].value("converged", true)) {
    std::fprintf(stderr, "tomoraster: the fit did not converge (exit %d; see the warning above)\n", kExitFitNotConverged);
    return kExitFitNotConverged;
  }
  return kExitOk;
}

const CommandRegistrar kRegister({"fit", setup, run});

}  // namespace
}  // namespace tomo::cli
