// glpet PNG previews: LOR atlases (one panel per module pair) and the false-colour
// correspondence image of one voxel sample ([Toth2010] Fig. 8), made on the CPU.
#pragma once
#include <filesystem>
#include <span>
#include <string>

#include "compute/glpet/geometry.hpp"
#include "compute/io/png.hpp"
#include "compute/io/preview.hpp"

namespace tomo::glpet {

// The atlases of all pairs side by side; atlas row v = 0 at the bottom (GL texel order).
Image2D atlas_image(const Scanner& scanner, std::span<const float> lors);
// Readable previews (compute/io/preview.hpp): a volume's three MIPs, and the atlases as a grid
// of one captioned panel per module pair, each with its title and colour bar.
void write_mip_png(const std::filesystem::path& path, const VolumeF& v, const std::string& quantity,
                   const std::string& unit, ColorMap map);
void write_atlas_png(const std::filesystem::path& path, const Scanner& scanner, std::span<const float> lors,
                     const std::string& quantity);
// R = (r+1)/(N_a+1), G = (s+1)/(N_t+1) as in [Toth2010] Fig. 8, B = weight / max weight;
// pixel row Y = 0 at the bottom. Returns the maximum line weight.
double write_correspondence_png(const std::filesystem::path& path, const SystemModel& sys, std::size_t pair,
                                const Vec3& v);

}  // namespace tomo::glpet
