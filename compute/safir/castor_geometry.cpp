// The CASToR `.geom` file of a safir scanner (keys as CASToR's iScannerPET reads them).
#include "compute/safir/castor_geometry.hpp"

#include <sstream>

#include "compute/io/atomic_file.hpp"

namespace tomo::safir {

std::string castor_scanner_name(const Scanner& sc) {
  return "SAFIR_" + std::to_string(sc.rings) + "x" + std::to_string(sc.crystals);
}

std::string castor_geometry_text(const Scanner& sc, const ImageBox& box) {
  std::ostringstream o;
  o.precision(12);  // 1e-12 relative: far below a crystal, and 2.2 - 2.0 prints as 0.2
  o << "# CASToR scanner description of a tomoraster safir scanner: " << sc.rings << " rings x " << sc.crystals
    << " crystals on a cylinder.\n"
    << "# Crystal index = ring * " << sc.crystals << " + detector, as in the list-mode file; positions in mm,\n"
    << "# detector d at angle 2 pi d / " << sc.crystals << " from +x towards +y, ring r at z = pitch * (r - "
    << 0.5 * (sc.rings - 1) << ").\n"
    << "# LORs join the crystals' front-face centres (mean depth of interaction 0).\n"
    << "modality : PET\n"
    << "scanner name : " << castor_scanner_name(sc) << "\n"
    << "number of elements : " << sc.crystal_count() << "\n"
    << "number of layers : 1\n"
    << "voxels number transaxial : " << box.n[0] << "\n"
    << "voxels number axial : " << box.n[2] << "\n"
    << "field of view transaxial : " << box.n[0] * box.voxel_mm << "\n"
    << "field of view axial : " << box.n[2] * box.voxel_mm << "\n"
    << "description : safir scanner written by tomoraster\n"
    << "scanner radius : " << sc.radius() << "\n"
    << "number of rsectors : " << sc.crystals << "\n"
    << "number of crystals transaxial : 1\n"
    << "number of crystals axial : " << sc.rings << "\n"
    << "crystals size depth : " << sc.depth_mm << "\n"
    << "crystals size transaxial : " << sc.crystal_mm << "\n"
    << "crystals size axial : " << sc.crystal_mm << "\n"
    << "rsectors first angle : -90\n"
    << "number of rsectors axial : 1\n"
    << "rsector gap transaxial : 0\n"
    << "rsector gap axial : 0\n"
    << "number of modules transaxial : 1\n"
    << "number of modules axial : 1\n"
    << "number of submodules transaxial : 1\n"
    << "number of submodules axial : 1\n"
    << "crystal gap transaxial : 0\n"
    << "crystal gap axial : " << sc.pitch_mm - sc.crystal_mm << "\n"
    << "mean depth of interaction : 0\n"
    << "min angle difference : 0\n"
    << "rotation direction : CCW\n";
  return o.str();
}

void write_castor_geometry(const std::filesystem::path& geom, const Scanner& sc, const ImageBox& box) {
  write_text_atomic(geom, castor_geometry_text(sc, box));
}

}  // namespace tomo::safir
