// bench_pet's TOF list-mode rows against libparallelproj (pet_bench_tof.hpp). libparallelproj's C
// API takes host or device pointers; every array here is on the device (its lines and image in
// (z, y, x) order: the same memory as ours, whose x is fastest), so neither side copies.
#include "bench/pet_bench_tof.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/harness.hpp"
#include "bench/pet_bench_joseph.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/scene.hpp"
#include "compute/pet/line_projector.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/simulator.hpp"

#if defined(TOMO_HAVE_CUDA)
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "bench/cuda/pet/em_ratio.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/glpet/kernels.hpp"
#endif

namespace tomo::bench::pet_tof {

namespace {

// A list of lines with TOF bins on a grid, and the TOF parameters of parallelproj's call.
struct Case {
  std::string name, size;
  pet::LineGrid grid;
  std::vector<double> ends;
  std::vector<int> bins;
  int num_bins = 1;
  double width = 1, sigma = 1;
  std::vector<double> image;
};

// The TOF bin of a point s mm from the midpoint along p1 → p2, clamped to the bins.
int bin_of(double s, double width, int num_bins) {
  const long b = std::lround(s / width + 0.5 * (num_bins - 1));
  return int(std::clamp(b, 0L, long(num_bins - 1)));
}

Case strip_case(std::uint64_t events) {
  const strip::StripConfig c =
      strip::StripConfig::from_scene(Scene::load_string(embedded_scene("strip_default.toml"), "strip_default.toml"));
  const strip::StripGeometry& g = c.geometry;
  const std::vector<strip::Event> ev = strip::simulate_phantom(g, c.resolution, c.phantom, events, c.seed);
  Case k;
  k.name = "strip";
  k.grid.dims = {1, g.n_y, g.n_z};
  k.grid.voxel_mm = {g.pixel_y, g.pixel_y, g.pixel_z};
  k.grid.origin_mm = {0.0, -0.5 * (g.n_y - 1) * g.pixel_y, -0.5 * (g.n_z - 1) * g.pixel_z};
  k.sigma = 0.5 * c.resolution.sigma_dl;
  k.width = 0.5 * k.sigma;
  const double longest = std::sqrt(4 * g.R * g.R + g.L * g.L);
  k.num_bins = 2 * int(std::ceil(0.5 * longest / k.width)) + 1;
  k.ends.reserve(6 * ev.size());
  for (const strip::Event& e : ev) {
    const double p[6] = {0.0, g.R, e.z_u, 0.0, -g.R, e.z_d};
    k.ends.insert(k.ends.end(), p, p + 6);
    k.bins.push_back(bin_of(0.5 * e.dl, k.width, k.num_bins));
  }
  // An ellipse at 1 with two hot discs at 4 (the slab's one x-voxel).
  k.image.assign(k.grid.count(), 0.0);
  for (int z = 0; z < g.n_z; ++z)
    for (int y = 0; y < g.n_y; ++y) {
      const double py = k.grid.origin_mm[1] + y * g.pixel_y, pz = k.grid.origin_mm[2] + z * g.pixel_z;
      double v = (py * py) / (90.0 * 90.0) + (pz * pz) / (120.0 * 120.0) <= 1 ? 1.0 : 0.0;
      if ((py - 30) * (py - 30) + (pz + 40) * (pz + 40) <= 400) v += 3;
      if ((py + 20) * (py + 20) + (pz - 50) * (pz - 50) <= 225) v += 3;
      k.image[std::size_t(z) * g.n_y + y] = v;
    }
  k.size = std::to_string(ev.size()) + " events, 1x" + std::to_string(g.n_y) + "x" + std::to_string(g.n_z) + " of " +
           std::to_string(int(g.pixel_y)) + " mm";
  return k;
}

Case glpet_case() {
  Case k;
  k.name = "glpet";
  k.grid = pet_joseph::default_grid();
  k.ends = pet_joseph::default_lines();
  k.image = pet_joseph::test_image(k.grid);
  k.sigma = 12.7;  // 200 ps FWHM: c·Δt/2 = 30 mm FWHM along the line
  k.width = 0.5 * k.sigma;
  k.num_bins = 2 * int(std::ceil(0.5 * 190.0 / k.width)) + 1;  // the LORs are at most 182 mm long
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> where(-30.0, 30.0);
  std::normal_distribution<double> blur(0.0, k.sigma);
  const std::size_t n = k.ends.size() / 6;
  k.bins.resize(n);
  for (std::size_t i = 0; i < n; ++i) k.bins[i] = bin_of(where(rng) + blur(rng), k.width, k.num_bins);
  k.size = std::to_string(n) + " LORs, 128^3 of 0.5 mm";
  return k;
}

// theirs ≈ c·ours by least squares, and ‖theirs/c − ours‖ / ‖ours‖.
std::pair<double, double> agreement(const std::vector<float>& theirs, const std::vector<float>& ours) {
  double to = 0, oo = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) to += double(theirs[i]) * ours[i], oo += double(ours[i]) * ours[i];
  const double c = oo > 0 ? to / oo : 0;
  double num = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const double d = (c != 0 ? theirs[i] / c : 0.0) - ours[i];
    num += d * d;
  }
  return {c, oo > 0 ? std::sqrt(num / oo) : 0.0};
}

