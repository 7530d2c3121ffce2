// The [oat] section of a scene, read and validated in one place (keys documented in
// scenes/oat_default.toml and docs/oat.md).
#pragma once
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"
#include "compute/oat/phantom.hpp"
#include "compute/oat/pls.hpp"
#include "compute/oat/sph_model.hpp"

namespace tomo {
class Scene;
}

namespace tomo::oat {

// Where the data come from: simulated from the phantom, or read (.npy, PATATO, k-Wave).
enum class DataSource { simulate, npy, patato, kwave };
inline constexpr std::array<EnumName<DataSource>, 4> kDataSourceNames{{{"simulate", DataSource::simulate},
                                                                       {"npy", DataSource::npy},
                                                                       {"patato", DataSource::patato},
                                                                       {"kwave", DataSource::kwave}}};

// What a run reconstructs, in the order given (oat.algorithms).
enum class Algorithm { fbp, pls };
inline constexpr std::array<EnumName<Algorithm>, 2> kAlgorithmNames{{{"fbp", Algorithm::fbp}, {"pls", Algorithm::pls}}};

struct OatConfig {
  OatGeometry geometry;  // for read data: grid, c₀/Γ defaults and EIR; transducers/time from the file
  OatPhantom phantom;
  Noise noise;
  DataSource source = DataSource::simulate;
  std::string pressure_file, positions_file;  // npy
  std::string hdf5_file, kwave_input;         // patato / kwave (kwave_input optional)
  int frame = 0, wavelength = 0;              // patato
  bool fs_given = false, c0_given = false, t_min_given = false;
  std::vector<Algorithm> algorithms{Algorithm::fbp, Algorithm::pls};
  ModelOptions model;
  FbpOptions fbp;
  PlsOptions pls;
  SphSetup sph;                // oat.sph.*: frequencies and apertures (model.kind = "sph")
  double sph_f_max_mhz = 0;    // oat.sph.f_max_mhz (0: min(fs/2, c₀/Δs))
  double deconvolution_cutoff_mhz = 0;  // 0: default_cutoff_mhz (only with an EIR)
  bool write_data = true;               // simulated data as data.npy + transducers.npy

  static OatConfig from_scene(const Scene& scene);
};

}  // namespace tomo::oat
