// bench_glpet's rows and report: the seed's figures, the ceilings a row is set beside, a row
// (a pass or a whole call of one backend at one size) with its bound, and the printed table
// and JSON (bench/glpet_bench.cpp measures; docs/glpet.md §6 explains the mapping).
#pragma once
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness.hpp"
#include "bench/gl/gl_pass_timings.hpp"

namespace tomo::bench::glpet_report {

// [Toth2010]'s single 8800 GTX (§VI), ms per voxel: 0.06 correspondence + 0.07 atlas
// = 0.13 forward; 128³: 4.5 min forward (270 s) and 90 s back-projection.
constexpr double kVox128 = 128.0 * 128.0 * 128.0;
inline const std::map<std::string, double> kSeedMsPerVoxel = {
    {"correspondence", 0.06}, {"correspondence_hw", 0.06}, {"atlas", 0.07}, {"forward", 0.13},
    {"back_ratio", 90e3 / kVox128}, {"iteration", 360e3 / kVox128}};

// ---- ceilings -------------------------------------------------------------------------

// Rates in base units per second, measured once (`fixed`) and per timed grid (`march`).
struct FixedCeilings {
  bool ok = false;
  double frag_copy = 0;       // fragments/s, RGBA32F texelFetch → RGBA32F
  double point_blend = 0;     // points/s into R32F
  double atomic_float = 0;    // float atomicAdd/s
  double copy = 0;            // bytes/s read + written (compute copy)
  double mipmap = 0;          // bytes/s read over all levels (glGenerateTextureMipmap)
  double compute_fma = 0;     // FLOP/s (reference only)
  double fragment_fma = 0;    // FLOP/s (reference only)
};

struct MarchCeilings {
  glpet::LineWork lines;
  int samples = 1;                   // fetched σ_t samples per hit line (rounded)
  double frag_texel = 0;             // hit lines/s: fragment, 8 texelFetch per sample (gl contract)
  double frag_filtered = 0;          // hit lines/s: fragment, 1 filtered fetch per sample (seed)
  double compute_loads = 0;          // hit lines/s: compute, 8 SSBO loads per sample
};

struct Row {
  Row() = default;
  Row(std::string be, std::string p, int size, double ms, double work, std::string u, std::string bound = "")
      : backend(std::move(be)), pass(std::move(p)), n(size), ms_per_voxel(ms), work_per_voxel(work), unit(std::move(u)),
        bound_by(std::move(bound)) {}
  std::string backend, pass;
  int n = 0;
  double ms_per_voxel = 0;
  double work_per_voxel = 0;  // in `unit`
  std::string unit;
  std::string bound_by;       // "" : no ceiling
  double ceil_ms_per_voxel = 0;  // the ceiling's lower bound on the time
  double setup_s = -1;           // iteration rows: the one-off sensitivity (+ cuda cache)
  std::string note;
};

inline double rate(const Row& r) { return r.ms_per_voxel > 0 ? r.work_per_voxel / (r.ms_per_voxel * 1e-3) : 0.0; }
inline double ceil_rate(const Row& r) {
  return r.ceil_ms_per_voxel > 0 ? r.work_per_voxel / (r.ceil_ms_per_voxel * 1e-3) : 0.0;
}
inline double percent(const Row& r) { return r.ms_per_voxel > 0 ? 100.0 * r.ceil_ms_per_voxel / r.ms_per_voxel : 0.0; }

// A lower bound on the time (ms per voxel) of `amount` per voxel at `per_s`.
inline double bound_ms(double amount, double per_s) { return per_s > 0 ? amount / per_s * 1e3 : 0.0; }

// Composite rows (whole calls, iteration): the passes run one after another, so their
// ceilings' times add up.
inline Row composite(const std::string& backend, const std::string& pass, int n, const std::vector<const Row*>& parts,
              double ms_per_voxel, double work, const std::string& unit) {
  Row r{backend, pass, n, ms_per_voxel, work, unit, "sum of pass bounds"};
  for (const Row* p : parts) {
    if (!p || p->bound_by.empty()) {
      r.bound_by.clear();
      r.ceil_ms_per_voxel = 0;
      return r;
    }
    r.ceil_ms_per_voxel += p->ceil_ms_per_voxel;
  }
  return r;
}

// What a row says beyond its columns: its own note, and "above the ceiling" when the named
// bound is not the binding one (or a timer is off).
inline std::string row_note(const Row& r) {
  std::string note = r.note;
  if (!r.bound_by.empty() && percent(r) > 100.0) note += std::string(note.empty() ? "" : "; ") + "above the ceiling";
  return note;
}

inline double seconds_at_size(const Row& r) { return r.ms_per_voxel * double(r.n) * r.n * r.n * 1e-3; }

// The table on stdout: header, the ceilings measured in this run (fixed may be null: no GL),
// one line per row.
inline void print_report(const std::string& device, int slab, const FixedCeilings* fixed,
                         const std::map<std::string, MarchCeilings>& march, const std::vector<Row>& rows) {
  std::printf("\nbench_glpet on %s\n", device.c_str());
  std::printf("default geometry: 32x32 modules, 2 mm pitch, 160 mm apart, R=4, N=1, K=32, water cylinder; "
              "x = 1, y = 1 everywhere.\n");
  std::printf("GL backends on grids above 64^3: the voxels of the central %d z-slices timed (their lines cross "
              "the whole volume) and scaled per voxel.\n", slab);
  std::printf("seed 8800 GTX: 0.06 ms/voxel correspondence + 0.07 atlas = 0.13 forward; 128^3: 270 s forward, "
              "90 s back-projection.\n");
  if (fixed) {
    const FixedCeilings& c = *fixed;
    std::printf("\nceilings (this GPU, this run):\n");
    std::printf("  frag RGBA32F copy       %10.4g fragments/s  (texelFetch + write, full-screen pass)\n", c.frag_copy);
    std::printf("  point blend             %10.4g points/s     (GL_ONE,GL_ONE into R32F)\n", c.point_blend);
    std::printf("  float atomicAdd         %10.4g ops/s        (compute, 2^20 counters)\n", c.atomic_float);
    std::printf("  copy bandwidth          %10.4g bytes/s      (compute copy, read+write)\n", c.copy);
    std::printf("  mipmap bandwidth        %10.4g bytes/s      (glGenerateTextureMipmap RGBA32F, all levels read)\n",
                c.mipmap);
    std::printf("  compute / fragment FMA  %10.4g / %.4g FLOP/s (reference)\n", c.compute_fma, c.fragment_fma);
    for (const auto& [grid, m] : march)
      std::printf("  march %-12s %5.3f of lines hit, %.2f samples/hit line (%d marched): frag 8 texelFetch %.4g, "
                  "frag filtered %.4g, compute 8 loads %.4g hit lines/s\n",
                  grid.c_str(), m.lines.hit_fraction, m.lines.samples_per_hit, m.samples, m.frag_texel,
                  m.frag_filtered, m.compute_loads);
    std::printf("  (rates below are per unit of the row; a bound in hit lines is converted with the hit fraction)\n");
  }
  std::printf("\n%-10s %6s %-17s %11s %10s %-9s %10s %-22s %10s %6s %8s %8s %s\n", "backend", "size", "pass",
              "ms/voxel", "s @size", "unit", "rate/s", "bound by", "ceiling/s", "%", "seed ms", "setup s", "note");
  for (const Row& r : rows) {
    const double full_s = seconds_at_size(r);
    const auto seed = kSeedMsPerVoxel.find(r.pass);
    char seed_s[32] = "-", setup[32] = "-", pct[32] = "-", ceil_s[32] = "-";
    if (seed != kSeedMsPerVoxel.end() && r.backend != "cpu") std::snprintf(seed_s, sizeof seed_s, "%.4f", seed->second);
    if (r.setup_s >= 0) std::snprintf(setup, sizeof setup, "%.3g", r.setup_s);
    const std::string note = row_note(r);
    if (!r.bound_by.empty()) {
      std::snprintf(pct, sizeof pct, "%.1f", percent(r));
      std::snprintf(ceil_s, sizeof ceil_s, "%.4g", ceil_rate(r));
    }
    std::printf("%-10s %5d^3 %-17s %11.4g %10.4g %-9s %10.4g %-22s %10s %6s %8s %8s %s\n", r.backend.c_str(), r.n,
                r.pass.c_str(), r.ms_per_voxel, full_s, r.unit.c_str(), rate(r),
                r.bound_by.empty() ? "-" : r.bound_by.c_str(), ceil_s, pct, seed_s, setup, note.c_str());
  }
}

// Every row with its ceiling, the ceilings and the seed's figures, written atomically.
inline void write_json(const std::string& json_path, const std::string& device, int slab,
                       const nlohmann::json& ceilings, const std::vector<Row>& rows) {
  nlohmann::json jr = nlohmann::json::array();
  for (const Row& r : rows) {
    const auto seed = kSeedMsPerVoxel.find(r.pass);
    const double full_s = seconds_at_size(r);
    const std::string note = row_note(r);
    nlohmann::json j = {{"pass", r.pass},
                        {"backend", r.backend},
                        {"size", r.n},
                        {"ms_per_voxel", r.ms_per_voxel},
                        {"seconds_at_size", full_s},
                        {"unit", r.unit},
                        {"work_per_voxel", r.work_per_voxel},
                        {"rate", rate(r)},
                        {"ceiling", r.bound_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.bound_by)},
                        {"ceiling_rate", r.bound_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(ceil_rate(r))},
                        {"percent_of_ceiling", r.bound_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(percent(r))},
                        {"seed_ms_per_voxel", seed != kSeedMsPerVoxel.end() ? nlohmann::json(seed->second)
                                                                            : nlohmann::json(nullptr)},
                        {"note", note}};
    if (r.setup_s >= 0) j["setup_s"] = r.setup_s;
    jr.push_back(j);
  }
  {
    nlohmann::json j = {{"device", device},
                        {"slab_slices", slab},
                        {"seed_8800gtx", {{"correspondence_ms_per_voxel", 0.06}, {"atlas_ms_per_voxel", 0.07},
                                          {"forward_ms_per_voxel", 0.13}, {"forward_s_128", 270.0},
                                          {"back_s_128", 90.0}}},
                        {"ceilings", ceilings},
                        {"rows", jr}};
    write_report(json_path, j);
  }
}

}  // namespace tomo::bench::glpet_report
