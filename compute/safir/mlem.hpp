// List-mode ML-EM of [Locans2017] eqs. (8)–(11), written once against ListModeOperator: iterations
// over a window of events (a frame), optionally halving the events each iteration as code
// sample 4 does (open point 4; default: all events every iteration).
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "compute/safir/projector.hpp"

namespace tomo::safir {

struct MlemOptions {
  int iterations = 15;
  bool halve_events = false;  // code sample 4: event_number /= 2 after every iteration
};

// ML-EM from f = 1 over events [first, first + count) of the operator's list (sensitivity
// already set); after_iteration(t, active events) is called after iteration t. The image stays
// in the operator (image() downloads it).
void run_mlem(ListModeOperator& op, std::size_t voxels, std::size_t first, std::size_t count, const MlemOptions& o,
              const std::function<void(int, std::size_t)>& after_iteration = {});

// The most frames a run makes: a NIfTI file's time axis is a 16-bit count.
inline constexpr std::size_t kMaxFrames = 32767;

// Time frames: [k·frame_s, (k+1)·frame_s) as index ranges of time-sorted events;
// one frame of everything when frame_s <= 0 or there are no time stamps. More than kMaxFrames
// frames: InputError naming safir.frame_s and the count, before any frame is reconstructed.
struct Frame {
  std::size_t first = 0, count = 0;
  double t0 = 0, t1 = 0;
};
std::vector<Frame> split_frames(std::span<const double> time_s, std::size_t events, double duration_s,
                                double frame_s);

}  // namespace tomo::safir
