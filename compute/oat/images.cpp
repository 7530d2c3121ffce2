// MIPs and the data image of the oat problem.
#include "compute/oat/images.hpp"

#include <algorithm>
#include <limits>

namespace tomo::oat {

Image2D mip(const Grid3& g, std::span<const double> v, int axis) {
  const int u_axis = axis == 0 ? 1 : 0, w_axis = axis == 2 ? 1 : 2;
  const int nu = g.dims[u_axis], nw = g.dims[w_axis];
  Image2D img{nu, nw, std::vector<float>(static_cast<std::size_t>(nu) * nw, -std::numeric_limits<float>::infinity())};
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const int idx[3] = {i, j, k};
        const int u = idx[u_axis], w = idx[w_axis];
        float& px = img.pixels[static_cast<std::size_t>(nw - 1 - w) * nu + u];
        px = std::max(px, static_cast<float>(v[g.index(i, j, k)]));
      }
  return img;
}

Image2D data_image(int Q, int K, std::span<const double> u) {
  Image2D img{K, Q, std::vector<float>(u.begin(), u.end())};
  return img;
}

}  // namespace tomo::oat
