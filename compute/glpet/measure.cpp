// glpet measured data: scene reading plus the Monte-Carlo acquisition or the user's file.
#include "compute/glpet/measure.hpp"

#include <chrono>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/glpet/data_io.hpp"

namespace tomo::glpet {

Measurement measure(const Scene& scene, const std::string& backend, const std::string& gpus) {
  Measurement m;
  m.scene = read_glpet_scene(scene);
  const GlpetScene& g = m.scene;
  const auto t0 = std::chrono::steady_clock::now();
  if (g.data.measured()) {
    const bool counts = !g.data.counts.empty();
    m.simulated = false;
    m.source = (counts ? g.data.counts : g.data.listmode).string();
    m.mc.counts = counts ? read_counts(g.data.counts, g.system.scanner) : read_listmode(g.data.listmode, g.system.scanner);
    double total = 0;
    for (float c : m.mc.counts) total += c;
    m.mc.histories = 0;
    m.mc.detected = std::int64_t(total);
    log_info("glpet: ", total, " counts read from ", m.source);
    // Valid data of nothing: a reconstruction of it would be all zero, a user's mistake.
    if (!(total > 0))
      throw InputError(str_cat(m.source, counts ? " (glpet.data.counts)" : " (glpet.data.listmode)",
                               counts ? " holds no counts (every LOR is 0)" : " holds no events",
                               ": nothing to reconstruct"));
  } else {
    m.source = "monte-carlo";
    m.mc_device = resolve_mc_device(g.mc_device, backend);
    log_info("glpet: Monte-Carlo on ", m.mc_device == McDevice::cuda ? "CUDA" : "the host's cores");
    m.mc = simulate(g.system.scanner, g.system.sigma_t, VoxelSource(g.activity_volume), g.mc, {m.mc_device, gpus});
    if (m.mc.detected == 0)
      throw InputError(str_cat("glpet: the Monte-Carlo detected no pair of ", g.mc.histories,
                               " histories (glpet.mc.histories, the activity and the modules): nothing to reconstruct"));
    if (g.mc_effects.any()) {  // efficiency, randoms and scatter (docs/pet.md)
      const McEffectCounts e = apply_effects(m.mc.counts, g.mc_effects);
      log_info("glpet: Monte-Carlo effects: ", e.trues, " trues, ", e.randoms, " randoms, ", e.scattered, " scattered");
    }
  }
  m.simulate_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace tomo::glpet
