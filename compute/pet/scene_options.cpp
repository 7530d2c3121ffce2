// Reads the shared reconstruction keys of a PET problem.
#include "compute/pet/scene_options.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/scene.hpp"
#include "compute/io/image_volume.hpp"

namespace tomo::pet {

PetSceneOptions read_pet_options(const Scene& s, const std::string& p, int iterations) {
  PetSceneOptions out;
  ReconOptions& o = out.recon;
  o.iterations = iterations;
  o.algorithm = s.get_enum(p + ".algorithm", Algorithm::mlem, kAlgorithmNames);
  const int fallback_subsets = o.algorithm == Algorithm::osem ? 8 : 1;
  o.subsets = s.get_int_in_range(p + ".subsets", fallback_subsets, 1, 4096);
  if (o.algorithm == Algorithm::mlem && o.subsets != 1)
    throw InputError(str_cat(s.where(p + ".subsets"), " = ", o.subsets, " needs ", p,
                             ".algorithm = \"osem\" (or a MAP algorithm): ML-EM uses all the data in every step"));
  o.subset_order = s.get_enum(p + ".subset_order", SubsetOrder::sequential, kSubsetOrderNames);
  const auto seed = s.get<std::int64_t>(p + ".subset_seed", 1);
  if (seed < 0) throw InputError(str_cat(s.where(p + ".subset_seed"), " must be >= 0, got ", seed));
  o.subset_seed = static_cast<std::uint64_t>(seed);
  o.prior.beta = s.get_in_range(p + ".prior.beta", 0.0, 0.0, 1e12);
  o.prior.gamma = s.get_in_range(p + ".prior.gamma", 2.0, 0.0, 1e6);
  o.prior.epsilon = s.get_in_range(p + ".prior.epsilon", 1e-9, 1e-30, 1e12);
  o.relaxation = s.get_in_range(p + ".relaxation", 1.0, 1e-6, 10.0);
  o.relaxation_decay = s.get_in_range(p + ".relaxation_decay", 0.02, 0.0, 1e6);
  o.preconditioner = s.get_enum(p + ".preconditioner", Preconditioner::em_prior, kPreconditionerNames);
  if (!uses_prior(o.algorithm) && s.has(p + ".prior.beta") && o.prior.beta > 0)
    throw InputError(str_cat(s.where(p + ".prior.beta"), " = ", o.prior.beta, " has no effect with ", p,
                             ".algorithm = \"", enum_name(kAlgorithmNames, o.algorithm),
                             "\": use \"map-rdp\" or \"osl-rdp\""));
  out.initial_image = s.get_input_path(p + ".initial_image");
  return out;
}

std::vector<int> read_save_iterations(const Scene& s, const std::string& p, int iterations) {
  const std::string key = p + ".save_iterations";
  std::vector<int> out = s.get<std::vector<int>>(key, {});
  if (s.overridden(p + ".iterations") && !s.overridden(key)) {
    const auto beyond = std::remove_if(out.begin(), out.end(), [&](int t) { return t > iterations; });
    if (beyond != out.end()) {
      log_info(s.where(key), ": iterations past ", p, ".iterations = ", iterations, " are not saved");
      out.erase(beyond, out.end());
    }
  }
  for (int t : out)
    if (t < 1 || t > iterations)
      throw InputError(str_cat(s.where(key), ": iteration ", t, " is outside 1..", iterations));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<double> read_initial_image(const std::filesystem::path& path, const std::array<int, 3>& dims,
                                       const std::string& key) {
  const VolumeF v = read_image_volume(path);  // NIfTI or Interfile, by extension
  if (v.grid.dims != dims)
    throw InputError(str_cat(key, ": ", path.string(), " has ", v.grid.dims[0], " x ", v.grid.dims[1], " x ",
                             v.grid.dims[2], " voxels, the image is ", dims[0], " x ", dims[1], " x ", dims[2]));
  std::vector<double> x(v.data.begin(), v.data.end());
  for (std::size_t j = 0; j < x.size(); ++j)
    if (!std::isfinite(x[j]) || x[j] < 0)
      throw InputError(str_cat(key, ": ", path.string(), " voxel ", j, " is ", x[j], "; a start image is finite and >= 0"));
  return x;
}

}  // namespace tomo::pet
