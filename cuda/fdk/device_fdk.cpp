// DeviceFdk (see device_fdk.hpp). Order of one host chunk k: host threads copy it into staging
// buffer k mod 2 (once the upload of chunk k − 2 from there has finished), the copy stream uploads
// it into ring slot k mod S, the work stream filters it there in place; chunk k − 1 is then handed
// to the back-projector, whose own streams copy it into its layered textures and run the kernel.
// A device chunk is filtered straight from the caller's memory into its slot and handed over at
// once. A slot is written again only after the back-projector has read it (op.synchronize() when
// the ring wraps onto a slot not yet known to be read).
#include "cuda/fdk/device_fdk.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/host_staging.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/fdk/cuda_backprojector.hpp"
#include "cuda/fdk/cufft_filter.hpp"

namespace tomo::fdk {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

cuda_impl::CudaBackprojector& cuda_op(ConeBeamBackprojector& op) {
  auto* c = dynamic_cast<cuda_impl::CudaBackprojector*>(&op);
  if (!c) throw Error("fdk device pipeline: the back-projector is not the cuda backend");
  return *c;
}

// Ring slots: the whole stack when its chunks fit in `bytes` (no wrap, no wait), else as many
// chunks as fit, at least 3 (a wrap then waits for the chunk two steps back).
int slot_count(int chunks, std::size_t chunk_bytes, double bytes) {
  const double fit = std::max(0.0, bytes) / static_cast<double>(std::max<std::size_t>(chunk_bytes, 1));
  return std::max(1, std::min(chunks, std::max(3, static_cast<int>(std::min(fit, 1e6)))));
}

// The filter's stream runs at the device's highest priority: its blocks (bound by memory
// bandwidth) are then scheduled as the back-projection's blocks (bound by texture fetches) retire,
// so the two share the SMs instead of the filter waiting for the back-projection's tail.
int highest_priority() {
  int least = 0, greatest = 0;
  TOMO_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return greatest;
}

}  // namespace

struct DeviceFdk::Impl {
  Impl(const CArmGeometry& g_, const FilterOptions& options, cuda_impl::CudaBackprojector& op_, const Grid3& grid_,
       int chunk_, int device_, FilterPasses passes)
      : g(g_), grid(grid_), op(op_), device(device_), chunk(chunk_), image(static_cast<std::size_t>(g_.sx) * g_.sy),
        filter((cuda::select_device(device_), g_), options, chunk_, passes), work(true, highest_priority()) {}

  CArmGeometry g;
  Grid3 grid;
  cuda_impl::CudaBackprojector& op;
  int device, chunk;
  std::size_t image;
  CufftFilter filter;
  cuda::Stream work, upload;  // work: the filter, at the highest priority; upload: host chunks
  std::vector<cuda::DeviceBuffer<float>> slots;
  std::vector<cuda::Event> filtered;  // per slot
  cuda::HostStaging staging;  // two page-locked chunks: host chunks in, the volume out
  cuda::DeviceBuffer<float> bounce;  // the volume on its way to host memory
  std::vector<cuda::Event> marks;  // 4 per chunk: upload start/stop, filter start/stop
  std::vector<bool> uploaded;      // per chunk of the run: an upload was timed
  // The run: chunks added, the last one handed to the back-projector, the last one known read.
  long long seq = 0, handed = -1, read = -1;
  struct Pending {
    int slot = -1, count = 0;
    std::vector<Mat34> mats;
  } pending;
  DeviceFdkTimes t;
  Clock::time_point t0;

