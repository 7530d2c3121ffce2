// Results of a fit as musrfit shows and saves them: the printed table, the fitted
// FITPARAMETER values/errors for the msr written back, the STATISTIC line and report.json.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/musr/fit_setup.hpp"
#include "compute/musr/minimizer.hpp"
#include "compute/musr/msr.hpp"

namespace tomo::musr {

// χ² (or maxLH) at the minimum and NDF = fitted bins − free parameters.
MsrStatistic statistic_of(const FitResult& r, const FitSetup& setup, const std::string& date);
// FITPARAMETER entries after the fit: step = error (−|MINOS negative error| when MINOS ran),
// pos_error = MINOS positive error; fixed parameters keep step 0.
std::vector<MsrParameter> fitted_parameters(const MsrFile& msr, const FitResult& r);
std::string format_printout(const MsrFile& msr, const FitResult& r, const MsrStatistic& stat,
                            const std::string& backend, double seconds);
nlohmann::json fit_json(const FitResult& r, const MsrStatistic& stat, const FitSetup& setup);

}  // namespace tomo::musr
