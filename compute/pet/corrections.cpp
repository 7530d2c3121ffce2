// The correction keys and the EM arithmetic with the forward model's terms (corrections.hpp).
#include "compute/pet/corrections.hpp"

#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/npy.hpp"

namespace tomo::pet {

namespace {

AdditiveTerm read_additive(const Scene& s, const std::string& key, bool supported) {
  AdditiveTerm t;
  if (!s.has(key + ".fraction") && !s.has(key + ".file")) return t;
  if (!supported) throw InputError(str_cat(s.where(key), ": this problem has no ", key.substr(key.find('.') + 1), " term"));
  t.fraction = s.get_in_range(key + ".fraction", 0.0, 0.0, 0.999);
  t.file = s.get_input_path(key + ".file");
  if (t.fraction > 0 && !t.file.empty())
    throw InputError(str_cat(s.where(key), ": give either fraction or file, not both"));
  return t;
}

std::filesystem::path read_path(const Scene& s, const std::string& key, bool supported) {
  if (!s.has(key)) return {};
  if (!supported) throw InputError(str_cat(s.where(key), ": this problem has no such correction"));
  return s.get_input_path(key);
}

}  // namespace

CorrectionOptions read_correction_options(const Scene& s, const std::string& p, const CorrectionSupport& support) {
  CorrectionOptions o;
  o.attenuation_map = read_path(s, p + ".attenuation_map", support.attenuation_map);
  o.normalisation = read_path(s, p + ".normalisation", support.normalisation);
  o.randoms = read_additive(s, p + ".randoms", support.randoms);
  o.scatter = read_additive(s, p + ".scatter", support.scatter);
  if (o.randoms.fraction + o.scatter.fraction >= 1.0)
    throw InputError(str_cat(s.where(p + ".scatter.fraction"), ": randoms and scatter fractions add up to ",
                             o.randoms.fraction + o.scatter.fraction, "; the prompts would hold no trues"));
  return o;
}

std::vector<double> read_term_file(const std::filesystem::path& path, std::size_t count, const std::string& key,
                                   bool positive) {
  const NpyArray a = read_npy(path);
  if (a.count() != count)
    throw InputError(str_cat(key, " '", path.string(), "': ", a.count(), " values, expected ", count));
  std::vector<double> v = a.to_double(key);  // refuses NaN and infinities
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] < 0 || (positive && !(v[i] > 0)))
      throw InputError(str_cat(key, " '", path.string(), "': value ", i, " is ", v[i], "; it must be ",
                               positive ? "> 0" : ">= 0"));
  return v;
}

void list_mode_ratio(std::span<double> t, const ForwardTerms& terms, std::size_t first) {
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double m = terms.multiplicative.empty() ? 1.0 : terms.multiplicative[first + i];
    const double c = terms.additive.empty() ? 0.0 : terms.additive[first + i];
    const double ybar = m * t[i] + c;
    t[i] = ybar > 0 ? m / ybar : 0.0;
  }
}

void binned_ratio(std::span<double> t, std::span<const double> y, const ForwardTerms& terms) {
  for (std::size_t l = 0; l < t.size(); ++l) {
    const double m = terms.multiplicative.empty() ? 1.0 : terms.multiplicative[l];
    const double c = terms.additive.empty() ? 0.0 : terms.additive[l];
    const double ybar = m * t[l] + c;
    t[l] = y[l] > 0 && ybar > 0 ? m * y[l] / ybar : 0.0;
  }
}

double flat_start_level(double prompts, double additive, double sensitivity_sum) {
  const double level = sensitivity_sum > 0 ? (prompts - additive) / sensitivity_sum : 0.0;
  return level > 0 && std::isfinite(level) ? level : 1.0;
}

void em_update(std::span<double> x, std::span<const double> b, std::span<const double> s) {
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = s[j] > 0 ? x[j] * b[j] / s[j] : 0.0;
}

}  // namespace tomo::pet
