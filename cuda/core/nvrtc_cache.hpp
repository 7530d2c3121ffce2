// The on-disk cache of NVRTC images: a compiled CUBIN, PTX or LTO-IR is kept in a file named after
// a hash of everything that determines it (source, options, target, output kind, NVRTC version),
// so that a later process skips the compile (seconds for musr's table programs, a fraction of one
// for fdk's cuFFT callbacks). Needs no device.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tomo::cuda {

// The cache's folder: $TOMORASTER_CACHE_DIR, else $XDG_CACHE_HOME/tomoraster/nvrtc, else
// $HOME/.cache/tomoraster/nvrtc; empty when TOMORASTER_NVRTC_CACHE=0 or no location is known.
std::filesystem::path nvrtc_cache_dir();

// The image stored under `key` (the full text the entry was written with) in `dir`; nothing when
// absent, or when the file is damaged (size, key or checksum differ: it is then recompiled and
// overwritten).
std::optional<std::vector<char>> nvrtc_cache_load(const std::filesystem::path& dir, const std::string& key);

// Writes `image` under `key` atomically (a temporary file renamed into place). A folder that
// cannot be created or written means no cache: one info line a process, never an error.
void nvrtc_cache_store(const std::filesystem::path& dir, const std::string& key, const std::vector<char>& image);

// Counts since the start of the process (for tests and the log).
struct NvrtcCacheCounters {
  long hits = 0, misses = 0, damaged = 0, stored = 0, unwritable = 0;
};
NvrtcCacheCounters nvrtc_cache_counters();

}  // namespace tomo::cuda