  cuda::Event& mark(long long k, int which) {
    const std::size_t i = static_cast<std::size_t>(k) * 4 + which;
    while (marks.size() <= i) marks.emplace_back(true);
    return marks[i];
  }
  // The back-projector reads slot `slot` (count projections, matrices) on its own streams.
  void hand_over(int slot, int count, std::span<const Mat34> mats) {
    op.backproject(ProjectionView{g.sx, g.sy, count, mats.data(), slots[static_cast<std::size_t>(slot)].data()});
    ++handed;
  }
  void flush_pending() {
    if (pending.slot < 0) return;
    const auto w0 = Clock::now();
    filtered[static_cast<std::size_t>(pending.slot)].synchronize();
    t.wait_ms += ms_since(w0);
    hand_over(pending.slot, pending.count, pending.mats);
    pending.slot = -1;
  }
  // Before chunk `seq` writes its slot: the chunk that used it last must have been read.
  void claim_slot() {
    const long long last_user = seq - static_cast<long long>(slots.size());
    if (last_user <= read) return;
    if (last_user > handed) flush_pending();  // a ring of one or two slots: the pending chunk too
    const auto w0 = Clock::now();
    op.synchronize();
    t.wait_ms += ms_since(w0);
    read = handed;
  }
};

DeviceFdk::DeviceFdk(const CArmGeometry& g, const FilterOptions& options, ConeBeamBackprojector& op, const Grid3& grid,
                     int chunk, int device, double ring_mb, FilterPasses passes) {
  if (chunk < 1 || chunk > 64) throw Error(str_cat("fdk device pipeline: chunk must be 1..64, got ", chunk));
  if (g.sx < 1 || g.sy < 1 || g.projections < 1)
    throw Error(str_cat("fdk device pipeline: bad geometry ", g.sx, "x", g.sy, "x", g.projections));
  impl_ = std::make_unique<Impl>(g, options, cuda_op(op), grid, std::min(chunk, g.projections), device, passes);
  Impl& m = *impl_;
  const int chunks = (g.projections + m.chunk - 1) / m.chunk;
  const int n = slot_count(chunks, m.image * m.chunk * sizeof(float), ring_mb * 1048576.0);
  m.staging.set_slab(m.image * m.chunk);  // allocated by the first host chunk or host finish()
  m.slots.resize(static_cast<std::size_t>(n));
  for (auto& s : m.slots) s.resize(m.image * m.chunk);
  for (int i = 0; i < n; ++i) m.filtered.emplace_back(false);
  // Warm-up: cuFFT's plans for a full and the last, shorter chunk are made here, not in a run.
  m.slots[0].fill_zero(m.work);
  m.filter.apply_device(0, m.chunk, m.slots[0].data(), m.slots[0].data(), m.work);
  const int tail = g.projections % m.chunk;
  if (tail) m.filter.apply_device(0, tail, m.slots[0].data(), m.slots[0].data(), m.work);
  m.work.synchronize();
}

DeviceFdk::~DeviceFdk() {
  if (!impl_) return;
  try {
    impl_->upload.synchronize();
    impl_->work.synchronize();
    impl_->op.synchronize();
  } catch (...) {
  }
}

int DeviceFdk::chunk() const { return impl_->chunk; }
DeviceFdkTimes DeviceFdk::times() const { return impl_->t; }

std::string DeviceFdk::describe() const {
  const Impl& m = *impl_;
  return str_cat("cuda FDK pipeline (chunks of ", m.chunk, " projections, ", m.slots.size(), " device slots, cuFFT padded ",
                 m.filter.padded_size(), m.filter.passes() == FilterPasses::fused ? " with fused callbacks" : ", separate kernels",
                 ")");
}

void DeviceFdk::begin() {
  Impl& m = *impl_;
  cuda::select_device(m.device);
  m.t = {};
  m.t0 = Clock::now();
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's arrays, written on any stream
  m.op.reset(m.grid);
  m.seq = 0;
  m.handed = m.read = -1;
  m.pending.slot = -1;
  m.uploaded.clear();
  m.staging.wait_idle();
}

