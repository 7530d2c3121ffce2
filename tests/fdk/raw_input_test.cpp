// Users' raw projection stacks: FDK of an analytic sphere from a stack and a matrix file made here
// (chord lengths through the sphere along the rays of our own C-arm model — clockwise, columns
// against the rotation, an off-centre central ray, matrices scaled by −3.7 — never our forward
// projector), on cpu and gl-compute; intensities with I₀; the matrix file's round trip; bad
// stacks refused naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/report.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/matrix_file.hpp"
#include "compute/fdk/metrics.hpp"
#include "compute/fdk/raw_input.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/io/output_dir.hpp"
#include "tests/fdk/carm_stack.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace tomo;
using namespace tomo::fdk;

using namespace tomo::fdk::test;

namespace {

std::string raw_scene(const fs::path& stack, const fs::path& matrices, const std::string& extra = "") {
  return "problem = \"fdk\"\n[fdk]\nL = 48\nvolume_mm = 144.0\n" + extra + "[fdk.raw]\nprojections = \"" +
         stack.string() + "\"\nmatrices = \"" + matrices.string() + "\"\n";
}

VolumeF run_scene(const std::string& text, const std::string& backend, const fs::path& out_dir) {
  Scene s = Scene::load_string(text, "<test>");
  RunReport report;
  {
    OutputDir out(out_dir, true);
    RunContext ctx{s, backend, out, report};
    ProblemRegistry::instance().find("fdk").run(ctx);
    out.commit();
  }
  return read_nifti(out_dir / "fdk_volume.nii");
}

struct SphereStats {
  double inside = 0, shell = 0, shell_rms = 0, volume_ratio = 0;
};

// Mean inside 0.6·r, mean and rms of the shell 1.4·r–2·r, and the volume above μ/2 over 4/3·π·r³
// (the edge: a radius off by one voxel of 3 mm changes it by 45 %).
SphereStats measure(const VolumeF& v) {
  double in = 0, sh = 0, sq = 0, above = 0;
  long n_in = 0, n_sh = 0;
  const double voxel = v.grid.voxel_mm[0];
  for (int k = 0; k < v.grid.dims[2]; ++k)
    for (int j = 0; j < v.grid.dims[1]; ++j)
      for (int i = 0; i < v.grid.dims[0]; ++i) {
        const auto x = v.grid.centre(i, j, k);
        const double d = std::hypot(x[0] - kCentre[0], x[1] - kCentre[1], x[2] - kCentre[2]);
        const double f = v.at(i, j, k);
        if (d < 0.6 * kRadius) in += f, ++n_in;
        if (d > 1.4 * kRadius && d < 2.0 * kRadius) sh += f, sq += f * f, ++n_sh;
        if (f > 0.5 * kMu) above += voxel * voxel * voxel;
      }
  return {in / n_in, sh / n_sh, std::sqrt(sq / n_sh), above / (4.0 / 3.0 * std::numbers::pi * std::pow(kRadius, 3))};
}

void expect_sphere(const SphereStats& st, const std::string& what) {
  std::printf("%s: inside %.4f %% off, shell mean %.4f %% of mu, shell rms %.3f %% of mu, volume ratio %.4f\n",
              what.c_str(), 100 * (st.inside / kMu - 1), 100 * st.shell / kMu, 100 * st.shell_rms / kMu,
              st.volume_ratio);
  // Measured: inside −0.008 %, shell mean −0.007 %, shell rms 1.44 %, volume ratio 0.9999 (cpu,
  // gl-compute and uint16 intensities alike); with Parker's γ mirrored: inside +2.3 %, rms 2.2 %.
  EXPECT_NEAR(st.inside, kMu, 0.005 * kMu) << what;
  EXPECT_NEAR(st.shell, 0.0, 0.005 * kMu) << what;
  EXPECT_LT(st.shell_rms, 0.018 * kMu) << what;
  EXPECT_NEAR(st.volume_ratio, 1.0, 0.03) << what;
}

std::string refusal(const std::string& scene_text) {
  try {
    Scene s = Scene::load_string(scene_text, "<test>");
    CArmGeometry g;
    (void)load_raw_input(s, g, true);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST(FdkRawStack, SphereFromMatrixFileOnCpuAndGlCompute) {
  tomo::test::TempDir t;
  write_stack(t.dir / "stack.npy", false);
  write_matrices(t.dir / "matrices.txt");
  const std::string text = raw_scene(t.dir / "stack.npy", t.dir / "matrices.txt");
  const VolumeF cpu = run_scene(text, "cpu", t.dir / "cpu");
  const SphereStats st = measure(cpu);
  expect_sphere(st, "cpu");
  const VolumeF gl = run_scene(text, "gl-compute", t.dir / "gl");
  expect_sphere(measure(gl), "gl-compute");
  const double rel = relative_l2(gl.data, cpu.data);
  std::printf("gl-compute vs cpu: relative L2 %.3g\n", rel);
  EXPECT_LT(rel, 1e-4);
}

TEST(FdkRawStack, IntensitiesWithI0GiveTheSameSphere) {
  tomo::test::TempDir t;
  write_stack(t.dir / "counts.npy", true);
  write_matrices(t.dir / "matrices.txt");
  const std::string text =
      raw_scene(t.dir / "counts.npy", t.dir / "matrices.txt") + "intensity = true\ni0 = " + std::to_string(kI0) + "\n";
  expect_sphere(measure(run_scene(text, "cpu", t.dir / "out")), "uint16 intensities");
}

// Uneven angular steps (each view weighted by half the distance to its neighbours) and the stack
// as NIfTI (columns × rows × projections) instead of .npy.
TEST(FdkRawStack, UnevenAnglesAndNiftiStackGiveTheSameSphere) {
  tomo::test::TempDir t;
  Carm c;
  c.jitter = 0.3;
  VolumeF stack;
  stack.grid.dims = {Carm::cols, Carm::rows, Carm::N};
  stack.data = sphere_line_integrals(c);
  write_nifti(t.dir / "stack.nii", stack);
  write_matrices(t.dir / "matrices.txt", Carm::N, c);
  const SphereStats st = measure(run_scene(raw_scene(t.dir / "stack.nii", t.dir / "matrices.txt"), "cpu", t.dir / "out"));
  expect_sphere(st, "uneven steps, NIfTI stack");
  // Measured: inside −0.008 %, shell rms 1.58 %; weighting every view by the mean step instead
  // gives −0.31 % and 1.76 %.
  EXPECT_NEAR(st.inside, kMu, 0.001 * kMu);
  EXPECT_LT(st.shell_rms, 0.017 * kMu);
}

TEST(FdkRawStack, MatrixFileRoundTripsInTextAndNpy) {
  tomo::test::TempDir t;
  std::vector<Mat34> m(3);
  for (int n = 0; n < 3; ++n)
    for (int k = 0; k < 12; ++k) m[n].a[k] = std::sin(1.0 + n * 12 + k) * 1e3 / 3.0;
  write_matrix_file(t.dir / "m.txt", m);
  const auto back = read_matrix_file(t.dir / "m.txt");
  ASSERT_EQ(back.size(), 3u);
  for (int n = 0; n < 3; ++n) EXPECT_EQ(back[n].a, m[n].a);
  // (N, 3, 4) float64 in C order: element [n][r][c] is row r, column c.
  std::vector<double> v(36);
  for (int n = 0; n < 3; ++n)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) v[n * 12 + r * 4 + c] = m[n].at(r, c);
  const std::size_t shape[3] = {3, 3, 4};
  write_npy(t.dir / "m.npy", std::span<const double>(v), shape);
  const auto npy = read_matrix_file(t.dir / "m.npy");
  ASSERT_EQ(npy.size(), 3u);
  for (int n = 0; n < 3; ++n) EXPECT_EQ(npy[n].a, m[n].a);
  v[2 * 12 + 1 * 4 + 3] = std::numeric_limits<double>::infinity();
  write_npy(t.dir / "inf.npy", std::span<const double>(v), shape);
  try {
    read_matrix_file(t.dir / "inf.npy");
    FAIL() << "infinite matrix entry accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("inf.npy: matrix 2, row 1, column 3 is not finite"), std::string::npos)
        << e.what();
  }
}

TEST(FdkRawStack, BadStacksAndMatrixFilesAreRefusedNamingWhatIsWrong) {
  tomo::test::TempDir t;
  const fs::path stack = t.dir / "stack.npy", mats = t.dir / "matrices.txt";
  write_stack(stack, false);
  write_matrices(t.dir / "short.txt", Carm::N - 1);
  EXPECT_NE(refusal(raw_scene(stack, t.dir / "short.txt")).find("100 projections, but"), std::string::npos);
  EXPECT_NE(refusal(raw_scene(stack, t.dir / "short.txt")).find("has 99 matrices"), std::string::npos);

  std::vector<float> px(2 * 3 * 4, 0.5f);
  px[1 * 12 + 2 * 4 + 3] = std::nanf("");
  const std::size_t s3[3] = {2, 3, 4};
  write_npy(t.dir / "nan.npy", std::span<const float>(px), s3);
  write_matrices(mats, 2);
  EXPECT_NE(refusal(raw_scene(t.dir / "nan.npy", mats)).find("projection 1, row 2, column 3 is not finite"),
            std::string::npos);

  const std::vector<double> d(24, 1.0);
  write_npy(t.dir / "f8.npy", std::span<const double>(d), s3);
  EXPECT_NE(refusal(raw_scene(t.dir / "f8.npy", mats)).find("must be float32 (<f4) or uint16 (<u2), not <f8"),
            std::string::npos);

  const std::size_t s2[2] = {6, 4};
  write_npy(t.dir / "flat.npy", std::span<const float>(px), s2);
  EXPECT_NE(refusal(raw_scene(t.dir / "flat.npy", mats)).find("has 2 dimensions"), std::string::npos);

  std::ofstream(t.dir / "words.txt") << "1 2 3 4 5 6\n7 8 nine 10 11 12\n";
  EXPECT_NE(refusal(raw_scene(stack, t.dir / "words.txt")).find("line 2: 'nine 10 11 12' is not a number"),
            std::string::npos);
  std::ofstream(t.dir / "signs.txt") << "1,+2,-3 4e0\t5 6 7 8 9 10 11 +12.5  # comment\n";
  EXPECT_EQ(read_matrix_file(t.dir / "signs.txt").at(0).at(2, 3), 12.5);
  std::ofstream(t.dir / "eleven.txt") << "1 2 3 4 5 6 7 8 9 10 11\n";
  EXPECT_NE(refusal(raw_scene(stack, t.dir / "eleven.txt")).find("11 numbers are not whole 3x4 matrices"),
            std::string::npos);

  // Without a matrix file the scene's C-arm (default: 496 views of 1248x960) must match the stack.
  const std::string no_mats = "problem = \"fdk\"\n[fdk.raw]\nprojections = \"" + stack.string() + "\"\n";
  EXPECT_NE(refusal(no_mats).find("100 projections of 120x90, but"), std::string::npos) << refusal(no_mats);
  EXPECT_NE(refusal(no_mats + "intensity = true\n").find("key 'fdk.raw.i0' must be > 0"), std::string::npos);
}

// Round trip: a simulated scan written as a raw stack (fdk.write_raw) and read back through
// [fdk.raw] with its matrix file reconstructs the volume of the plain simulated run.
TEST(FdkRawStack, WrittenSimulationReadsBackToTheSameVolume) {
  tomo::test::TempDir t;
  const auto scene = [](const std::string& fdk_keys) {
    return "problem = \"fdk\"\n[fdk]\nL = 24\n" + fdk_keys +
           "[fdk.geometry]\nprojections = 40\ndetector_columns = 64\ndetector_rows = 48\npixel_mm = 4.8\n";
  };
  const VolumeF plain = run_scene(scene(""), "cpu", t.dir / "plain");
  const VolumeF gen = run_scene(scene("write_raw = true\n"), "cpu", t.dir / "gen");
  EXPECT_EQ(gen.data, plain.data);  // the same projections, filtered the same way
  const NpyArray a = read_npy(t.dir / "gen" / "raw_projections.npy");
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{40, 48, 64}));
  const VolumeF back = run_scene(scene("raw.projections = \"" + (t.dir / "gen" / "raw_projections.npy").string() +
                                       "\"\nraw.matrices = \"" + (t.dir / "gen" / "raw_matrices.txt").string() +
                                       "\"\n"),
                                 "cpu", t.dir / "back");
  const double rel = relative_l2(back.data, plain.data);
  std::printf("raw round trip vs simulated run: relative L2 %.3g\n", rel);
  EXPECT_LT(rel, 1e-6);
}