#if defined(TOMO_HAVE_CUDA)
// libparallelproj's C API (include/parallelproj.h), loaded at run time.
struct Peer {
  using Fwd = void (*)(const float*, const float*, const float*, const float*, const float*, float*, std::size_t,
                       const int*, int, int);
  using Back = void (*)(const float*, const float*, float*, const float*, const float*, const float*, std::size_t,
                        const int*, int, int);
  using TofFwd = void (*)(const float*, const float*, const float*, const float*, const float*, float*, std::size_t,
                          const int*, float, const float*, const float*, float, const short*, short, unsigned char,
                          unsigned char, int, int);
  using TofBack = void (*)(const float*, const float*, float*, const float*, const float*, const float*, std::size_t,
                           const int*, float, const float*, const float*, float, const short*, short, unsigned char,
                           unsigned char, int, int);
  Fwd fwd = nullptr;
  Back back = nullptr;
  TofFwd tof_fwd = nullptr;
  TofBack tof_back = nullptr;
  std::string version, why;

  explicit Peer(const std::string& path) {
    if (path.empty()) {
      why = "no --tof-peer library";
      return;
    }
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      why = std::string("dlopen failed: ") + dlerror();
      return;
    }
    fwd = reinterpret_cast<Fwd>(dlsym(h, "joseph3d_fwd"));
    back = reinterpret_cast<Back>(dlsym(h, "joseph3d_back"));
    tof_fwd = reinterpret_cast<TofFwd>(dlsym(h, "joseph3d_tof_lm_fwd"));
    tof_back = reinterpret_cast<TofBack>(dlsym(h, "joseph3d_tof_lm_back"));
    auto ver = reinterpret_cast<const char* (*)()>(dlsym(h, "parallelproj_version"));
    version = ver ? ver() : "?";
    if (!fwd || !back || !tof_fwd || !tof_back) why = "the library lacks a joseph3d symbol";
  }
  bool ok() const { return why.empty(); }
};

std::vector<float> down(const cuda::DeviceBuffer<float>& b) {
  std::vector<float> h(b.size());
  b.download(h.data(), h.size());
  return h;
}

