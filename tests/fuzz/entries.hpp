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
#include "compute/fdk/rabbitct_file.hpp"
#include "compute/glpet/scene_model.hpp"
#include "compute/io/nifti.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/psi_bin.hpp"
#include "compute/strip/config.hpp"
#include "compute/strip/event_io.hpp"

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
    // voxelising ones would need the memory estimate of issue 11 first).
    const std::string problem = s.get<std::string>("problem", "");
    if (problem == "strip") (void)strip::StripConfig::from_scene(s);
    if (problem == "glpet") (void)glpet::read_scanner(s);
    if (problem == "fdk") (void)fdk::CArmGeometry::from_scene(s, "fdk.geometry.");
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

inline bool nifti(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)read_nifti(f.path()); });
}

inline bool msr(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  return accepted([&] { (void)musr::parse_msr(text, "<fuzz>"); });
}

inline bool psibin(const std::uint8_t* data, std::size_t size) {
  MemoryFile f(data, size);
  return accepted([&] { (void)musr::read_psi_bin(f.path()); });
}

}  // namespace tomo::fuzz
