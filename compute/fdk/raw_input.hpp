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

// The keys of [fdk.raw], read and validated whichever source runs; the files are opened by
// load_raw_input only.
struct RawOptions {
  std::string projections;  // fdk.raw.projections: the stack ("" = none)
  std::string matrices;     // fdk.raw.matrices: a matrix file ("" = the scene's C-arm)
  bool intensity = false;   // fdk.raw.intensity: the stack holds intensities, not line integrals
  double i0 = 0.0;          // fdk.raw.i0: the unattenuated intensity
  bool given() const { return !projections.empty(); }
  static RawOptions from_scene(const Scene& s);
};

// Reads the stack and matrices of `o` (paths resolved by `s`, which also names keys in errors).
// `scene_geometry` ([fdk.geometry]) is used when no matrix file is given; it must then agree with
// the stack's size. InputError naming the key or file on any mismatch.
RawInput load_raw_input(const Scene& s, const RawOptions& o, const CArmGeometry& scene_geometry, bool parker);
inline RawInput load_raw_input(const Scene& s, const CArmGeometry& scene_geometry, bool parker) {
  return load_raw_input(s, RawOptions::from_scene(s), scene_geometry, parker);
}

}  // namespace tomo::fdk
