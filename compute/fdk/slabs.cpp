// FDK's z-slabs over the ranks of --gpus and mpirun.
#include "compute/fdk/slabs.hpp"

#include <algorithm>
#include <chrono>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"

namespace tomo::fdk {

std::array<int, 2> slab_range(int slices, int rank, int ranks) {
  const auto at = [&](int r) { return int((long long)slices * r / ranks); };
  return {at(rank), at(rank + 1)};
}

VolumeF reconstruct_slabs(Ranks& ranks, const std::string& backend, const BackprojectorOptions& options,
                          const Grid3& grid, const ProjectionStack& p, int batch, BackprojectTiming* timing,
                          const std::function<void(int)>& on_batch) {
  HostTeam& team = *ranks.team;
  const int n = team.size();
  if (grid.dims[2] < n)
    throw InputError(str_cat("fdk: ", grid.dims[2], " z-slices cannot be cut into ", n, " slabs (one per rank)"));
  VolumeF v(grid);
  const std::size_t slice = std::size_t(grid.dims[0]) * std::size_t(grid.dims[1]);
  team.run([&](int rank) {
    const int local = rank - team.first_local_rank();
    const auto [z0, z1] = slab_range(grid.dims[2], rank, n);
    Grid3 slab = grid;
    slab.dims[2] = z1 - z0;
    slab.origin_mm[2] = grid.origin_mm[2] + z0 * grid.voxel_mm[2];
    std::unique_ptr<ConeBeamBackprojector> op;  // the cuda backend takes its device when made
    configure_on_device(ranks.devices[std::size_t(local)], [&] {
      op = BackendRegistry<ConeBeamBackprojector>::instance().create(backend);
      op->configure(options);
    });
    // Each rank's back-projection loop and its whole slab (reset, page-locking the projections,
    // download) in the log: where a rank count is slower than another, this says which rank and part.
    BackprojectTiming mine;
    const auto t0 = std::chrono::steady_clock::now();
    const VolumeF part = reconstruct(*op, slab, p, batch, &mine, rank == 0 ? on_batch : std::function<void(int)>{});
    log_info("fdk: rank ", rank, " (z ", z0, "..", z1, "): back-projection ", mine.total_ms, " ms, slab ",
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), " ms");
    if (rank == 0 && timing) *timing = mine;
    std::copy(part.data.begin(), part.data.end(), v.data.begin() + std::ptrdiff_t(std::size_t(z0) * slice));
    // The ranks read one host copy of the projections, which the first backend to page-lock it
    // owns until it is destroyed: no rank's backend goes while another may still copy from it.
    std::vector<double> none(1, 0.0);
    team.allreduce_sum(rank, std::span<double>(none));
  });
  if (ProcessGroup* g = team.process_group(); g && g->size() > 1) {
    // Process q holds the slabs of its consecutive global ranks: one z-range each, in order.
    const std::vector<std::string> mine{std::to_string(team.local_size())};
    const auto all = allgather_strings(g, mine);
    std::vector<std::size_t> counts;
    int first = 0, my_first = 0;
    for (int q = 0; q < g->size(); ++q) {
      const int k = std::stoi(all[std::size_t(q)]);
      const int z0 = slab_range(grid.dims[2], first, n)[0], z1 = slab_range(grid.dims[2], first + k, n)[0];
      counts.push_back(std::size_t(z1 - z0) * slice * sizeof(float));
      if (q == g->rank()) my_first = z0;
      first += k;
    }
    std::vector<float> out(v.data.size());
    g->allgatherv(v.data.data() + std::size_t(my_first) * slice, out.data(), counts);
    v.data = std::move(out);
  }
  return v;
}

}  // namespace tomo::fdk
