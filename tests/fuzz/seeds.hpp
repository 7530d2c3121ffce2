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
#include "compute/fdk/rabbitct_file.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/oat/data_io.hpp"
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
  out["scene"].push_back(text(std::string(embedded_scene("oat_default.toml"))));

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

  const std::vector<strip::Event> ev = {{1.0f, -2.0f, 3.5f}, {-10.0f, 12.0f, -40.0f}};
  out["listmode"].push_back(written(".lm", [&](const auto& p) { strip::write_events_binary(p, ev); }));
  out["listmode"].push_back(written(".txt", [&](const auto& p) { strip::write_events_text(p, ev); }));

  VolumeF v;
  v.grid.dims = {3, 2, 2};
  v.grid.voxel_mm = {0.5, 1.0, 2.0};
  v.data.assign(12, 0.25f);
  out["nifti"].push_back(written(".nii", [&](const auto& p) { write_nifti(p, v); }));

  oat::MeasuredData od;
  od.positions_mm = {{10.0, 0.0, 0.0}, {0.0, 10.0, 0.0}};
  od.samples = 3;
  od.fs_mhz = 20.0;
  od.c0_mm_per_us = 1.5;
  od.pressure = {0.0, 1.0, -1.0, 0.5, 0.25, 0.0};
  out["oat_npy"].push_back(written(".npy", [&](const auto& p) {
    const std::size_t shape[2] = {2, 3};
    write_npy(p, std::span<const double>(od.pressure), shape);
  }));
  if (oat::have_hdf5()) {
    out["oat_patato"].push_back(written(".h5", [&](const auto& p) { oat::write_patato(p, od); }));
    out["oat_kwave"].push_back(written(".h5", [&](const auto& p) { oat::write_kwave(p, od, {21, 21, 3}, 1.0); }));
  } else {  // the entries accept anything without HDF5
    out["oat_patato"].push_back(text("no HDF5 in this build"));
    out["oat_kwave"].push_back(text("no HDF5 in this build"));
  }
  return out;
}

}  // namespace tomo::fuzz
