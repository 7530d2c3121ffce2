// Measured glpet data in and out (docs/glpet.md §5): LOR counts as an atlas array (.npy,
// .nii) and list-mode events, pairs of (module, detector), binary with a header or text.
// Every reader checks the data against the scene's scanner and refuses with InputError.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "compute/glpet/geometry.hpp"

namespace tomo::glpet {

// One coincidence: detector d = i + N_a·j of the module, (i, j) along (axis_a, axis_t).
struct ListModeEvent {
  std::uint32_t module_a = 0, detector_a = 0, module_b = 0, detector_b = 0;
};

// Binary list mode: 24-byte header {char[4] "TGLM", uint32 version = 1, uint32 modules,
// uint32 reserved = 0, uint64 events}, then events × 4 uint32 (ListModeEvent's order), all
// little-endian. Text: a line "module_a detector_a module_b detector_b" per event, '#' comments.
inline constexpr char kGlpetListModeMagic[4] = {'T', 'G', 'L', 'M'};
inline constexpr std::uint32_t kGlpetListModeVersion = 1;
inline constexpr std::size_t kGlpetListModeHeaderBytes = 24;

// LOR counts (Scanner::lor_offset order) from .npy — shape (P, N_a, N_t, N_a, N_t) indexed
// [pair, i0, j0, i1, j1], or (L) in the scanner's flat order — or from .nii, a volume of
// N_a² × N_t² × P (x = u, y = v, z = pair: the atlas texture array). Sizes, non-finite and
// negative counts are refused naming the file and the position.
std::vector<float> read_counts(const std::filesystem::path& path, const Scanner& scanner);
// Writes .npy (5-D when all pairs have one size, else 1-D) or .nii by the extension.
void write_counts(const std::filesystem::path& path, const Scanner& scanner, std::span<const float> lors);

// List-mode events histogrammed into LOR counts; binary when the file starts with the
// magic, text otherwise. Each event counts in every pair of its two modules (either order).
std::vector<float> read_listmode(const std::filesystem::path& path, const Scanner& scanner);
// The events of whole-number LOR counts (one per count, in LOR order); InputError otherwise.
std::vector<ListModeEvent> listmode_events(const Scanner& scanner, std::span<const float> lors);
void write_listmode_binary(const std::filesystem::path& path, const Scanner& scanner,
                           std::span<const ListModeEvent> events);
void write_listmode_text(const std::filesystem::path& path, std::span<const ListModeEvent> events);

}  // namespace tomo::glpet
