// The `gl-compute` backend of the safir operator: the slice walk of eq. (12) as GLSL compute
// shaders (shaders/safir/), float32; events, image, sensitivity and accumulator resident in
// SSBOs for all iterations and frames. Labels and the sort by label are computed on the host
// (compute/safir/labels.hpp) when a window is first made; GL has no sort primitive. A window that
// is part of the list (an OSEM subset) is kept made, buffers and all, for its next visits. Float atomics
// where the driver has GL_NV_shader_atomic_float, an exact CAS loop otherwise. The ML-EM pass is
// tiled (safir.pass = "tiled", default: tiled.comp.glsl, the twin of the cuda tiled pass, with line
// records computed on the host) or one invocation per event with global atomics ("fused").
#include <algorithm>
#include <memory>
#include <optional>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/safir/analysis.hpp"
#include "compute/safir/kernel_math.hpp"
#include "compute/safir/labels.hpp"
#include "compute/safir/projector.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/gl/uniform.hpp"
#include "renderer/safir/bindings.hpp"
#include "renderer/safir/gl_compute_passes.hpp"
#include "renderer/safir/kept_windows.hpp"

namespace tomo::safir {

namespace {

using namespace gl_passes;

class GlComputeProjector final : public ListModeOperator {
 public:
  std::string describe() const override {
    return str_cat("gl-compute (float32", float_atomics_ ? ", float atomics" : ", CAS atomics",
                   tiled_ ? str_cat(", tiled pass, tiles up to ", tile_floats_, " voxels") : std::string(", fused pass"),
                   "): ", gl::shared_context().info().summary());
  }
  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }

  void configure(const Scanner& sc, const ImageBox& box, const ProjectorOptions& o) override {
    configured_ = false;
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    scanner_ = sc;
    box_ = box;
    float_atomics_ = !o.portable && ctx.info().caps.float_atomics;
    gl::Defines defs;
    if (float_atomics_) defs.emplace_back("FLOAT_ATOMICS", "1");
    for (PassMode mode : {PassMode::Forward, PassMode::Back, PassMode::Mlem})
      project_[int(mode)] = &gl::shaders().get_compute<EventPass>("safir/project.comp.glsl", with_mode(defs, mode));
    update_ = &gl::shaders().get_compute<UpdatePass>("safir/update.comp.glsl");
    const bool software = ctx.info().gl_renderer.find("llvmpipe") != std::string::npos ||
                          ctx.info().gl_renderer.find("softpipe") != std::string::npos;
    tiled_ = resolve_pass(o.pass, software) == Pass::tiled;
    if (tiled_) {
      GLint bytes = 0;
      glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &bytes);
      tile_cap_ = std::max<long long>(256, bytes / 4 - 64);  // a little room for the driver's own shared use
      tile_floats_ = 0;
      for (int l = 1; l < 4; ++l) {
        int ext[3];
        tile_extent(box.n.data(), l, tile_cap_, ext);
        tile_floats_ = std::max(tile_floats_, ext[0] * ext[1] * ext[2]);
      }
      for (PassMode mode : {PassMode::Forward, PassMode::Back}) {
        gl::Defines d = with_mode(defs, mode);
        d.emplace_back("TILE", std::to_string(tile_floats_));
        tiled_pass_[int(mode)] = &gl::shaders().get_compute<TiledPass>("safir/tiled.comp.glsl", d);
      }
    }
    spheres_ = &gl::shaders().get_compute<SpheresPass>("safir/spheres.comp.glsl");
    std::vector<float> pos;
    for (const auto& p : sc.positions()) pos.insert(pos.end(), {float(p[0]), float(p[1]), float(p[2]), 0.0f});
    crystals_ = gl::Buffer::from(pos);
    const std::size_t bytes = sizeof(float) * box.count();
    f_ = gl::Buffer(bytes);
    acc_ = gl::Buffer(bytes);
    acc_clear_ = false;
    s_ = gl::Buffer(bytes);
    events_host_.clear();
    kept_.clear();
    has_window_ = false;
    window_ = {};
    count_ = 0;
    randoms_ = 0;
    configured_ = true;
  }
  std::uint32_t crystal_count() const override {
    if (!configured_) throw Error("safir gl-compute: no scanner yet: configure() the operator first");
    return scanner_.crystal_count();
  }

