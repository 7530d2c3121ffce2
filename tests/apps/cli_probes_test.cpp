// Issue 11's probes of bad input, re-run as a new user would type them: each must end with one
// clear line naming what is wrong, the documented exit status (2 bad input), and nothing left
// behind in the folder it ran in (no output, no staging folder).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "tests/apps/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

struct Probe {
  const char* args;      // after `tomoraster -q --no-progress`, run inside the probe folder
  int status;            // documented exit status
  const char* message;   // a part of the one line it prints
};

// Files the probes name, made fresh in the probe folder.
void make_inputs(const fs::path& d) {
  fs::create_directory(d / "a-folder");
  fs::create_directory(d / "existing-out");
  std::ofstream(d / "a-file.txt") << "x";
  std::ofstream(d / "malformed.toml") << "problem = \n[strip\n";
  std::ofstream(d / "nan.toml") << "problem = \"strip\"\n[strip]\nR = nan\n";
  std::ofstream(d / "far.toml") << "problem = \"strip\"\n[strip]\nevents = 1000\n[[strip.phantom]]\n"
                                   "x = 100000.0\ny = 0.0\na = 3.0\nb = 6.0\nphi = 0.0\nrho = 1.0\n";
  std::ofstream(d / "garbage.rct", std::ios::binary) << std::string(100, '\x07');
  std::ofstream(d / "no-newline.txt") << std::string(100000, '7');
  const std::string msr_head = "title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n";
  std::ofstream(d / "bad.msr") << "title\nFITPARAMETER\n 1 N0 1O 1\n";
  std::ofstream(d / "nodata.msr") << msr_head << "RUN missing X PSI PSI-BIN\nnorm 1\nforward 1\nbackgr.fix 0\n";
  std::ofstream(d / "garbage.msr") << msr_head << "RUN garbage X PSI PSI-BIN\nnorm 1\nforward 1\nbackgr.fix 0\n";
  std::ofstream(d / "garbage.bin", std::ios::binary) << std::string(2000, '\x07');
}

const Probe kProbes[] = {
    {"crosscheck strip_default.toml --report a-file.txt", 2, "exists; use --force"},
    {"crosscheck strip_default.toml --report no-dir/report.json", 2, "cannot write in 'no-dir'"},
    {"crosscheck strip_default.toml --report a-folder", 2, "is a directory"},
    {"run no-such-scene.toml", 2, "no-such-scene.toml: scene file not found"},
    {"run sub/default.toml", 2, "sub/default.toml: scene file not found"},
    {"run a-folder", 2, "is a directory, not a scene file"},
    {"run malformed.toml", 2, "malformed scene"},
    {"run nan.toml", 2, "must be finite"},
    {"run far.toml -o out", 2, "outside the strips"},
    {"runn strip_default.toml", 2, "unknown command 'runn'"},
    {"run --bogus", 2, "--bogus"},
    {"run strip_default.toml --backend nosuch -o out", 2, "unknown backend 'nosuch'"},
    {"run strip_default.toml --set 'strip.phantom[x].rho=0.5' -o out", 2, "is not a whole number"},
    {"run strip_default.toml --set 'strip.phantom[-1].rho=0.5' -o out", 2, "is not a whole number"},
    {"run strip_default.toml --set strip=5 -o out", 2, "is a section of the scene"},
    {"run strip_default.toml --set strip.iterations=1000000000000 -o out", 2, "from -2147483648 to 2147483647"},
    {"run strip_default.toml --set strip.events_file=/dev/zero -o out", 2, "is not a regular file"},
    {"run strip_default.toml --set strip.events_file=no-newline.txt -o out", 2, "longer than 1024 bytes"},
    {"run strip_default.toml --set strip.events_file=missing.lm -o out", 2, "strip.events_file"},
    {"run default.toml --set glpet.mc.histories=9223372036854775807 -o out", 2, "must be in [1, 4e9]"},
    {"run default.toml --set glpet.mc.histories=1 --set glpet.voxels=[8,8,8] -o out", 2, "none of the 1 simulated"},
    {"run fdk_default.toml --set fdk.input=garbage.rct -o out", 2, "garbage.rct"},
    {"run fdk_default.toml --set fdk.input=missing.rct -o out", 2, "fdk.input"},
    {"run strip_default.toml -o a-file.txt", 2, "exists and is not a directory"},
    {"run strip_default.toml -o existing-out", 2, "exists; use --force"},
    {"run strip_default.toml -o a-file.txt/out", 2, "a-file.txt"},
    {"run default.toml --set glpet.voxels=[2048,2048,2048] -o out", 2, "of host memory (glpet.voxels = [2048, 2048, 2048]"},
    {"run default.toml --set 'glpet.modules[0].detectors=[512,512]' --set 'glpet.modules[1].detectors=[512,512]' -o out",
     2, "glpet.modules[].detectors = 512x512"},
    // Sizes beyond any machine's memory (the GPU machine has 128 GiB), so the probe refuses everywhere.
    {"crosscheck default.toml --set glpet.voxels=[8192,8192,8192]", 2, "of host memory (glpet.voxels"},
    {"run fdk_default.toml --set fdk.L=4096 -o out", 2, "of host memory (fdk.L = 4096"},
    {"crosscheck fdk_default.toml --set fdk.crosscheck.projections=100000 --set fdk.crosscheck.detector_rows=65536",
     2, "reduce fdk.crosscheck.projections"},
    {"run strip_default.toml --set strip.events=17179869184 -o out", 2, "of host memory (strip.events = 17179869184"},
    {"crosscheck strip_default.toml --set strip.events=17179869184", 2, "of host memory (strip.events"},
    {"crosscheck no-such-scene.toml", 2, "scene file not found"},
    {"fit no-such.msr", 2, "msr file 'no-such.msr' does not exist"},
    {"fit bad.msr -o out", 2, "bad.msr:3: value: '1O' is not a finite number"},
    {"fit nodata.msr -o out", 2, "data file 'missing.bin' not found"},
    {"fit garbage.msr -o out", 2, "does not start with \"1N\""},
    {"fit garbage.msr --backend nosuch -o out", 2, "unknown backend 'nosuch'"},
    {"run musr_default.toml --set musr.bins=10 -o out", 2, "musr.bins"},
    {"run musr_default.toml --set musr.msr=missing.msr -o out", 2, "musr.msr"},
};

std::set<std::string> listing(const fs::path& d) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(d)) out.insert(fs::relative(e.path(), d).string());
  return out;
}

TEST(CliProbes, BadInputGetsOneLineTheDocumentedStatusAndLeavesNothing) {
  tomo::test::TempDir t;
  make_inputs(t.dir);
  const auto before = listing(t.dir);
  for (const Probe& p : kProbes) {
    const auto r = tomo::test::run_cli("-q " + std::string(p.args) + " </dev/null", t.dir);
    EXPECT_EQ(r.status, p.status) << p.args << "\n" << r.output;
    EXPECT_EQ(tomo::test::count_lines(r.output), 1) << p.args << "\n" << r.output;
    EXPECT_NE(r.output.find("tomoraster: error: "), std::string::npos) << p.args << "\n" << r.output;
    EXPECT_NE(r.output.find(p.message), std::string::npos) << p.args << "\n" << r.output;
    EXPECT_EQ(listing(t.dir), before) << p.args << " left something behind";
  }
}

}  // namespace
