#include "renderer/viewer/viewer.hpp"

#define GLFW_INCLUDE_NONE  // GL comes from glad (gl/gl.hpp)
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/scene.hpp"
#include "renderer/gl/engine.hpp"
#include "compute/io/png.hpp"
#include "renderer/viewer/session.hpp"
#include "renderer/viewer/views.hpp"
#include "renderer/window/window_context.hpp"

namespace tomo::viewer {

View view_from_name(const std::string& name) {
  if (name == "correspondence") return View::Correspondence;
  if (name == "atlas") return View::Atlas;
  if (name == "slices") return View::Slices;
  throw InputError("unknown view '" + name + "' (known: correspondence, atlas, slices)");
}

namespace {

const char* kViewNames[] = {"correspondence", "atlas", "slices"};
const char* kAtlasModes[] = {"measured", "estimated", "ratio y/y~"};
const char* kMaps[] = {"gray", "hot", "viridis"};

// ImGui's context and its GLFW/OpenGL3 backends, torn down in order.
struct ImGuiScope {
  explicit ImGuiScope(GLFWwindow* w) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the user's directory
    ImGui::StyleColorsDark();
    if (!ImGui_ImplGlfw_InitForOpenGL(w, true) || !ImGui_ImplOpenGL3_Init("#version 450"))
      throw Error("Dear ImGui could not initialise its GLFW/OpenGL3 backends");
  }
  ~ImGuiScope() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
};

class Viewer {
 public:
  Viewer(gl::WindowContext& win, GlpetSession& s, const ViewerOptions& o) : win_(win), s_(s), o_(o), view_(o.view) {
    const auto& d = s.system().grid.dims;
    st_.voxel = {d[0] / 2, d[1] / 2, d[2] / 2};
    renderer_ = win.info().gl_renderer + ", GL " + std::to_string(win.info().major) + "." +
                std::to_string(win.info().minor);
  }

  // One frame; false when the window is to close.
  bool frame() {
    const auto t0 = std::chrono::steady_clock::now();
    glfwPollEvents();
    if (win_.should_close()) return false;
    s_.want_estimate(view_ == View::Atlas);
    s_.sync();
    auto [w, h] = win_.framebuffer_size();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    input(w, h);
    TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
    TOMO_GL_CHECK(glViewport(0, 0, w, h));
    TOMO_GL_CHECK(glClearColor(0.08f, 0.08f, 0.1f, 1.0f));
    TOMO_GL_CHECK(glClear(GL_COLOR_BUFFER_BIT));
    if (view_error_.empty()) {
      try {
        if (view_ == View::Correspondence) views_.draw_correspondence(s_, st_, w, h);
        else if (view_ == View::Atlas) views_.draw_atlas(s_, st_, w, h);
        else views_.draw_slices(s_, st_, w, h);
      } catch (const Error& e) {  // e.g. an edited shader that does not compile: shown, R retries
        view_error_ = e.what();
        if (!o_.screenshot.empty()) throw;
      }
    }
    panel(w, h);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frames_;
    if (!o_.screenshot.empty() && s_.finished() && ++settled_frames_ >= std::max(1, o_.frames)) {
      capture(w, h);
      done_ = true;
    } else if (o_.screenshot.empty() && o_.frames > 0 && frames_ >= o_.frames) {
      done_ = true;
    }
    win_.swap_and_poll();
    frame_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return !done_ && !win_.should_close();
  }

  void loop() {
    s_.run([this] { return frame(); });
    while (!done_ && frame()) {
    }
  }

