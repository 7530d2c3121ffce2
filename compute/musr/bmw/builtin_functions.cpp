// Built-in user functions, written in the `.fcn` language (compute/musr/user_fcn.hpp), so that
// musrfit's msr files with `userFcn <library> <Class>` run unchanged on every backend:
// musrfit's two user-function examples and the BMW library functions that have a closed form.
// Each text is our own, from the formula the library documents.

#include "compute/core/error.hpp"
#include "compute/musr/bmw/lf_relaxation.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

struct BuiltinText {
  std::string_view name, text;
};

constexpr BuiltinText kBuiltins[] = {
    // musrfit's UserFcn example: a third-order polynomial in t.
    {"PUserFcn", R"(
function PUserFcn(c0, c1, c2, c3) {
  return c0 + c1 * t + c2 * t * t + c3 * t * t * t;
}
)"},
    // musrfit's UserFcnWithGlobal example: e^(−λt), 1 before t0 and 0 from 20 µs on (musrfit's
    // global part tabulates it on a 1 ns grid; here it is evaluated at t itself).
    {"PDummyUserFcn", R"(
function PDummyUserFcn(lambda) {
  return t >= 20 ? 0 : (t > 0 ? exp(-lambda * t) : 1);
}
)"},
    // libZFRelaxation: zero-field precession in a static internal field with exponential
    // damping, α[cos ωt − (a_T/ω) sin ωt]e^(−a_T t) + (1 − α)e^(−a_L t), ω = 2πν.
    {"ZFMagExp", R"(
function ZFMagExp(alpha, nu, aT, aL) {
  let w = 2 * pi * nu;
  return alpha * (cos(w * t) - aT / w * sin(w * t)) * exp(-aT * t) + (1 - alpha) * exp(-aL * t);
}
)"},
    // libZFRelaxation: the same with Gaussian damping,
    // α[cos ωt − (σ²t/ω) sin ωt]e^(−σ²t²/2) + (1 − α)e^(−σ_L²t²/2), ω = 2πν.
    {"ZFMagGss", R"(
function ZFMagGss(alpha, nu, sigmaT, sigmaL) {
  let w = 2 * pi * nu;
  let sst = sigmaT * sigmaT * t;
  return alpha * (cos(w * t) - sst / w * sin(w * t)) * exp(-0.5 * sst * t) + (1 - alpha) * exp(-0.5 * sigmaL * sigmaL * t * t);
}
)"},
    // libBNMR: β-NMR spin-lattice relaxation e^(−λt) of 8Li (lifetime τ = 1.210 s) implanted
    // at a constant rate during a beam pulse of length `pulse`; t, pulse in s, λ in 1/s.
    // During the pulse the polarisation is the average over the implantation times of the
    // survivors, after it the value at the pulse's end relaxes on.
    {"ExpRlx", R"(
function ExpRlx(pulse, lambda) {
  let tau = 1.210;
  let taup = tau / (1 + lambda * tau);
  let during = taup / tau * (1 - exp(-t / taup)) / (1 - exp(-t / tau));
  let after = taup / tau * (1 - exp(-pulse / taup)) / (1 - exp(-pulse / tau)) * exp(-lambda * (t - pulse));
  return t < 0 ? 0 : (t > pulse ? after : during);
}
)"},
};

}  // namespace

std::shared_ptr<const UserFunction> find_builtin_user_function(std::string_view name) {
  for (const auto& b : kBuiltins) {
    if (b.name != name) continue;
    auto fs = parse_user_functions(b.text, "built-in user function " + std::string(b.name));
    if (fs.size() != 1 || fs[0]->name != name) throw Error("musr: built-in user function text names another function");
    return fs[0];
  }
  return find_lf_relaxation_function(name);  // libLFRelaxation: compute/musr/bmw/lf_relaxation.hpp
}

std::vector<std::string> builtin_user_function_names() {
  std::vector<std::string> out;
  for (const auto& b : kBuiltins) out.emplace_back(b.name);
  return out;
}

}  // namespace tomo::musr