nlohmann::json run_case(const Case& k, const Peer& peer, int reps, bool tof) {
  const std::size_t n = k.ends.size() / 6;
  const pet::LineGrid& g = k.grid;
  const std::vector<double> sigma = {k.sigma}, offset = {0.0};
  const pet::LineTof lt{k.bins, k.num_bins, k.width, sigma, offset, 3.0};
  auto ours = pet::make_line_projector("cuda", g, k.ends, tof ? &lt : nullptr);
  // Device arrays: the image (ours and theirs alike), values, and theirs' lines in (z, y, x).
  const std::vector<float> xf(k.image.begin(), k.image.end()), ones(n, 1.0f);
  cuda::DeviceBuffer<float> dx{std::span<const float>(xf)}, y_ours(n), y_theirs(n), d_ones{std::span<const float>(ones)},
      b_ours(g.count()), b_theirs(g.count());
  std::vector<float> p1(3 * n), p2(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      p1[3 * i + a] = float(k.ends[6 * i + 2 - a]);
      p2[3 * i + a] = float(k.ends[6 * i + 5 - a]);
    }
  const float origin[3] = {float(g.origin_mm[2]), float(g.origin_mm[1]), float(g.origin_mm[0])};
  const float voxel[3] = {float(g.voxel_mm[2]), float(g.voxel_mm[1]), float(g.voxel_mm[0])};
  const int dims[3] = {g.dims[2], g.dims[1], g.dims[0]};
  std::vector<short> bins(k.bins.begin(), k.bins.end());
  const float sig = float(k.sigma), off = 0.0f;
  cuda::DeviceBuffer<float> d_p1{std::span<const float>(p1)}, d_p2{std::span<const float>(p2)},
      d_origin{std::span<const float>(origin, 3)}, d_voxel{std::span<const float>(voxel, 3)},
      d_sigma{std::span<const float>(&sig, 1)}, d_offset{std::span<const float>(&off, 1)};
  cuda::DeviceBuffer<int> d_dims{std::span<const int>(dims, 3)};
  cuda::DeviceBuffer<short> d_bins{std::span<const short>(bins)};

  const double ours_fwd = median_of(pet_joseph::time_device(reps, [&] { ours->forward_device(dx.data(), y_ours.data()); }));
  const double ours_back = median_of(pet_joseph::time_device(reps, [&] { ours->back_device(d_ones.data(), b_ours.data()); }));
  nlohmann::json j = {{"case", k.name}, {"tof", tof}, {"size", k.size}, {"lines", n}, {"ours", ours->describe()},
                      {"ours_forward_ms", ours_fwd}, {"ours_back_ms", ours_back}};
  if (tof)
    j.update({{"tof_bins", k.num_bins}, {"tof_bin_width_mm", k.width}, {"tof_sigma_mm", k.sigma}, {"num_sigmas", 3.0}});
  std::printf("  %s %s (%s): ours forward %.3f ms, back %.3f ms\n", k.name.c_str(), tof ? "TOF" : "non-TOF", k.size.c_str(),
              ours_fwd, ours_back);
  if (!peer.ok()) {
    j["peer"] = peer.why;
    return j;
  }
  // Theirs accumulates into the image: zeroing it is part of each back call.
  auto their_fwd = [&] {
    if (tof)
      peer.tof_fwd(d_p1.data(), d_p2.data(), dx.data(), d_origin.data(), d_voxel.data(), y_theirs.data(), n,
                   d_dims.data(), float(k.width), d_sigma.data(), d_offset.data(), 3.0f, d_bins.data(),
                   short(k.num_bins), 0, 0, 0, 64);
    else
      peer.fwd(d_p1.data(), d_p2.data(), dx.data(), d_origin.data(), d_voxel.data(), y_theirs.data(), n, d_dims.data(),
               0, 64);
  };
  auto their_back = [&] {
    cudaMemset(b_theirs.data(), 0, g.count() * sizeof(float));
    if (tof)
      peer.tof_back(d_p1.data(), d_p2.data(), b_theirs.data(), d_origin.data(), d_voxel.data(), d_ones.data(), n,
                    d_dims.data(), float(k.width), d_sigma.data(), d_offset.data(), 3.0f, d_bins.data(),
                    short(k.num_bins), 0, 0, 0, 64);
    else
      peer.back(d_p1.data(), d_p2.data(), b_theirs.data(), d_origin.data(), d_voxel.data(), d_ones.data(), n,
                d_dims.data(), 0, 64);
  };
  double peer_fwd = 0, peer_back = 0;
  try {
    peer_fwd = median_of(pet_joseph::time_device(reps, their_fwd));
    peer_back = median_of(pet_joseph::time_device(reps, their_back));
  } catch (const std::exception& e) {
    j["peer"] = std::string("libparallelproj failed: ") + e.what();
    std::printf("    libparallelproj failed: %s\n", e.what());
    return j;
  }
  const auto [cf, rf] = agreement(down(y_theirs), down(y_ours));
  const auto [cb, rb] = agreement(down(b_theirs), down(b_ours));
  j.update({{"peer", "libparallelproj " + peer.version}, {"peer_forward_ms", peer_fwd}, {"peer_back_ms", peer_back},
            {"forward_ratio", peer_fwd / ours_fwd}, {"back_ratio", peer_back / ours_back},
            {"forward_c", cf}, {"forward_rel_l2", rf}, {"back_c", cb}, {"back_rel_l2", rb}});
  std::printf("    libparallelproj %s: forward %.3f ms (%.2fx ours; c = %.4f, rel L2 %.1e), back %.3f ms (%.2fx; back of"
              " ones: c = %.4f, rel L2 %.1e)\n",
              peer.version.c_str(), peer_fwd, peer_fwd / ours_fwd, cf, rf, peer_back, peer_back / ours_back, cb, rb);

  // One list-mode ML-EM iteration, the same loop around each pair: the data their forward of the
  // test image, each side's own sensitivity (its back of ones, above) outside the timing.
  cuda::DeviceBuffer<float> data(n), q(n), r(n), b(g.count()), x_ours(g.count()), x_theirs(g.count());
  cudaMemcpy(data.data(), y_theirs.data(), n * sizeof(float), cudaMemcpyDeviceToDevice);
  const std::vector<float> start(g.count(), 1.0f);
  x_ours.upload(std::span<const float>(start));
  x_theirs.upload(std::span<const float>(start));
  auto em_ours = [&] {
    ours->forward_device(x_ours.data(), q.data());
    pet::probes::launch_em_ratio(data.data(), q.data(), r.data(), n, nullptr);
    ours->back_device(r.data(), b.data());
    glpet::cuda_impl::launch_mlem_update(x_ours.data(), b.data(), b_ours.data(), g.count(), nullptr);
  };
  auto em_theirs = [&] {
    const float* img = x_theirs.data();
    if (tof)
      peer.tof_fwd(d_p1.data(), d_p2.data(), img, d_origin.data(), d_voxel.data(), q.data(), n, d_dims.data(),
                   float(k.width), d_sigma.data(), d_offset.data(), 3.0f, d_bins.data(), short(k.num_bins), 0, 0, 0, 64);
    else
      peer.fwd(d_p1.data(), d_p2.data(), img, d_origin.data(), d_voxel.data(), q.data(), n, d_dims.data(), 0, 64);
    pet::probes::launch_em_ratio(data.data(), q.data(), r.data(), n, nullptr);
    cudaMemset(b.data(), 0, g.count() * sizeof(float));
    if (tof)
      peer.tof_back(d_p1.data(), d_p2.data(), b.data(), d_origin.data(), d_voxel.data(), r.data(), n, d_dims.data(),
                    float(k.width), d_sigma.data(), d_offset.data(), 3.0f, d_bins.data(), short(k.num_bins), 0, 0, 0, 64);
    else
      peer.back(d_p1.data(), d_p2.data(), b.data(), d_origin.data(), d_voxel.data(), r.data(), n, d_dims.data(), 0, 64);
    glpet::cuda_impl::launch_mlem_update(x_theirs.data(), b.data(), b_theirs.data(), g.count(), nullptr);
  };
  em_ours();
  em_theirs();
  cudaDeviceSynchronize();
  const auto [ce, re] = agreement(down(x_theirs), down(x_ours));
  const double ours_em = median_of(pet_joseph::time_device(reps, em_ours));
  const double peer_em = median_of(pet_joseph::time_device(reps, em_theirs));
  j.update({{"ours_em_ms", ours_em}, {"peer_em_ms", peer_em}, {"em_ratio", peer_em / ours_em}, {"em_image_c", ce},
            {"em_image_rel_l2", re}});
  std::printf("    one ML-EM iteration (the same loop): libparallelproj %.3f ms, ours %.3f ms (%.2fx); image after one"
              " iteration: c = %.4f, rel L2 %.1e\n",
              peer_em, ours_em, peer_em / ours_em, ce, re);
  return j;
}
#endif

}  // namespace

nlohmann::json run(int reps, const std::string& peer_library, std::uint64_t strip_events) {
  nlohmann::json rows = nlohmann::json::array();
#if defined(TOMO_HAVE_CUDA)
  if (!BackendRegistry<pet::LineProjector>::instance().available("cuda").ok) {
    std::printf("  TOF rows: no CUDA device\n");
    return rows;
  }
  const Peer peer(peer_library);
  std::printf("\n  TOF list mode, ours (pet::LineProjector cuda) and libparallelproj%s\n",
              peer.ok() ? (" " + peer.version).c_str() : (" (not run: " + peer.why + ")").c_str());
  const Case strip = strip_case(strip_events);
  rows.push_back(run_case(strip, peer, reps, false));
  rows.push_back(run_case(strip, peer, reps, true));
  const Case glpet = glpet_case();
  rows.push_back(run_case(glpet, peer, reps, false));
  rows.push_back(run_case(glpet, peer, reps, true));
#else
  (void)reps, (void)peer_library, (void)strip_events;
#endif
  return rows;
}

}  // namespace tomo::bench::pet_tof
