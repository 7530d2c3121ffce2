// The cuda FBP's pinned and deferred kernels' fp32 arithmetic (cuda/oat/fbp_pinned_kernels.cu,
// fbp_deferred_kernels.cu: the (E, F) windows, symmetric pair distances, the exponent-pinned index
// and near-sample test, the double refinement or the fix-up pass's double terms added after the
// fp32 sum) emulated on the host, step for step in float with std::fma, against the cpu FBP
// (double) on the GPU tests' scenes: a check of their algebra where no GPU runs. MUFU.RSQ is
// emulated as the correctly rounded 1/√x times (1 + δ), δ a hash of x in ±1.3e-7 (about its
// documented error), or δ = 0; eps is 9e-4 (the paper-sized scene's bound: wider than these small
// scenes need, so the same pairs or more refined).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "compute/core/metrics.hpp"
#include "compute/oat/params.hpp"
#include "tests/oat/fbp_checks.hpp"
#include "tests/oat/small_geometry.hpp"

namespace tomo::oat::test {
namespace {

constexpr float kMagic = 12582912.0f;
constexpr int kV = 8;                        // voxels per thread, as the kernels run
enum class Form { pinned, deferred };        // the kernels emulated

float rsqrt_emulated(float x, double err) {
  std::uint32_t h = std::bit_cast<std::uint32_t>(x) * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return static_cast<float>(1.0 / std::sqrt(double(x)) * (1 + err * (h / 4294967296.0 * 2 - 1)));
}

struct Emulation {
  const OatGeometry& g;
  int Q, K, slot;
  double a, tau0, tau0h_d;
  float vs, tau0h;
  std::vector<float> M, D, sx, sy, sz;  // the table (fbp_device.cpp upload) and positions in samples
  std::vector<double> pos;               // relative to voxel 0, mm
  long outside = 0, refined = 0;
  std::vector<float> fixups;  // deferred: the fix-up pass's terms of the current voxel

  explicit Emulation(const FbpCase& c) : g(c.g), Q(c.g.transducer_count()), K(c.g.time.samples) {
    const double dt = g.time.dt_us();
    a = 1.0 / (g.c0_mm_per_us * dt);
    tau0 = g.time.t_min_us / dt;
    tau0h_d = tau0 + 0.5;
    tau0h = float(tau0h_d);
    vs = float(g.voxel_mm() * a);
    const auto w = fbp_weights<double>(g);
    for (int q = 0; q < Q; ++q) {
      for (int k = 0; k + 1 < K; ++k) {
        const double p0 = c.p[size_t(q) * K + k], p1 = c.p[size_t(q) * K + k + 1];
        M.push_back(float(w[q] * 0.5 * (p0 + p1)));
        D.push_back(float(w[q] * (p1 - p0)));
      }
      for (int d = 0; d < 3; ++d) pos.push_back(g.transducers[q][d] - g.grid.origin_mm[d]);
      sx.push_back(float(pos[3 * q] * a));
      sy.push_back(float(pos[3 * q + 1] * a));
      sz.push_back(float(pos[3 * q + 2] * a));
    }
    slot = 8;  // fbp_device.cpp shared_slot
    while (slot < std::ceil(vs * std::sqrt(7.0 * 7 + 7 * 7 + 15 * 15)) + 7) slot *= 2;
  }
  void entry(int q, int k, float& m, float& d) const {
    const bool in = k >= 0 && k < K - 1;
    m = in ? M[size_t(q) * (K - 1) + k] : 0.0f;
    d = in ? D[size_t(q) * (K - 1) + k] : 0.0f;
  }
  void refine(int q, int i, int j, int kz, int& k, float& gg) const {  // fbp_math.cuh fbp_refine_inline
    const double* s = &pos[3 * q];
    const double dx = i * g.voxel_mm() - s[0], dy = j * g.voxel_mm() - s[1], dz = kz * g.voxel_mm() - s[2];
    const double kt = std::sqrt(dx * dx + dy * dy + dz * dz) * a - tau0, kf = std::floor(kt);
    k = int(kf);
    gg = float(kt - kf - 0.5);
  }
  int window_start(int q, int bx, int by, int bz) const {  // fbp_window.cuh box_dist2, window_start
    const float x0 = bx * 8 * vs, y0 = by * 8 * vs, z0 = bz * 16 * vs;
    const float nx = std::fmin(std::fmax(sx[q], x0), x0 + 7 * vs) - sx[q];
    const float ny = std::fmin(std::fmax(sy[q], y0), y0 + 7 * vs) - sy[q];
    const float nz = std::fmin(std::fmax(sz[q], z0), z0 + 15 * vs) - sz[q];
    return int(std::floor(std::sqrt(nx * nx + ny * ny + nz * nz) - tau0h + 0.5f) - 2.0f);
  }

