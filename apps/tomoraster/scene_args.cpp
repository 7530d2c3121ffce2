#include "apps/tomoraster/scene_args.hpp"

#include <filesystem>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/runtime_options.hpp"

namespace tomo::cli {

Scene load_scene_arg(const std::string& path, const std::vector<std::string>& sets) {
  Scene scene;
  if (path.empty()) {
    scene = Scene::load_string(embedded_default_scene(), "<embedded default.toml>");
  } else if (std::filesystem::is_directory(path)) {
    throw InputError(path + ": is a directory, not a scene file");
  } else if (std::filesystem::exists(path)) {
    scene = Scene::load_file(path);
  } else if (std::filesystem::path(path).has_parent_path()) {
    // Only a bare name falls back to the embedded scenes: a path that names a folder means
    // that file, and a typo in it must not run another scene.
    throw InputError(path + ": scene file not found");
  } else if (auto text = embedded_scene(path); text.data()) {
    log_info(path, " not found on disk: using the embedded scene of that name");
    scene = Scene::load_string(text, "<embedded " + path + ">");
  } else {
    throw InputError(path + ": scene file not found");
  }
  for (const auto& s : sets) scene.apply_override(s);
  return scene;
}

std::filesystem::path default_output(const std::string& stem) {
  std::filesystem::path base = std::filesystem::path("out") / stem;
  if (!std::filesystem::exists(base)) return base;
  for (int n = 2;; ++n) {
    auto p = std::filesystem::path("out") / (stem + "-" + std::to_string(n));
    if (!std::filesystem::exists(p)) return p;
  }
}

void check_scene_keys(const ProblemInfo& problem, const Scene& scene) {
  if (!problem.read_config) return;
  Scene probe = scene;
  problem.read_config(probe);
  probe.check_unknown_keys();
}

RunReport run_into(const ProblemInfo& problem, const Scene& scene, const std::string& backend, OutputDir& out,
                   const std::function<void(RunReport&)>& annotate) {
  const auto started = runtime_options().started;
  RunReport report;
  report.begin_stages(started == std::chrono::steady_clock::time_point{} ? std::chrono::steady_clock::now() : started);
  {
    auto s = report.stage("startup");
    check_scene_keys(problem, scene);
  }
  report.set("problem", problem.name);
  report.set("scene_source", scene.source());
  if (annotate) annotate(report);
  RunContext ctx{scene, backend, out, report};
  {
    auto total = report.time("total");
    problem.run(ctx);
  }
  {
    auto s = report.stage("writing");
    scene.check_unknown_keys();  // before anything is published
    report.set("scene", scene.to_json());
    report.set("outputs", out.files());
  }
  report.finish_stages();  // the wall time up to here: writing report.json itself is not in it
  report.write(out.file("report.json"));
  out.commit();
  return report;
}

std::string scene_stem(const std::string& path) {
  return path.empty() ? "default" : std::filesystem::path(path).stem().string();
}

std::string scene_help_footer(const std::vector<std::string>& examples) {
  std::string s = "Examples:\n";
  for (const auto& e : examples) s += "  " + e + "\n";
  s += "Embedded scenes (usable by name anywhere):";
  for (const auto& n : embedded_scene_names()) s += " " + n;
  return s;
}

}  // namespace tomo::cli
