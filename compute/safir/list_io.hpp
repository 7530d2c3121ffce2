// List-mode files users bring: STIR's SAFIR coincidence list (.clm.safir, with its text crystal
// map) and CASToR list-mode (.cdh header + .cdf events). Sizes, rings, detectors and crystal ids
// are checked against the scene's scanner; bad files throw InputError naming the file and fault.
//
// .clm.safir: a 32-byte header starting "SAFIR CListModeData\0" (or "MUPET CListModeData\0"),
// then 8-byte little-endian records. Event (bit 63 = 0): bits 0–7 ringA, 8–15 ringB, 16–31 detA,
// 32–47 detB, 48–51 layerA, 52–55 layerB, 62 delayed. Time mark (bit 63 = 1): bits 0–47 ms.
// Crystal map: lines "ring det [layer] x y z" (mm), tab/comma/space separated, '#' comments.
// CASToR: "key: value" header (Data filename, Number of events, Data mode: list-mode, Data type:
// PET, optional "... flag: 1" fields); .cdf events are uint32 time (ms), one float32 per flag set
// (attenuation, scatter, random, normalization, TOF, in that order), uint32 crystal ids 1 and 2.
// Crystal ids are ours: ring · crystals + detector.
#pragma once
#include <filesystem>
#include <span>
#include <vector>

#include "compute/safir/simulator.hpp"

namespace tomo::safir {

void write_clm_safir(const std::filesystem::path& path, const ListMode& lm, const Scanner& sc);
ListMode read_clm_safir(const std::filesystem::path& path, const Scanner& sc);

void write_crystal_map(const std::filesystem::path& path, const Scanner& sc);
// Checks that the map holds every crystal of `sc` once, within `tolerance_mm` of its position.
void check_crystal_map(const std::filesystem::path& path, const Scanner& sc, double tolerance_mm = 0.1);

// CASToR's per-event correction fields, one float32 per event each (empty: the field and its
// header flag are left out), in CASToR's convention: the expected counts of an event are
// (A x)/(ACF·NCF) + (scatter + random)·T with T the frame's duration in seconds, so ACF and NCF are
// correction factors (ACF = exp(∫μ) = 1/a, NCF = 1/n, both > 0) and scatter and random are rates
// (counts per second, ≥ 0) of the event's LOR.
struct CastorCorrections {
  std::vector<float> attenuation, scatter, random, normalisation;
  bool empty() const { return attenuation.empty() && scatter.empty() && random.empty() && normalisation.empty(); }
};
// The fields of the reconstruction layer's per-event terms (pet::ForwardTerms: ȳ = m·(A x) + c over
// an acquisition of `duration_s`): NCF = 1/m (CASToR multiplies ACF and NCF, so the product m
// goes into one field) and random = c / duration_s (randoms and scatter are summed in c).
CastorCorrections castor_corrections(std::span<const double> multiplicative, std::span<const double> additive,
                                     double duration_s);

// Writes `<stem>.cdh` and `<stem>.cdf` next to each other; `cdh` names the header. Each non-empty
// field of `corrections` holds one value per event (Error otherwise) and sets its header flag.
void write_castor(const std::filesystem::path& cdh, const ListMode& lm, const Scanner& sc,
                  const CastorCorrections& corrections = {});
// `corrections` (may be null): the correction fields the file holds, checked as write_castor's
// (finite; ACF, NCF > 0; rates ≥ 0: InputError naming the event and field otherwise).
ListMode read_castor(const std::filesystem::path& cdh, const Scanner& sc, CastorCorrections* corrections = nullptr);

// By extension: .cdh → CASToR, otherwise .clm.safir.
ListMode read_list_mode(const std::filesystem::path& path, const Scanner& sc);

}  // namespace tomo::safir