 private:
  void input(int w, int h) {
    ImGuiIO& io = ImGui::GetIO();
    const auto& sys = s_.system();
    const auto& d = sys.grid.dims;
    if (!io.WantCaptureKeyboard) {
      auto pressed = [](int key) { return ImGui::IsKeyPressed(key, true); };
      if (pressed(GLFW_KEY_1) || pressed(GLFW_KEY_C)) view_ = View::Correspondence;
      if (pressed(GLFW_KEY_2) || pressed(GLFW_KEY_A)) view_ = View::Atlas;
      if (pressed(GLFW_KEY_3) || pressed(GLFW_KEY_S)) view_ = View::Slices;
      if (pressed(GLFW_KEY_TAB)) view_ = View((int(view_) + 1) % 3);
      if (pressed(GLFW_KEY_LEFT)) st_.voxel[0]--;
      if (pressed(GLFW_KEY_RIGHT)) st_.voxel[0]++;
      if (pressed(GLFW_KEY_DOWN)) st_.voxel[1]--;
      if (pressed(GLFW_KEY_UP)) st_.voxel[1]++;
      if (pressed(GLFW_KEY_PAGE_DOWN)) st_.voxel[2]--;
      if (pressed(GLFW_KEY_PAGE_UP)) st_.voxel[2]++;
      if (pressed(GLFW_KEY_G)) st_.grid = !st_.grid;
      if (pressed(GLFW_KEY_P)) st_.pair = (st_.pair + 1) % int(sys.scanner.pairs.size());
      if (pressed(GLFW_KEY_M)) st_.atlas_mode = AtlasMode((int(st_.atlas_mode) + 1) % 3);
      if (pressed(GLFW_KEY_K)) st_.colour_map = ColourMap((int(st_.colour_map) + 1) % 3);
      if (pressed(GLFW_KEY_X)) st_.mip_axis = (st_.mip_axis + 1) % 3;
      if (pressed(GLFW_KEY_HOME)) st_.atlas_zoom = 0;
      if (pressed(GLFW_KEY_R)) reload();
      if (pressed(GLFW_KEY_ESCAPE) || pressed(GLFW_KEY_Q)) glfwSetWindowShouldClose(win_.window(), GLFW_TRUE);
    }
    for (int a = 0; a < 3; ++a) st_.voxel[a] = std::clamp(st_.voxel[a], 0, d[a] - 1);
    if (io.WantCaptureMouse) return;
    const float mx = io.MousePos.x, my = float(h) - io.MousePos.y;  // GL window coordinates
    if (view_ == View::Atlas) {
      if (io.MouseWheel != 0 && st_.atlas_zoom > 0) {  // zoom about the cursor
        const Area a = image_area(w, h);
        const float z0 = st_.atlas_zoom, z1 = std::clamp(z0 * std::pow(1.25f, io.MouseWheel), 0.05f, 512.0f);
        for (int k = 0; k < 2; ++k) {
          const float c = (k == 0 ? mx - a.x : my - a.y);
          st_.atlas_pan[k] += c / z0 - c / z1;
        }
        st_.atlas_zoom = z1;
      }
      if (ImGui::IsMouseDragging(ImGuiMouseButton_Left) && st_.atlas_zoom > 0) {
        st_.atlas_pan[0] -= io.MouseDelta.x / st_.atlas_zoom;
        st_.atlas_pan[1] += io.MouseDelta.y / st_.atlas_zoom;
      }
    } else if (view_ == View::Slices && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      // A click on a slice moves the selected voxel (and so the other slices) there.
      const auto places = volume_layout(image_area(w, h), d, st_.mip_axis);
      for (int i = 0; i < 3; ++i) {
        const Placement& pl = places[i];
        const int u = int(std::floor((mx - pl.x) / pl.scale)), v = int(std::floor((my - pl.y) / pl.scale));
        if (u < 0 || v < 0 || u >= pl.width || v >= pl.height) continue;
        const int axis = volume_panel_axis(i, st_.mip_axis);
        st_.voxel[axis == 0 ? 1 : 0] = u;
        st_.voxel[axis == 2 ? 1 : 2] = v;
      }
    }
  }

  void reload() {
    gl::shaders().reload();
    view_error_.clear();
    log_info("viewer: shaders reloaded", gl::shaders().dir().empty() ? " (embedded)" : " from " + gl::shaders().dir().string());
  }

