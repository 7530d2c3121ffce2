// A small dense PET system for the algorithm tests: A (LORs × voxels, positive), counts y, LOR
// subsets i mod S, and SubsetPrimitives over it in double on the host.
#pragma once
#include <random>
#include <vector>

#include "compute/pet/reconstruct.hpp"

namespace tomo::pet::test {

class ToySystem final : public SubsetPrimitives {
 public:
  ToySystem(int nx, int ny, int lors, int subsets, unsigned seed = 3) : n_(std::size_t(nx) * ny), m_(lors), S_(subsets) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    a_.assign(m_ * n_, 0.0);
    for (auto& v : a_) v = u(rng) < 0.3 ? u(rng) : 0.0;
    truth_.assign(n_, 1.0);
    for (std::size_t j = 0; j < n_; ++j) truth_[j] = j % 5 == 0 ? 4.0 : 1.0;
    y_.assign(m_, 0.0);
    for (std::size_t i = 0; i < m_; ++i) {
      double mean = 0;
      for (std::size_t j = 0; j < n_; ++j) mean += a_[i * n_ + j] * truth_[j];
      y_[i] = double(std::poisson_distribution<int>(20.0 * mean)(rng)) / 20.0;
    }
    x_.assign(n_, 1.0);
  }
  int subset_count() const override { return S_; }
  std::size_t voxel_count() const override { return n_; }
  void set_image(std::span<const double> x) override { x_.assign(x.begin(), x.end()); }
  std::vector<double> image() override { return x_; }
  std::vector<double> sensitivity(int k) override {
    std::vector<double> s(n_, 0.0);
    for (std::size_t i = k; i < m_; i += S_)
      for (std::size_t j = 0; j < n_; ++j) s[j] += a_[i * n_ + j];
    return s;
  }
  std::vector<double> back_ratio(int k) override {
    std::vector<double> b(n_, 0.0);
    for (std::size_t i = k; i < m_; i += S_) {
      double ybar = 0;
      for (std::size_t j = 0; j < n_; ++j) ybar += a_[i * n_ + j] * x_[j];
      if (ybar <= 0) continue;
      for (std::size_t j = 0; j < n_; ++j) b[j] += a_[i * n_ + j] * y_[i] / ybar;
    }
    return b;
  }
  void em_step(int k) override {
    const auto b = back_ratio(k), s = sensitivity(k);
    for (std::size_t j = 0; j < n_; ++j) x_[j] = s[j] > 0 ? x_[j] * b[j] / s[j] : 0.0;
  }
  // The Poisson log-likelihood Σ y log ȳ − ȳ of all LORs.
  double log_likelihood(std::span<const double> x) const {
    double L = 0;
    for (std::size_t i = 0; i < m_; ++i) {
      double ybar = 0;
      for (std::size_t j = 0; j < n_; ++j) ybar += a_[i * n_ + j] * x[j];
      L += (y_[i] > 0 ? y_[i] * std::log(ybar) : 0.0) - ybar;
    }
    return L;
  }
  const std::vector<double>& truth() const { return truth_; }

 private:
  std::size_t n_, m_;
  int S_;
  std::vector<double> a_, y_, truth_, x_;
};

}  // namespace tomo::pet::test
