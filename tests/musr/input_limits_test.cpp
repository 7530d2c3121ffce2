// The musr readers' input gate and bounds: a PSI-BIN or msr path that is a folder, FIFO or an
// oversized file is refused by name before a byte is read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "compute/core/error.hpp"
#include "compute/musr/fit_setup.hpp"
#include "compute/musr/msr.hpp"
#include "compute/musr/psi_bin.hpp"
#include "tests/support/temp_dir.hpp"

namespace tomo::musr {
namespace {

std::string refusal(const auto& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

PsiBinFile small() {
  PsiBinFile f;
  f.bin_width_us = 0.01;
  f.histograms = {std::vector<std::int32_t>(300, 50), std::vector<std::int32_t>(300, 60)};
  return f;
}

TEST(MusrInputLimits, PsiBinFolderFifoAndHugeFilesAreRefusedBeforeReading) {
  test::TempDir tmp("musr-gate");
  std::filesystem::create_directory(tmp.dir / "dir.bin");
  EXPECT_NE(refusal([&] { read_psi_bin(tmp.dir / "dir.bin"); }).find("is a folder"), std::string::npos);
  ASSERT_EQ(mkfifo((tmp.dir / "fifo.bin").c_str(), 0600), 0);
  EXPECT_NE(refusal([&] { read_psi_bin(tmp.dir / "fifo.bin"); }).find("not a regular file"), std::string::npos);
  // A valid file padded (sparsely) past the hard cap.
  write_psi_bin(tmp.dir / "padded.bin", small());
  std::filesystem::resize_file(tmp.dir / "padded.bin", kPsiBinMaxBytes + 1);
  const auto msg = refusal([&] { read_psi_bin(tmp.dir / "padded.bin"); });
  EXPECT_NE(msg.find("PSI-BIN data '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("larger than the 1.0 GiB"), std::string::npos) << msg;
  // Padding under the cap is not read: the histograms come back as written.
  write_psi_bin(tmp.dir / "pad.bin", small());
  std::filesystem::resize_file(tmp.dir / "pad.bin", 64 << 20);
  EXPECT_EQ(read_psi_bin(tmp.dir / "pad.bin").histograms, small().histograms);
}

TEST(MusrInputLimits, MsrFolderFifoAndHugeFilesAreRefusedBeforeReading) {
  test::TempDir tmp("musr-gate");
  std::filesystem::create_directory(tmp.dir / "dir.msr");
  EXPECT_NE(refusal([&] { read_msr(tmp.dir / "dir.msr"); }).find("is a folder"), std::string::npos);
  ASSERT_EQ(mkfifo((tmp.dir / "fifo.msr").c_str(), 0600), 0);
  EXPECT_NE(refusal([&] { read_msr(tmp.dir / "fifo.msr"); }).find("not a regular file"), std::string::npos);
  { std::ofstream(tmp.dir / "big.msr") << "title\n"; }
  std::filesystem::resize_file(tmp.dir / "big.msr", kMsrMaxBytes + 1);
  const auto msg = refusal([&] { read_msr(tmp.dir / "big.msr"); });
  EXPECT_NE(msg.find("msr file '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("64.0 MiB is larger than the 64.0 MiB"), std::string::npos) << msg;
}

TEST(MusrInputLimits, NegativeCountsAreRefusedNamingHistogramAndBin) {
  test::TempDir tmp("musr-gate");
  PsiBinFile f = small();
  f.histograms[1][17] = -3;
  write_psi_bin(tmp.dir / "neg.bin", f);
  EXPECT_NE(refusal([&] { read_psi_bin(tmp.dir / "neg.bin"); }).find("histogram 2 bin 17 has a negative count (-3)"),
            std::string::npos);
}

TEST(MusrInputLimits, AllZeroHistogramIsRefusedNamingRunAndHistogram) {
  MsrFile m = parse_msr("title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n"
                              "RUN f X TEST PSI-BIN\nfittype 0\nnorm 1\nbackgr.fix 0.5\nforward 2\ndata 3 15\nt0 2\nCOMMANDS\nMIGRAD\n",
                              "z.msr");
  m.path = "z.msr";
  PsiBinFile f = small();
  f.histograms[1].assign(300, 0);
  const auto msg = refusal([&] { prepare_fit(m, [&](const MsrRun&) { return f; }); });
  EXPECT_NE(msg.find("z.msr:7: RUN f: histogram 2 has no counts"), std::string::npos) << msg;
  f.histograms[1][5] = 1;  // one count is data
  EXPECT_EQ(refusal([&] { prepare_fit(m, [&](const MsrRun&) { return f; }); }), "(accepted)");
}

TEST(MusrInputLimits, QuotedMsrTextIsShortenedAndEscaped) {
  const std::string head = "title\nFITPARAMETER\n 1 N0 10 1\nTHEORY\nasymmetry 1\nRUN f X TEST PSI-BIN\nfittype 0\nnorm 1\nforward 1\n";
  const auto huge = refusal([&] { parse_msr(head + "packing " + std::string(300, '7') + "\n", "q.msr"); });
  EXPECT_EQ(huge.rfind("q.msr:10: ", 0), 0u) << huge;
  EXPECT_NE(huge.find("'" + std::string(40, '7') + "…'"), std::string::npos) << huge;
  EXPECT_LT(huge.size(), 160u) << huge;
  const auto esc = refusal([&] { parse_msr(head + "\x1b[31mred 1\n", "q.msr"); });
  EXPECT_EQ(esc.find('\x1b'), std::string::npos) << "a raw ESC reaches the terminal";
  EXPECT_NE(esc.find("'\\x1b[31mred'"), std::string::npos) << esc;
}

}  // namespace
}  // namespace tomo::musr
