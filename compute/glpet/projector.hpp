// The glpet operator interface ([Toth2010] eqs. (2)–(3)): forward projection x → ỹ into
// the LOR atlases and gathering back-projections, on buffers that live on the backend
// (host memory for cpu, GL textures/buffers or CUDA memory for the GPU backends), so
// x, the atlases and the sensitivity stay on the device between ML-EM iterations.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/core/enum_name.hpp"
#include "compute/glpet/geometry.hpp"

namespace tomo::glpet {

// A backend feature that is used when it can be ("auto"), required ("on") or never used ("off").
enum class Use { automatic, on, off };
inline constexpr std::array<EnumName<Use>, 3> kUseNames{{{"auto", Use::automatic}, {"on", Use::on}, {"off", Use::off}}};

// Backend options, apart from the physics of SystemModel: backends ignore those they lack.
struct ProjectorOptions {
  // cuda: keep the system matrix A on the device after its first use, so iterations read it
  // instead of tracing lines (docs/glpet.md §6). automatic: when it fits in free device
  // memory; on: also, but an error when it does not fit; off: never.
  Use system_cache = Use::automatic;
  // cuda: x and the atlases as GL buffers registered with CUDA, so GL (the viewer) reads them
  // without host copies (docs/glpet.md §3). automatic: when a GL context on the CUDA device
  // can be had; on: an error otherwise; off: plain device memory.
  Use cuda_gl_interop = Use::automatic;
  // cuda: the CUDA device; -1: the process's (--cuda-device). The multi-GPU layer sets one per rank.
  int device = -1;
};

// A float vector owned by a backend. Host code sees it only through upload/download.
class BackendBuffer {
 public:
  virtual ~BackendBuffer() = default;
  virtual std::size_t size() const = 0;
  virtual void upload(std::span<const float> host) = 0;     // host.size() == size()
  virtual void download(std::span<float> host) const = 0;   // host.size() == size()
  // Sets every value to 0 (the default uploads zeros; device buffers clear in place).
  virtual void zero();
  // The GL buffer object (in the GL engine's shared context) holding the size() floats
  // tightly packed from offset 0, or 0 when this buffer is not a GL object. GL may read it
  // between operator calls without a host copy: after glMemoryBarrier for the GL backends;
  // the cuda backend unmaps its buffers at the end of every call, which orders its kernels
  // before later GL commands (docs/glpet.md §3).
  virtual unsigned gl_name() const { return 0; }
};

// One pixel of a correspondence image ([Toth2010] §II.B render target, RGBA32F): the secondary
// detector (r, s) as floats, −1 where the line misses, and the weight a of the line.
struct CorrespondencePixel {
  float r = -1, s = -1, weight = 0;
};

// Numerical contract: docs/glpet.md. A_lv = (1/N) Σ_samples Σ_lines of l a_line, with
// the line set of glpet/line_set.hpp; LOR vectors are the atlases of all pairs
// concatenated (Scanner::lor_offset), voxel vectors follow Grid3::index.
class Projector {
 public:
  virtual ~Projector() = default;
  virtual std::string describe() const = 0;  // the backend, and its device once configured

  // Binds geometry, extinction, R, N, K and the backend options; must precede every other
  // call; may be repeated.
  virtual void configure(const SystemModel& system, const ProjectorOptions& options = {}) = 0;
  virtual std::unique_ptr<BackendBuffer> make_image() = 0;  // voxel_count() floats, zero
  virtual std::unique_ptr<BackendBuffer> make_lors() = 0;   // lor_count() floats, zero

  // [Toth2010] eq. (2), shooting (§III): ỹ_l = Σ_v A_lv x_v (ỹ overwritten).
  virtual void forward(const BackendBuffer& x, BackendBuffer& ytilde) = 0;
  // Gathering back-projection: b_v = Σ_l A_lv z_l (b overwritten). The adjoint of forward.
  virtual void back(const BackendBuffer& z, BackendBuffer& b) = 0;
  // The two sums of [Toth2010] eq. (3) / §IV in one gathering pass: b_v = Σ_l A_lv·y_l/ỹ_l
  // (terms with ỹ_l <= 0 count 0) and, when sens != nullptr, sens_v = Σ_l A_lv.
  virtual void back_ratio(const BackendBuffer& y, const BackendBuffer& ytilde, BackendBuffer& b,
                          BackendBuffer* sens) = 0;
  // Σ_l A_lv for every voxel. Default: back() of a vector of ones.
  virtual void sensitivity(BackendBuffer& sens);
  // [Toth2010] eq. (3): x_v ← x_v·b_v/s_v where s_v > 0, else 0. Default goes through the host.
  virtual void mlem_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& sens);
  // A subset's update on the device: x_v ← x_v·b_v/s_v where s_v > 0, x_v unchanged elsewhere
  // (voxels the subset's LORs do not see keep their value). Returns false when the backend has
  // none (the caller then runs it on the host).
  virtual bool subset_update(BackendBuffer& x, const BackendBuffer& b, const BackendBuffer& sens) { return false; }
  // The correspondence image (R·N_a × R·N_t, row-major, X fastest, GL's row order) of
  // sample position v for pair `pair`, for the cross-check's count of lines whose
  // secondary detector differs. Returns false when the backend cannot expose it.
  virtual bool correspondence_image(std::size_t pair, const Vec3& v, std::vector<CorrespondencePixel>& out) {
    return false;
  }
  // Waits for queued device work (timings). Default: nothing to wait for.
  virtual void synchronize() {}
  // Forward and back-projections (and the sensitivity) then process only voxels
  // [first, first + count): the others add nothing and are left unwritten; count 0 restores the
  // whole grid. The benches time part of a large grid so, and the multi-device exact mode
  // splits the voxels so (docs/multigpu.md). Returns false when the backend cannot.
  virtual bool restrict_voxels(std::size_t first, std::size_t count) { return false; }
};

// Host-vector conveniences (tests, cross-check): upload, run, download.
std::vector<float> forward_host(Projector& op, std::span<const float> x);
std::vector<float> back_host(Projector& op, std::span<const float> z);
std::vector<float> sensitivity_host(Projector& op);
std::vector<float> download(const BackendBuffer& b);

// A BackendBuffer in host memory (the cpu backend's, and the defaults' scratch).
class HostBuffer final : public BackendBuffer {
 public:
  explicit HostBuffer(std::size_t n) : data(n, 0.0) {}
  std::size_t size() const override { return data.size(); }
  void upload(std::span<const float> host) override;
  void download(std::span<float> host) const override;
  std::vector<double> data;  // double: the cpu reference keeps its sums in double
};

}  // namespace tomo::glpet
