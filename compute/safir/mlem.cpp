// ML-EM driver and time frames of the safir problem.
#include "compute/safir/mlem.hpp"

#include <algorithm>
#include <cmath>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::safir {

void run_mlem(ListModeOperator& op, std::size_t voxels, std::size_t first, std::size_t count, const MlemOptions& o,
              const std::function<void(int, std::size_t)>& after_iteration) {
  std::size_t active = count;
  op.set_window(first, active);
  op.set_image(std::vector<double>(voxels, 1.0));
  for (int t = 1; t <= o.iterations; ++t) {
    op.iterate();
    if (after_iteration) after_iteration(t, active);
    if (o.halve_events && t < o.iterations && active > 1) {
      active /= 2;  // the first half in acquisition order, relabelled and resorted (code sample 4)
      op.set_window(first, active);
    }
  }
}

std::vector<Frame> split_frames(std::span<const double> time_s, std::size_t events, double duration_s,
                                double frame_s) {
  if (frame_s <= 0 || time_s.empty()) return {{0, events, 0.0, duration_s}};
  if (time_s.size() != events) throw Error("safir: time stamps and events differ in number");
  double end = std::max(duration_s, time_s.empty() ? 0.0 : time_s.back());
  // Counted in double first: a tiny frame_s over a long list would overflow the integer.
  const double count = std::max(1.0, std::ceil(end / frame_s - 1e-9));
  if (count > double(kMaxFrames))
    throw InputError(str_cat("safir.frame_s = ", frame_s, " s cuts ", end, " s of events into ", count,
                             " frames; a 4D NIfTI file holds at most ", kMaxFrames, ": raise safir.frame_s"));
  const std::size_t n = static_cast<std::size_t>(count);
  std::vector<Frame> frames;
  std::size_t at = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double t1 = k + 1 == n ? std::max(end, (k + 1) * frame_s) : (k + 1) * frame_s;
    const std::size_t stop = k + 1 == n ? events
                                        : static_cast<std::size_t>(std::lower_bound(time_s.begin() + at, time_s.end(), t1) -
                                                                   time_s.begin());
    frames.push_back({at, stop - at, k * frame_s, t1});
    at = stop;
  }
  return frames;
}

}  // namespace tomo::safir
