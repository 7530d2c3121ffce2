// H_sph seen as a real operator on interleaved complex data (for the PLS of pls.hpp).
#include "compute/oat/sph_model.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::oat {

// std::complex<double> is laid out as double[2] (C++ [complex.numbers]), so a span of them is
// a span of twice as many doubles, (re, im) interleaved.
std::span<const double> as_real(std::span<const std::complex<double>> c) {
  return {reinterpret_cast<const double*>(c.data()), 2 * c.size()};
}
std::span<double> as_real(std::span<std::complex<double>> c) { return {reinterpret_cast<double*>(c.data()), 2 * c.size()}; }

void SphAsModel::forward(std::span<const double> alpha, std::span<double> data) {
  if (data.size() % 2) throw Error(str_cat("oat H_sph: ", data.size(), " interleaved values is not a complex vector"));
  sph_.forward(alpha, {reinterpret_cast<std::complex<double>*>(data.data()), data.size() / 2});
}

void SphAsModel::adjoint(std::span<const double> data, std::span<double> alpha) {
  if (data.size() % 2) throw Error(str_cat("oat H_sph: ", data.size(), " interleaved values is not a complex vector"));
  sph_.adjoint({reinterpret_cast<const std::complex<double>*>(data.data()), data.size() / 2}, alpha);
}

}  // namespace tomo::oat
