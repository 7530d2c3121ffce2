// The data image of the oat problem (see images.hpp).
#include "compute/oat/images.hpp"

#include <vector>

namespace tomo::oat {

Image2D data_image(int Q, int K, std::span<const double> u) {
  Image2D img{K, Q, std::vector<float>(u.begin(), u.end())};
  return img;
}

}  // namespace tomo::oat
