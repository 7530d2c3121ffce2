// The entries of the msr file's GLOBAL and RUN blocks (musrfit's keys; notes: musrfit-facts.md,
// "msr file"): each parser reads one tokenized line into the file's model.
#pragma once
#include <string>
#include <vector>

#include "compute/musr/msr.hpp"
#include "compute/musr/msr_line.hpp"

namespace tomo::musr::msr_line {

// Keys shared by GLOBAL and RUN (fittype, data, t0, packing, fit); true when handled.
bool parse_setting(const LineContext& c, const std::vector<std::string>& t, RunSettings& s);
// GLOBAL's rrf_freq, rrf_packing, rrf_phase; true when handled.
bool parse_rrf_setting(const LineContext& c, const std::vector<std::string>& t, MsrRrf& rrf);
// One RUN entry line after the RUN line itself; an unknown key is refused naming it.
void parse_run_line(const LineContext& c, const std::vector<std::string>& t, MsrRun& r);

}  // namespace tomo::musr::msr_line
