// bench_fdk's texture-fetch ceiling (plain C++ interface, so fdk_bench.cpp needs no nvcc): a
// fetch-only kernel with the back-projection's texture layout and launch shape.
#pragma once

namespace tomo::bench::fdk {

struct FetchCeiling {
  double gfetches_per_s = 0;  // hardware-bilinear layered fetches per second / 1e9
  int layers = 0, sx = 0, sy = 0, n = 0;
};

// A fetch-only kernel over an n³ grid reading `layers` layers of sx×sy (best of 3 launches).
FetchCeiling measure_fetch_ceiling(int sx, int sy, int layers, int n);

}  // namespace tomo::bench::fdk