  // One voxel-transducer term (eps the kernels' bound) as (inv, E + z·F): the kernel adds
  // fma(inv, E + z·F, a).
  std::pair<float, float> pinned_term(Form f, int q, int i, int j, int kz, double rerr, float eps) {
    const int kmin = window_start(q, i / 8, j / 8, kz / 16), cz = (kz / kV) * kV, v = kz - cz;
    const int m = v >= kV / 2 ? v - kV / 2 : kV / 2 - 1 - v;  // pair m about the column's centre
    const float kq = float((2 * m + 1) * double(vs)), cq = float((m + 0.5) * double(vs) * (m + 0.5) * double(vs));
    const float zc = std::fma(float(cz), vs, float(0.5 * (kV - 1) * double(vs)));
    const float dx = i * vs - sx[q], dy = j * vs - sy[q], dzc = zc - sz[q];
    const float base = std::fma(dzc, dzc, std::fma(dx, dx, dy * dy));
    const float d2 = std::fma(v >= kV / 2 ? kq : -kq, dzc, base + cq), inv = rsqrt_emulated(d2, rerr);
    int L = 0;  // fbp_pinned_kernels.cu lean_consts
    while ((1 << L) < slot) ++L;
    float off = float(slot + 0.5 + eps);
    if (double(off) < slot + 0.5 + eps) off = std::nextafter(off, 1e30f);
    const double offset = off;
    const double t = 1.0 + (eps + (offset - slot - 0.5)) / slot;
    float thr = float(t);
    if (double(thr) < t) thr = std::nextafter(thr, 2.0f);
    const float negc = float(offset - (tau0h_d + kmin)), hc = float(0.5 * (tau0h_d + kmin) - 1.5 * offset);
    float x = std::fma(d2, inv, negc);  // the pinned z
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    int jj = int(((bits >> (20 - L)) & std::uint32_t((slot - 1) * 8)) >> 3);
    outside += (bits >> 23) != std::uint32_t(127 + L);
    const bool tie = std::bit_cast<float>((bits & ((1u << (23 - L)) - 1u)) | 0x3F800000u) < thr;
    if (tie && f == Form::deferred) {  // fbp_deferred_kernels.cu deferred_term, added by the fix-up pass
      const double* s = &pos[3 * q];
      const double dx = i * g.voxel_mm() - s[0], dy = j * g.voxel_mm() - s[1], dz = kz * g.voxel_mm() - s[2];
      const double ds = std::sqrt(dx * dx + dy * dy + dz * dz) * a, kt = ds - tau0, kf = std::floor(kt);
      float mm, dd;
      entry(q, int(kf), mm, dd);
      fixups.push_back(float((mm + (kt - kf - 0.5) * dd) / ds + 0.5 * dd));
      ++refined;
      return {0.0f, 0.0f};
    }
    if (tie) {
      int k;
      float gg;
      refine(q, i, j, kz, k, gg);
      ++refined;
      jj = k - kmin;
      x = float(double(jj) + gg + offset);
    }
    float mm, dd;
    entry(q, kmin + jj, mm, dd);
    const float jf = (std::bit_cast<float>(jj + std::bit_cast<int>(kMagic))) - kMagic;
    return {inv, std::fma(x, 1.5f * dd, std::fma(dd, hc - jf, mm))};
  }

  std::vector<double> run(Form f, double rerr, float eps) {
    const Grid3& gr = g.grid;
    std::vector<double> img(gr.count());
    for (int kz = 0; kz < gr.dims[2]; ++kz)
      for (int j = 0; j < gr.dims[1]; ++j)
        for (int i = 0; i < gr.dims[0]; ++i) {
          float a1 = 0;
          fixups.clear();
          for (int q = 0; q < Q; ++q) {
            const auto [inv, t] = pinned_term(f, q, i, j, kz, rerr, eps);
            a1 = std::fma(inv, t, a1);
          }
          for (float t : fixups) a1 += t;  // the fix-up pass's atomics, after the main kernel's store
          img[gr.index(i, j, kz)] = a1;
        }
    return img;
  }
};

void emulate(const FbpCase& c, const char* what) {
  Emulation e(c);
  const char* names[] = {"pinned", "deferred"};
  for (double rerr : {0.0, 1.3e-7})
    for (Form f : {Form::pinned, Form::deferred}) {
      e.outside = e.refined = 0;
      const double err = relative_l2(e.run(f, rerr, 9e-4f), c.ref);
      std::printf("%s: emulated %s-%d, rsqrt error %.1e: rel. L2 vs cpu %.3g (%ld pairs refined, %ld outside)\n", what,
                  names[int(f)], kV, rerr, err, e.refined, e.outside);
      EXPECT_EQ(e.outside, 0) << "every k the box asks for lies in its window";
      EXPECT_LT(err, 1e-6) << names[int(f)];
    }
}

}  // namespace

TEST(OatFbpPinnedEmulation, EqualsCpuOnTheGpuTestScenes) {
  emulate(make_fbp_case(small_geometry(16, 0.75, 8, 16, 30.0, 10.0)), "16^3 x 0.75 mm, 8x16 on 30 mm");
  emulate(make_fbp_case(close_geometry(7, 13)), "13x11x19 x 0.5 mm, 7x13 on 9.13 mm");
}

}  // namespace tomo::oat::test
