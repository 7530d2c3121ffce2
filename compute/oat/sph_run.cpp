// H_sph in an oat run: backend choice (single or multi-device), PLS-sph, crosscheck rows.
#include "compute/oat/sph_run.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/metrics.hpp"
#include "compute/core/progress.hpp"
#include "compute/core/report.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/oat/pls.hpp"
#include "compute/oat/pls_progress.hpp"
#include "compute/oat/pls_report.hpp"
#include "compute/oat/sph_spectrum.hpp"

namespace tomo::oat {

namespace {
std::map<std::string, SphMultiFactory>& multi_factories() {
  static std::map<std::string, SphMultiFactory> m;
  return m;
}
// Tolerance of the float backends vs cpu (relative L2): the phase 2πfd/c₀ in float carries
// ~1e-5 rad at d ≈ 100 mm, f ≈ 5 MHz; sums over 10³–10⁵ voxels stay well inside.
constexpr double kSphTolerance = 1e-3;
}  // namespace

void register_sph_multi(const std::string& backend, SphMultiFactory factory) {
  multi_factories()[backend] = std::move(factory);
}

const SphMultiFactory* find_sph_multi(const std::string& backend) {
  auto it = multi_factories().find(backend);
  return it == multi_factories().end() ? nullptr : &it->second;
}

SphShare sph_share(std::size_t voxels, int transducers, int rank, int ranks) {
  SphShare s;
  s.voxel_begin = std::int64_t(voxels * std::size_t(rank) / std::size_t(ranks));
  s.voxel_end = std::int64_t(voxels * std::size_t(rank + 1) / std::size_t(ranks));
  s.transducer_begin = int(std::int64_t(transducers) * rank / ranks);
  s.transducer_end = int(std::int64_t(transducers) * (rank + 1) / ranks);
  return s;
}

std::unique_ptr<SphModel> make_sph_model(const std::string& backend, const std::string& gpus, const OatGeometry& g,
                                         const SphOptions& o) {
  std::unique_ptr<SphModel> m;
  if (gpus.empty()) {
    m = BackendRegistry<SphModel>::instance().create(backend);
  } else {
    const SphMultiFactory* f = find_sph_multi(backend);
    if (!f) throw UnavailableError("--gpus: oat H_sph backend '" + backend + "' runs on one device");
    m = (*f)(gpus);
  }
  m->configure(g, o);
  return m;
}

SphSetup resolved_sph_setup(const OatConfig& c, const OatGeometry& g) {
  const SphSetup s = SphSetup::resolve(g, c.sph, c.sph_f_max_mhz);
  s.validate(g, "oat.sph");
  return s;
}

std::vector<double> run_pls_sph(RunContext& ctx, const OatConfig& c, const OatGeometry& g, std::span<const double> u,
                                const std::string& backend) {
  SphOptions o;
  o.setup = resolved_sph_setup(c, g);
  o.threads = c.model.threads;
  std::unique_ptr<SphModel> sph;
  {
    auto timer = ctx.report.time("contexts");  // the devices (and the team of several) and their uploads
    sph = make_sph_model(backend, runtime_options().gpus, g, o);
    ctx.report.add_device(sph->describe());
  }
  auto timer = ctx.report.time("pls");  // with the data's FFT
  ctx.report.set("sph", {{"fft_length", o.setup.fft_length}, {"first_bin", o.setup.first_bin},
                         {"frequencies", o.setup.frequencies}, {"f0_mhz", o.setup.f_mhz(g, 0)},
                         {"df_mhz", o.setup.df_mhz(g)}, {"aperture_mm", {o.setup.aperture_width_mm, o.setup.aperture_height_mm}},
                         {"aperture_points", o.setup.aperture_points}});
  log_info("oat H_sph: ", o.setup.frequencies, " frequencies from ", o.setup.f_mhz(g, 0), " MHz by ", o.setup.df_mhz(g),
           " MHz, ", o.setup.face_points(), " point(s) per transducer face");
  const std::vector<std::complex<double>> data = frequency_data(g, o.setup, u);
  SphAsModel model(*sph);
  nlohmann::json its = nlohmann::json::array();
  Progress progress("oat PLS-sph (" + backend + ")", pls_applications(c.pls.iterations));
  ProgressModel counted(model, progress);  // steps once per H_sph or H_sphᵀ
  auto alpha = run_pls(counted, g.grid, as_real(std::span<const std::complex<double>>(data)), c.pls,
                       [&](const PlsIteration& s) {
                         its.push_back(pls_iteration_json(s));
    if (s.iteration == 0) ctx.report.set("pls", pls_settings_json(c.pls, s.scale));
                         if (s.iteration > 0)
                           progress.step(0, str_cat("iteration ", s.iteration, ", objective ", s.objective,
                                                    ", residual ", s.residual));
                       });
  progress.finish();
  ctx.report.set("pls_iterations", its);
  return alpha;
}

void crosscheck_sph(CrosscheckTable& table, const OatConfig& c, const OatGeometry& g, std::span<const double> x,
                    std::span<const double> u) {
  SphOptions o;
  o.setup = resolved_sph_setup(c, g);
  o.threads = c.model.threads;
  const auto data = frequency_data(g, o.setup, u);
  auto evaluate = [&](const std::string& name) {
    auto m = make_sph_model(name, "", g, o);
    std::vector<std::complex<double>> hx(o.setup.data_size(g));
    std::vector<double> hty(g.grid.count());
    m->forward(x, hx);
    m->adjoint(data, hty);
    m->synchronize();
    return std::pair{std::vector<double>(as_real(std::span<const std::complex<double>>(hx)).begin(),
                                         as_real(std::span<const std::complex<double>>(hx)).end()),
                     hty};
  };
  const auto ref = evaluate("cpu");
  run_backends<SphModel>(table, [&](const std::string& name) {
    table.run(name, "sph", [&] {
      const auto r = evaluate(name);
      return CrosscheckErrors{{"forward_rel_l2", relative_l2(r.first, ref.first), kSphTolerance},
                              {"adjoint_rel_l2", relative_l2(r.second, ref.second), kSphTolerance}};
    });
  });
}

}  // namespace tomo::oat
