// Shared pieces of the libFitPofB London tests (trim_sp_data_test, london_field_distribution_test,
// london_hs_test): the example's BMWlibs folder, its 22 keV profile, a temporary startup folder.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "compute/core/error.hpp"
#include "compute/io/input_file.hpp"
#include "compute/musr/bmw/trim_sp_data.hpp"

namespace tomo::musr::test {

inline const std::filesystem::path kBmwDir = std::filesystem::path(TOMO_SOURCE_DIR) / "tests/musr/musrfit/BMWlibs";

inline bmw::TrimSpProfile profile22() {
  const auto file = kBmwDir / "profiles/TestProfile-22_0.rge";
  return bmw::parse_trim_sp_profile(io::input_file_bytes(file, 1 << 20, "rge"), 22.0, file.string());
}

// The message of the InputError `f` throws, or "no error".
inline std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A folder with a BMW_startup.xml of the given body and files beside it (removed with it).
struct BmwFolder {
  std::filesystem::path dir;
  explicit BmwFolder(const std::string& body) {
    dir = std::filesystem::temp_directory_path() /
          ("tomo_bmw_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "BMW_startup.xml") << "<?xml version=\"1.0\"?>\n<BMW>\n" << body << "</BMW>\n";
  }
  void file(const std::string& name, const std::string& text) const { std::ofstream(dir / name) << text; }
  ~BmwFolder() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

}  // namespace tomo::musr::test
