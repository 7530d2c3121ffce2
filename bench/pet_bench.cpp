// bench_pet: the PET reconstruction layer (docs/pet.md) on the GPU backends, in one run. Per
// problem (glpet ring, safir, strip) and backend: one ML-EM iteration against one full OSEM
// iteration (all `--subsets` subsets, through the same SubsetPrimitives the runs use), and
// their ratio (the layer's goal: at most 1.2). Then the relative difference prior's stencil
// passes beside a copy of the same image measured in the same run (goal: the gradient pass at
// ≥ 50 % of the copy's bandwidth), on cuda and gl-compute (pet_bench_prior.cpp). Then Joseph's
// line projector, cuda against cpu, on glpet_default.toml's LORs (pet_bench_joseph.cpp). With
// --tof 1: its TOF list mode (and non-TOF) beside libparallelproj's (--tof-peer LIB) on strip's
// events and glpet's LORs (pet_bench_tof.cpp).
// Usage: bench_pet [--problems glpet,safir,strip] [--backends cuda,gl-compute,gl] [--subsets 8]
//                  [--repeats 3] [--safir-events N] [--safir-projection-events N] [--strip-events N] [--gl-slices Z]
//                  [--glpet-scene glpet_ring.toml]
//                  [--prior-size N] [--joseph 0|1] [--tof 0|1] [--tof-peer libparallelproj.so]
//                  [--tof-reps 5] [--json FILE]
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "bench/pet_bench_joseph.hpp"
#include "bench/pet_bench_prior.hpp"
#include "bench/pet_bench_safir.hpp"
#include "bench/pet_bench_safir_gl.hpp"
#include "bench/pet_bench_tof.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/scene.hpp"
#include "compute/glpet/config.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/pet/reconstruct.hpp"
#include "compute/safir/config.hpp"
#include "compute/safir/projector.hpp"
#include "compute/safir/simulator.hpp"
#include "compute/safir/subsets.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/projector.hpp"
#include "compute/strip/simulator.hpp"
#include "compute/strip/subsets.hpp"

using namespace tomo;
using bench::Clock;
using bench::ms_since;

namespace {

struct Args {
  std::vector<std::string> problems{"glpet", "safir", "strip"}, backends{"cuda", "gl-compute", "gl"};
  int subsets = 8, repeats = 3, gl_slices = 4, prior_size = 256;
  bool joseph = true, tof = false;
  int tof_reps = 5;
  std::string tof_peer;
  std::uint64_t safir_events = 1000000, strip_events = 2000000, safir_projection_events = 4000000;
  std::string glpet_scene = "glpet_ring.toml";
  std::string json;
};

Args parse_args(int argc, char** argv) {
  Args a;
  bench::Cli cli("bench_pet", "PET layer: ML-EM vs full OSEM iteration per backend; prior pass vs copy");
  cli.app().add_option("--problems", a.problems, "glpet, safir, strip")->delimiter(',');
  cli.app().add_option("--backends", a.backends, "backends to time")->delimiter(',');
  cli.app().add_option("--subsets", a.subsets, "OSEM subsets")->capture_default_str();
  cli.app().add_option("--repeats", a.repeats, "timed iterations per row (after one warm-up)")->capture_default_str();
  cli.app().add_option("--safir-events", a.safir_events, "safir simulated events")->capture_default_str();
  cli.app().add_option("--safir-projection-events", a.safir_projection_events,
                       "safir cuda: forward/back on device memory of this many events (0: none)")
      ->capture_default_str();
  cli.app().add_option("--strip-events", a.strip_events, "strip simulated events")->capture_default_str();
  cli.app().add_option("--gl-slices", a.gl_slices, "glpet gl and gl-compute: process only this many central z-slices (0: all)")
      ->capture_default_str();
  cli.app().add_option("--glpet-scene", a.glpet_scene, "embedded glpet scene")->capture_default_str();
  cli.app().add_option("--prior-size", a.prior_size, "prior passes on an N^3 image (0: none)")->capture_default_str();
  cli.app().add_option("--joseph", a.joseph, "line projector rows on glpet_default.toml's LORs (0: none)")->capture_default_str();
  cli.app().add_option("--tof", a.tof, "TOF list-mode line projector rows on strip's events and glpet's LORs")
      ->capture_default_str();
  cli.app().add_option("--tof-peer", a.tof_peer, "libparallelproj.so to run beside the TOF rows (tools/peers-pack.sh)");
  cli.app().add_option("--tof-reps", a.tof_reps, "TOF rows: timed calls after one warm-up (median)")->capture_default_str();
  cli.parse(argc, argv);
  a.subsets = std::max(2, a.subsets);
  a.repeats = std::max(1, a.repeats);
  a.json = cli.json_path();
  return a;
}

struct Row {
  std::string problem, backend, device, note;
  double mlem_ms = 0, osem_ms = 0;
};

void print(const Row& r, int subsets) {
  std::printf("  %-6s %-10s ML-EM %10.2f ms   OSEM (%d subsets) %10.2f ms   ratio %.2f  %s\n", r.problem.c_str(),
              r.backend.c_str(), r.mlem_ms, subsets, r.osem_ms, r.osem_ms / r.mlem_ms, r.note.c_str());
}

// Median of `repeats` iterations of `o` over `data` after one warm-up iteration.
double iteration_ms(pet::SubsetPrimitives& data, pet::ReconOptions o, int repeats, const std::function<void()>& sync) {
  const std::vector<double> start(data.voxel_count(), 1.0);
  data.set_image(start);
  o.iterations = 1;
  pet::reconstruct(data, o, nullptr);
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r)
    t.push_back(bench::time_ms([&] { pet::reconstruct(data, o, nullptr); }, sync));
  return bench::median_of(t);
}

