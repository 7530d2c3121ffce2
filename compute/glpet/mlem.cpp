// glpet ML-EM driver: s = Aᵀ1 once, then ỹ = A x, b = Aᵀ(y/ỹ), x ← x·b/s ([Toth2010] eq. (3)).
#include "compute/glpet/mlem.hpp"

#include <chrono>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/report.hpp"

namespace tomo::glpet {

namespace {
class StageTimer {
 public:
  StageTimer(Projector& op, RunReport* r, const char* stage) : op_(op), r_(r), stage_(stage), t0_(clock::now()) {}
  ~StageTimer() {
    if (!r_) return;
    op_.synchronize();
    r_->add_timing(stage_, std::chrono::duration<double, std::milli>(clock::now() - t0_).count());
  }

 private:
  using clock = std::chrono::steady_clock;
  Projector& op_;
  RunReport* r_;
  const char* stage_;
  clock::time_point t0_;
};
}  // namespace

MlemResult run_mlem(Projector& op, std::span<const float> y, std::span<const float> x0, const MlemOptions& opt) {
  if (opt.iterations < 0) throw InputError(str_cat("glpet: iterations must be >= 0, got ", opt.iterations));
  for (float v : y)
    if (!std::isfinite(v) || v < 0) throw InputError(str_cat("glpet: measured count ", v, " is not finite and >= 0"));
  auto by = op.make_lors();
  auto bt = op.make_lors();
  auto bx = op.make_image();
  auto bb = op.make_image();
  auto bs = op.make_image();
  if (y.size() != by->size()) throw InputError(str_cat("glpet: ", y.size(), " measured LORs, the scanner has ", by->size()));
  by->upload(y);
  {
    StageTimer t(op, opt.report, "sensitivity");
    op.sensitivity(*bs);
  }
  MlemResult res;
  const MaskedStart start = mask_and_start(*bs, *bx, x0, opt.sensitivity_threshold, opt.outside_fov);
  res.sensitivity = start.sensitivity;
  res.masked = start.masked;
  for (int it = 1; it <= opt.iterations; ++it) {
    {
      StageTimer t(op, opt.report, "forward");
      op.forward(*bx, *bt);  // [Toth2010] eq. (2)
    }
    {
      StageTimer t(op, opt.report, "back_ratio");
      op.back_ratio(*by, *bt, *bb, nullptr);  // [Toth2010] eq. (3) numerator
    }
    {
      StageTimer t(op, opt.report, "update");
      op.mlem_update(*bx, *bb, *bs);
    }
    res.iterations = it;
    if (opt.on_iteration && !opt.on_iteration(it, *bx)) break;
  }
  res.x = download(*bx);
  res.estimate = res.iterations > 0 ? download(*bt) : std::vector<float>(by->size(), 0.0f);
  return res;
}

MaskedStart mask_and_start(BackendBuffer& bs, BackendBuffer& bx, std::span<const float> x0, double threshold,
                           std::span<const std::uint8_t> outside) {
  if (!outside.empty() && outside.size() != bs.size())
    throw Error(str_cat("glpet: field-of-view mask of ", outside.size(), " voxels for an image of ", bs.size()));
  MaskedStart out;
  out.sensitivity = download(bs);
  // The field of view: a zero sensitivity makes every backend's update hold the voxel at 0.
  std::vector<float> s = out.sensitivity;
  const float floor = sensitivity_floor<float>(s, threshold);
  for (float& v : s)
    if (v > 0 && v < floor) v = 0, ++out.masked;
  out.masked += zero_outside<float>(s, outside);
  if (out.masked > 0) bs.upload(s);
  if (x0.empty()) {
    std::vector<float> ones(bx.size());
    for (std::size_t v = 0; v < ones.size(); ++v) ones[v] = s[v] > 0 ? 1.0f : 0.0f;
    bx.upload(ones);
  } else {
    std::vector<float> x(x0.begin(), x0.end());
    if (x.size() == s.size())
      for (std::size_t v = 0; v < x.size(); ++v)
        if (!(s[v] > 0)) x[v] = 0;
    bx.upload(x);
  }
  return out;
}

}  // namespace tomo::glpet
