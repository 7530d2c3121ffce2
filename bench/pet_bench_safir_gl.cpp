// bench_pet's per-stage breakdown of safir's gl-compute OSEM iteration (pet_bench_safir_gl.hpp).
// Each window (the whole list for ML-EM, each subset's contiguous run for OSEM) is labelled,
// sorted and given line records on the host as the backend does; the passes are dispatched as
// the backend dispatches them (renderer/safir/gl_compute_passes.hpp), timed by wall clock and
// glFinish over all windows of an iteration: the forward passes alone, the back passes alone,
// the updates alone and the iteration as a whole (median of `repeats`), each from a flat image.
#include "bench/pet_bench_safir_gl.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench/gl_ceilings.hpp"
#include "bench/harness.hpp"
#include "compute/pet/subsets.hpp"
#include "compute/safir/kernel_math.hpp"
#include "compute/safir/labels.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/safir/bindings.hpp"
#include "renderer/safir/gl_compute_passes.hpp"

namespace tomo::bench::pet_safir {

namespace {

using namespace tomo::safir;
using namespace tomo::safir::gl_passes;

struct Window {
  std::size_t n = 0;
  std::size_t counts[4] = {0, 0, 0, 0};
  gl::Buffer records, values;
  TilePlan plan;
};

Window make(const Scanner& sc, const ImageBox& box, std::span<const Event> ev) {
  const SortedEvents w = sort_by_label(ev, label_events(ev, sc, box));
  const auto pos = sc.positions();
  const auto g = box.params<double>();
  const auto& o = w.offsets;
  std::vector<float> rec(4 * std::max<std::size_t>(1, w.events.size()));
  for (int l = 1; l < 4; ++l)
    for (std::size_t i = o[l]; i < o[l + 1]; ++i) {
      const auto r = line_record(pos[w.events[i].a].data(), pos[w.events[i].b].data(), l, g);
      rec[4 * i] = float(r.cu), rec[4 * i + 1] = float(r.su), rec[4 * i + 2] = float(r.cw), rec[4 * i + 3] = float(r.sw);
    }
  Window m;
  m.n = w.events.size();
  m.counts[1] = o[2] - o[1], m.counts[2] = o[3] - o[2], m.counts[3] = o[4] - o[3];
  m.records = gl::Buffer::from(rec);
  m.values = gl::Buffer(sizeof(float) * std::max<std::size_t>(1, m.n));
  m.values.clear_zero();
  return m;
}

struct Stages {
  double forward = 0, back = 0, update = 0, whole = 0;
  int groups = 0;
};

class Passes {
 public:
  Passes(const ImageBox& box, long long cap, int tile_floats, bool float_atomics) : box_(box) {
    gl::Defines defs;
    if (float_atomics) defs.emplace_back("FLOAT_ATOMICS", "1");
    for (PassMode mode : {PassMode::Forward, PassMode::Back}) {
      gl::Defines d = with_mode(defs, mode);
      d.emplace_back("TILE", std::to_string(tile_floats));
      tiled_[int(mode)] = &gl::shaders().get_compute<TiledPass>("safir/tiled.comp.glsl", d);
    }
    update_ = &gl::shaders().get_compute<UpdatePass>("safir/update.comp.glsl");
    const std::vector<float> ones(box.count(), 1.0f);
    ones_ = gl::Buffer::from(ones);
    f_ = gl::Buffer::from(ones);
    s_ = gl::Buffer::from(ones);
    acc_ = gl::Buffer(sizeof(float) * box.count());
    acc_.clear_zero();
    cap_ = cap;
  }
  long long cap() const { return cap_; }

  // A flat image, a zero accumulator and zero ȳ of `windows`: without it, repeated updates
  // (s = 1) overflow the image, ȳ becomes infinite and the back pass skips every event.
  void flat(std::vector<Window>& windows) {
    glCopyNamedBufferSubData(ones_.id(), f_.id(), 0, 0, GLsizeiptr(sizeof(float) * box_.count()));
    acc_.clear_zero();
    for (Window& w : windows) w.values.clear_zero();
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  }

  // The backend's run_tiled (gl_compute_projector.cpp) for one window.
  void tiled(const Window& w, PassMode mode, BackWeights back) {
    if (w.plan.blocks <= 0) return;
    const TiledPass& pass = *tiled_[int(mode)];
    const gl::Program& p = pass.program;
    p.use();
    pass.n.set({box_.n[0], box_.n[1], box_.n[2]});
    pass.md.set(static_cast<float>(box_.md));
    pass.back_mode.set(int(back));
    pass.randoms.set(0.0f);
    unsigned begin[3], end[3], chunk[3];
    int ext[9], tiles[9], blocks[3];
    for (int l = 0; l < 3; ++l) {
      const LabelTiles& t = w.plan.label[l];
      begin[l] = unsigned(t.begin), end[l] = unsigned(t.end), chunk[l] = unsigned(t.chunk), blocks[l] = t.blocks;
      for (int a = 0; a < 3; ++a) ext[3 * l + a] = t.ext[a], tiles[3 * l + a] = t.tiles[a];
    }
    pass.begin.set_array(begin, 3);
    pass.end.set_array(end, 3);
    pass.chunk.set_array(chunk, 3);
    pass.ext.set_array(ext, 3);
    pass.tiles.set_array(tiles, 3);
    pass.blocks.set_array(blocks, 3);
    w.records.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRecords);
    f_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    w.values.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kValues);
    acc_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kAcc);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    const int gx = std::min(w.plan.blocks, kMaxGroups), gy = (w.plan.blocks + gx - 1) / gx;
    p.dispatch(gx * p.work_group_size()[0], gy);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  }
  // The backend's update: f ← f · c / s, c ← 0, the window's ȳ ← 0.
  void update(const Window& w) {
    const gl::Program& p = update_->program;
    p.use();
    update_->voxels.set(static_cast<unsigned>(box_.count()));
    update_->values.set(static_cast<unsigned>(w.n));
    w.values.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kValues);
    f_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kImage);
    acc_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kAcc);
    s_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kSensitivity);
    const std::size_t work = std::max<std::size_t>(box_.count(), w.n);
    p.dispatch(static_cast<int>(std::min<std::size_t>(work, std::size_t(kMaxGroups) * 256)));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  }

 private:
  ImageBox box_;
  long long cap_ = 0;
  const TiledPass* tiled_[2] = {};
  const UpdatePass* update_ = nullptr;
  gl::Buffer ones_, f_, s_, acc_;
};

