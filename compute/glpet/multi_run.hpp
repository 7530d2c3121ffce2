// glpet's `run` on several devices (--gpus or glpet.gpus): the multi-device ML-EM of
// distributed_mlem.hpp with its report (ranks, devices, balance, α, seed vs exact).
#pragma once
#include <span>
#include <string>

#include "compute/core/registry.hpp"
#include "compute/glpet/mlem.hpp"
#include "compute/glpet/config.hpp"

namespace tomo::glpet {

// The --gpus text, else the scene's glpet.gpus; empty: one device (run_mlem as usual).
std::string requested_gpus(const Scene& scene);

// The cheap checks of --gpus before any work: its text (InputError) and that the backend runs
// on several devices (UnavailableError). Whether the devices exist is checked when the ranks start.
void check_multi_device(const std::string& backend, const std::string& gpus);

// ML-EM of `counts` on the devices asked for with `backend`, in mode glpet.multi_gpu
// (exact | seed; seed is also compared with exact, both reported). UnavailableError when the
// backend cannot run on several devices or there are fewer than asked.
MlemResult reconstruct_on_devices(RunContext& ctx, const GlpetScene& g, std::span<const float> counts,
                                  const std::string& backend, const std::string& gpus, MlemOptions opt);

}  // namespace tomo::glpet
