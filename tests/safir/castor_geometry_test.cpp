// The CASToR `.geom` file of the safir scanner, read back by a parser written here from CASToR's
// documented conventions (`key : value` lines, `#` comments; crystal positions as CASToR's
// generic-geometry LUT computes them: rsectors rotated about z, modules, submodules and
// crystals laid out with their gaps, transaxial before axial, the crystal index counting
// transaxially within a ring first), reproduces every crystal position of ours, and the
// list-mode header names that scanner.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "compute/safir/castor_geometry.hpp"
#include "compute/safir/list_io.hpp"
#include "tests/support/temp_dir.hpp"

using namespace tomo;
using namespace tomo::safir;

namespace {

std::map<std::string, std::string> parse_geom(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto trim = [](std::string s) {
      const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    kv[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
  }
  return kv;
}

struct Crystal {
  double x, y, z;  // LOR end point: centre moved along the orientation by (mean DOI − depth/2)
  double ox, oy;   // unit orientation
};

// Crystal end points of a one-layer generic CASToR geometry.
std::vector<Crystal> castor_crystals(const std::map<std::string, std::string>& kv) {
  auto num = [&](const std::string& k, double fallback) { return kv.count(k) ? std::stod(kv.at(k)) : fallback; };
  auto integer = [&](const std::string& k, int fallback) { return kv.count(k) ? std::stoi(kv.at(k)) : fallback; };
  const int n_elements = integer("number of elements", -1);
  const int n_ang = integer("number of rsectors", -1), n_axr = integer("number of rsectors axial", 1);
  const int trs_mod = integer("number of modules transaxial", 1), axl_mod = integer("number of modules axial", 1);
  const int trs_sub = integer("number of submodules transaxial", 1), axl_sub = integer("number of submodules axial", 1);
  const int trs_cry = integer("number of crystals transaxial", -1), axl_cry = integer("number of crystals axial", -1);
  const double radius = num("scanner radius", -1), depth = num("crystals size depth", -1);
  const double size_t_ = num("crystals size transaxial", -1), size_a = num("crystals size axial", -1);
  const double gap_ar = num("rsector gap axial", 0), gap_tm = num("module gap transaxial", 0),
               gap_am = num("module gap axial", 0), gap_ts = num("submodule gap transaxial", 0),
               gap_as = num("submodule gap axial", 0), gap_tc = num("crystal gap transaxial", 0),
               gap_ac = num("crystal gap axial", 0);
  const double first = num("rsectors first angle", 0) * std::numbers::pi / 180;
  const double span = num("rsectors angular span", 360) * std::numbers::pi / 180;
  const double mean_doi_raw = num("mean depth of interaction", -1);
  const double mean_doi = mean_doi_raw < 0 ? depth / 2 : mean_doi_raw;
  const int dir = kv.count("rotation direction") && kv.at("rotation direction") == "CW" ? 1 : -1;

  const double sub_t = trs_cry * size_t_ + (trs_cry - 1) * gap_tc, sub_a = axl_cry * size_a + (axl_cry - 1) * gap_ac;
  const double mod_t = trs_sub * sub_t + (trs_sub - 1) * gap_ts, mod_a = axl_sub * sub_a + (axl_sub - 1) * gap_as;
  const double rs_t = trs_mod * mod_t + (trs_mod - 1) * gap_tm, rs_a = axl_mod * mod_a + (axl_mod - 1) * gap_am;
  const int rings = n_axr * axl_mod * axl_sub * axl_cry;
  const int per_ring = n_ang * trs_mod * trs_sub * trs_cry;
  EXPECT_EQ(rings * per_ring, n_elements);
  std::vector<Crystal> out(static_cast<std::size_t>(n_elements));
  for (int rsa = 0; rsa < n_ang; ++rsa) {
    const double a = first + rsa * span / n_ang, c = std::cos(a), s = std::sin(a);
    for (int rs = 0; rs < n_axr; ++rs)
      for (int m = 0; m < trs_mod * axl_mod; ++m)
        for (int sm = 0; sm < trs_sub * axl_sub; ++sm)
          for (int k = 0; k < trs_cry * axl_cry; ++k) {
            // Reference rsector (above the isocentre, +y), then rotated: x' = c x + dir s y,
            // y' = −dir s x + c y.
            const double x0 = -dir * rs_t / 2 + dir * (m % trs_mod) * (mod_t + gap_tm) +
                              dir * (sm % trs_sub) * (sub_t + gap_ts) +
                              dir * ((k % trs_cry) * (size_t_ + gap_tc) + size_t_ / 2);
            const double y0 = radius + depth / 2;
            const double z = -(n_axr * rs_a + (n_axr - 1) * gap_ar) / 2 + rs * (rs_a + gap_ar) +
                             (m / trs_mod) * (mod_a + gap_am) + (sm / trs_sub) * (sub_a + gap_as) +
                             (k / trs_cry) * (size_a + gap_ac) + size_a / 2;
            const int id = ((rs * axl_mod + m / trs_mod) * axl_sub + sm / trs_sub) * axl_cry * per_ring +
                           (k / trs_cry) * per_ring + ((rsa * trs_mod + m % trs_mod) * trs_sub + sm % trs_sub) * trs_cry +
                           k % trs_cry;
            Crystal& cr = out[static_cast<std::size_t>(id)];
            cr.ox = dir * s, cr.oy = c;
            const double shift = mean_doi - depth / 2;
            cr.x = c * x0 + dir * s * y0 + shift * cr.ox;
            cr.y = -dir * s * x0 + c * y0 + shift * cr.oy;
            cr.z = z;
          }
  }
  return out;
}

void expect_positions_reproduced(const Scanner& sc, const ImageBox& box) {
  const auto kv = parse_geom(castor_geometry_text(sc, box));
  EXPECT_EQ(kv.at("scanner name"), castor_scanner_name(sc));
  EXPECT_EQ(kv.at("modality"), "PET");
  EXPECT_EQ(std::stoi(kv.at("number of layers")), 1);
  const auto cas = castor_crystals(kv);
  const auto ours = sc.positions();
  ASSERT_EQ(cas.size(), ours.size());
  double worst = 0, worst_dir = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    worst = std::max({worst, std::fabs(cas[i].x - ours[i][0]), std::fabs(cas[i].y - ours[i][1]),
                      std::fabs(cas[i].z - ours[i][2])});
    const double r = std::hypot(ours[i][0], ours[i][1]);  // outward: our front face's normal
    worst_dir = std::max({worst_dir, std::fabs(cas[i].ox - ours[i][0] / r), std::fabs(cas[i].oy - ours[i][1] / r)});
  }
  EXPECT_LT(worst, 1e-9 * sc.radius());
  EXPECT_LT(worst_dir, 1e-12);
}

}  // namespace

