// Users' raw projection stacks: FDK of an analytic sphere from a stack and a matrix file made here
// (chord lengths through the sphere along the rays of our own C-arm model — clockwise, columns
// against the rotation, an off-centre central ray, matrices scaled by −3.7 — never our forward
// projector), on cpu and gl-compute; intensities with I₀; the matrix file's round trip; bad
// stacks refused naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
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
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace tomo;
using namespace tomo::fdk;

namespace {

using V = std::array<double, 3>;
double dot(const V& a, const V& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// The test's C-arm: source at distance 600 mm, detector 900 mm from it, 2 mm pixels, 120×90,
// central ray at (62.3, 43.1); 100 views over 210° clockwise from 30°; columns along the
// counter-clockwise tangent, rows along −z.
struct Carm {
  static constexpr int N = 100, cols = 120, rows = 90;
  static constexpr double dsi = 600, dsd = 900, pix = 2.0, u0 = 62.3, v0 = 43.1;
  double beta(int n) const { return (30.0 - n * 210.0 / (N - 1)) * std::numbers::pi / 180.0; }
  V es(int n) const { return {std::cos(beta(n)), std::sin(beta(n)), 0.0}; }
  V eu(int n) const { return {-std::sin(beta(n)), std::cos(beta(n)), 0.0}; }
  V ev() const { return {0.0, 0.0, -1.0}; }
  V source(int n) const { return {dsi * es(n)[0], dsi * es(n)[1], 0.0}; }
  // Row-major 3×4, scaled by −3.7: u = u0 + f·x·e_u/d, v = v0 + f·x·e_v/d, d = D_si − x·e_s.
  std::array<double, 12> matrix(int n) const {
    const double f = dsd / pix, k = -3.7;
    const V s = es(n), u = eu(n), w = ev();
    std::array<double, 12> P{};
    for (int c = 0; c < 3; ++c) {
      P[8 + c] = -s[c] * k;
      P[c] = (f * u[c] - u0 * s[c]) * k;
      P[4 + c] = (f * w[c] - v0 * s[c]) * k;
    }
    P[11] = dsi * k;
    P[3] = u0 * dsi * k;
    P[7] = v0 * dsi * k;
    return P;
  }
  // μ·(chord of the ray from the source to pixel (i, j) through the sphere).
  double line_integral(int n, int i, int j, const V& c, double r, double mu) const {
    const V S = source(n), s = es(n), u = eu(n), w = ev();
    V d;
    for (int a = 0; a < 3; ++a) d[a] = -dsd * s[a] + (i - u0) * pix * u[a] + (j - v0) * pix * w[a];
    const double len = std::sqrt(dot(d, d));
    for (double& x : d) x /= len;
    const V sc{S[0] - c[0], S[1] - c[1], S[2] - c[2]};
    const double b = dot(sc, d), disc = b * b - (dot(sc, sc) - r * r);
    return disc > 0 ? mu * 2.0 * std::sqrt(disc) : 0.0;
  }
};

const V kCentre{12.0, -8.0, 5.0};
constexpr double kRadius = 20.0, kMu = 0.02, kI0 = 50000.0;

// The stack (N, rows, cols) as line integrals, or as uint16 intensities I₀·exp(−p).
void write_stack(const fs::path& path, bool intensities) {
  const Carm c;
  std::vector<float> p;
  std::vector<std::uint16_t> I;
  for (int n = 0; n < Carm::N; ++n)
    for (int j = 0; j < Carm::rows; ++j)
      for (int i = 0; i < Carm::cols; ++i) {
        const double li = c.line_integral(n, i, j, kCentre, kRadius, kMu);
        p.push_back(static_cast<float>(li));
        I.push_back(static_cast<std::uint16_t>(std::lround(kI0 * std::exp(-li))));
      }
  const std::size_t shape[3] = {Carm::N, Carm::rows, Carm::cols};
  if (intensities)
    write_npy(path, std::span<const std::uint16_t>(I), shape);
  else
    write_npy(path, std::span<const float>(p), shape);
}

// The matrices as text, written here (12 numbers per line, row by row), `count` of them.
void write_matrices(const fs::path& path, int count = Carm::N) {
  std::ofstream out(path);
  out.precision(17);
  out << "# test C-arm\n";
  for (int n = 0; n < count; ++n) {
    for (double a : Carm().matrix(n)) out << a << ' ';
    out << '\n';
  }
}

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
  test::TempDir t;
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
  test::TempDir t;
  write_stack(t.dir / "counts.npy", true);
  write_matrices(t.dir / "matrices.txt");
  const std::string text =
      raw_scene(t.dir / "counts.npy", t.dir / "matrices.txt") + "intensity = true\ni0 = " + std::to_string(kI0) + "\n";
  expect_sphere(measure(run_scene(text, "cpu", t.dir / "out")), "uint16 intensities");
}

TEST(FdkRawStack, MatrixFileRoundTripsInTextAndNpy) {
  test::TempDir t;
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
}

TEST(FdkRawStack, BadStacksAndMatrixFilesAreRefusedNamingWhatIsWrong) {
  test::TempDir t;
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
  std::ofstream(t.dir / "eleven.txt") << "1 2 3 4 5 6 7 8 9 10 11\n";
  EXPECT_NE(refusal(raw_scene(stack, t.dir / "eleven.txt")).find("11 numbers are not whole 3x4 matrices"),
            std::string::npos);

  // Without a matrix file the scene's C-arm (default: 496 views of 1248x960) must match the stack.
  const std::string no_mats = "problem = \"fdk\"\n[fdk.raw]\nprojections = \"" + stack.string() + "\"\n";
  EXPECT_NE(refusal(no_mats).find("100 projections of 120x90, but"), std::string::npos) << refusal(no_mats);
  EXPECT_NE(refusal(no_mats + "intensity = true\n").find("key 'fdk.raw.i0' must be > 0"), std::string::npos);
}
