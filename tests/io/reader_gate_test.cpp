// Every reader of a user's file goes through the common input gate: a folder, a device or a
// FIFO given as a data file is refused with one InputError naming the file and what it was
// taken for, before a byte is read (a folder used to open as an empty stream or end in a
// libstdc++ message; /dev/zero and a FIFO never ended).
#include <gtest/gtest.h>

#include "tests/support/input_errors.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/fuzz/entries.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo {
namespace {

using test::message_of;

using Read = std::function<void(const std::filesystem::path&)>;

// (what the message calls the file, the reader) for every reader of a data file.
std::vector<std::pair<std::string, Read>> readers() {
  return {
      {"npy file", [](const auto& p) { (void)read_npy(p); }},
      {"NIfTI file", [](const auto& p) { (void)read_nifti(p); }},
      {"npy file", [](const auto& p) { (void)oat::read_npy_data(p, p); }},
      {"projection stack", [](const auto& p) { (void)fdk::read_projection_stack(p); }},
      {"projection-matrix file", [](const auto& p) { (void)fdk::read_matrix_file(p); }},
      {"RabbitCT file", [](const auto& p) { (void)fdk::read_rabbitct(p); }},
      {"RabbitCT reference volume", [](const auto& p) { (void)fdk::read_reference_volume(p, 4); }},
      {"coincidence list", [](const auto& p) { (void)safir::read_clm_safir(p, safir::Scanner{}); }},
      {"crystal map", [](const auto& p) { safir::check_crystal_map(p, safir::Scanner{}); }},
      {"CASToR header", [](const auto& p) { (void)safir::read_castor(p, safir::Scanner{}); }},
      {"counts file", [](const auto& p) { (void)glpet::read_counts(p, fuzz::glpet_scanner()); }},
      {"list-mode file", [](const auto& p) { (void)glpet::read_listmode(p, fuzz::glpet_scanner()); }},
      {"list-mode file", [](const auto& p) { (void)strip::read_events(p); }},
      {"list-mode file", [](const auto& p) { (void)strip::read_events_binary(p); }},
      {"list-mode text file", [](const auto& p) { (void)strip::read_events_text(p); }},
  };
}

TEST(ReaderGate, AFolderIsRefusedByEveryReader) {
  test::TempDir dir;
  const auto folder = dir.dir / "data";
  std::filesystem::create_directory(folder);
  for (const auto& [what, read] : readers()) {
    const std::string msg = message_of([&] { read(folder); });
    if (what == "projection stack")  // a folder of TIFF files is a stack; this one holds none
      EXPECT_EQ(msg, folder.string() + ": a folder of projections holds no .tif or .tiff file");
    else
      EXPECT_EQ(msg, what + " '" + folder.string() + "': is a folder, not a file") << what;
  }
}

TEST(ReaderGate, DevicesAndFifosAreRefusedByEveryReader) {
  test::TempDir dir;
  const auto fifo = dir.dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::filesystem::path p : {std::filesystem::path("/dev/zero"), fifo})
    for (const auto& [what, read] : readers()) {
      const std::string msg = message_of([&] { read(p); });
      EXPECT_EQ(msg, what + " '" + p.string() +
                         "': is not a regular file (a device, FIFO or socket cannot be read as one)")
          << what;
    }
}

TEST(ReaderGate, AMissingFileIsNamed) {
  for (const auto& [what, read] : readers()) {
    const std::string msg = message_of([&] { read("/nonexistent/data.bin"); });
    EXPECT_EQ(msg, what + " '/nonexistent/data.bin': no such file") << what;
  }
}

}  // namespace
}  // namespace tomo
