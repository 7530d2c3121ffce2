#include "compute/core/info.hpp"

namespace tomo {

std::vector<InfoSection>& info_sections() {
  static std::vector<InfoSection> sections;
  return sections;
}

}  // namespace tomo