TEST(CastorGeometry, TheSeedScannerIsReproducedCrystalByCrystal) {
  expect_positions_reproduced(Scanner{}, ImageBox{});
  const auto kv = parse_geom(castor_geometry_text(Scanner{}, ImageBox{}));
  EXPECT_EQ(kv.at("number of elements"), "16380");
  EXPECT_NEAR(std::stod(kv.at("scanner radius")), 63.0, 0.05);  // 2.2 / (2 sin 1°)
  EXPECT_NEAR(std::stod(kv.at("crystal gap axial")), 0.2, 1e-12);
  EXPECT_NEAR(std::stod(kv.at("field of view transaxial")), 63.0, 1e-9);  // 90 voxels of 0.7 mm
  EXPECT_EQ(kv.at("voxels number axial"), "50");
}

TEST(CastorGeometry, ASmallScannerWithItsOwnRadiusIsReproduced) {
  Scanner sc;
  sc.rings = 5;
  sc.crystals = 12;
  sc.pitch_mm = 3.0;
  sc.crystal_mm = 2.5;
  sc.depth_mm = 10.0;
  sc.radius_mm = 40.0;
  expect_positions_reproduced(sc, ImageBox{.n = {20, 20, 6}, .voxel_mm = 2.0, .md = 1.0});
}

TEST(CastorGeometry, TheListModeHeaderNamesTheGeometryFile) {
  test::TempDir t;
  Scanner sc;
  sc.rings = 3;
  sc.crystals = 8;
  ListMode lm;
  lm.events = {{0, 5}, {9, 20}};
  lm.duration_s = 1.0;
  write_castor(t.dir / "events.cdh", lm, sc);
  const std::string geom = t.dir / (castor_scanner_name(sc) + ".geom");
  write_castor_geometry(geom, sc, ImageBox{});
  std::ifstream in(t.dir / "events.cdh");
  std::stringstream cdh;
  cdh << in.rdbuf();
  EXPECT_NE(cdh.str().find("Scanner name: SAFIR_3x8\n"), std::string::npos);
  std::ifstream g(geom);
  std::stringstream gs;
  gs << g.rdbuf();
  EXPECT_EQ(parse_geom(gs.str()).at("scanner name"), "SAFIR_3x8");
}
