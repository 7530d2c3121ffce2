// Seed inputs for every fuzz target, made with our own writers (so they are valid files):
// the fuzzers start from them (tools/fuzz.sh) and the regression test checks they are accepted.
#pragma once
#include <unistd.h>

#include <complex>
#include <cstdint>
#include <span>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "compute/core/scene.hpp"
#include "compute/fdk/matrix_file.hpp"
#include "compute/io/tiff.hpp"
#include "compute/fdk/rabbitct_file.hpp"
#include "compute/glpet/data_io.hpp"
#include "compute/io/interfile.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/safir/list_io.hpp"
#include "compute/oat/data_io.hpp"
#include "compute/musr/psi_bin.hpp"
#include "compute/musr/simulator.hpp"
#include "compute/strip/event_io.hpp"
#include "tests/fuzz/entries.hpp"
#include "tests/fuzz/musr_seeds.hpp"

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
  for (const char* name : {"default.toml", "strip_default.toml", "fdk_default.toml", "glpet_small.toml", "safir_default.toml"})
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
  r.version = 2;  // the runner's version-2 header
  out["rabbitct"].push_back(written(".rct", [&](const auto& p) { fdk::write_rabbitct(p, r); }));

  out["matrix_file"].push_back(
      written(".txt", [&](const auto& p) { fdk::write_matrix_file(p, r.projections.matrices); }));
  std::vector<double> m34(24);
  for (std::size_t i = 0; i < m34.size(); ++i) m34[i] = i % 5 == 0 ? 3.0 : 0.25 * static_cast<double>(i);
  const std::size_t m_shape[3] = {2, 3, 4};
  out["matrix_file"].push_back(
      written(".npy", [&](const auto& p) { write_npy(p, std::span<const double>(m34), m_shape); }));

  // TIFF: float32 pages and a uint16 page, as detectors write them.
  std::vector<float> pages(2 * 3 * 4);
  for (std::size_t i = 0; i < pages.size(); ++i) pages[i] = 0.5f * static_cast<float>(i);
  out["tiff"].push_back(written(".tif", [&](const auto& p) { io::write_tiff_stack(p, pages, 2, 3, 4); }));
  out["tiff"].push_back(written(".tif", [&](const auto& p) {
    io::write_tiff_stack(p, std::span<const float>(pages).first(12), 1, 3, 4, io::TiffSample::uint16);
  }));

  // A 4³ uint16 reference volume (no writer of ours makes one: the RabbitCT files come with it).
  Bytes reference(2 * 4 * 4 * 4);
  for (std::size_t i = 0; i < reference.size(); i += 2) reference[i] = static_cast<std::uint8_t>(i / 2);
  out["fdk_reference"].push_back(reference);

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
  v.grid.origin_mm = {1.0, -2.0, 3.0};
  out["nifti"].push_back(written(".nii.gz", [&](const auto& p) { write_nifti(p, v, NiftiMeta("mu", "1/mm")); }));
  NiftiSeries series{.grid = v.grid, .data = std::vector<float>(24, 0.5f), .frames = 2, .frame_s = 1.5};
  out["nifti"].push_back(written(".nii.gz", [&](const auto& p) { write_nifti(p, series); }));

  {
    // Our Interfile writer's header without its data file line (the entry adds one), and data.
    const auto dir = std::filesystem::temp_directory_path() / ("tomo-fuzz-interfile-seed-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto bytes_of = [](const std::filesystem::path& p) {
      std::ifstream in(p, std::ios::binary);
      return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    };
    auto add = [&](const auto& image) {
      write_interfile(dir / "seed.hv", image, NiftiMeta("mu", "1/mm"));
      std::string h = bytes_of(dir / "seed.hv");
      const std::size_t at = h.find("name of data file");
      h.erase(at, h.find('\n', at) + 1 - at);
      out["interfile"].push_back(text(h + std::string(kInterfileSplit) + bytes_of(dir / "seed.v")));
    };
    add(v);
    add(series);
    std::filesystem::remove_all(dir);
  }
  const std::vector<std::size_t> shape{2, 3};
  const std::vector<float> f{0.5f, 1.0f, -2.0f, 3.0f, 4.0f, 5.5f};
  out["npy"].push_back(written(".npy", [&](const auto& p) { write_npy(p, std::span<const float>(f), shape); }));
  const std::vector<std::uint16_t> u{1, 2, 3, 4, 5, 6};
  out["npy"].push_back(written(".npy", [&](const auto& p) { write_npy(p, std::span<const std::uint16_t>(u), shape); }));
  const std::vector<std::complex<float>> c{{1, 2}, {3, -4}};
  const std::vector<std::size_t> shape1{2};
  out["npy"].push_back(
      written(".npy", [&](const auto& p) { write_npy(p, std::span<const std::complex<float>>(c), shape1); }));
  // Fortran order and a version-2 preamble, as NumPy writes them (bytes spelled out here).
  std::string hdr = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }";
  hdr.append((64 - (12 + hdr.size() + 1) % 64) % 64, ' ').push_back('\n');  // 12 + header: 64k bytes
  Bytes v2 = text(std::string("\x93NUMPY\x02\x00", 8));
  for (int i = 0; i < 4; ++i) v2.push_back(static_cast<std::uint8_t>((hdr.size() >> (8 * i)) & 0xff));
  v2.insert(v2.end(), hdr.begin(), hdr.end());
  for (double d : {1.0, 2.0, 3.0, 4.0}) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(&d);
    v2.insert(v2.end(), b, b + 8);
  }
  out["npy"].push_back(v2);

  const glpet::Scanner& sc = glpet_scanner();  // the scanner the glpet entries read against
  std::vector<float> lors(sc.lor_count(), 0.0f);
  for (std::size_t l = 0; l < lors.size(); l += 7) lors[l] = float(l % 3);
  out["glpet_counts"].push_back(written(".npy", [&](const auto& p) { glpet::write_counts(p, sc, lors); }));
  const auto events = glpet::listmode_events(sc, lors);
  out["glpet_listmode"].push_back(written(".lm", [&](const auto& p) { glpet::write_listmode_binary(p, sc, events); }));
  out["glpet_listmode"].push_back(written(".txt", [&](const auto& p) { glpet::write_listmode_text(p, events); }));

  const safir::Scanner ssc;
  safir::ListMode lm;
  lm.events = {{ssc.id(0, 0), ssc.id(90, 179)}, {ssc.id(45, 3), ssc.id(2, 100)}};
  lm.time_s = {0.0005, 1.5};
  lm.duration_s = 2.0;
  out["safir_clm"].push_back(written(".clm.safir", [&](const auto& p) { safir::write_clm_safir(p, lm, ssc); }));
  out["safir_crystal_map"].push_back(
      written(".txt", [&](const auto& p) { safir::write_crystal_map(p, safir_map_scanner()); }));
  {
    const auto dir = std::filesystem::temp_directory_path() / ("tomo-fuzz-castor-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto bytes_of = [](const std::filesystem::path& p) {
      std::ifstream in(p, std::ios::binary);
      return Bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    };
    auto castor_seed = [&](const safir::CastorCorrections& c) {
      safir::write_castor(dir / "seed.cdh", lm, ssc, c);
      Bytes b = bytes_of(dir / "seed.cdh");
      b.insert(b.end(), kCastorSplit.begin(), kCastorSplit.end());
      const Bytes cdf = bytes_of(dir / "seed.cdf");
      b.insert(b.end(), cdf.begin(), cdf.end());
      out["safir_castor"].push_back(b);
    };
    castor_seed({});
    // Every per-event correction field present (their header flags set).
    castor_seed({.attenuation = {1.5f, 2.0f}, .scatter = {0.1f, 0.2f}, .random = {0.3f, 0.0f},
                 .normalisation = {1.1f, 0.9f}});
    std::filesystem::remove_all(dir);
  }
  out["projection_stack"].push_back(written(".nii", [&](const auto& p) { write_nifti(p, v); }));  // 3 cols, 2 rows

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
  {  // recipes of valid files: a PATATO frame and a k-Wave run (tests/fuzz/hdf5_recipe.hpp)
    using hdf5::Item;
    const auto number = [](std::uint8_t type, double v) {
      Item it{.present = true, .type = type, .dims = {}, .huge = {}, .layout = 0, .mode = 1, .a = v};
      return it;
    };
    const auto array = [](std::uint8_t type, std::vector<std::uint32_t> dims, std::uint8_t layout, double a, double b) {
      Item it{.present = true, .type = type, .dims = dims, .huge = std::vector<std::uint8_t>(dims.size(), 0),
              .layout = layout, .mode = 0, .a = a, .b = b};
      return it;
    };
    Bytes patato, kwave;
    for (const Item& it : {array(0, {1, 1, 4, 32}, 3, 0.01, -0.1), array(1, {4, 3}, 1, 0.001, 0.0), number(1, 4e7),
                           number(1, 1500.0)})
      hdf5::encode(it, patato);
    for (const Item& it : {number(9, 21), number(9, 21), number(9, 3), number(1, 1e-3), number(1, 1e-3), number(1, 1e-3),
                           number(1, 2.5e-8), array(0, {1, 32, 4}, 2, 0.01, 0.0), array(9, {4}, 1, 10.0, 1.0),
                           number(1, 1500.0)})
      hdf5::encode(it, kwave);
    out["oat_patato_recipe"].push_back(patato);
    out["oat_kwave_recipe"].push_back(kwave);
  }

  musr::Eq5Config mc;
  mc.detectors = 2;
  mc.bins = 300;
  mc.t0_bin = 20;
  mc.first_good = 25;
  out["msr"].push_back(text(musr::eq5_msr(mc, "run", false)));
  out["msr"].push_back(text(musr::eq5_msr(mc, "run", true) +
                            "FUNCTIONS\nfun2 = pow(par1, 2) * cos(PI * map1) / sqrt(ln(par2)) - -3.5e-2\n"));
  out["psibin"].push_back(musr::encode_psi_bin(musr::simulate_eq5(mc)));
  out["user_fcn"].push_back(text("# a comment\nfunction PUserFcn(c0, c1, c2, c3) {\n  return c0 + c1 * t + c2 * t * t + c3 * t * t * t;\n}\n"));
  out["user_fcn"].push_back(text("function F(a, b) { let x = a * t - b; return x >= 0 ? sqrt(x) * statGssKT(a) : -pow(x, 2) + min(a, b); }\n"
                                 "function G(w) { return abs(j0(w * t)) + log10(gamma_mu * pi) + exp(-w * t); }\n"));
  add_musr_format_seeds(out);
  return out;
}

}  // namespace tomo::fuzz
