// `[fdk.raw]` of a scene: a user's projection stack with its matrices (or the scene's C-arm),
// read and checked against each other, as line integrals ready for the FDK pre-processing.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "compute/fdk/geometry.hpp"
#include "compute/fdk/matrix.hpp"

namespace tomo {
class Scene;
}

namespace tomo::fdk {

struct RawInput {
  CArmGeometry geometry;           // the weights' orbit: fitted to the matrices, or the scene's C-arm
  std::vector<Mat34> matrices;     // for the back-projection, w = 1 at the isocentre
  std::vector<float> line_integrals;  // n-major, geometry.sx·geometry.sy each
  std::string source;              // "matrices from FILE" | "scene C-arm"
};

// True when the scene names a stack (fdk.raw.projections).
bool has_raw_input(const Scene& s);
// Keys: fdk.raw.projections (file), fdk.raw.matrices (file or ""), fdk.raw.intensity, fdk.raw.i0.
// `scene_geometry` ([fdk.geometry]) is used when no matrix file is given; it must then agree with
// the stack's size. InputError naming the key or file on any mismatch.
RawInput load_raw_input(const Scene& s, const CArmGeometry& scene_geometry, bool parker);

}  // namespace tomo::fdk
