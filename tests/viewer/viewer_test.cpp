// The viewer as a user runs it, under Xvfb with Mesa: screenshots of the correspondence
// and slice views must be non-uniform and match, pixel for pixel, the headless (EGL)
// render of the same passes put through the viewer's colour mappings on the CPU; without
// a display `view` exits 3 with one sentence. Not skipped: CI installs xvfb.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include "compute/core/registry.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/monte_carlo.hpp"
#include "compute/glpet/config.hpp"
#include "compute/io/png.hpp"
#include "tests/apps/cli_run.hpp"
#include "tests/support/gl_test.hpp"
#include "renderer/viewer/layout.hpp"

namespace fs = std::filesystem;
using namespace tomo;

namespace {

// The small glpet system of tests/glpet (16³ voxels of 2 mm, 8×8 modules of 4 mm at
// z = ±40 mm, R = 2) with an attenuating cylinder, a hot sphere on a warm background.
constexpr const char* kScene = R"(problem = "glpet"
backend = "gl"
[glpet]
voxels = [16, 16, 16]
voxel_mm = [2.0, 2.0, 2.0]
R = 2
N = 1
K = 16
iterations = 2
[glpet.mc]
histories = 300_000
seed = 5
[[glpet.modules]]
centre = [0.0, 0.0, -40.0]
normal = [0.0, 0.0, 1.0]
axis_a = [1.0, 0.0, 0.0]
axis_t = [0.0, 1.0, 0.0]
detectors = [8, 8]
pitch_mm = [4.0, 4.0]
[[glpet.modules]]
centre = [0.0, 0.0, 40.0]
normal = [0.0, 0.0, -1.0]
axis_a = [1.0, 0.0, 0.0]
axis_t = [0.0, 1.0, 0.0]
detectors = [8, 8]
pitch_mm = [4.0, 4.0]
[[glpet.activity]]
type = "cylinder"
centre = [0.0, 0.0, 0.0]
radius = 13.0
length = 30.0
value = 0.2
[[glpet.activity]]
type = "sphere"
centre = [5.0, -3.0, 2.0]
radius = 6.0
value = 1.0
[[glpet.attenuation]]
type = "cylinder"
centre = [0.0, 0.0, 0.0]
radius = 13.0
length = 30.0
value = 0.0096
[[glpet.attenuation]]
type = "sphere"
centre = [-5.0, 3.0, -2.0]
radius = 4.0
value = 0.01
)";
constexpr int kWidth = 1280, kHeight = 800;

// An Xvfb server of our own (-displayfd picks a free display number).
class Xvfb {
 public:
  Xvfb() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 2);
      const std::string fd = std::to_string(fds[1]);
      ::execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1920x1200x24", "-nolisten", "tcp",
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    char buf[32] = {};
    std::size_t n = 0;
    while (n + 1 < sizeof buf) {
      const ssize_t r = ::read(fds[0], buf + n, 1);
      if (r <= 0 || buf[n] == '\n') break;
      ++n;
    }
    ::close(fds[0]);
    if (n > 0) display_ = std::string(":").append(buf, n);  // not ":" + …: GCC 12 -Wrestrict false positive
  }
  ~Xvfb() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& display() const { return display_; }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

using Result = tomo::test::CliResult;
Result run(const std::string& env, const std::string& args) { return tomo::test::run_cli(args, {}, env); }

struct Png {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // row 0 at the top
  // Pixel at GL window coordinates (x, y from the bottom).
  const unsigned char* gl_at(int x, int y) const { return &rgb[(std::size_t(height - 1 - y) * width + x) * 3]; }
};

Png read_png(const fs::path& path) {
  Png img;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.width, &img.height, &channels, 3);
  if (!data) return img;
  img.rgb.assign(data, data + std::size_t(img.width) * img.height * 3);
  stbi_image_free(data);
  return img;
}

