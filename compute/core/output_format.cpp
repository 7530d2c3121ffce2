// Reading `output_format`: a string or a list of strings.
#include "compute/core/output_format.hpp"

#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"

namespace tomo {

ImageFormats output_formats(const Scene& scene) {
  constexpr const char* kKey = "output_format";
  if (!scene.has(kKey)) {
    (void)scene.get<std::string>(kKey, "nifti");  // the default, into the resolved scene
    return {};
  }
  const std::string usage = " must be \"nifti\", \"interfile\" or a list of them, e.g. [\"nifti\", \"interfile\"]";
  std::vector<std::string> names;
  try {
    names = {scene.get<std::string>(kKey, "nifti")};
  } catch (const InputError&) {
    try {
      names = scene.get<std::vector<std::string>>(kKey, {});
    } catch (const InputError&) {
      throw InputError(scene.where(kKey) + usage);
    }
  }
  if (names.empty()) throw InputError(scene.where(kKey) + " is an empty list; it" + usage);
  ImageFormats f{.nifti = false, .interfile = false};
  for (const std::string& n : names) {
    if (n != "nifti" && n != "interfile") throw InputError(scene.where(kKey) + " has '" + n + "'; it" + usage);
    bool& flag = n == "nifti" ? f.nifti : f.interfile;
    if (flag) throw InputError(scene.where(kKey) + " lists '" + n + "' twice");
    flag = true;
  }
  return f;
}

}  // namespace tomo
