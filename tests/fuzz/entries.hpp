// One entry per reader for the fuzzers (tests/fuzz/*_fuzz.cpp, libFuzzer under ASan+UBSan)
// and for the regression suite that replays their corpora in every build (fuzz_regression_test).
// Bad input must end in tomo::InputError; any other exception, a crash or UB is a finding.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "compute/core/error.hpp"
#include "compute/core/scene.hpp"
#include "compute/fdk/geometry.hpp"
#include "compute/fdk/matrix_file.hpp"
#include "compute/fdk/rabbitct_file.hpp"
#include "compute/glpet/data_io.hpp"
#include "compute/glpet/ring.hpp"
#include "compute/fdk/raw_stack.hpp"
#include "compute/glpet/config.hpp"
#include "compute/io/image_volume.hpp"
#include "compute/io/interfile.hpp"
#include "compute/io/nifti.hpp"
#include "compute/io/npy.hpp"
#include "compute/io/tiff.hpp"
#include "compute/safir/config.hpp"
#include "compute/safir/list_io.hpp"
#include "compute/oat/data_io.hpp"
#include "compute/oat/hdf5_here.hpp"
#include "compute/musr/bmw/pippard.hpp"
#include "compute/musr/bmw/startup.hpp"
#include "compute/musr/bmw/trim_sp_data.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/mud.hpp"
#include "compute/musr/psi_mdu.hpp"
#include "compute/musr/nexus.hpp"
#include "compute/musr/psi_bin.hpp"
#include "compute/musr/rge_profiles.hpp"
#include "compute/musr/root_run.hpp"
#include "compute/musr/run_file.hpp"
#include "compute/musr/user_fcn.hpp"
#include "compute/musr/xy_data.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/event_io.hpp"
#include "tests/fuzz/hdf5_recipe.hpp"

namespace tomo::fuzz {

// The bytes as a file that readers open by path: an anonymous memory file, no disk I/O.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(::memfd_create("tomo-fuzz", 0)) {
    if (fd_ < 0) throw Error("memfd_create failed");
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) throw Error("memfd write failed");
      done += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::filesystem::path path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// Runs `read` and says whether the input was accepted; InputError is the only allowed refusal.
template <class F>
bool accepted(F&& read) {
  try {
    read();
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// A scene: TOML text, then optionally a line "--set" followed by one override per line.
inline bool scene(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = all.find("\n--set\n");
  return accepted([&] {
    Scene s = Scene::load_string(all.substr(0, cut), "<fuzz>");
    if (cut != std::string_view::npos) {
      std::string_view rest = all.substr(cut + 7);
      while (!rest.empty()) {
        const std::size_t eol = rest.find('\n');
        s.apply_override(rest.substr(0, eol));
        rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 1);
      }
    }
    (void)s.to_json();
    // The parsers of each problem that allocate nothing in proportion to the values (the
    // voxelising ones allocate before their memory estimate refuses a huge size).
    const std::string problem = s.get<std::string>("problem", "");
    if (problem == "strip") (void)strip::StripConfig::from_scene(s);
    if (problem == "glpet") (void)glpet::read_scanner(s);
    if (problem == "fdk") (void)fdk::CArmGeometry::from_scene(s, "fdk.geometry.");
    if (problem == "safir") (void)safir::SafirConfig::from_scene(s);
  });
}

inline bool rabbitct(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)fdk::read_rabbitct(f.path()); });
}

inline bool listmode(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)strip::read_events(f.path()); });
}

// Both NIfTI readers: the series reader accepts every file the volume reader does, and 4-D.
inline bool nifti(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  (void)accepted([&] {
    NiftiMeta meta;
    (void)read_nifti(f.path(), meta);
  });
  return accepted([&] {
    NiftiMeta meta;
    (void)read_nifti_series(f.path(), meta);
  });
}

// TIFF pages as detectors write them (libtiff under our size and format checks).
inline bool tiff(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)io::read_tiff_stack(f.path()); });
}

// read_npy, then the conversion a user's array goes through (real or complex by its dtype).
inline bool npy(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] {
    const NpyArray a = read_npy(f.path());
    if (a.type == NpyType::c8 || a.type == NpyType::c16) (void)a.to_complex_float("fuzz");
    else (void)a.to_double("fuzz"), (void)a.to_float("fuzz");
  });
}

// The scanner the glpet data readers check against: a ring of 6 modules of 3 × 2 detectors
// (9 pairs), so indices, shapes and module counts all have something to be wrong about.
inline const glpet::Scanner& glpet_scanner() {
  static const glpet::Scanner sc = [] {
    glpet::Ring r;
    r.modules = 6;
    r.radius_mm = 40;
    r.n_a = 3;
    r.n_t = 2;
    return glpet::ring_scanner(r);
  }();
  return sc;
}

inline bool glpet_counts(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);  // no extension: the .npy reader
  return accepted([&] { (void)glpet::read_counts(f.path(), glpet_scanner()); });
}

