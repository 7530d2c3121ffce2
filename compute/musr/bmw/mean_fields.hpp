// libCalcMeanFieldsLEM's TMeanFieldsForScSingleLayer as a native built-in user function: the
// mean field a muon beam of implantation energy E (the x of a fittype-8 run, keV) sees in a
// superconducting film in the Meissner state, TMeanFieldsForScSingleLayer(B0, d, t, λ, w1, w2,
// w3) (B0 in G, the dead layer d, the film thickness t and λ in nm, layer weights in [0, 1]):
//   B(z) = B0 outside [d, d + t], B0·[e^((d + t − z)/λ) + e^((z − d)/λ)] / (1 + e^(t/λ)) inside
//   (TLondon1D_1L: d and t below 0 taken as 0, λ below 0.1 nm as 0.1 in the exponents);
//   ⟨B⟩_k = Σ w(z_i) n_i B(z_i) / Σ w(z_i) n_i over the rows of the TRIM.SP profile k, with
//   w = w1 for z < d, w2 for d ≤ z < d + t, w3 beyond;
//   ⟨B⟩(E): ⟨B⟩_k at a profile energy, linear in E between two, the end profile's beyond them.
// The profiles are those of BMW_startup.xml's LEM section (compute/musr/bmw/startup.hpp), read
// as the library reads them: the file's last row counts twice when whitespace follows it (its
// end-of-file loop reads that row again). Since film points carry w2, ⟨B⟩_k = B0·(1 + w2·H_k /
// (w1·L1_k + w2·L2_k + w3·L3_k)) with L the layers' stopping fractions and H_k = Σ_film n (B/B0 − 1):
// two tables over the profile index (TableKind::vortex_lattice's range, see mean_field_kind),
// read at each profile's index, so every backend evaluates them and the interpolation in E.
#pragma once
#include <filesystem>
#include <memory>
#include <vector>

#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {
struct UserFunction;
}

namespace tomo::musr::bmw {

// One profile as the library holds it: depths in Å and stopping fractions n_i (Σ n_i = 1).
struct LemProfile {
  double energy_kev = 0.0;
  std::vector<double> depth_a, n;
  bool operator==(const LemProfile&) const = default;
};

// The profiles of a BMW_startup.xml's LEM section as compute/musr/bmw/trim_sp_data.hpp reads
// them (sorted by energy, a repeated energy keeping its last label, as the library's map), the
// counts normalised to stopping fractions.
std::vector<LemProfile> load_lem_profiles(const std::filesystem::path& startup);

// Profile sets live for the process and are named by a small index (at most 64).
int register_lem_profiles(std::vector<LemProfile> set);
const std::vector<LemProfile>& lem_profiles(int id);

// The table kinds: kMeanFieldKind + 4·set + part; part 0: the stopping fraction of layer c
// (args interfaces a, b [nm], layer c), part 1: H(d, t, λ) of the film, part 2: H(d, λ) of the
// half-space (third argument unused); all over the profile index.
inline constexpr int kMeanFieldKind = 1000;
inline constexpr int kMeanFieldKindEnd = kMeanFieldKind + 256;
KtTable mean_field_kind_table(int kind, double a0, double a1, double a2, unsigned differences);

// The relative film field B/B0 of TLondon1D_1L at z (nm) and its derivatives by (d, t, λ).
double london_film_field(double z, double d, double t, double lambda, double (*grad)[3] = nullptr);
// The relative field of TLondon1D_HS, 1 above the dead layer d and e^((d − z)/λ) below it, and its
// derivatives by (d, λ).
double london_half_space_field(double z, double d, double lambda, double (*grad)[2] = nullptr);

// The native user function TMeanFieldsForScSingleLayer with the profiles of `startup`.
std::shared_ptr<const UserFunction> mean_fields_single_layer_function(const std::filesystem::path& startup);
// TMeanFieldsForScHalfSpace(B0, d, λ): the same average over a superconducting half-space below a
// dead layer, without layer weights: ⟨B⟩_k = B0·(1 + Σ n (e^((d − z)/λ) − 1)) over z ≥ d.
std::shared_ptr<const UserFunction> mean_fields_half_space_function(const std::filesystem::path& startup);

}  // namespace tomo::musr::bmw