struct Compare {
  std::size_t pixels = 0, over = 0;  // window pixels compared; of those off by more than the tolerance
  int max_diff = 0;
  std::set<std::array<unsigned char, 3>> colours;  // distinct colours seen in the screenshot
};

// Compares the image drawn at `pl` with `ref` (RGB8, image row 0 at the TOP, like PNGs).
void compare(const Png& shot, const viewer::Placement& pl, const std::vector<unsigned char>& ref, int tolerance,
             Compare& c) {
  for (int y = 0; y < pl.height * pl.scale; ++y)
    for (int x = 0; x < pl.width * pl.scale; ++x) {
      const int u = x / pl.scale, v = y / pl.scale;  // v from the bottom
      const unsigned char* s = shot.gl_at(pl.x + x, pl.y + y);
      const unsigned char* r = &ref[(std::size_t(pl.height - 1 - v) * pl.width + u) * 3];
      int d = 0;
      for (int k = 0; k < 3; ++k) d = std::max(d, std::abs(int(s[k]) - int(r[k])));
      c.max_diff = std::max(c.max_diff, d);
      c.over += d > tolerance;
      ++c.pixels;
      c.colours.insert({s[0], s[1], s[2]});
    }
}

class ViewerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tomo-viewer-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "small.toml") << kScene;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the viewer under our Xvfb and returns its screenshot.
  Png screenshot(const std::string& view) {
    Xvfb x;
    EXPECT_FALSE(x.display().empty()) << "could not start Xvfb (install the xvfb package: tools/setup-deps.sh)";
    if (x.display().empty()) return {};
    const fs::path out = dir_ / (view + ".png");
    const Result r = run("DISPLAY=" + x.display(), "--gl-validate view " + (dir_ / "small.toml").string() +
                                                       " --view " + view + " --frames 2 --size " +
                                                       std::to_string(kWidth) + "x" + std::to_string(kHeight) +
                                                       " --screenshot " + out.string());
    EXPECT_EQ(r.status, 0) << r.output;
    Png p = read_png(out);
    EXPECT_EQ(p.width, kWidth) << r.output;
    EXPECT_EQ(p.height, kHeight);
    return p;
  }

  glpet::GlpetScene scene() const { return glpet::read_glpet_scene(Scene::load_file(dir_ / "small.toml")); }

  fs::path dir_;
};

}  // namespace

// Tolerance: the viewer and the reference read the same pass's floats (llvmpipe through GLX
// vs EGL) and apply the same formulas in GLSL and C++; float rounding may move a channel
// by one 8-bit step, so every pixel must be within 2/255.
TEST_F(ViewerTest, CorrespondenceScreenshotMatchesHeadlessPass) {
  const Png shot = screenshot("correspondence");
  ASSERT_EQ(shot.width, kWidth);

  const glpet::GlpetScene g = scene();
  const auto& sys = g.system;
  test::gl_context();
  auto op = BackendRegistry<glpet::Projector>::instance().create("gl");
  op->configure(sys);
  const auto& d = sys.grid.dims;
  const Vec3 v = sys.grid.centre(d[0] / 2, d[1] / 2, d[2] / 2);  // the viewer's first voxel
  std::vector<glpet::CorrespondencePixel> img;
  ASSERT_TRUE(op->correspondence_image(0, v, img));  // read back from the offscreen target
  const auto& pair = sys.scanner.pairs[0];
  const int W = sys.R * pair.n_a(), H = sys.R * pair.n_t();
  ASSERT_EQ(img.size(), std::size_t(W) * H);
  const double wref = viewer::correspondence_weight_ref(pair, v, sys.R);
  std::vector<unsigned char> ref(std::size_t(W) * H * 3);
  int hits = 0;
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      const auto c = viewer::correspondence_colour(img[std::size_t(Y) * W + X], pair.n_a(), pair.n_t(), wref);
      hits += img[std::size_t(Y) * W + X].r >= 0;
      for (int k = 0; k < 3; ++k) ref[(std::size_t(H - 1 - Y) * W + X) * 3 + k] = viewer::to_unorm8(c[k]);
    }
  EXPECT_GT(hits, W * H / 2);  // the centre voxel sees most of the opposite module

  const viewer::Placement pl = viewer::fit(viewer::image_area(kWidth, kHeight), W, H);
  Compare c;
  compare(shot, pl, ref, 2, c);
  EXPECT_EQ(c.pixels, std::size_t(W * H) * pl.scale * pl.scale);
  std::printf("correspondence: %zu window pixels at scale %d, max difference %d/255, %zu colours\n", c.pixels,
              pl.scale, c.max_diff, c.colours.size());
  EXPECT_EQ(c.over, 0u) << "max difference " << c.max_diff << " of 255";
  EXPECT_GE(c.colours.size(), std::size_t(W * H / 2)) << "screenshot nearly uniform";
}

