#include "apps/tomoraster/scene_args.hpp"

#include <filesystem>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::cli {

Scene load_scene_arg(const std::string& path, const std::vector<std::string>& sets) {
  Scene scene;
  if (path.empty()) {
    scene = Scene::load_string(embedded_default_scene(), "<embedded default.toml>");
  } else if (std::filesystem::exists(path)) {
    scene = Scene::load_file(path);
  } else if (auto text = embedded_scene(std::filesystem::path(path).filename().string()); text.data()) {
    log_info(path, " not found on disk: using the embedded scene of that name");
    scene = Scene::load_string(text, "<embedded " + std::filesystem::path(path).filename().string() + ">");
  } else {
    throw InputError(path + ": scene file not found");
  }
  for (const auto& s : sets) scene.apply_override(s);
  return scene;
}

std::string scene_stem(const std::string& path) {
  return path.empty() ? "default" : std::filesystem::path(path).stem().string();
}

}  // namespace tomo::cli
