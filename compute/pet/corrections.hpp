// The correction terms of the PET forward model ȳ_i = n_i·a_i·(A x)_i + r_i + s_i (docs/pet.md):
// normalisation n (detection efficiency), attenuation a = exp(−∫μ), randoms r and scatter s
// (expected counts). The scene keys, the same under [glpet], [safir] and [strip], and the EM
// arithmetic with the terms, written once for list-mode and binned data.
#pragma once
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tomo {
class Scene;
}

namespace tomo::pet {

// An additive term (randoms or scatter): a fraction f of the prompts spread uniformly over the
// LORs (each LOR's mean is f·prompts / LORs), or the expected counts from a .npy file (one per
// LOR for binned data, one per event for list-mode data).
struct AdditiveTerm {
  double fraction = 0;
  std::filesystem::path file;
  bool given() const { return fraction > 0 || !file.empty(); }
};

struct CorrectionOptions {
  std::filesystem::path attenuation_map;  // μ-map, cm⁻¹ (NIfTI or Interfile)
  std::filesystem::path normalisation;    // .npy efficiencies (glpet: per LOR, safir: per crystal)
  AdditiveTerm randoms, scatter;
  bool any() const { return !attenuation_map.empty() || !normalisation.empty() || randoms.given() || scatter.given(); }
  bool multiplicative() const { return !attenuation_map.empty() || !normalisation.empty(); }
};

// What a problem supports: keys it does not are refused when given (InputError naming the key).
struct CorrectionSupport {
  bool attenuation_map = true, normalisation = true, randoms = true, scatter = true;
};

// <problem>.attenuation_map, .normalisation, .randoms.{fraction, file}, .scatter.{fraction, file}.
// A fraction is in [0, 1); fraction and file of one term together are an error, and so are
// randoms and scatter fractions adding up to 1 or more.
CorrectionOptions read_correction_options(const Scene& s, const std::string& problem, const CorrectionSupport& support = {});

// A .npy file of `count` values, each finite and ≥ 0 (> 0 with `positive`): InputError naming
// `key`, the file and the first bad value.
std::vector<double> read_term_file(const std::filesystem::path& path, std::size_t count, const std::string& key,
                                   bool positive = false);

// The per-measurement terms of the forward model: ȳ_i = m_i·t_i + c_i with t = A x, m = n·a
// (empty: 1) and c = r + s (empty: 0).
struct ForwardTerms {
  std::vector<double> multiplicative, additive;
  bool empty() const { return multiplicative.empty() && additive.empty(); }
};

// The EM ratio of list-mode data (one count per event), in place: t_i ← m_i / (m_i·t_i + c_i)
// over t = A x of the events [first, first + t.size()) of `terms`; 0 where the denominator is ≤ 0.
void list_mode_ratio(std::span<double> t, const ForwardTerms& terms, std::size_t first);

// The same for binned data y: t_l ← m_l·y_l / (m_l·t_l + c_l), 0 where y_l = 0 or the denominator is ≤ 0.
void binned_ratio(std::span<double> t, std::span<const double> y, const ForwardTerms& terms);

// The level of a flat start image whose expected trues Σ_j s_j x_j are the prompts less the
// additive counts: (prompts − additive) / Σ_j s_j, or 1 when that is not > 0. With additive
// terms EM grows an image at most by y/(r + s) per step, so a start far below the data's scale
// (the usual flat 1) would take many iterations to reach it.
double flat_start_level(double prompts, double additive, double sensitivity_sum);

// The EM update x_j ← x_j·b_j / s_j (0 where s_j ≤ 0).
void em_update(std::span<double> x, std::span<const double> b, std::span<const double> s);

}  // namespace tomo::pet
