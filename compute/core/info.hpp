// Sections of `tomoraster info` contributed by modules (OpenGL by renderer/, CUDA by
// cuda/), so the CLI prints what the binary was built with without knowing the backends.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace tomo {

struct InfoSection {
  std::string title;  // "OpenGL", "CUDA"
  int order = 0;      // printing order
  std::function<std::vector<std::string>()> lines;  // never throws: failures are lines too
};

std::vector<InfoSection>& info_sections();

struct InfoRegistrar {
  explicit InfoRegistrar(InfoSection s) { info_sections().push_back(std::move(s)); }
};

}  // namespace tomo
