// Projections as detectors hand them out: TIFF pages (one file or a folder of files) of raw
// intensities with flat- and dark-field images, normalised to line integrals; ASTRA's (rows,
// angles, cols) layout named explicitly; every count and size checked against the geometry
// before anything runs, a mismatch refused in one line naming both shapes.
#include <gtest/gtest.h>
#include <tiffio.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/astra_geometry.hpp"
#include "compute/fdk/flat_field.hpp"
#include "compute/fdk/raw_input.hpp"
#include "compute/fdk/raw_stack.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/io/output_dir.hpp"
#include "compute/io/tiff.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace tomo;
using namespace tomo::fdk;

namespace {

constexpr int kViews = 5, kRows = 12, kCols = 16;

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Line integral of view n, pixel (i, j): a smooth made-up pattern.
float line_integral(int n, int j, int i) { return 0.01f * (i + 2 * j) + 0.1f * n; }

// ASTRA cone_vec rows of a circular orbit: source at 400 mm, detector 250 mm beyond the axis,
// 2 mm pixels, views 72° apart.
std::vector<double> astra_rows() {
  std::vector<double> r;
  for (int n = 0; n < kViews; ++n) {
    const double b = n * 72.0 * std::numbers::pi / 180.0, c = std::cos(b), s = std::sin(b);
    const std::vector<double> row{400 * c, 400 * s, 0, -250 * c, -250 * s, 0, -2 * s, 2 * c, 0, 0, 0, 2};
    r.insert(r.end(), row.begin(), row.end());
  }
  return r;
}

void write_text_rows(const fs::path& p, const std::vector<double>& v) {
  std::ofstream out(p);
  out.precision(17);
  for (std::size_t k = 0; k < v.size(); ++k) out << v[k] << (k % 12 == 11 ? '\n' : ' ');
}

Scene scene_of(const std::string& text) { return Scene::load_string("problem = \"fdk\"\n" + text, "<test>"); }

}  // namespace

TEST(TiffStack, PagesRoundTripAsFloatAndUint16) {
  tomo::test::TempDir t;
  std::vector<float> px(3 * 5 * 7);
  for (std::size_t k = 0; k < px.size(); ++k) px[k] = 0.25f * static_cast<float>(k) - 3.0f;
  io::write_tiff_stack(t.dir / "f.tif", px, 3, 5, 7);
  const io::TiffStack f = io::read_tiff_stack(t.dir / "f.tif");
  EXPECT_EQ(f.pages, 3);
  EXPECT_EQ(f.rows, 5);
  EXPECT_EQ(f.cols, 7);
  EXPECT_EQ(f.pixels, px);
  for (float& v : px) v = std::abs(v) * 1000.0f;
  io::write_tiff_stack(t.dir / "u.tif", px, 3, 5, 7, io::TiffSample::uint16);
  const io::TiffStack u = io::read_tiff_stack(t.dir / "u.tif");
  for (std::size_t k = 0; k < px.size(); ++k) EXPECT_EQ(u.pixels[k], std::round(px[k])) << k;
}

