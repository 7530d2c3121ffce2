// How the oat problem runs H_sph (oat.model.kind = "sph"): the backend (one device, or several
// with --gpus), PLS-sph on the frequency-domain data, and the crosscheck rows of H_sph.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/crosscheck.hpp"
#include "compute/core/registry.hpp"
#include "compute/oat/config.hpp"
#include "compute/oat/sph_model.hpp"

namespace tomo::oat {

// Several devices: a backend registers a factory that makes an SphModel spread over the devices
// named by the --gpus text (sph_team.hpp), e.g. cuda over NCCL, cpu over host threads.
using SphMultiFactory = std::function<std::unique_ptr<SphModel>(const std::string& gpus)>;
void register_sph_multi(const std::string& backend, SphMultiFactory factory);
const SphMultiFactory* find_sph_multi(const std::string& backend);

// Rank `rank` of `ranks`: an equal slice of the voxels (forward) and of the transducers (adjoint).
SphShare sph_share(std::size_t voxels, int transducers, int rank, int ranks);

// The backend by name ("auto" resolved), on several devices when `gpus` is not empty
// (UnavailableError when the backend cannot), configured for `g`.
std::unique_ptr<SphModel> make_sph_model(const std::string& backend, const std::string& gpus, const OatGeometry& g,
                                         const SphOptions& o);

// The setup of the scene completed for the acquisition (defaults, then validated).
SphSetup resolved_sph_setup(const OatConfig& c, const OatGeometry& g);

// PLS-sph: the time data → ũ (FFT), CG on Re(HᴴH)α = Re(Hᴴũ) through SphAsModel.
std::vector<double> run_pls_sph(RunContext& ctx, const OatConfig& c, const OatGeometry& g, std::span<const double> u,
                                const std::string& backend);

// Crosscheck rows "<backend> sph": H_sph x and H_sphᵀ ũ of every available backend vs cpu.
void crosscheck_sph(CrosscheckTable& table, const OatConfig& c, const OatGeometry& g, std::span<const double> x,
                    std::span<const double> u);

}  // namespace tomo::oat