pet::ReconOptions recon(int subsets) {
  pet::ReconOptions o;
  o.algorithm = subsets > 1 ? pet::Algorithm::osem : pet::Algorithm::mlem;
  o.subsets = subsets;
  return o;
}

Scene embedded(const char* name) { return Scene::load_string(embedded_scene(name), name); }

// safir: the default scene's scanner and phantom, `--safir-events` events in one frame.
nlohmann::json bench_safir(const Args& a, std::vector<Row>& rows) {
  const safir::SafirConfig c = safir::SafirConfig::from_scene(embedded("safir_default.toml"));
  safir::SimulationOptions so = c.simulation;
  so.events = a.safir_events;
  const auto t0 = Clock::now();
  const safir::ListMode lm = safir::simulate(c.scanner, c.phantom, so);
  std::printf("safir: %zu events simulated in %.0f ms, %d x %d x %d voxels\n", lm.events.size(), ms_since(t0),
              c.box.grid().dims[0], c.box.grid().dims[1], c.box.grid().dims[2]);
  const std::vector<safir::Frame> frames{{0, lm.events.size(), 0, lm.duration_s}};
  const std::vector<double> s(c.box.grid().count(), 1.0);  // timings do not depend on its values
  auto& reg = BackendRegistry<safir::ListModeOperator>::instance();
  for (const auto& b : a.backends) {
    if (!reg.available(b).ok) continue;
    Row r;
    r.problem = "safir", r.backend = b;
    for (int S : {1, a.subsets}) {
      auto op = reg.create(b);
      op->configure(c.scanner, c.box, c.options);
      r.device = op->describe();
      op->set_events(safir::order_for_subsets(lm.events, frames, S));
      op->set_sensitivity(s);
      safir::FrameSubsets data(*op, s, 0, lm.events.size(), S);
      (S == 1 ? r.mlem_ms : r.osem_ms) = iteration_ms(data, recon(S), a.repeats, [&] { op->synchronize(); });
    }
    print(r, a.subsets);
    rows.push_back(r);
  }
  // Where an OSEM iteration's time goes, pass by pass: cuda's kernels, gl-compute's dispatches.
  auto has = [&](const char* b) { return std::find(a.backends.begin(), a.backends.end(), b) != a.backends.end(); };
  const auto ordered = safir::order_for_subsets(lm.events, frames, a.subsets);
  nlohmann::json stages;
  if (has("cuda")) stages["cuda"] = bench::pet_safir::cuda_stages(c.scanner, c.box, ordered, a.subsets, a.repeats);
  if (has("cuda") && a.safir_projection_events > 0 && reg.available("cuda").ok) {
    so.events = a.safir_projection_events;  // as docs/peers.md's parallelproj rows: one list of this size
    stages["cuda_projections"] =
        bench::pet_safir::cuda_projections(c.scanner, c.box, safir::simulate(c.scanner, c.phantom, so).events, a.repeats);
  }
  if (has("gl-compute") && reg.available("gl-compute").ok)
    stages["gl_compute"] = bench::pet_safir::gl_stages(c.scanner, c.box, ordered, a.subsets, a.repeats);
  return stages;
}

// strip: the default scene's geometry and phantom, `--strip-events` events.
void bench_strip(const Args& a, std::vector<Row>& rows) {
  const strip::StripConfig c = strip::StripConfig::from_scene(embedded("strip_default.toml"));
  const auto t0 = Clock::now();
  const std::vector<strip::Event> events =
      strip::simulate_phantom(c.geometry, c.resolution, c.phantom, a.strip_events, c.seed);
  std::printf("strip: %zu events simulated in %.0f ms, %zu pixels\n", events.size(), ms_since(t0),
              c.geometry.pixel_count());
  auto& reg = BackendRegistry<strip::ListModeProjector>::instance();
  for (const auto& b : a.backends) {
    if (!reg.available(b).ok) continue;
    Row r;
    r.problem = "strip", r.backend = b;
    for (int S : {1, a.subsets}) {
      auto op = reg.create(b);
      op->configure(c.geometry, c.resolution, c.options);
      r.device = op->describe();
      if (S == 1) op->set_events(events);
      const auto more = [&] {
        auto p = reg.create(b);
        p->configure(c.geometry, c.resolution, c.options);
        return p;
      };
      strip::EventSubsets data(*op, events, S, c.geometry.pixel_count(), {}, more);  // as the run does
      (S == 1 ? r.mlem_ms : r.osem_ms) = iteration_ms(data, recon(S), a.repeats, [&] { op->synchronize(); });
    }
    print(r, a.subsets);
    rows.push_back(r);
  }
}

