#include "compute/core/runtime_options.hpp"

namespace tomo {

RuntimeOptions& runtime_options() {
  static RuntimeOptions options;
  return options;
}

}  // namespace tomo
