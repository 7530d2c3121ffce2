// H_int on several ranks (--gpus): both H and Hᵀ are sums over transducers, so rank r owns a
// contiguous range of them. Forward: every rank maps the whole α to its slice of u (u[q·K + k]
// for its q: a contiguous block), written in place, nothing summed. Adjoint: every rank maps its
// slice of u to a partial α; once all are done the partials are added on the host in rank order,
// so the result does not depend on which rank finishes first. Rings × views arrays split into
// whole rings (each rank's sub-array keeps the quarter-turn symmetry of a ring); positions from
// a file into equal contiguous ranges.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

// Rank `rank`'s transducers [begin, end) and, for rings × views, its rings [ring_begin, ring_end).
struct TransducerShare {
  int begin = 0, end = 0;
  int ring_begin = 0, ring_end = 0;  // 0, 0 for positions from a file
  int count() const { return end - begin; }
};

// Rank `rank` of `ranks` (ranks ≥ 1): whole rings balanced by count (rings differ by at most one),
// or equal contiguous ranges of positions from a file. InputError when a rank would get none
// (more ranks than rings, or than transducers).
TransducerShare transducer_share(const OatGeometry& g, int rank, int ranks);

// The geometry of the share: its transducers and surface elements, rings = its ring count; the
// grid, time axis, c₀, Γ, EIR, Rˢ and the support stay the whole array's.
OatGeometry share_geometry(const OatGeometry& g, const TransducerShare& s);

// A backend's ranks: `make(rank)` creates the rank's single-device Model and `enter(rank)`
// prepares the calling thread for that rank (a device selection); both run on the rank's thread.
struct ModelRanks {
  int ranks = 1;
  std::string describe;  // "2 host threads", "CUDA devices 0, 1", …
  std::function<std::unique_ptr<Model>(int rank)> make;
  std::function<void(int rank)> enter = [](int) {};
};

// Several devices: a backend registers how it makes its ranks from the --gpus text.
using ModelMultiFactory = std::function<ModelRanks(const std::string& gpus)>;
void register_model_multi(const std::string& backend, ModelMultiFactory factory);
bool has_model_multi(const std::string& backend);
// How many ranks `gpus` gives the backend ("all" resolved against its devices), without making them.
int model_rank_count(const std::string& backend, const std::string& gpus);

// The backend's H_int ("auto" resolved by the caller), over several ranks when `gpus` is not
// empty (UnavailableError when the backend has no ranks), configured for `g`.
std::unique_ptr<Model> make_model(const std::string& backend, const std::string& gpus, const OatGeometry& g,
                                  const ModelOptions& o);

// What report.json lists as devices: every rank's describe() for a team, else describe().
std::vector<std::string> model_devices(const Model& m);

}  // namespace tomo::oat
