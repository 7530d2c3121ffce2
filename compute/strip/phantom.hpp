// The 2D ellipse phantom of [Bialas2015] Appendix A. Table x is along the strips (our z),
// table y is across them (our y); φ rotates counter-clockwise in that (x, y) plane.
// Where ellipses overlap the topmost row wins (not a sum).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "compute/strip/geometry.hpp"

namespace tomo {
class Scene;
}

namespace tomo::strip {

struct EllipseRow {
  double x, y;    // centre (mm): x along the strips (z), y across (y)
  double a, b;    // half-axes (mm) along the rotated x and y
  double phi;     // degrees, counter-clockwise
  double rho;     // relative density
  bool contains(double y_mm, double z_mm) const;
};

struct StripPhantom {
  std::vector<EllipseRow> rows;  // top row first: it wins where rows overlap

  static StripPhantom appendix_a();
  // Rows from an array of tables `key` (e.g. "strip.phantom": x, y, a, b, phi, rho);
  // Appendix A when the scene has none. InputError for a half-axis <= 0 or a negative rho.
  static StripPhantom from_scene(const Scene& scene, const std::string& key);

  double value_at(double y_mm, double z_mm) const;
  double max_value() const;
  // Bounding rectangle of all rows: {y_min, y_max, z_min, z_max}.
  std::array<double, 4> bounds() const;
  // Mean value over each pixel from s×s sub-samples (index order of StripGeometry::index).
  std::vector<double> rasterize(const StripGeometry& g, int supersampling) const;
};

}  // namespace tomo::strip