inline bool glpet_listmode(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)glpet::read_listmode(f.path(), glpet_scanner()); });
}

// safir: STIR's SAFIR coincidence list, read against the 91 × 180 scanner of [Locans2017] §5.
inline bool safir_clm(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)safir::read_clm_safir(f.path(), safir::Scanner{}); });
}

// safir: a text crystal map, checked against a 2 × 8 scanner.
inline safir::Scanner safir_map_scanner() {
  safir::Scanner sc;
  sc.rings = 2;
  sc.crystals = 8;
  return sc;
}
inline bool safir_crystal_map(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { safir::check_crystal_map(f.path(), safir_map_scanner()); });
}

// safir: a CASToR header, a line "--cdf--", then the .cdf bytes; the header's data file is
// pointed at the second part.
inline constexpr std::string_view kCastorSplit = "\n--cdf--\n";
inline bool safir_castor(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = all.find(kCastorSplit);
  const std::string_view head = all.substr(0, cut);
  const std::string_view body = cut == std::string_view::npos ? std::string_view{} : all.substr(cut + kCastorSplit.size());
  MemoryFile cdf(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
  const std::string header = std::string(head) + "\nData filename: " + cdf.path().string() + "\n";
  MemoryFile cdh(reinterpret_cast<const std::uint8_t*>(header.data()), header.size());
  // With the per-event correction fields read too, so their checks are fuzzed.
  return accepted([&] {
    safir::CastorCorrections corrections;
    (void)safir::read_castor(cdh.path(), safir::Scanner{}, &corrections);
  });
}

// fdk's projection-matrix files (text or .npy (N, 3, 4)) and raw projection stacks (.npy, NIfTI).
inline bool matrix_file(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)fdk::read_matrix_file(f.path()); });
}

inline bool projection_stack(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)fdk::read_projection_stack(f.path()); });
}

// fdk's reference volume (fdk.reference_volume): raw uint16, L³ voxels; read here as L = 4.
inline bool fdk_reference(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)fdk::read_reference_volume(f.path(), 4); });
}

// oat: pressure .npy (the same bytes as pressure and as positions, so a Q×3 array is valid),
// PATATO and k-Wave HDF5 (vacuously accepted in a build without HDF5).
inline bool oat_npy(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)oat::read_npy_data(f.path(), f.path()); });
}

inline bool oat_patato(const std::uint8_t* data, std::size_t size) {
  if (!oat::have_hdf5()) return true;
  MemoryFile f(data, size);
  return accepted([&] { (void)oat::read_patato(f.path()); });
}

inline bool oat_kwave(const std::uint8_t* data, std::size_t size) {
  if (!oat::have_hdf5()) return true;
  MemoryFile f(data, size);
  return accepted([&] { (void)oat::read_kwave(f.path()); });
}

// The structure-aware HDF5 targets (tests/fuzz/hdf5_recipe.hpp): the input is a recipe that
// libhdf5 writes as a well-formed file, read in this process (without HDF5: accepted).
template <std::size_t N, class Read>
bool hdf5_recipe([[maybe_unused]] const hdf5::Slot (&slots)[N], [[maybe_unused]] const std::uint8_t* data,
                 [[maybe_unused]] std::size_t size, [[maybe_unused]] Read&& read) {
#if defined(TOMO_HAVE_HDF5)
  const std::vector<std::uint8_t> file = hdf5::build_file(slots, data, size);
  if (file.empty()) return false;
  MemoryFile f(file.data(), file.size());
  return accepted([&] { (void)read(f.path()); });
#else
  return true;
#endif
}

inline constexpr hdf5::Slot kPatatoSlots[] = {{"raw_data", false}, {"GEOMETRY", false}, {"fs", true},
                                              {"speedofsound", true}};
inline constexpr hdf5::Slot kKwaveSlots[] = {{"Nx", false}, {"Ny", false}, {"Nz", false}, {"dx", false},
                                             {"dy", false}, {"dz", false}, {"dt", false}, {"p", false},
                                             {"sensor_mask_index", false}, {"c0", false}};

inline bool oat_patato_recipe(const std::uint8_t* data, std::size_t size) {
  return hdf5_recipe(kPatatoSlots, data, size, [](const auto& p) { return oat::read_patato_in_process(p); });
}

inline bool oat_kwave_recipe(const std::uint8_t* data, std::size_t size) {
  return hdf5_recipe(kKwaveSlots, data, size, [](const auto& p) { return oat::read_kwave_in_process(p); });
}

inline bool msr(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  return accepted([&] { (void)musr::parse_msr(text, "<fuzz>"); });
}

// A `.fcn` user-function file, read through the input gate, every function lowered.
inline bool user_fcn(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] {
    for (const auto& fn : musr::read_user_functions(f.path())) {
      musr::ProgramBuilder b(static_cast<int>(fn->params.size()));
      std::vector<std::int32_t> args;
      for (int i = 0; i < static_cast<int>(fn->params.size()); ++i) args.push_back(b.param(i));
      (void)b.finish(musr::build_user_function(b, *fn, args, b.time()));
    }
  });
}

