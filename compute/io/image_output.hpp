// The one writer of a run's images: `stem` in every format the scene's `output_format` asks for
// (OutputDir::image_formats): `stem.nii` (NIfTI-1) and/or `stem.hv` + `stem.v` (Interfile),
// each through OutputDir::file, so report.json lists every file written.
#pragma once
#include <string>

#include "compute/core/volume.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/output_dir.hpp"

namespace tomo {

void write_image(OutputDir& out, const std::string& stem, const VolumeF& volume, const NiftiMeta& meta = NiftiMeta{});
void write_image(OutputDir& out, const std::string& stem, const NiftiSeries& series, const NiftiMeta& meta = NiftiMeta{});

}  // namespace tomo
