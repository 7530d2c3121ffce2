// glpet's Monte-Carlo on CUDA (monte_carlo.cu), behind the registered "cuda" McGenerator
// (cuda_mc_generator.cpp): one thread per history, the physics of compute/glpet/mc_history.hpp.
#pragma once
#include <string>

#include "compute/glpet/monte_carlo.hpp"

namespace tomo::glpet::cuda_impl {

// The chunks `share` names, dealt to the devices of `gpus` (the --gpus text; empty: the current
// device) in turn, one host thread each; UnavailableError without a CUDA device.
McTally tally_on_devices(const McTables& t, const McOptions& options, const std::string& gpus,
                         const ProcessShare& share);

}  // namespace tomo::glpet::cuda_impl
