// Routing of image writes to the NIfTI and Interfile writers.
#include "compute/io/image_output.hpp"

#include "compute/io/interfile.hpp"

namespace tomo {
namespace {

template <class Image>
void write_all(OutputDir& out, const std::string& stem, const Image& image, const NiftiMeta& meta) {
  const ImageFormats f = out.image_formats();
  if (f.nifti) write_nifti(out.file(stem + ".nii"), image, meta);
  if (f.interfile) {
    const auto header = out.file(stem + ".hv");
    (void)out.file(interfile_data_path(stem + ".hv").string());  // written beside the header
    write_interfile(header, image, meta);
  }
}

}  // namespace

void write_image(OutputDir& out, const std::string& stem, const VolumeF& volume, const NiftiMeta& meta) {
  write_all(out, stem, volume, meta);
}

void write_image(OutputDir& out, const std::string& stem, const NiftiSeries& series, const NiftiMeta& meta) {
  write_all(out, stem, series, meta);
}

}  // namespace tomo
