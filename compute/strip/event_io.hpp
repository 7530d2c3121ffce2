// List-mode event files of the strip problem.
// Binary (".lm"): a 16-byte header — magic "TSLM", uint32 version = 1, uint64 event count,
// all little-endian — then count × {float32 z̃u, z̃d, Δl̃} (mm), little-endian, nothing after.
// Text (".txt"): lines "z_u z_d dl" (mm); lines starting with '#' and blank lines are ignored.
// Readers throw tomo::InputError naming the file for a bad magic/version, a size that does not
// match the count, a malformed line, or a non-finite value.
#pragma once
#include <filesystem>
#include <vector>

#include "compute/strip/geometry.hpp"

namespace tomo::strip {

inline constexpr char kListModeMagic[4] = {'T', 'S', 'L', 'M'};
inline constexpr unsigned kListModeVersion = 1;
inline constexpr std::size_t kListModeHeaderBytes = 16;

void write_events_binary(const std::filesystem::path& path, const std::vector<Event>& events);
std::vector<Event> read_events_binary(const std::filesystem::path& path);
void write_events_text(const std::filesystem::path& path, const std::vector<Event>& events);
std::vector<Event> read_events_text(const std::filesystem::path& path);
// Binary when the file starts with the magic, text otherwise.
std::vector<Event> read_events(const std::filesystem::path& path);

}  // namespace tomo::strip
