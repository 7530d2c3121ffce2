// `[fdk.raw]` of a scene: a user's projection stack with its geometry (matrices, ASTRA cone_vec
// rows, TIGRE's fields or the scene's C-arm), read and checked against each other, as line
// integrals ready for the FDK pre-processing or the iterative algorithms.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "compute/fdk/geometry.hpp"
#include "compute/fdk/matrix.hpp"
#include "compute/fdk/raw_stack.hpp"
#include "compute/fdk/tigre_geometry.hpp"

namespace tomo {
class Scene;
}

namespace tomo::fdk {

struct RawInput {
  CArmGeometry geometry;           // the weights' orbit: fitted to the matrices, or the scene's C-arm
  std::vector<Mat34> matrices;     // for the back-projection, w = 1 at the isocentre
  std::vector<float> line_integrals;  // n-major, geometry.sx·geometry.sy each
  std::string source;              // "matrices from FILE" | "scene C-arm" | ...
};

// The keys of [fdk.raw] (and fdk.layout, [fdk.tigre]), read and validated whichever source runs;
// the files are opened by load_raw_input only.
struct RawOptions {
  std::string projections;  // fdk.raw.projections: the stack, or a folder of TIFF files ("" = none)
  std::string matrices;     // fdk.raw.matrices: a matrix file
  std::string astra_vectors;  // fdk.raw.astra_vectors: ASTRA cone_vec rows (12 numbers per view)
  std::optional<TigreGeometry> tigre;  // [fdk.tigre]
  bool intensity = false;   // fdk.raw.intensity: the stack holds intensities, not line integrals
  double i0 = 0.0;          // fdk.raw.i0: the unattenuated intensity
  std::string flat, dark;   // fdk.raw.flat / fdk.raw.dark: flat- and dark-field images (averaged)
  StackLayout layout = StackLayout::projections;  // fdk.layout
  bool given() const { return !projections.empty(); }
  static RawOptions from_scene(const Scene& s);
};

// The path of a stack key (fdk.raw.projections, flat, dark), which may name a folder of TIFF
// files: a folder is resolved as the scene resolves files (relative to the scene file unless
// given with --set); anything else goes through the scene's file gate. "" when the key is unset.
std::filesystem::path stack_location(const Scene& s, const char* key);

// Reads the stack and geometry of `o` (paths resolved by `s`, which also names keys in errors).
// `scene_geometry` ([fdk.geometry]) is used when no other geometry is given. Every count and
// size is checked before the line integrals are made: InputError in one line naming the stack's
// shape as read under fdk.layout and the geometry's.
RawInput load_raw_input(const Scene& s, const RawOptions& o, const CArmGeometry& scene_geometry, bool parker);
inline RawInput load_raw_input(const Scene& s, const CArmGeometry& scene_geometry, bool parker) {
  return load_raw_input(s, RawOptions::from_scene(s), scene_geometry, parker);
}

}  // namespace tomo::fdk
