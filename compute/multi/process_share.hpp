// Work split over the processes of an mpirun job (docs/multigpu.md, "No rank repeats global
// work"): the Monte-Carlo simulators run fixed chunks, each seeded by its index, so process p of
// P runs the chunks c with c mod P = p and the sum over the processes is the one-process result.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

namespace tomo {

struct ProcessShare {
  int rank = 0;  // this process
  int size = 1;  // the processes of the job
  bool mine(std::int64_t chunk) const { return size <= 1 || chunk % size == rank; }
  // How many of `chunks` chunks are this process's.
  std::int64_t count(std::int64_t chunks) const {
    return size <= 1 ? chunks : chunks / size + (rank < chunks % size ? 1 : 0);
  }
};

// This process's share under mpirun (process_group()); {0, 1} alone.
ProcessShare process_share();

// v summed over the processes, in process order, so every process holds the same bits (sums of
// whole numbers, as histogram counts, are exact in any order). Nothing alone.
void sum_over_processes(std::span<double> v);

// v's chunks of `chunk` bytes (the last may be short), each filled by the process whose share
// holds it (ProcessShare::mine), copied to every process: afterwards every process holds what one
// process running every chunk holds. Nothing alone.
void gather_chunks(std::span<std::byte> v, std::size_t chunk);

}  // namespace tomo
