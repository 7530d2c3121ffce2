// Seed inputs for every fuzz target, made with our own writers (so they are valid files):
// the fuzzers start from them (tools/fuzz.sh) and the regression test checks they are accepted.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "compute/core/scene.hpp"
#include "compute/fdk/matrix_file.hpp"
#include "compute/fdk/rabbitct_file.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/strip/event_io.hpp"

namespace tomo::fuzz {

using Bytes = std::vector<std::uint8_t>;

// What `write(path)` writes, as bytes.
template <class Write>
Bytes written(const std::string& suffix, Write&& write) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tomo-fuzz-seed-" + std::to_string(::getpid()) + suffix);
  write(path);
  std::ifstream in(path, std::ios::binary);
  Bytes b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::filesystem::remove(path);
  return b;
}

inline Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

inline std::map<std::string, std::vector<Bytes>> seeds() {
  std::map<std::string, std::vector<Bytes>> out;
  for (const char* name : {"default.toml", "strip_default.toml", "fdk_default.toml", "glpet_small.toml"})
    out["scene"].push_back(text(std::string(embedded_scene(name))));
  out["scene"].push_back(text(std::string(embedded_scene("strip_default.toml")) +
                              "\n--set\nstrip.iterations=12\nstrip.phantom[1].rho=0.5\n"));

  fdk::RabbitData r;
  r.hu_scale = {1000.0f, 0.0f};
  r.projections.sx = 4;
  r.projections.sy = 3;
  r.projections.matrices.resize(2);
  for (auto& m : r.projections.matrices) {
    m.at(0, 0) = 2, m.at(0, 2) = 1, m.at(1, 2) = 2, m.at(1, 1) = 0.5, m.at(2, 1) = 1, m.at(2, 3) = 500;
  }
  r.projections.pixels.assign(4 * 3 * 2, 0.5f);
  out["rabbitct"].push_back(written(".rct", [&](const auto& p) { fdk::write_rabbitct(p, r); }));
  r.version = 2;  // the runner's version-2 header
  out["rabbitct"].push_back(written(".rct", [&](const auto& p) { fdk::write_rabbitct(p, r); }));

  out["matrix_file"].push_back(
      written(".txt", [&](const auto& p) { fdk::write_matrix_file(p, r.projections.matrices); }));
  std::vector<double> m34(24);
  for (std::size_t i = 0; i < m34.size(); ++i) m34[i] = i % 5 == 0 ? 3.0 : 0.25 * static_cast<double>(i);
  const std::size_t m_shape[3] = {2, 3, 4};
  out["matrix_file"].push_back(
      written(".npy", [&](const auto& p) { write_npy(p, std::span<const double>(m34), m_shape); }));

  const std::size_t s_shape[3] = {2, 3, 4};
  const std::vector<float> stack(24, 0.75f);
  const std::vector<std::uint16_t> counts(24, 4000);
  out["projection_stack"].push_back(
      written(".npy", [&](const auto& p) { write_npy(p, std::span<const float>(stack), s_shape); }));
  out["projection_stack"].push_back(
      written(".npy", [&](const auto& p) { write_npy(p, std::span<const std::uint16_t>(counts), s_shape); }));

  const std::vector<strip::Event> ev = {{1.0f, -2.0f, 3.5f}, {-10.0f, 12.0f, -40.0f}};
  out["listmode"].push_back(written(".lm", [&](const auto& p) { strip::write_events_binary(p, ev); }));
  out["listmode"].push_back(written(".txt", [&](const auto& p) { strip::write_events_text(p, ev); }));

  VolumeF v;
  v.grid.dims = {3, 2, 2};
  v.grid.voxel_mm = {0.5, 1.0, 2.0};
  v.data.assign(12, 0.25f);
  out["nifti"].push_back(written(".nii", [&](const auto& p) { write_nifti(p, v); }));
  out["projection_stack"].push_back(written(".nii", [&](const auto& p) { write_nifti(p, v); }));  // 3 cols, 2 rows
  return out;
}

}  // namespace tomo::fuzz
