// The `gl-compute` backend of musr::Chi2Evaluator: the generated GLSL of the fit's theory in the
// template shaders/musr/chi2.comp.glsl, histograms resident in SSBOs for the whole fit. Double by
// default (GLSL fp64 arithmetic with shaders/musr/double_math.glsl for the elementary functions
// GLSL lacks in double), float32 with single_precision.
// Each work group reduces its bins in shared memory and writes its partial sums; the host adds
// the (few thousand) partials in double. The engine's HalvingReducer reduces textures, not
// buffers, so this pass reduces in shared memory instead.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/musr/codegen_common.hpp"
#include "compute/musr/codegen_glsl.hpp"
#include "compute/musr/fit_problem.hpp"
#include "compute/musr/kt_pack.hpp"
#include "compute/musr/run_layout.hpp"
#include "renderer/gl/engine.hpp"
#include "renderer/gl/objects.hpp"
#include "renderer/musr/bindings.hpp"

namespace tomo::musr {

namespace {

static_assert(binding::kTables == kGlslTableBinding && binding::kTableValues == kGlslTableBinding + 1,
              "the generated table helpers read the bindings the evaluator fills");

// Bins per work group: 16 per invocation keeps every shader loop far below software GL's
// loop cut (65535) and the partials few.
constexpr long long kBinsPerGroup = 256LL * 16;

class GlComputeChi2Evaluator final : public Chi2Evaluator {
 public:
  std::string describe() const override {
    return str_cat("gl-compute (", double_ ? "float64" : "float32", ", generated GLSL): ", gl::shared_context().info().summary());
  }
  void synchronize() override {
    gl::shared_context().make_current();
    glFinish();
  }
  void configure(const EvaluatorOptions& options) override { options_ = options; }

  void upload(const FitData& data) override {
    gl::Context& ctx = gl::shared_context();
    ctx.make_current();
    check_data(data);
    num_params_ = data.num_params;
    double_ = !options_.single_precision;
    real_bytes_ = double_ ? sizeof(double) : sizeof(float);
    // At most 65535 groups in x (GL's guaranteed minimum): larger fits take more bins a group.
    const long long bins = static_cast<long long>(data.bins());
    long long per_group = std::max(kBinsPerGroup, (bins + 60000 - 1) / 60000);
    layout_ = plan_layout(data, per_group);
    groups_ = layout_.back().first_block + layout_.back().blocks;
    if (groups_ > 65535) throw UnavailableError(str_cat("musr gl-compute: ", data.runs.size(), " runs need ", groups_, " work groups, more than 65535"));
    const long long limit = ctx.info().caps.max_loop_iterations;
    const long long loop = (per_group + kGlslGroupThreads - 1) / kGlslGroupThreads;
    if (limit > 0 && loop > limit)
      throw UnavailableError(str_cat("musr gl-compute: ", loop, " bins per invocation exceed the ", limit,
                                     " loop iterations this software OpenGL (", ctx.info().gl_renderer, ") runs"));
    upload_tables(data);
    // Tabulated theory functions: the runs' programs (no bins) kept to refill their tables from
    // the parameters before every dispatch.
    models_ = FitData{};
    if (max_tables(data) > 0) {
      models_.num_params = data.num_params;
      for (const RunBins& r : data.runs) models_.runs.push_back(RunBins{r.model, {}, {}, {}, r.scale});
    }
    // The template with its includes inlined (the binding points), markers left for the generator.
    const std::string tmpl = gl::shaders().preprocess("musr/chi2.comp.glsl", {});
    const std::string lib = double_ ? gl::shaders().load("musr/double_math.glsl") : std::string();
    value_ = gl::ShaderLibrary::build({{gl::Stage::Compute, glsl_chi2_source(data, false, tmpl, double_, lib, true)}},
                                      "musr/chi2.comp.glsl (generated, value)");
    gradient_ = gl::ShaderLibrary::build({{gl::Stage::Compute, glsl_chi2_source(data, true, tmpl, double_, lib, true)}},
                                         "musr/chi2.comp.glsl (generated, gradient)");
    ns_gradient_ = glsl_slots(data, true);
    pairs_ = gradient_pairs(data);
    params_ = gl::Buffer(real_bytes_ * static_cast<std::size_t>(std::max(1, num_params_)));
    partials_ = gl::Buffer(real_bytes_ * static_cast<std::size_t>(groups_) * static_cast<std::size_t>(ns_gradient_));
    host_partials_.assign(static_cast<std::size_t>(groups_) * static_cast<std::size_t>(ns_gradient_), 0.0);
  }

  double evaluate(std::span<const double> params) override { return run(params, {}, false); }
  double evaluate_with_gradient(std::span<const double> params, std::span<double> grad) override {
    if (static_cast<int>(grad.size()) != num_params_)
      throw Error(str_cat("musr gl-compute: gradient of ", grad.size(), " entries, the fit has ", num_params_, " parameters"));
    return run(params, grad, true);
  }

 private:
  static void check_data(const FitData& data) {
    check_fit_data(data, "musr gl-compute");
    if (data.bins() >= (1ULL << 31)) throw UnavailableError(str_cat("musr gl-compute: ", data.bins(), " bins, at most 2^31 fit in its buffers"));
  }