inline bool psibin(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)musr::read_psi_bin(f.path()); });
}

// μSR MUD: the reader, then the same bytes through the RUN dispatch the fit uses.
inline bool musr_mud(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  const bool ok = accepted([&] { (void)musr::read_mud(f.path()); });
  (void)accepted([&] { (void)musr::read_run_file(f.path(), "MUD"); });
  return ok;
}

// μSR PSI-MDU: the reader, then the same bytes through the RUN dispatch the fit uses.
inline bool musr_mdu(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  const bool ok = accepted([&] { (void)musr::read_psi_mdu(f.path()); });
  (void)accepted([&] { (void)musr::read_run_file(f.path(), "PSI-MDU"); });
  return ok;
}

// μSR x-y data (fittype 8): musrfit's ASCII, DB and DAT readers, each also through the x-y
// dispatch the fit uses.
inline bool musr_ascii(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  const bool ok = accepted([&] { (void)musr::read_ascii_data(f.path()); });
  (void)accepted([&] { (void)musr::read_xy_file(f.path(), "ASCII"); });
  return ok;
}
inline bool musr_db(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  const bool ok = accepted([&] { (void)musr::read_db_data(f.path()); });
  (void)accepted([&] { (void)musr::read_xy_file(f.path(), "DB"); });
  return ok;
}
inline bool musr_dat(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  const bool ok = accepted([&] { (void)musr::read_dat_data(f.path()); });
  (void)accepted([&] { (void)musr::read_xy_file(f.path(), "DAT"); });
  return ok;
}

// TRIM.SP implantation profiles and the BMW libraries' settings: the bytes as a depth-profile
// startup file (the rge files it names are looked for beside it and normally absent), as one rge
// file (as the depth-profile reader and as libFitPofB's TRIM.SP reader take it), and as
// BMW_startup.xml.
inline bool musr_rge(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  (void)accepted([&] { (void)musr::read_rge_profiles(f.path()); });
  (void)accepted([&] { (void)musr::bmw::pippard_function(f.path()); });  // nonlocal_startup.xml
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const bool startup = accepted([&] { (void)musr::parse_rge_startup(text, "fuzz.xml"); });
  const bool rge = accepted([&] { (void)musr::parse_rge(text, 1000, "fuzz.rge"); });
  const bool trim = accepted([&] { (void)musr::bmw::parse_trim_sp_profile(text, 1.0, "fuzz.rge"); });
  const bool bmw = accepted([&] { (void)musr::bmw::parse_bmw_startup(text, "BMW_startup.xml"); });
  return startup || rge || trim || bmw;  // a valid input is one of the texts
}

// μSR ROOT (MusrRoot and LEM layouts).
inline bool musr_root(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)musr::read_root_run(f.path()); });
}

// μSR NeXus: libhdf5/libhdf4 in the isolated child, one fork per input (slow, but the path a
// user's file takes).
inline bool musr_nexus(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)musr::read_nexus(f.path()); });
}

// Interfile: a header, a line "--data--", then the data file's bytes; the header's first line
// is followed by a "name of data file" pointing at the second part (seeds carry none of their
// own). The volume reader, read_image_volume and read_image_on_grid through a link named .hv
// (they choose the format by extension), then the series reader.
inline constexpr std::string_view kInterfileSplit = "\n--data--\n";
inline bool interfile(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = all.find(kInterfileSplit);
  const std::string_view head = all.substr(0, cut);
  const std::string_view body = cut == std::string_view::npos ? std::string_view{} : all.substr(cut + kInterfileSplit.size());
  MemoryFile raw(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
  const std::size_t eol = std::min(head.find('\n'), head.size());
  const std::string header = std::string(head.substr(0, eol)) + "\nname of data file := " + raw.path().string() +
                             "\n" + std::string(head.substr(eol));
  MemoryFile hv(reinterpret_cast<const std::uint8_t*>(header.data()), header.size());
  (void)accepted([&] {
    NiftiMeta meta;
    (void)read_interfile(hv.path(), meta);
  });
  struct LinkDir {  // one folder per process, removed at its end
    std::filesystem::path d = std::filesystem::temp_directory_path() / ("tomo-fuzz-interfile-" + std::to_string(::getpid()));
    LinkDir() { std::filesystem::create_directories(d); }
    ~LinkDir() {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  };
  static const LinkDir links;
  const std::filesystem::path link = links.d / "image.hv";
  std::filesystem::remove(link);
  std::filesystem::create_symlink(hv.path(), link);
  (void)accepted([&] { (void)read_image_on_grid(link, Grid3{{2, 2, 2}, {1, 1, 1}, {0, 0, 0}}, GridFit::trilinear, "fuzz"); });
  (void)accepted([&] { (void)read_image_volume(link); });
  return accepted([&] { (void)read_interfile_series(hv.path()); });  // accepts all the volume reader does, and series
}

}  // namespace tomo::fuzz