// glpet: the ring scene (scenes/glpet_ring.toml, or --glpet-scene), data = the forward projection of its activity
// plus a flat 1 %; the iterations of run_mlem timed between its per-iteration callbacks.
void bench_glpet(const Args& a, std::vector<Row>& rows) {
  const glpet::GlpetScene g = glpet::read_glpet_scene(embedded(a.glpet_scene.c_str()));
  const auto& dims = g.system.grid.dims;
  std::printf("glpet: ring of %zu module pairs, %zu LORs, %d x %d x %d voxels\n", g.system.scanner.pairs.size(),
              g.system.scanner.lor_count(), dims[0], dims[1], dims[2]);
  auto& reg = BackendRegistry<glpet::Projector>::instance();
  for (const auto& b : a.backends) {
    if (!reg.available(b).ok) continue;
    Row r;
    r.problem = "glpet", r.backend = b;
    auto op = reg.create(b);
    op->configure(g.system, g.projector);
    r.device = op->describe();
    const std::size_t slice = std::size_t(dims[0]) * dims[1];
    const bool slab = (b == "gl" || b == "gl-compute") && a.gl_slices > 0 && a.gl_slices < dims[2];
    const std::size_t z0 = slab ? std::size_t(dims[2] - a.gl_slices) / 2 : 0;
    auto restrict = [&](glpet::Projector& p) {  // the run's projector and every subset's alike
      return slab && p.restrict_voxels(z0 * slice, std::size_t(a.gl_slices) * slice);
    };
    if (restrict(*op)) r.note = "central " + std::to_string(a.gl_slices) + " z-slices only";
    std::vector<float> y = glpet::forward_host(*op, g.activity_volume.data);
    double mean = 0;
    for (float v : y) mean += v;
    mean /= double(y.size());
    for (float& v : y) v += float(0.01 * mean);
    for (int S : {1, a.subsets}) {
      glpet::MlemOptions o;
      o.iterations = 1 + a.repeats;
      o.recon = recon(S);
      o.system = &g.system;
      o.make_projector = [&](const glpet::SystemModel& m) {  // as the run does
        auto p = reg.create(b);
        p->configure(m, g.projector);
        restrict(*p);
        return p;
      };
      std::vector<double> t;
      Clock::time_point last;
      bool first = true;
      o.on_iteration = [&](int, const glpet::BackendBuffer&) {
        op->synchronize();
        if (!first) t.push_back(ms_since(last));
        first = false;
        last = Clock::now();
        return true;
      };
      glpet::run_mlem(*op, y, {}, o);
      (S == 1 ? r.mlem_ms : r.osem_ms) = bench::median_of(t);
    }
    print(r, a.subsets);
    rows.push_back(r);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  std::vector<Row> rows;
  auto wants = [&](const char* p) { return std::find(a.problems.begin(), a.problems.end(), p) != a.problems.end(); };
  std::printf("bench_pet: one ML-EM iteration vs one full OSEM iteration (%d subsets), median of %d\n", a.subsets,
              a.repeats);
  if (wants("glpet")) bench_glpet(a, rows);
  nlohmann::json safir_stages;
  if (wants("safir")) safir_stages = bench_safir(a, rows);
  if (wants("strip")) bench_strip(a, rows);
  nlohmann::json j;
  j["subsets"] = a.subsets;
  for (const Row& r : rows)
    j["osem"].push_back({{"problem", r.problem}, {"backend", r.backend}, {"device", r.device}, {"note", r.note},
                         {"mlem_ms", r.mlem_ms}, {"osem_ms", r.osem_ms}, {"ratio", r.osem_ms / r.mlem_ms}});
  if (!safir_stages.is_null()) j["safir_stages"] = safir_stages;
  if (a.prior_size > 0) j["prior"] = bench::pet_prior::run({a.prior_size, a.prior_size, a.prior_size}, a.repeats * 3 + 2, a.backends);
  if (a.joseph) j["joseph"] = bench::pet_joseph::run(a.repeats * 3 + 2, a.backends);
  if (a.tof) j["tof"] = bench::pet_tof::run(std::max(1, a.tof_reps), a.tof_peer, a.strip_events);
  bench::write_report(a.json, j);
  return 0;
}
