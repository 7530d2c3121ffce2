// The GL projector passes' host side (see ray_table.hpp).
#include "renderer/fdk/ray_table.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/fdk/ray_model.hpp"
#include "renderer/fdk/bindings.hpp"
#include "renderer/gl/engine.hpp"

namespace tomo::fdk {

std::vector<double> ray_table(const ConeGeometry& g) {
  std::vector<double> t(static_cast<std::size_t>(g.views()) * kRayDoubles, 0.0);
  for (int n = 0; n < g.views(); ++n) {
    const ViewRays r = view_rays(g.grid, g.matrices[n], n);
    double* row = t.data() + static_cast<std::size_t>(n) * kRayDoubles;
    for (const auto* v : {&r.base, &r.du, &r.dv, &r.d1, &r.du_mm, &r.dv_mm, &r.d1_mm}) {
      std::copy(v->begin(), v->end(), row);
      row += 3;
    }
  }
  return t;
}

std::vector<int> checked_views(const std::string& who, const ConeGeometry& g, std::size_t voxels, std::size_t pixels,
                               std::span<const int> views) {
  const std::size_t nv = views.empty() ? g.views() : views.size();
  if (voxels != g.grid.count() || pixels != nv * g.image_size())
    throw Error(str_cat(who, ": ", voxels, " voxels and ", pixels, " pixels given, the geometry has ", g.grid.count(),
                        " and ", nv * g.image_size()));
  for (int v : views)
    if (v < 0 || v >= g.views()) throw Error(str_cat(who, ": view ", v, " of ", g.views()));
  if (!views.empty()) return {views.begin(), views.end()};
  std::vector<int> all(g.views());
  for (int n = 0; n < g.views(); ++n) all[n] = n;
  return all;
}

int views_per_batch(const ConeGeometry& g, long long max_block, int cap) {
  std::size_t bytes = 256ull << 20;
  if (max_block > 0) bytes = std::min<std::size_t>(bytes, static_cast<std::size_t>(max_block));
  const std::size_t image = std::max<std::size_t>(1, g.image_size() * sizeof(float));
  return static_cast<int>(std::clamp<std::size_t>(bytes / image, 1, static_cast<std::size_t>(std::max(cap, 1))));
}

long long max_samples(const Grid3& grid, double step_mm) {
  double d2 = 0;
  for (int a = 0; a < 3; ++a) {
    const double side = (grid.dims[a] + 1) * grid.voxel_mm[a];
    d2 += side * side;
  }
  return static_cast<long long>(std::ceil(std::sqrt(d2) / step_mm)) + 1;
}

void check_loop_budget(const std::string& who, long long iterations) {
  const long long limit = gl::shared_context().info().caps.max_loop_iterations;
  if (limit > 0 && iterations > limit)
    throw UnavailableError(str_cat(who, ": a ray needs up to ", iterations,
                                   " shader loop iterations per invocation, beyond the ", limit,
                                   " this software OpenGL runs before cutting loops short"));
}

void upload_rays(gl::Buffer& buffer, const std::vector<double>& table, std::span<const int> views, int first,
                 int count) {
  std::vector<double> rows(static_cast<std::size_t>(count) * kRayDoubles);
  for (int k = 0; k < count; ++k)
    std::copy_n(table.data() + static_cast<std::size_t>(views[first + k]) * kRayDoubles, kRayDoubles,
                rows.data() + static_cast<std::size_t>(k) * kRayDoubles);
  buffer.upload(rows.data(), rows.size() * sizeof(double));
  buffer.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRays);
}

}  // namespace tomo::fdk