// One iteration over `windows` planned with the backend's 2048 groups and `min_chunk`.
Stages time_iteration(Passes& p, const ImageBox& box, std::vector<Window>& windows, std::size_t min_chunk, int repeats) {
  Stages st;
  for (Window& w : windows) {
    w.plan = plan_tiles(box.n.data(), w.counts, p.cap(), 2048.0, min_chunk);
    st.groups += w.plan.blocks;
  }
  auto fwd = [&] {
    for (const Window& w : windows) p.tiled(w, PassMode::Forward, BackWeights::Ones);
  };
  auto back = [&] {
    for (const Window& w : windows) p.tiled(w, PassMode::Back, BackWeights::Ratio);
  };
  auto upd = [&] {
    for (const Window& w : windows) p.update(w);
  };
  auto all = [&] {
    for (const Window& w : windows) {
      p.tiled(w, PassMode::Forward, BackWeights::Ones);
      p.tiled(w, PassMode::Back, BackWeights::Ratio);
      p.update(w);
    }
  };
  // Forward from a flat image; back over ȳ of that image; the updates after that back pass; the
  // iteration from a flat image each time (the reset, a copy and clears, is inside its time).
  p.flat(windows);
  st.forward = gpu_ms(fwd, repeats);
  p.flat(windows);
  fwd();
  st.back = gpu_ms(back, repeats);
  st.update = gpu_ms(upd, repeats);
  st.whole = gpu_ms(
      [&] {
        p.flat(windows);
        all();
      },
      repeats);
  return st;
}

nlohmann::json row(const std::string& what, const Stages& st) {
  std::printf("    %-40s forward %6.3f  back %6.3f  update %6.3f  iteration %6.3f ms  (%d groups)\n", what.c_str(), st.forward,
              st.back, st.update, st.whole, st.groups);
  return {{"what", what}, {"forward_ms", st.forward}, {"back_ms", st.back}, {"update_ms", st.update},
          {"iteration_ms", st.whole}, {"groups", st.groups}};
}

}  // namespace

nlohmann::json gl_stages(const Scanner& sc, const ImageBox& box, std::span<const Event> ev, int subsets, int repeats) {
  if (ev.empty() || !gl::availability({}).ok) return nullptr;
  gl::Context& ctx = gl::shared_context();
  ctx.make_current();
  repeats = std::max(3, repeats);
  // The backend's tile size (gl_compute_projector.cpp: configure).
  GLint bytes = 0;
  glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &bytes);
  const long long cap = std::max<long long>(256, bytes / 4 - 64);
  int tile_floats = 0;
  for (int l = 1; l < 4; ++l) {
    int ext[3];
    tile_extent(box.n.data(), l, cap, ext);
    tile_floats = std::max(tile_floats, ext[0] * ext[1] * ext[2]);
  }
  Passes passes(box, cap, tile_floats, ctx.info().caps.float_atomics);
  std::vector<Window> whole, parts;
  whole.push_back(make(sc, box, ev));
  const auto starts = pet::interleave_events(ev.size(), subsets).starts;
  for (int k = 0; k < subsets; ++k)
    parts.push_back(make(sc, box, std::span<const Event>(ev.data() + starts[k], starts[k + 1] - starts[k])));
  std::printf("\n  safir gl-compute stages (ms per iteration, wall clock + glFinish; %zu events, %d subsets, tiles of %d voxels):\n",
              ev.size(), subsets, tile_floats);
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t min_chunk : {std::size_t(4096), std::size_t(6144), std::size_t(8192), std::size_t(12288)}) {
    const std::string tag = "shortest chunk " + std::to_string(min_chunk) + (min_chunk == 8192 ? " (product)" : "");
    const Stages m = time_iteration(passes, box, whole, min_chunk, repeats);
    const Stages o = time_iteration(passes, box, parts, min_chunk, repeats);
    nlohmann::json j = {{"config", tag}, {"mlem", row("ML-EM, " + tag, m)}, {"osem", row("OSEM, " + tag, o)},
                        {"ratio", o.whole / m.whole}};
    std::printf("    %-40s ratio %.3f\n", tag.c_str(), o.whole / m.whole);
    out.push_back(j);
  }
  return out;
}

}  // namespace tomo::bench::pet_safir
