// Bench support for fdk on CUDA (plain C++ interface so bench/ needs no nvcc): the texture-fetch
// ceiling measured with the back-projection's own texture layout and launch shape.
#pragma once

namespace tomo::fdk {

struct FetchCeiling {
  double gfetches_per_s = 0;  // hardware-bilinear layered fetches per second / 1e9
  int layers = 0, sx = 0, sy = 0, n = 0;
};

// A fetch-only kernel over an n³ grid reading `layers` layers of sx×sy (best of 3 launches).
FetchCeiling measure_fetch_ceiling(int sx, int sy, int layers, int n);

}  // namespace tomo::fdk