  // Readout of the correspondence texel under the mouse: (p, q, r, s, weight).
  std::string readout(int h) {
    const ImGuiIO& io = ImGui::GetIO();
    const Placement& pl = views_.correspondence_placement();
    const float mx = io.MousePos.x, my = float(h) - io.MousePos.y;
    const int X = int(std::floor((mx - pl.x) / pl.scale)), Y = int(std::floor((my - pl.y) / pl.scale));
    if (X < 0 || Y < 0 || X >= pl.width || Y >= pl.height || !view_error_.empty()) return "(mouse outside the image)";
    const auto& sys = s_.system();
    const auto& corr = s_.correspondence().draw_correspondence_image(
        st_.pair, sys.grid.centre(st_.voxel[0], st_.voxel[1], st_.voxel[2]));
    float t[4] = {0, 0, 0, 0};
    TOMO_GL_CHECK(glGetTextureSubImage(corr.id(), 0, X, Y, 0, 1, 1, 1, GL_RGBA, GL_FLOAT, sizeof t, t));
    const int p = X / sys.R, q = Y / sys.R;
    if (t[3] == 0) return str_cat("p ", p, "  q ", q, "  (line misses)");
    return str_cat("p ", p, "  q ", q, "  r ", int(t[0]), "  s ", int(t[1]), "\nweight ", t[2]);
  }

  void panel(int w, int h) {
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(float(kPanelWidth), float(h)));
    ImGui::Begin("tomoraster view", nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                                  ImGuiWindowFlags_NoCollapse);
    const auto& sys = s_.system();
    const auto& d = sys.grid.dims;
    ImGui::Text("problem  glpet   backend  %s", s_.backend().c_str());
    ImGui::TextWrapped("GL  %s", renderer_.c_str());
    ImGui::Text("grid %dx%dx%d  LORs %zu  R %d", d[0], d[1], d[2], sys.lor_count(), sys.R);
    ImGui::Text("ML-EM iteration %d / %d%s", s_.iteration(), s_.planned_iterations(), s_.finished() ? " (done)" : "");
    ImGui::Separator();
    ImGui::Text("simulate %.0f ms  configure %.0f ms", s_.simulate_ms(), s_.configure_ms());
    ImGui::Text("last iteration %.1f ms", s_.iteration_ms());
    ImGui::Text("frame %.1f ms", frame_ms_);
    if (view_ == View::Correspondence) ImGui::Text("correspondence pass %.3f ms", st_.corr_ms);
    if (!s_.error().empty()) ImGui::TextWrapped("reconstruction stopped: %s", s_.error().c_str());
    ImGui::Separator();
    int v = int(view_);
    if (ImGui::Combo("view", &v, kViewNames, 3)) view_ = View(v);
    ImGui::SliderInt("voxel i", &st_.voxel[0], 0, d[0] - 1);
    ImGui::SliderInt("voxel j", &st_.voxel[1], 0, d[1] - 1);
    ImGui::SliderInt("voxel k", &st_.voxel[2], 0, d[2] - 1);
    if (sys.scanner.pairs.size() > 1) ImGui::SliderInt("pair", &st_.pair, 0, int(sys.scanner.pairs.size()) - 1);
    if (view_ == View::Correspondence) {
      ImGui::Checkbox("macropixel grid (G)", &st_.grid);
      ImGui::TextUnformatted(readout(h).c_str());
    } else if (view_ == View::Atlas) {
      int mode = int(st_.atlas_mode);
      if (ImGui::Combo("atlas (M)", &mode, kAtlasModes, 3)) st_.atlas_mode = AtlasMode(mode);
      ImGui::Text("zoom %.2f (wheel, drag pans, Home fits)", st_.atlas_zoom);
    } else {
      int map = int(st_.colour_map);
      if (ImGui::Combo("colour map (K)", &map, kMaps, 3)) st_.colour_map = ColourMap(map);
      ImGui::SliderFloat("level", &st_.level, 0.0f, 1.0f);
      ImGui::SliderFloat("width", &st_.width, 0.01f, 2.0f);
      ImGui::SliderInt("MIP axis (X)", &st_.mip_axis, 0, 2);
      ImGui::TextWrapped("top: x-y slice k=%d, x-z slice j=%d; bottom: y-z slice i=%d, MIP", st_.voxel[2],
                         st_.voxel[1], st_.voxel[0]);
    }
    if (!view_error_.empty()) ImGui::TextWrapped("view failed: %s\n(fix the shader, press R)", view_error_.c_str());
    ImGui::Separator();
    ImGui::TextWrapped("keys: 1/2/3 or C/A/S views, arrows PgUp/PgDn voxel, G grid, P pair, M atlas, "
                       "K colour map, X MIP axis, R reload shaders, Q quit");
    ImGui::End();
  }

