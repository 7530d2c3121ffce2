// C-arm short-scan cone-beam geometry (RabbitCT: Siemens Artis zee, 496 projections over 200°,
// 1248×960 flat detector at 0.32 mm) and the 3×4 projection matrices built from it.
#pragma once
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "compute/fdk/cone_view.hpp"
#include "compute/fdk/matrix.hpp"

namespace tomo {
class Scene;
}

namespace tomo::fdk {

// Circular orbit about the z axis. Source at D_si·e_s(β), e_s = (cos β, sin β, 0); the detector
// plane is at distance D_sd from the source, columns along e_u = (−sin β, cos β, 0), rows along +z;
// pixel (i, j) has its centre at integer (u, v) = (i, j); the central ray hits (u0, v0).
struct CArmGeometry {
  int projections = 496;
  double arc_deg = 200.0;     // total scan arc; β_n = start + n·arc/(N−1)
  double start_deg = 0.0;
  int sx = 1248, sy = 960;    // detector columns, rows
  double pixel_mm = 0.32;
  double source_iso_mm = 785.0;   // D_si (Artis zee)
  double source_det_mm = 1200.0;  // D_sd (source–image distance)
  // Orbits fitted to users' matrices (orbit.hpp) set these; the scene's C-arm leaves them alone.
  double principal_u = std::numeric_limits<double>::quiet_NaN();  // central-ray pixel; NaN: centre
  double principal_v = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> angles_deg;  // β_n per projection, increasing; empty: start + n·arc/(N−1)
  bool u_along_rotation = true;    // false: columns run against the rotation (Parker's γ flips)
  // Detector tilts about its centre (degrees), TIGRE's rotDetector: yaw turns it in its own plane
  // (about the central ray), pitch about its column axis, roll about its row axis (the rotation
  // axis). FDK's weights ignore them (its orbit stays circular); the projectors and simulator
  // use them.
  double roll_deg = 0.0, pitch_deg = 0.0, yaw_deg = 0.0;

  double u0() const { return principal_u == principal_u ? principal_u : 0.5 * (sx - 1); }
  double v0() const { return principal_v == principal_v ? principal_v : 0.5 * (sy - 1); }
  double step_rad() const;             // Δβ (mean step: arc/(N−1))
  double angle_rad(int n) const;       // β_n
  // The angular weight of projection n in FDK's sum: the step, or for listed angles half the
  // distance between the neighbours (the one-sided step at either end).
  double angle_weight_rad(int n) const;
  double fan_half_angle_rad() const;   // γ_max at the detector's outer column edge
  // The shortest arc FDK's Parker weights take: 180° + 2·γ_max.
  double short_scan_arc_deg() const;
  // Pixel spacing on the virtual detector through the isocentre (mm).
  double virtual_pixel_mm() const { return pixel_mm * source_iso_mm / source_det_mm; }

  bool tilted() const { return roll_deg != 0.0 || pitch_deg != 0.0 || yaw_deg != 0.0; }
  // View n as vectors (cone_view.hpp): what matrix(n) and detector_point(n, ...) are made of.
  ConeView view(int n) const;

  Vec3d source(int n) const;
  // World position (mm) of detector point (u, v) of projection n (pixel units).
  Vec3d detector_point(int n, double u, double v) const;
  // Matrix normalised so that w = 1 at the isocentre: 1/w² is then FDK's distance weight
  // (D_si / (D_si − x·e_s))², and (u, v) = (p0/w, p1/w) is the pixel hit by the ray through x.
  Mat34 matrix(int n) const;
  std::vector<Mat34> matrices() const;

  // InputError (prefixed with `where`) for non-physical values or, with `short_scan` (FDK's
  // need; iterative algorithms take any arc), a scan arc below π + 2γ_max.
  void validate(const std::string& where, bool short_scan = true) const;
  // Keys under `prefix` (e.g. "fdk.geometry."): projections, arc_deg, start_deg, detector_columns,
  // detector_rows, pixel_mm, source_iso_mm, source_det_mm, detector_offset_u_mm and
  // detector_offset_v_mm (where the central ray meets the detector, from its centre, along the
  // columns and rows), angles_deg (every view's angle, increasing; sets projections, start_deg
  // and arc_deg), detector_roll_deg, detector_pitch_deg, detector_yaw_deg. Missing keys keep the
  // defaults above.
  static CArmGeometry from_scene(const Scene& scene, const std::string& prefix, const CArmGeometry& defaults,
                                 bool short_scan = true);
  static CArmGeometry from_scene(const Scene& scene, const std::string& prefix, bool short_scan = true);
};

}  // namespace tomo::fdk
