#include "tests/fuzz/hdf4_seed.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#ifdef TOMO_HAVE_HDF4
#include <mfhdf.h>
#endif

namespace tomo::fuzz::musr_seed {

#ifndef TOMO_HAVE_HDF4
std::vector<std::uint8_t> nexus_hdf4_run() { return {}; }
#else
std::vector<std::uint8_t> nexus_hdf4_run() {
  const auto path = std::filesystem::temp_directory_path() / ("tomo-fuzz-nexus-" + std::to_string(::getpid()) + ".nxs");
  const int32 sd = SDstart(path.c_str(), DFACC_CREATE);
  if (sd == FAIL) return {};
  auto ints = [&](const char* name, std::vector<int32> dims, std::vector<int32> v) {
    const int32 sds = SDcreate(sd, name, DFNT_INT32, static_cast<int32>(dims.size()), dims.data());
    std::vector<int32> start(dims.size(), 0);
    SDwritedata(sds, start.data(), nullptr, dims.data(), v.data());
    return sds;
  };
  SDendaccess(ints("idf_version", {1}, {1}));
  SDendaccess(ints("number", {1}, {17}));
  std::vector<int32> counts(100);
  for (int i = 0; i < 100; ++i) counts[i] = 1000 - 9 * (i % 50) + i / 50;
  const int32 c = ints("counts", {2, 50}, counts);
  const int32 t0[2] = {3, 4}, fgb = 6, lgb[2] = {49, 50};
  SDsetattr(c, "t0_bin", DFNT_INT32, 2, t0);
  SDsetattr(c, "first_good_bin", DFNT_INT32, 1, &fgb);
  SDsetattr(c, "last_good_bin", DFNT_INT32, 2, lgb);
  SDendaccess(c);
  int32 one = 1, zero = 0;
  const int32 r = SDcreate(sd, "resolution", DFNT_FLOAT32, 1, &one);
  float32 res = 16000.0f;
  SDwritedata(r, &zero, nullptr, &one, &res);
  const char units[] = "picoseconds";
  SDsetattr(r, "units", DFNT_CHAR8, static_cast<int32>(sizeof units - 1), units);
  SDendaccess(r);
  const char title[] = "fuzz seed";
  int32 tn = static_cast<int32>(sizeof title - 1);
  const int32 t = SDcreate(sd, "title", DFNT_CHAR8, 1, &tn);
  SDwritedata(t, &zero, nullptr, &tn, const_cast<char*>(title));
  SDendaccess(t);
  SDend(sd);
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::filesystem::remove(path);
  return b;
}
#endif

}  // namespace tomo::fuzz::musr_seed
