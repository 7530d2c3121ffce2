// Turning the SCENE argument and --set overrides into a Scene.
#pragma once
#include <string>
#include <vector>

#include "compute/core/scene.hpp"

namespace tomo::cli {

// Empty path: the embedded default scene. A path that does not exist but names an
// embedded scene ("glpet_default.toml", "scenes/glpet_default.toml") uses that one.
Scene load_scene_arg(const std::string& path, const std::vector<std::string>& sets);
// "scenes/glpet_default.toml" → "glpet_default"; the default scene → "default".
std::string scene_stem(const std::string& path);
// The --help footer of a command that takes a scene: its examples, then the embedded scenes.
std::string scene_help_footer(const std::vector<std::string>& examples);

}  // namespace tomo::cli
