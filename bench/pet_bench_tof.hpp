// bench_pet's TOF list-mode rows (--tof 1): pet::LineProjector's cuda TOF mode, and its non-TOF
// mode, beside KUL-recon-lab/libparallelproj's joseph3d_tof_lm_fwd/back and joseph3d_fwd/back
// (loaded from --tof-peer, a libparallelproj.so built by tools/peers-pack.sh) on the same lines,
// TOF bins, grid and device image, in one process on one GPU: CUDA events, median of `reps`
// after a warm-up, agreement as c (theirs ≈ c·ours, least squares) and rel L2; then one list-mode
// ML-EM iteration, the same loop around each pair (data: their forward of the test image), timed
// the same way, and the images after one iteration compared.
//   strip: strip_default.toml's simulated events as 3-D LORs, p1 = (0, R, z̃u), p2 = (0, −R, z̃d)
//          on a one-voxel-thin slab (x: one voxel of the pixel size; y, z: the strip's pixels);
//          TOF bin from the event's Δl̃: the emission point lies Δl̃/2 from the LOR's midpoint along
//          p1 → p2, σ = σ_Δl/2.
//   glpet: glpet_default.toml's 1.05 M LORs and 128³ grid (pet_bench_joseph.hpp), non-TOF, and with synthetic TOF
//          bins: a point uniform within ±30 mm of each LOR's midpoint, blurred by σ = 12.7 mm
//          (200 ps coincidence resolution).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tomo::bench::pet_tof {

nlohmann::json run(int reps, const std::string& peer_library, std::uint64_t strip_events);

}  // namespace tomo::bench::pet_tof
