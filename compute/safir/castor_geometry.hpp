// The CASToR scanner description of the safir scanner: a generic `.geom` file, as CASToR's
// config/scanner folder holds, from which CASToR computes every crystal's position (its
// iScannerPET::ComputeLUT). Written beside the CASToR list-mode so a CASToR user reconstructs
// the same events: the `.cdh` header's "Scanner name" is the file's stem.
#pragma once
#include <filesystem>
#include <string>

#include "compute/safir/scanner.hpp"

namespace tomo::safir {

// "SAFIR_<rings>x<crystals>": the `.cdh` header's "Scanner name" and the `.geom` file's stem.
std::string castor_scanner_name(const Scanner& sc);

// The `.geom` text: one crystal per rsector (rsectors = crystals per ring, first angle −90°,
// counter-clockwise, so CASToR's rsector i lies at our angle 2π i / crystals), rings as the
// axial crystals of each rsector (axial gap = pitch − crystal face), the front-face radius, and
// mean depth of interaction 0, so CASToR's LOR end points are our front-face centres. CASToR's
// crystal index (axial · rsectors + rsector) is then our id ring · crystals + detector. The
// default image (voxels and field of view) is the scene's image box.
std::string castor_geometry_text(const Scanner& sc, const ImageBox& box);
void write_castor_geometry(const std::filesystem::path& geom, const Scanner& sc, const ImageBox& box);

}  // namespace tomo::safir
