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
#include "compute/musr/psi_bin.hpp"
#include "compute/musr/simulator.hpp"
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

  const std::vector<strip::Event> ev = {{1.0f, -2.0f, 3.5f}, {-10.0f, 12.0f, -40.0f}};
  out["listmode"].push_back(written(".lm", [&](const auto& p) { strip::write_events_binary(p, ev); }));
  out["listmode"].push_back(written(".txt", [&](const auto& p) { strip::write_events_text(p, ev); }));

  VolumeF v;
  v.grid.dims = {3, 2, 2};
  v.grid.voxel_mm = {0.5, 1.0, 2.0};
  v.data.assign(12, 0.25f);
  out["nifti"].push_back(written(".nii", [&](const auto& p) { write_nifti(p, v); }));

  musr::Eq5Config mc;
  mc.detectors = 2;
  mc.bins = 300;
  mc.t0_bin = 20;
  mc.first_good = 25;
  out["msr"].push_back(text(musr::eq5_msr(mc, "run", false)));
  out["msr"].push_back(text(musr::eq5_msr(mc, "run", true) +
                            "FUNCTIONS\nfun2 = pow(par1, 2) * cos(PI * map1) / sqrt(ln(par2)) - -3.5e-2\n"));
  out["psibin"].push_back(musr::encode_psi_bin(musr::simulate_eq5(mc)));
  return out;
}

}  // namespace tomo::fuzz
