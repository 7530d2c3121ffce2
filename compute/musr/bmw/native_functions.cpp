// The native built-in user functions (user_fcn.hpp: find_native_user_function): library
// functions that read data files or need tables computed on the host per parameter set.
#include <system_error>

#include "compute/core/error.hpp"
#include "compute/musr/bmw/depth_profile.hpp"
#include "compute/musr/bmw/gap_integrals.hpp"
#include "compute/musr/bmw/london_hs_function.hpp"
#include "compute/musr/bmw/pippard.hpp"
#include "compute/musr/bmw/gap_shapes.hpp"
#include "compute/musr/bmw/mean_fields.hpp"
#include "compute/musr/bmw/sexp_relaxation.hpp"
#include "compute/musr/bmw/tri_vortex_ml.hpp"
#include "compute/musr/user_fcn.hpp"

namespace tomo::musr {
namespace {

// musrfit's BMW libraries read ./BMW_startup.xml; here beside the msr file, then the working directory.
std::filesystem::path bmw_startup(const std::filesystem::path& msr_dir, std::string_view name) {
  const std::filesystem::path file = "BMW_startup.xml";
  std::error_code ec;
  if (std::filesystem::exists(msr_dir / file, ec)) return msr_dir / file;
  if (std::filesystem::exists(file, ec)) return file;
  throw InputError("userFcn " + std::string(name) + " reads its settings from BMW_startup.xml: none in " +
                   (msr_dir.empty() ? std::string(".") : msr_dir.string()) + " or the working directory");
}

}  // namespace

std::shared_ptr<const UserFunction> find_native_user_function(std::string_view name, const std::filesystem::path& msr_dir) {
  if (name == "PDepthProfile") {
    // musrfit reads ./depth_profile_startup.xml; here beside the msr file, then the working directory.
    const std::filesystem::path file = "depth_profile_startup.xml";
    std::error_code ec;
    if (std::filesystem::exists(msr_dir / file, ec)) return depth_profile_function(msr_dir / file);
    if (std::filesystem::exists(file, ec)) return depth_profile_function(file);
    throw InputError("userFcn PDepthProfile reads its TRIM.SP profiles from depth_profile_startup.xml: none in " +
                     (msr_dir.empty() ? std::string(".") : msr_dir.string()) + " or the working directory");
  }
  if (name == "PNL_PippardFitter") {
    // musrfit reads ./nonlocal_startup.xml; here beside the msr file, then the working directory.
    const std::filesystem::path file = "nonlocal_startup.xml";
    std::error_code ec;
    if (std::filesystem::exists(msr_dir / file, ec)) return bmw::pippard_function(msr_dir / file);
    if (std::filesystem::exists(file, ec)) return bmw::pippard_function(file);
    throw InputError("userFcn PNL_PippardFitter reads its settings and TRIM.SP profiles from nonlocal_startup.xml: none in " +
                     (msr_dir.empty() ? std::string(".") : msr_dir.string()) + " or the working directory");
  }
  if (name == "SExpRlx") return sexp_relaxation_function();  // libBNMR
  if (auto f = find_gap_function(name)) return f;              // libGapIntegrals
  if (auto f = find_gap_shape_function(name)) return f;        // libGapIntegrals, shaped gaps
  if (name == "TBulkTriVortexML") return bmw::tri_vortex_ml_function(bmw_startup(msr_dir, name));  // libFitPofB
  if (name == "TLondon1DHS") return bmw::london_hs_function(bmw_startup(msr_dir, name));            // libFitPofB
  if (name == "TLondon1D1L") return bmw::london_film_function(bmw_startup(msr_dir, name));
  if (name == "TLondon1D2L") return bmw::london_layers_function(bmw_startup(msr_dir, name), 2);
  if (name == "TLondon1D3L") return bmw::london_layers_function(bmw_startup(msr_dir, name), 3);
  if (name == "TLondon1D3LS") return bmw::london_layers_function(bmw_startup(msr_dir, name), 4);
  if (name == "TMeanFieldsForScSingleLayer") return bmw::mean_fields_single_layer_function(bmw_startup(msr_dir, name));  // libCalcMeanFieldsLEM
  if (name == "TMeanFieldsForScHalfSpace") return bmw::mean_fields_half_space_function(bmw_startup(msr_dir, name));
  return nullptr;
}

std::vector<std::string> native_user_function_names() {
  std::vector<std::string> out = {"PDepthProfile", "PNL_PippardFitter", "SExpRlx", "TBulkTriVortexML", "TLondon1DHS", "TLondon1D1L", "TLondon1D2L", "TLondon1D3L", "TLondon1D3LS",
                                   "TMeanFieldsForScSingleLayer", "TMeanFieldsForScHalfSpace"};
  for (auto& n : gap_function_names()) out.push_back(n);
  for (auto& n : gap_shape_function_names()) out.push_back(n);
  return out;
}

}  // namespace tomo::musr
