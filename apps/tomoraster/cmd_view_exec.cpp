// `tomoraster view` in the headless binary: checks for a display, then execs
// tomoraster-view (next to this executable) with the same command line. The window,
// GLFW and Dear ImGui live only there, so `run`/`info` never need display libraries.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "apps/tomoraster/command.hpp"
#include "compute/core/error.hpp"
#include "apps/tomoraster/view_args.hpp"
#include "renderer/window/no_display.hpp"

namespace tomo::cli {
namespace {

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

// This process's own argv, as the kernel keeps it.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::size_t start = 0;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i] == '\0') {
      args.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  return args;
}

int run() {
  if (!env_set("DISPLAY") && !env_set("WAYLAND_DISPLAY"))
    throw UnavailableError(gl::no_display_message("neither DISPLAY nor WAYLAND_DISPLAY is set"));
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto viewer = self.parent_path() / TOMO_VIEWER_EXE;
  if (ec || ::access(viewer.c_str(), X_OK) != 0)
    throw UnavailableError(std::string("this build has no viewer (") + viewer.string() +
                           " is missing: it needs GLFW and Dear ImGui (libimgui-dev) at build time)");
  std::vector<std::string> args = own_arguments();
  if (args.empty()) throw Error("cannot read /proc/self/cmdline");
  args[0] = viewer.string();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  ::execv(viewer.c_str(), argv.data());
  throw Error(std::string("cannot start ") + viewer.string() + ": " + std::strerror(errno));
}

const CommandRegistrar kRegister({"view", add_view_command, run});

}  // namespace
}  // namespace tomo::cli