  void set_events(std::span<const Event> events) override {
    for (std::size_t i = 0; i < events.size(); ++i)
      if (events[i].a >= scanner_.crystal_count() || events[i].b >= scanner_.crystal_count())
        throw InputError(str_cat("safir: event ", i, " names a crystal beyond the scanner's ", scanner_.crystal_count()));
    events_host_.assign(events.begin(), events.end());
    kept_.clear();
    has_window_ = false;
    set_window(0, events.size());
  }

  void set_window(std::size_t first, std::size_t count) override {
    if (first > events_host_.size() || count > events_host_.size() - first)
      throw Error(str_cat("safir gl-compute: window [", first, ", +", count, ") beyond ", events_host_.size(), " events"));
    gl::shared_context().make_current();
    if (reuse(first, count)) return;
    const std::span<const Event> w(events_host_.data() + first, count);
    window_ = sort_by_label(w, label_events(w, scanner_, box_));
    first_ = first;
    count_ = count;
    has_window_ = true;
    std::vector<std::uint32_t> packed(2 * std::max<std::size_t>(1, window_.events.size()));
    for (int l = 1; l < 4; ++l)
      for (std::size_t i = window_.offsets[l]; i < window_.offsets[l + 1]; ++i) {
        packed[2 * i] = window_.events[i].a | (std::uint32_t(l) << 30);
        packed[2 * i + 1] = window_.events[i].b;
      }
    events_ = gl::Buffer::from(packed);
    values_ = gl::Buffer(sizeof(float) * std::max<std::size_t>(1, window_.events.size()));
    values_zero_ = false;
    if (tiled_) set_records();
  }

  std::array<std::size_t, 4> label_counts() const override {
    const auto& o = window_.offsets;
    return {count_ - o[4], o[2] - o[1], o[3] - o[2], o[4] - o[3]};
  }

  void set_image(std::span<const double> f) override { upload(f_, f, "image"); }
  std::vector<double> image() const override { return download(f_); }
  void set_sensitivity(std::span<const double> s) override { upload(s_, s, "sensitivity"); }
  void set_randoms_per_lor(double n) override { randoms_ = n; }

  std::vector<double> forward() override {
    if (tiled_) {
      gl::shared_context().make_current();
      values_.clear_zero();
      run_tiled(PassMode::Forward, BackWeights::Ones);
    } else {
      run_pass(PassMode::Forward);
    }
    values_zero_ = false;
    const auto y = values_.read<float>();
    const double add = tiled_ ? randoms_ : 0.0;  // the tiled pass sums the image part only
    std::vector<double> out(count_, 0.0);
    for (std::size_t i = 0; i < window_.order.size(); ++i) out[window_.order[i]] = double(y[i]) + add;
    return out;
  }

  std::vector<double> back(std::span<const double> v) override {
    if (!v.empty() && v.size() != count_)
      throw Error(str_cat("safir gl-compute: back-projection of ", v.size(), " values over a window of ", count_));
    std::vector<float> sorted(std::max<std::size_t>(1, window_.order.size()), 1.0f);
    for (std::size_t i = 0; i < window_.order.size(); ++i) sorted[i] = v.empty() ? 1.0f : float(v[window_.order[i]]);
    gl::shared_context().make_current();
    values_.upload(sorted.data(), sorted.size() * sizeof(float));
    values_zero_ = false;
    if (tiled_) {
      if (!acc_clear_) acc_.clear_zero();
      run_tiled(PassMode::Back, BackWeights::Values);
    } else {
      run_pass(PassMode::Back);
    }
    acc_clear_ = false;
    return download(acc_);
  }