TEST(TiffStack, BadFilesAreRefusedNamingTheFile) {
  tomo::test::TempDir t;
  std::ofstream(t.dir / "words.tif") << "not an image at all";
  EXPECT_NE(refusal([&] { (void)io::read_tiff_stack(t.dir / "words.tif"); }).find("words.tif': not a TIFF libtiff can read"),
            std::string::npos);
  // A real TIFF cut short: the header survives, the pixels do not.
  std::vector<float> px(40 * 30, 1.0f);
  io::write_tiff_stack(t.dir / "whole.tif", px, 1, 30, 40);
  {
    std::ifstream in(t.dir / "whole.tif", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(t.dir / "cut.tif", std::ios::binary) << bytes.substr(0, 200);
  }
  EXPECT_THROW((void)io::read_tiff_stack(t.dir / "cut.tif"), InputError);
  // Colour pages are refused: projections are greyscale.
  {
    TIFF* rgb = TIFFOpen((t.dir / "rgb.tif").c_str(), "w");
    TIFFSetField(rgb, TIFFTAG_IMAGEWIDTH, 2u);
    TIFFSetField(rgb, TIFFTAG_IMAGELENGTH, 2u);
    TIFFSetField(rgb, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(rgb, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(rgb, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(rgb, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    unsigned char line[6] = {1, 2, 3, 4, 5, 6};
    TIFFWriteScanline(rgb, line, 0, 0);
    TIFFWriteScanline(rgb, line, 1, 0);
    TIFFClose(rgb);
  }
  EXPECT_NE(refusal([&] { (void)io::read_tiff_stack(t.dir / "rgb.tif"); })
                .find("page 0: 3 samples per pixel; projections are greyscale (1 sample)"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)io::read_tiff_stack(t.dir); }).find("is a folder, not a file"), std::string::npos);
}

TEST(FlatField, NormalisesClampsAndCountsDeadPixels) {
  RawStack s{2, 2, 3, {}};
  const std::vector<float> flat{1100, 1100, 1100, 1100, 500, 1100}, dark{100, 100, 100, 100, 500, 100};
  for (int n = 0; n < 2; ++n)
    for (int k = 0; k < 6; ++k) s.pixels.push_back(static_cast<float>(100 + 1000 * std::exp(-0.3 * (n + k))));
  s.pixels[5] = 50.0f;  // below the dark field: transmission clamped at 1e-6
  const FlatFieldCounts c = flat_dark_to_line_integrals(s, flat, dark, "stack");
  EXPECT_EQ(c.dead, 2u);  // pixel 4 (flat = dark) in both views
  EXPECT_EQ(c.clamped, 1u);
  EXPECT_NEAR(s.pixels[0], 0.0, 1e-6);
  EXPECT_NEAR(s.pixels[6 + 3], 0.3 * 4, 1e-5);
  EXPECT_EQ(s.pixels[4], 0.0f);
  EXPECT_NEAR(s.pixels[5], -std::log(1e-6), 1e-5);
  // Several flat images are averaged.
  const RawStack flats{2, 1, 2, {900, 1000, 1100, 1200}};
  EXPECT_EQ(mean_image(flats), (std::vector<float>{1000, 1100}));
  EXPECT_EQ(refusal([&] { (void)flat_dark_to_line_integrals(s, std::vector<float>(4, 1.0f), {}, "stack"); }),
            "stack: the projections are 3 x 2 pixels (columns x rows), but the flat field has 4 pixels");
}

TEST(StackLayout, AstraOrderIsRearrangedToViewsRowsColumns) {
  RawStack stored{3, 4, 5, {}};  // ASTRA: (rows = 3, views = 4, cols = 5)
  for (int r = 0; r < 3; ++r)
    for (int n = 0; n < 4; ++n)
      for (int c = 0; c < 5; ++c) stored.pixels.push_back(static_cast<float>(100 * n + 10 * r + c));
  const RawStack s = arrange_stack(stored, StackLayout::astra, "p.npy");
  ASSERT_EQ(s.count, 4);
  ASSERT_EQ(s.rows, 3);
  ASSERT_EQ(s.cols, 5);
  for (int n = 0; n < 4; ++n)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 5; ++c) EXPECT_EQ(s.pixels[(n * 3 + r) * 5 + c], 100 * n + 10 * r + c);
}

TEST(CtInput, TiffFolderWithFlatAndDarkAndAstraVectors) {
  tomo::test::TempDir t;
  // Intensities I = D + (F − D)·exp(−p) as uint16, in two files of 2 and 3 pages.
  const float dark = 100, flat = 40000;
  std::vector<float> intensity;
  for (int n = 0; n < kViews; ++n)
    for (int j = 0; j < kRows; ++j)
      for (int i = 0; i < kCols; ++i) intensity.push_back(dark + (flat - dark) * std::exp(-line_integral(n, j, i)));
  const std::size_t image = kRows * kCols;
  fs::create_directories(t.dir / "proj");
  io::write_tiff_stack(t.dir / "proj" / "b.tif", std::span<const float>(intensity).subspan(2 * image), 3, kRows, kCols,
                       io::TiffSample::uint16);
  io::write_tiff_stack(t.dir / "proj" / "a.tif", std::span<const float>(intensity).first(2 * image), 2, kRows, kCols,
                       io::TiffSample::uint16);
  // Two flats and two darks around the true values: their means are exact.
  std::vector<float> flats(2 * image, flat - 50), darks(2 * image, dark - 10);
  for (std::size_t k = image; k < 2 * image; ++k) flats[k] = flat + 50, darks[k] = dark + 10;
  io::write_tiff_stack(t.dir / "flat.tif", flats, 2, kRows, kCols);
  io::write_tiff_stack(t.dir / "dark.tif", darks, 2, kRows, kCols);
  const auto rows = astra_rows();
  write_text_rows(t.dir / "vectors.txt", rows);
  const std::string raw = "[fdk.raw]\nprojections = \"" + (t.dir / "proj").string() + "\"\nflat = \"" +
                          (t.dir / "flat.tif").string() + "\"\ndark = \"" + (t.dir / "dark.tif").string() +
                          "\"\nastra_vectors = \"" + (t.dir / "vectors.txt").string() + "\"\n";
  const Scene s = scene_of(raw);
  const RawInput in = load_raw_input(s, CArmGeometry{}, false);
  ASSERT_EQ(in.matrices.size(), static_cast<std::size_t>(kViews));
  ASSERT_EQ(in.line_integrals.size(), kViews * image);
  double worst = 0;
  for (int n = 0; n < kViews; ++n)
    for (int j = 0; j < kRows; ++j)
      for (int i = 0; i < kCols; ++i)
        worst = std::max<double>(worst, std::abs(in.line_integrals[(n * kRows + j) * kCols + i] - line_integral(n, j, i)));
  EXPECT_LT(worst, 2e-4);  // uint16 rounding of intensities near 40000·e^-0.5
  // The matrices are ASTRA's geometry: the origin hits the detector centre, a point 10 mm up
  // moves 10·650/400/2 rows.
  const auto expect = astra_cone_vec_matrices(rows, kRows, kCols, "v");
  for (int n = 0; n < kViews; ++n) {
    const auto p = in.matrices[n].project(0, 0, 10), q = expect[n].project(0, 0, 10);
    EXPECT_NEAR(p.u, 7.5, 1e-9);
    EXPECT_NEAR(p.v, 5.5 + 10 * 650.0 / 400.0 / 2, 1e-9);
    EXPECT_NEAR(q.v, p.v, 1e-9);
  }

  // The same line integrals stored in ASTRA's (rows, angles, cols) order: refused without the
  // layout — one line naming both shapes — and read right with it.
  std::vector<float> astra_order(kViews * image);
  for (int j = 0; j < kRows; ++j)
    for (int n = 0; n < kViews; ++n)
      for (int i = 0; i < kCols; ++i) astra_order[(j * kViews + n) * kCols + i] = line_integral(n, j, i);
  const std::size_t shape[3] = {kRows, kViews, kCols};
  write_npy(t.dir / "sino.npy", std::span<const float>(astra_order), shape);
  const std::string base = "[fdk.raw]\nprojections = \"" + (t.dir / "sino.npy").string() + "\"\nastra_vectors = \"" +
                           (t.dir / "vectors.txt").string() + "\"\n";
  EXPECT_EQ(refusal([&] { (void)load_raw_input(scene_of(base), CArmGeometry{}, false); }),
            (t.dir / "sino.npy").string() + ": shape (12, 5, 16) read as fdk.layout = \"projections\" (N, rows, cols) " +
                "is 12 projections, but " + (t.dir / "vectors.txt").string() + " has 5 cone_vec rows");
  const RawInput a = load_raw_input(scene_of("[fdk]\nlayout = \"astra\"\n" + base), CArmGeometry{}, false);
  for (std::size_t k = 0; k < a.line_integrals.size(); ++k)
    ASSERT_EQ(a.line_integrals[k], line_integral(static_cast<int>(k / image), static_cast<int>(k % image / kCols),
                                                 static_cast<int>(k % kCols)));
}

TEST(CtInput, TigreTableIsCheckedAgainstTheStack) {
  tomo::test::TempDir t;
  std::vector<float> px(kViews * kRows * kCols, 0.5f);
  const std::size_t shape[3] = {kViews, kRows, kCols};
  write_npy(t.dir / "p.npy", std::span<const float>(px), shape);
  const std::string tigre = "[fdk.tigre]\nDSO = 400.0\nDSD = 650.0\nnDetector = [16, 12]\ndDetector = [2.0, 2.0]\n"
                            "nVoxel = [32, 32, 32]\nsVoxel = [64.0, 64.0, 64.0]\nangles = [0.0, 1.2, 2.4, 3.6, 4.8]\n";
  const std::string raw = "[fdk.raw]\nprojections = \"" + (t.dir / "p.npy").string() + "\"\n";
  EXPECT_EQ(refusal([&] { (void)load_raw_input(scene_of(raw + tigre), CArmGeometry{}, false); }),
            (t.dir / "p.npy").string() + ": shape (5, 12, 16) read as fdk.layout = \"projections\" (N, rows, cols) " +
                "is 5 projections of 16x12, but <test>: key 'fdk.tigre' describes 5 of 12x16");
  std::string right = tigre;
  right.replace(right.find("[16, 12]"), 8, "[12, 16]");
  const RawInput in = load_raw_input(scene_of(raw + right), CArmGeometry{}, false);
  EXPECT_EQ(in.matrices.size(), 5u);
  EXPECT_NEAR(in.matrices[0].project(0, 10, 0).u, 7.5 + 10 * 650.0 / 400.0 / 2, 1e-9);
  const std::string both = "[fdk.raw]\nprojections = \"p.npy\"\nflat = \"x.tif\"\nintensity = true\n";
  EXPECT_EQ(refusal([&] { (void)RawOptions::from_scene(scene_of(both)); }),
            "<test>: key 'fdk.raw.flat' and fdk.raw.intensity both normalise the stack; give one");
}

TEST(CtInput, ARunTakesAFolderOfTiffFilesWithTigreGeometry) {
  // The whole run, as the CLI does it: the folder passes the run's memory estimate and reader.
  tomo::test::TempDir t;
  fs::create_directories(t.dir / "proj");
  std::vector<float> page(kRows * kCols);
  for (int n = 0; n < kViews; ++n) {
    for (int j = 0; j < kRows; ++j)
      for (int i = 0; i < kCols; ++i) page[j * kCols + i] = 1000.0f * std::exp(-0.01f * line_integral(n, j, i));
    io::write_tiff_stack(t.dir / "proj" / ("p" + std::to_string(n) + ".tif"), page, 1, kRows, kCols);
  }
  io::write_tiff_stack(t.dir / "flat.tif", std::vector<float>(kRows * kCols, 1000.0f), 1, kRows, kCols);
  Scene s = Scene::load_string(
      "problem = \"fdk\"\n[fdk]\nalgorithm = \"sirt\"\niterations = 2\n[fdk.tigre]\nDSO = 400.0\nDSD = 650.0\n"
      "nDetector = [12, 16]\ndDetector = [2.0, 2.0]\nnVoxel = [8, 8, 8]\nsVoxel = [16.0, 16.0, 16.0]\n"
      "angles = [0.0, 1.2, 2.4, 3.6, 4.8]\n[fdk.raw]\nprojections = \"" + (t.dir / "proj").string() +
          "\"\nflat = \"" + (t.dir / "flat.tif").string() + "\"\n",
      "<test>");
  RunReport report;
  {
    OutputDir out(t.dir / "out", true);
    RunContext ctx{s, "cpu", out, report};
    ProblemRegistry::instance().find("fdk").run(ctx);
    out.commit();
  }
  const VolumeF v = read_nifti(t.dir / "out" / "fdk_volume.nii");
  EXPECT_EQ(v.grid.dims, (std::array<int, 3>{8, 8, 8}));
  EXPECT_NEAR(v.grid.voxel_mm[0], 2.0, 1e-6);
  EXPECT_EQ(report.json()["raw_geometry"], "TIGRE geometry (<test>: key 'fdk.tigre')");
}