void DeviceFdk::add(int n0, int count, const float* pixels, bool on_device, std::span<const Mat34> matrices) {
  Impl& m = *impl_;
  if (count < 1 || count > m.chunk || n0 < 0 || n0 + count > m.g.projections)
    throw Error(str_cat("fdk device pipeline: projections [", n0, ", ", n0 + count, ") in chunks of ", m.chunk,
                        " outside 0..", m.g.projections));
  if (matrices.size() != std::size_t(count))
    throw Error(str_cat("fdk device pipeline: ", count, " projections but ", matrices.size(), " matrices"));
  cuda::select_device(m.device);
  const long long k = m.seq;
  (void)m.mark(k, 3);  // this chunk's four events exist before references to them are taken
  const int slot = static_cast<int>(k % static_cast<long long>(m.slots.size()));
  float* dst = m.slots[static_cast<std::size_t>(slot)].data();
  const std::size_t n = m.image * count;
  m.claim_slot();
  m.uploaded.push_back(!on_device);
  if (on_device) {
    m.mark(k, 2).record(m.work);
    m.filter.apply_device(n0, count, pixels, dst, m.work);
    m.mark(k, 3).record(m.work);
    m.filtered[static_cast<std::size_t>(slot)].record(m.work);
    // The caller's memory has been read once the filter has run; then this chunk goes on.
    m.flush_pending();
    const auto w0 = Clock::now();
    m.filtered[static_cast<std::size_t>(slot)].synchronize();
    m.t.wait_ms += ms_since(w0);
    m.hand_over(slot, count, matrices);
  } else {
    const int s = static_cast<int>(k % 2);
    const double waited = m.staging.wait_ms();
    float* staged = m.staging.acquire(s);  // once the upload of chunk k − 2 from there has finished
    m.t.wait_ms += m.staging.wait_ms() - waited;
    const auto c0 = Clock::now();
    cuda::parallel_copy(staged, pixels, n * sizeof(float));
    m.t.stage_ms += ms_since(c0);
    m.mark(k, 0).record(m.upload);
    TOMO_CUDA_CHECK(cudaMemcpyAsync(dst, staged, n * sizeof(float), cudaMemcpyHostToDevice, m.upload));
    m.staging.released(s, m.upload);
    m.mark(k, 1).record(m.upload);
    m.work.wait(m.mark(k, 1));
    m.mark(k, 2).record(m.work);
    m.filter.apply_device(n0, count, dst, dst, m.work);
    m.mark(k, 3).record(m.work);
    m.filtered[static_cast<std::size_t>(slot)].record(m.work);
    // The previous chunk goes to the back-projector now: this one's copy overlaps its filter.
    m.flush_pending();
    m.pending.slot = slot;
    m.pending.count = count;
    m.pending.mats.assign(matrices.begin(), matrices.end());
  }
  ++m.seq;
}

void DeviceFdk::finish(float* volume, bool on_device) {
  Impl& m = *impl_;
  cuda::select_device(m.device);
  m.flush_pending();
  const auto s0 = Clock::now();
  if (on_device) {
    m.op.store_volume(volume);  // waits for the back-projection first
  } else {
    // To host memory through the staging buffers: the copy of slab i + 1 from the device runs
    // while host threads copy slab i into the caller's (fresh, not yet paged-in) memory.
    const std::size_t n = m.grid.count();
    m.upload.synchronize();
    m.bounce.resize(n);
    m.op.store_volume(m.bounce.data());
    m.staging.download(m.bounce.data(), volume, n, m.upload);
  }
  m.t.store_ms = ms_since(s0);
  m.upload.synchronize();
  m.work.synchronize();
  for (long long k = 0; k < m.seq; ++k) {
    if (m.uploaded[static_cast<std::size_t>(k)]) m.t.upload_ms += m.mark(k, 0).elapsed_ms(m.mark(k, 1));
    m.t.filter_ms += m.mark(k, 2).elapsed_ms(m.mark(k, 3));
  }
  m.t.chunks = static_cast<int>(m.seq);
  m.t.total_ms = ms_since(m.t0);
}

}  // namespace tomo::fdk