  void iterate() override {
    if (tiled_) {
      gl::shared_context().make_current();
      if (!values_zero_) values_.clear_zero();
      if (!acc_clear_) acc_.clear_zero();
      run_tiled(PassMode::Forward, BackWeights::Ones);
      run_tiled(PassMode::Back, BackWeights::Ratio);  // v = 1 / ȳ
    } else {
      run_pass(PassMode::Mlem);
    }
    const gl::Program& p = update_->program;
    p.use();
    update_->voxels.set(static_cast<unsigned>(box_.count()));
    // The tiled pass's ȳ of this window, zero again for its next visit (an OSEM subset's).
    update_->values.set(tiled_ ? static_cast<unsigned>(window_.events.size()) : 0u);
    values_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kValues);
    f_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    acc_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kAcc);
    s_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSensitivity);
    const std::size_t work = std::max<std::size_t>(box_.count(), window_.events.size());
    p.dispatch(static_cast<int>(std::min<std::size_t>(work, std::size_t(kMaxGroups) * 256)));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    acc_clear_ = true;  // the update cleared it: the next iterate() needs no clear
    values_zero_ = tiled_;
  }

  SphereSums sphere_sums(double r_in, double r_out) override {
    gl::shared_context().make_current();
    const auto offs = sphere_offsets(box_.voxel_mm, r_in, r_out);
    const long long limit = gl::shared_context().info().caps.max_loop_iterations;
    if (limit > 0 && static_cast<long long>(offs.size()) > limit)
      throw UnavailableError(str_cat("safir gl-compute: ", offs.size(), " sphere offsets per voxel exceed the ", limit,
                                     " loop iterations this software OpenGL runs; use smaller spheres or another backend"));
    std::vector<std::int32_t> packed;
    for (const auto& o : offs) packed.insert(packed.end(), {o.di, o.dj, o.dk, o.shell});
    const gl::Buffer offsets = gl::Buffer::from(packed);
    gl::Buffer sums(sizeof(float) * 4 * box_.count());
    const gl::Program& p = spheres_->program;
    p.use();
    spheres_->n.set({box_.n[0], box_.n[1], box_.n[2]});
    spheres_->offsets.set(static_cast<int>(offs.size()));
    f_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    offsets.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kOffsets);
    sums.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSums);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    p.dispatch(static_cast<int>(box_.count()));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    const auto r = sums.read<float>();
    SphereSums out;
    for (std::vector<double>* v : {&out.inner, &out.shell, &out.n_inner, &out.n_shell}) v->resize(box_.count());
    for (std::size_t j = 0; j < box_.count(); ++j) {
      out.inner[j] = r[4 * j];
      out.shell[j] = r[4 * j + 1];
      out.n_inner[j] = r[4 * j + 2];
      out.n_shell[j] = r[4 * j + 3];
    }
    return out;
  }

 private:
  // Line records of the window's sorted events (double, stored in float) and the tile plan.
  void set_records() {
    const auto pos = scanner_.positions();
    const auto g = box_.params<double>();
    const auto& o = window_.offsets;
    std::vector<float> rec(4 * std::max<std::size_t>(1, window_.events.size()));
    for (int l = 1; l < 4; ++l)
      for (std::size_t i = o[l]; i < o[l + 1]; ++i) {
        const auto r = line_record(pos[window_.events[i].a].data(), pos[window_.events[i].b].data(), l, g);
        rec[4 * i] = float(r.cu);
        rec[4 * i + 1] = float(r.su);
        rec[4 * i + 2] = float(r.cw);
        rec[4 * i + 3] = float(r.sw);
      }
    records_ = gl::Buffer::from(rec);
    const std::size_t counts[4] = {0, o[2] - o[1], o[3] - o[2], o[4] - o[3]};
    // About 2048 groups per pass: enough to fill a large GPU, few enough that flushes stay small.
    // Chunks of at least 8192 events (as cuda's): a group loads and flushes its whole tile, so an
    // OSEM subset of the default scene (125 000 events) made 1420 groups a pass with 4096 and
    // makes 780 with 8192 (H200: its forward pass 10 % faster, docs/perf/pet.md).
    plan_ = plan_tiles(box_.n.data(), counts, tile_cap_, 2048.0, 8192);
  }

  // One tiled pass (tiled.comp.glsl): Forward into values_, or Back into acc_ with weights
  // `back` (Forward ignores it). The caller clears what it accumulates into.
  void run_tiled(PassMode mode, BackWeights back) {
    if (plan_.blocks <= 0) return;
    const TiledPass& pass = *tiled_pass_[int(mode)];
    const gl::Program& p = pass.program;
    p.use();
    pass.n.set({box_.n[0], box_.n[1], box_.n[2]});
    pass.md.set(static_cast<float>(box_.md));
    pass.back_mode.set(int(back));
    pass.randoms.set(static_cast<float>(randoms_));
    unsigned begin[3], end[3], chunk[3];
    int ext[9], tiles[9], blocks[3];
    for (int l = 0; l < 3; ++l) {
      const LabelTiles& t = plan_.label[l];
      begin[l] = static_cast<unsigned>(t.begin);
      end[l] = static_cast<unsigned>(t.end);
      chunk[l] = static_cast<unsigned>(t.chunk);
      blocks[l] = t.blocks;
      for (int a = 0; a < 3; ++a) {
        ext[3 * l + a] = t.ext[a];
        tiles[3 * l + a] = t.tiles[a];
      }
    }
    pass.begin.set_array(begin, 3);
    pass.end.set_array(end, 3);
    pass.chunk.set_array(chunk, 3);
    pass.ext.set_array(ext, 3);
    pass.tiles.set_array(tiles, 3);
    pass.blocks.set_array(blocks, 3);
    records_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRecords);
    f_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    values_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kValues);
    acc_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kAcc);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    // Groups on a 2D grid (at most 65535 per dimension); the shader numbers them row by row.
    const int gx = std::min(plan_.blocks, kMaxGroups), gy = (plan_.blocks + gx - 1) / gx;
    const int local = p.work_group_size()[0];
    p.dispatch(gx * local, gy);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  }

  // One pass of project.comp.glsl over the window's labelled events; Back and Mlem clear
  // the accumulator first.
  void run_pass(PassMode mode) {
    gl::shared_context().make_current();
    const EventPass& pass = *project_[int(mode)];
    const gl::Program& p = pass.program;
    if (mode != PassMode::Forward && !acc_clear_) acc_.clear_zero();
    if (mode != PassMode::Forward) acc_clear_ = false;
    p.use();
    const auto g = box_.params<float>();
    pass.origin.set({g.origin[0], g.origin[1], g.origin[2]});
    pass.voxel.set(g.voxel);
    pass.n.set({g.n[0], g.n[1], g.n[2]});
    pass.md.set(g.md);
    pass.count.set(static_cast<unsigned>(window_.events.size()));
    pass.randoms.set(static_cast<float>(randoms_));
    crystals_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kCrystals);
    events_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kEvents);
    f_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    values_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kValues);
    acc_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kAcc);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    if (!window_.events.empty())
      p.dispatch(static_cast<int>(std::min<std::size_t>(window_.events.size(), std::size_t(kMaxGroups) * 64)));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  }

  void upload(gl::Buffer& b, std::span<const double> v, const char* what) {
    if (v.size() != box_.count())
      throw Error(str_cat("safir gl-compute: ", what, " of ", v.size(), " voxels, box has ", box_.count()));
    gl::shared_context().make_current();
    std::vector<float> f(v.begin(), v.end());
    b.upload(f.data(), f.size() * sizeof(float));
  }
  std::vector<double> download(const gl::Buffer& b) const {
    gl::shared_context().make_current();
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    const auto f = b.read<float>();
    return {f.begin(), f.end()};
  }

  // A window that is part of the list (an OSEM subset) is kept made when another replaces it
  // (kept_windows.hpp); true where [first, +count) is now current without being made.
  bool reuse(std::size_t first, std::size_t count) {
    if (has_window_ && first == first_ && count == count_) return true;
    if (has_window_)
      kept_.keep({first_, count_, std::move(window_), std::move(events_), std::move(values_), std::move(records_), plan_,
                  values_zero_},
                 events_host_.size());
    has_window_ = false;
    std::optional<GlWindow> w = kept_.take(first, count);
    if (!w) return false;
    window_ = std::move(w->sorted);
    events_ = std::move(w->events);
    values_ = std::move(w->values);
    records_ = std::move(w->records);
    plan_ = w->plan;
    values_zero_ = w->values_zero;
    first_ = first;
    count_ = count;
    has_window_ = true;
    return true;
  }

  KeptWindows kept_;
  std::size_t first_ = 0;
  bool has_window_ = false;

  bool configured_ = false;  // configure() has completed
  Scanner scanner_;
  ImageBox box_;
  bool float_atomics_ = false, tiled_ = true;
  long long tile_cap_ = 0;
  int tile_floats_ = 0;
  TilePlan plan_;
  const TiledPass* tiled_pass_[2] = {};  // by PassMode: Forward, Back
  gl::Buffer records_;
  const EventPass* project_[3] = {};  // by PassMode
  const UpdatePass* update_ = nullptr;
  const SpheresPass* spheres_ = nullptr;
  gl::Buffer crystals_, events_, values_, f_, acc_, s_;
  bool acc_clear_ = false;    // acc_ is all zeros (left so by the update)
  bool values_zero_ = false;  // values_ (this window's) is all zeros (left so by the update)
  std::vector<Event> events_host_;
  SortedEvents window_;
  std::size_t count_ = 0;
  double randoms_ = 0;
};

const BackendRegistrar<ListModeOperator> kRegisterGlCompute({"gl-compute", kPriorityGlCompute,
                                                             [] { return gl::availability({}); },
                                                             [] { return std::make_unique<GlComputeProjector>(); }});

}  // namespace

}  // namespace tomo::safir
