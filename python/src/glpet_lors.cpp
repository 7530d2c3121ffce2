// tomoraster._core.glpet_lor_endpoints: the two end points of every LOR of a glpet scene, in the
// order of its LOR vectors (the atlases of all module pairs concatenated, u fastest), so another
// projector (parallelproj's Joseph) can run on the same lines. An LOR joins the centres of its two
// detectors on their module planes ([Toth2010] §II.A: the module's rectangle, detector (i, j)
// covering [i·pitch_a, (i+1)·pitch_a) × [j·pitch_t, (j+1)·pitch_t) from the corner).
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "compute/glpet/config.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bindings.hpp"

namespace tomo::py {
namespace {

// (end points (lor_count, 2, 3) in mm as (x, y, z), the centre of voxel (0, 0, 0) in mm (x, y, z),
// the voxel size in mm (x, y, z)): the same world frame as the scene's voxel grid.
std::tuple<nb::ndarray<nb::numpy, double>, std::vector<double>, std::vector<double>> lor_endpoints(
    const std::string& scene, bool is_text, const std::vector<std::string>& sets) {
  const glpet::GlpetScene g = glpet::read_glpet_scene(load_scene(scene, is_text, sets));
  const glpet::SystemModel& sys = g.system;
  std::vector<double> out;
  {
    nb::gil_scoped_release release;
    out.resize(sys.lor_count() * 6);
    for (std::size_t p = 0; p < sys.scanner.pairs.size(); ++p) {
      const glpet::ModulePair& pair = sys.scanner.pairs[p];
      const std::size_t offset = sys.scanner.lor_offset(p);
      const int na = pair.n_a(), nt = pair.n_t();
      const glpet::Module& m0 = pair.modules[0];
      const glpet::Module& m1 = pair.modules[1];
      for (int j0 = 0; j0 < nt; ++j0)
        for (int j1 = 0; j1 < nt; ++j1)
          for (int i0 = 0; i0 < na; ++i0)
            for (int i1 = 0; i1 < na; ++i1) {
              const Vec3 a = m0.point((i0 + 0.5) * m0.pitch_a, (j0 + 0.5) * m0.pitch_t);
              const Vec3 b = m1.point((i1 + 0.5) * m1.pitch_a, (j1 + 0.5) * m1.pitch_t);
              double* o = out.data() + 6 * (offset + pair.lor_index(i0, j0, i1, j1));
              for (int c = 0; c < 3; ++c) o[c] = a[c];
              for (int c = 0; c < 3; ++c) o[3 + c] = b[c];
            }
    }
  }
  const Grid3& grid = sys.grid;
  return {to_numpy<double>(std::move(out), {sys.lor_count(), 2, 3}),
          std::vector<double>(grid.origin_mm.begin(), grid.origin_mm.end()),
          std::vector<double>(grid.voxel_mm.begin(), grid.voxel_mm.end())};
}

}  // namespace

void bind_glpet_lors(nb::module_& m) {
  m.def("glpet_lor_endpoints", &lor_endpoints, nb::arg("scene"), nb::arg("is_text"), nb::arg("sets"));
}

}  // namespace tomo::py
