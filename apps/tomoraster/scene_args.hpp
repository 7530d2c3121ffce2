// Turning the SCENE argument and --set overrides into a Scene.
#pragma once
#include <string>
#include <vector>

#include <filesystem>
#include <functional>

#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/output_dir.hpp"

namespace tomo::cli {

// Empty path: the embedded default scene. A path that does not exist but names an
// embedded scene ("glpet_default.toml", "scenes/glpet_default.toml") uses that one.
Scene load_scene_arg(const std::string& path, const std::vector<std::string>& sets);
// "scenes/glpet_default.toml" → "glpet_default"; the default scene → "default".
std::string scene_stem(const std::string& path);
// Default output: out/<stem>, or the first out/<stem>-N that does not exist yet, so repeating a
// run never touches an earlier result.
std::filesystem::path default_output(const std::string& stem);
// Before any output or long work: the problem reads its settings from a copy of `scene`
// (ProblemInfo::read_config), then a key it does not know is an InputError with the nearest
// known key. Does nothing for a problem without read_config.
void check_scene_keys(const ProblemInfo& problem, const Scene& scene);
// The body of `run` and `fit` (and tomoraster.run in Python): runs `problem` on `scene` into
// `out` (an unknown scene key is an InputError, before the run where the problem can tell), writes report.json (problem, scene, outputs and what
// `annotate` adds) and commits the folder. Returns the report.
RunReport run_into(const ProblemInfo& problem, const Scene& scene, const std::string& backend, OutputDir& out,
                   const std::function<void(RunReport&)>& annotate = {});
// The --help footer of a command that takes a scene: its examples, then the embedded scenes.
std::string scene_help_footer(const std::vector<std::string>& examples);

}  // namespace tomo::cli
