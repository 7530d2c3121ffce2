// libLFRelaxation → musrfit's predefined LF Kubo–Toyabe functions. The library documents its
// parameters as ν_L = γ_μB/2π (MHz), the static width σ or a (µs⁻¹) and, for the dynamic
// ones, the hopping rate ν (MHz): the order and units of statGssKTLF (ν₀ Δ), statExpKTLF
// (ν₀ a), dynGssKTLF (ν₀ Δ ν) and dynExpKTLF (ν₀ a ν). Like the library, 1 before t = 0 (dynGssKTLF
// alone gives 0 there) and, for the dynamic ones, 0 beyond 20 µs. Where the
// library computes differently (its zero-field switch at ν_L < 1.355e-3 MHz, its Laplace
// inversion where no approximation applies, TLFDynGssKT's Keren formula also for ω_L ≥ 10σ)
// the values differ at the level of the two numerical methods: docs/musr.md.
#include "compute/musr/bmw/lf_relaxation.hpp"

#include "compute/core/error.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

struct LfText {
  std::string_view name, text;
};

constexpr LfText kLf[] = {
    {"TLFStatGssKT", R"(
function TLFStatGssKT(nuL, sigma) {
  return t < 0 ? 1 : statGssKTLF(nuL, sigma);
}
)"},
    {"TLFStatExpKT", R"(
function TLFStatExpKT(nuL, a) {
  return t < 0 ? 1 : statExpKTLF(nuL, a);
}
)"},
    {"TLFDynGssKT", R"(
function TLFDynGssKT(nuL, sigma, nu) {
  return t < 0 ? 1 : (t > 20 ? 0 : dynGssKTLF(nuL, sigma, nu));
}
)"},
    {"TLFDynExpKT", R"(
function TLFDynExpKT(nuL, a, nu) {
  return t < 0 ? 1 : (t > 20 ? 0 : dynExpKTLF(nuL, a, nu));
}
)"},
};

}  // namespace

std::shared_ptr<const UserFunction> find_lf_relaxation_function(std::string_view name) {
  for (const auto& f : kLf) {
    if (f.name != name) continue;
    auto fs = parse_user_functions(f.text, "built-in user function " + std::string(f.name) + " (libLFRelaxation)");
    if (fs.size() != 1 || fs[0]->name != name) throw Error("musr: built-in user function text names another function");
    return fs[0];
  }
  return nullptr;
}

std::vector<std::string> lf_relaxation_function_names() {
  std::vector<std::string> out;
  for (const auto& f : kLf) out.emplace_back(f.name);
  return out;
}

}  // namespace tomo::musr
