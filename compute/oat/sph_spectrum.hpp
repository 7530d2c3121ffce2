// The pieces of H_sph every backend shares (docs/oat.md "H_sph"): the voxel-sphere spectrum
// p̃₀(f) = ĵ·(3ΓΔs²/c₀)·j₁(πfΔs/c₀)·h̃_e(f), the transducers' face points, the voxel centres,
// and the frequency-domain data ũ[q,l] = Δt·e^{−ĵ2πf_l t_min}·FFT(u_q)[bin l] (FFTW).
#pragma once
#include <complex>
#include <span>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/sph_model.hpp"

namespace tomo::oat {

// j₁(x) = (sin x − x cos x)/x², by its series below x = 1e-2 (the closed form cancels there).
double spherical_j1(double x);
// h̃_e(f) = Σ_j h_j e^{−ĵ2πf jΔt} of the EIR taps (which carry Δt); 1 without an EIR.
std::complex<double> eir_spectrum(const OatGeometry& g, double f_mhz);
// p̃₀(f_l), l < L: one voxel sphere (radius Δs/2, value 6α/π so that its energy is αΔs³) seen by
// a point transducer is p̃₀(f)·e^{−ĵ2πfd/c₀}/(2πd). Its f → 0 limit ĵπΓΔs³f/c₀²·h̃_e is a point
// source of energy αΔs³ (the paper leaves the normalisation open; ours is pinned here).
std::vector<std::complex<double>> voxel_spectrum(const OatGeometry& g, const SphSetup& s);
// The weights the backends multiply their phase sums by: c_l = p̃₀(f_l)/(2π·n²), so that
// ũ[q,l] = c_l·Σ_points Σₙ αₙ e^{−ĵ2πf_l d/c₀}/d (n² face points per transducer).
std::vector<std::complex<double>> sph_weights(const OatGeometry& g, const SphSetup& s);
// Face points of every transducer, q-major (Q·n² of them): the centres of the n × n
// sub-rectangles of a width × height face about the transducer, normal to the direction to the
// measurement sphere's centre, width along û = ẑ × ê (x̂ when ê ∥ ẑ), height along v̂ = ê × û.
std::vector<Vec3d> face_points(const OatGeometry& g, const SphSetup& s);
// Voxel centres (x fastest).
std::vector<Vec3d> voxel_centres(const Grid3& grid);
// The frequency-domain data of time data u[q·K + k] (FFTW r2c of each trace zero-padded to N).
std::vector<std::complex<double>> frequency_data(const OatGeometry& g, const SphSetup& s, std::span<const double> u);

}  // namespace tomo::oat