  // The window's back buffer as PNG (rows flipped: PNG row 0 is the top).
  void capture(int w, int h) {
    std::vector<unsigned char> px(std::size_t(w) * h * 3), rgb(px.size());
    TOMO_GL_CHECK(glBindFramebuffer(GL_FRAMEBUFFER, 0));
    TOMO_GL_CHECK(glReadBuffer(GL_BACK));
    TOMO_GL_CHECK(glPixelStorei(GL_PACK_ALIGNMENT, 1));
    TOMO_GL_CHECK(glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px.data()));
    for (int y = 0; y < h; ++y)
      std::copy_n(px.begin() + std::ptrdiff_t(y) * w * 3, std::size_t(w) * 3,
                  rgb.begin() + std::ptrdiff_t(h - 1 - y) * w * 3);
    write_png_rgb(o_.screenshot, w, h, rgb);
    log_info("viewer: wrote ", o_.screenshot.string(), " (", w, "x", h, ", ", kViewNames[int(view_)], " view, ML-EM iteration ",
             s_.iteration(), ")");
  }

  gl::WindowContext& win_;
  GlpetSession& s_;
  const ViewerOptions& o_;
  View view_;
  ViewState st_;
  Views views_;
  std::string renderer_, view_error_;
  int frames_ = 0, settled_frames_ = 0;
  bool done_ = false;
  double frame_ms_ = 0;
};

}  // namespace

int run_viewer(const Scene& scene, const ViewerOptions& o) {
  if (!o.screenshot.empty()) {
    if (std::filesystem::exists(o.screenshot) && !o.force)
      throw InputError(o.screenshot.string() + " exists (use --force to overwrite it)");
    const auto parent = std::filesystem::absolute(o.screenshot).parent_path();
    if (!std::filesystem::is_directory(parent)) throw InputError(parent.string() + ": no such directory for --screenshot");
  }
  if (o.width < 64 || o.height < 64 || o.width > 16384 || o.height > 16384)
    throw InputError(str_cat("--size ", o.width, "x", o.height, " is outside 64..16384"));
  gl::WindowOptions wo;
  wo.title = "tomoraster view — " + scene.source();
  wo.width = o.width;
  wo.height = o.height;
  wo.validate = o.validate;
  auto window = gl::WindowContext::create(wo);
  gl::WindowContext& win = *window;
  log_info("viewer: ", win.info().summary());
  gl::install_context(std::move(window));  // every GL pass now renders in the window's context
  int status = 0;
  {
    GlpetSession session(scene, o.backend);
    ImGuiScope imgui(win.window());
    Viewer viewer(win, session, o);
    viewer.loop();
    if (!o.screenshot.empty() && !std::filesystem::exists(o.screenshot))
      throw Error("the window closed before the screenshot was taken");
    if (!session.error().empty() && !o.screenshot.empty()) throw Error("reconstruction failed: " + session.error());
  }
  gl::release_shared_context();  // the window goes with its context, before GLFW terminates
  return status;
}

}  // namespace tomo::viewer