TEST_F(ViewerTest, SliceScreenshotMatchesHeadlessReconstruction) {
  const Png shot = screenshot("slices");
  ASSERT_EQ(shot.width, kWidth);

  // The same reconstruction headless: the independent Monte-Carlo, ML-EM on the gl backend.
  const glpet::GlpetScene g = scene();
  const auto& sys = g.system;
  test::gl_context();
  const auto mc = glpet::simulate(sys.scanner, sys.sigma_t, glpet::VoxelSource(g.activity_volume), g.mc);
  auto op = BackendRegistry<glpet::Projector>::instance().create("gl");
  op->configure(sys);
  glpet::MlemOptions opt;
  opt.iterations = g.iterations;
  VolumeF x(sys.grid);
  x.data = glpet::run_mlem(*op, mc.counts, {}, opt).x;
  float mx = 0;
  for (float a : x.data) mx = std::max(mx, a);
  ASSERT_GT(mx, 0.f);

  const auto& d = sys.grid.dims;
  const int mip_axis = 2;  // viewer defaults: slices through the centre voxel, hot, window [0, max]
  const auto places = viewer::volume_layout(viewer::image_area(kWidth, kHeight), d, mip_axis);
  Compare c;
  for (int i = 0; i < 4; ++i) {
    const int axis = viewer::volume_panel_axis(i, mip_axis);
    const Image2D img = i < 3 ? slice(x, axis, d[axis] / 2) : mip(x, axis);
    ASSERT_EQ(img.width, places[i].width);
    ASSERT_EQ(img.height, places[i].height);
    compare(shot, places[i], colorize(img, ColorMap::Hot, 0.0f, mx), 2, c);
  }
  std::printf("slices + MIP: %zu window pixels at scale %d, max difference %d/255, %zu colours\n", c.pixels,
              places[0].scale, c.max_diff, c.colours.size());
  EXPECT_EQ(c.over, 0u) << "max difference " << c.max_diff << " of 255 over " << c.pixels << " pixels";
  EXPECT_GE(c.colours.size(), 50u) << "screenshot nearly uniform";
}

TEST(ViewerNoDisplay, ExitsThreeWithOneSentence) {
  const std::string scene = std::string(TOMO_SOURCE_DIR) + "/scenes/glpet_small.toml";
  // No display variable at all: the headless binary answers without starting the viewer.
  Result r = run("env -u DISPLAY -u WAYLAND_DISPLAY", "view " + scene);
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("needs a display"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tomoraster run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("xvfb-run -a tomoraster view"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  // A display that does not answer: tomoraster-view's GLFW fails, same sentence, exit 3.
  r = run("env -u WAYLAND_DISPLAY DISPLAY=:9876", "view " + scene + " --screenshot /tmp/never.png");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("needs a display"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("xvfb-run -a"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists("/tmp/never.png"));
}

TEST(ViewerNoDisplay, HeadlessCommandsNeedNoDisplay) {
  const Result r = run("env -u DISPLAY -u WAYLAND_DISPLAY", "info");
  EXPECT_EQ(r.status, 0) << r.output;
}
