// What the multi-rank tests share: reading a run's files (bytes, NIfTI voxels, report.json) and
// the relative L2 distance between two images.
#pragma once
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tomo::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A NIfTI-1 file's float32 voxels (after the 352-byte header of compute/io's writer); empty when
// the file is missing or holds no voxels.
inline std::vector<float> nifti_floats(const std::filesystem::path& p) {
  const std::string s = slurp(p);
  std::vector<float> v(s.size() > 352 ? (s.size() - 352) / 4 : 0);
  if (!v.empty()) std::memcpy(v.data(), s.data() + 352, v.size() * 4);
  return v;
}

// ‖a − b‖ / ‖b‖; 1e30 when the sizes differ or b is empty (a test's bound then fails).
inline double relative_l2(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || b.empty()) return 1e30;
  double d = 0, n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += double(a[i] - b[i]) * (a[i] - b[i]), n += double(b[i]) * b[i];
  return n > 0 ? std::sqrt(d / n) : (d > 0 ? 1e30 : 0.0);
}

inline nlohmann::json report_of(const std::filesystem::path& dir) {
  return nlohmann::json::parse(slurp(dir / "report.json"));
}

}  // namespace tomo::test
