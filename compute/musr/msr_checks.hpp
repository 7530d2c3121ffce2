// What an msr file must hold once read: every parameter, map and funX a THEORY line or RUN
// names exists, each RUN has the histograms and settings its fit type needs; InputError naming
// file:line otherwise.
#pragma once
#include <string>

#include "compute/musr/msr.hpp"

namespace tomo::musr {

void check_references(const MsrFile& m, const std::string& where);

}  // namespace tomo::musr
