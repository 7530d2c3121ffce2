// The scene's top-level `output_format`: the file formats every image of a run is written in,
// "nifti" (default), "interfile", or a list of both. Checked with the scene's keys, before the
// output folder exists.
#pragma once

namespace tomo {

class Scene;

struct ImageFormats {
  bool nifti = true;
  bool interfile = false;
  bool operator==(const ImageFormats&) const = default;
};

// InputError naming the key for anything but "nifti", "interfile" or a non-empty list of them
// without repeats.
ImageFormats output_formats(const Scene& scene);

}  // namespace tomo