  void upload_tables(const FitData& data) {
    std::vector<GlslRunInfo> runs;
    std::vector<int> block_run(static_cast<std::size_t>(groups_));
    std::vector<double> yw, t;
    yw.reserve(2 * data.bins());
    bool any_t = false;
    for (std::size_t r = 0; r < data.runs.size(); ++r) {
      const RunLayout& l = layout_[r];
      const RunBins& run = data.runs[r];
      runs.push_back({static_cast<unsigned>(l.offset), static_cast<unsigned>(l.count), static_cast<unsigned>(l.first_block),
                      static_cast<unsigned>(l.blocks), l.affine ? 1u : 0u, static_cast<unsigned>(l.kind),
                      static_cast<unsigned>(l.pmap), 0u, l.t0, l.dt, run.scale});
      std::fill(block_run.begin() + l.first_block, block_run.begin() + l.first_block + l.blocks, static_cast<int>(r));
      for (std::size_t k = 0; k < run.y.size(); ++k) {
        yw.push_back(run.y[k]);
        yw.push_back(data.statistic == Statistic::chi2 ? 1.0 / (run.sigma[k] * run.sigma[k]) : 0.0);
      }
      any_t = any_t || !l.affine;
    }
    // The t array only where some run's times are not evenly spaced (one dummy value otherwise).
    for (std::size_t r = 0; r < data.runs.size() && any_t; ++r)
      for (double x : data.runs[r].t) t.push_back(x);
    if (t.empty()) t.push_back(0.0);
    if (yw.empty()) yw.assign(2, 0.0);
    const TheoryCases cases = group_theories(data);
    std::vector<unsigned> pmap(cases.pmap.begin(), cases.pmap.end());
    if (pmap.empty()) pmap.push_back(0u);
    pmap_ = gl::Buffer::from(pmap);
    runs_ = gl::Buffer::from(runs);
    block_run_ = gl::Buffer::from(block_run);
    bins_ = real_buffer(yw);
    times_ = real_buffer(t);
  }

  // The shader's real type: double as is, or float.
  gl::Buffer real_buffer(const std::vector<double>& v) const {
    if (double_) return gl::Buffer::from(v);
    return gl::Buffer::from(std::vector<float>(v.begin(), v.end()));
  }

  double run(std::span<const double> params, std::span<double> grad, bool gradient) {
    if (static_cast<int>(params.size()) != num_params_)
      throw Error(str_cat("musr gl-compute: ", params.size(), " parameters given, the fit has ", num_params_));
    if (groups_ == 0) throw Error("musr gl-compute: evaluate() before upload()");
    gl::shared_context().make_current();
    if (!params.empty()) {
      if (double_) {
        params_.upload(params.data(), params.size() * sizeof(double));
      } else {
        std::vector<float> p(params.begin(), params.end());
        params_.upload(p.data(), p.size() * sizeof(float));
      }
    }
    const gl::Program& prog = gradient ? gradient_ : value_;
    prog.use();
    runs_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kRuns);
    block_run_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kBlockRun);
    bins_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kBins);
    times_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kTimes);
    params_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kParams);
    partials_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kPartials);
    pmap_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kParamMap);
    if (!models_.runs.empty()) {
      pack_tables(models_, params, gradient, pack_);
      table_info_ = gl::Buffer::from(glsl_table_infos(pack_));
      table_values_ = gl::Buffer::from(pack_.values);
      table_info_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kTables);
      table_values_.bind_base(GL_SHADER_STORAGE_BUFFER, binding::kTableValues);
    }
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    prog.dispatch(groups_ * kGlslGroupThreads);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    const int ns = gradient ? ns_gradient_ : 1;
    const std::size_t count = static_cast<std::size_t>(groups_) * static_cast<std::size_t>(ns);
    if (double_) {
      partials_.download(host_partials_.data(), count * sizeof(double));
    } else {
      std::vector<float> f(count);
      partials_.download(f.data(), count * sizeof(float));
      std::copy(f.begin(), f.end(), host_partials_.begin());
    }
    double value = 0.0;
    for (int g = 0; g < groups_; ++g) value += host_partials_[static_cast<std::size_t>(g) * ns];
    if (gradient) {
      std::fill(grad.begin(), grad.end(), 0.0);
      for (const GradientPair& q : pairs_) {
        const RunLayout& l = layout_[q.run];
        double s = 0.0;
        for (int g = l.first_block; g < l.first_block + l.blocks; ++g) s += host_partials_[static_cast<std::size_t>(g) * ns + 1 + q.slot];
        grad[q.param] += s;
      }
    }
    return value;
  }

  EvaluatorOptions options_;
  int num_params_ = 0, groups_ = 0, ns_gradient_ = 1;
  std::vector<RunLayout> layout_;
  std::vector<GradientPair> pairs_;
  gl::Program value_, gradient_;
  gl::Buffer runs_, block_run_, bins_, times_, params_, partials_, pmap_;
  FitData models_;  // the runs' programs (no bins) where the theory has tables
  TablePack pack_;
  gl::Buffer table_info_, table_values_;
  std::vector<double> host_partials_;
  bool double_ = true;
  std::size_t real_bytes_ = sizeof(double);
};

const BackendRegistrar<Chi2Evaluator> kRegisterGlCompute({"gl-compute", kPriorityGlCompute, [] { return gl::availability({}); },
                                                          [] { return std::make_unique<GlComputeChi2Evaluator>(); }});

}  // namespace

}  // namespace tomo::musr
