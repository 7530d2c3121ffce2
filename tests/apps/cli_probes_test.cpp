// Probes of bad input, run as a new user would type them: each must end with one
// clear line naming what is wrong, the documented exit status (2 bad input), and nothing left
// behind in the folder it ran in (no output, no staging folder).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <set>
#include <vector>

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
  ::mkfifo((d / "a-fifo").c_str(), 0600);
  fs::create_directory(d / "existing-out");
  std::ofstream(d / "a-file.txt") << "x";
  std::ofstream(d / "malformed.toml") << "problem = \n[strip\n";
  std::ofstream(d / "nan.toml") << "problem = \"strip\"\n[strip]\nR = nan\n";
  std::ofstream(d / "far.toml") << "problem = \"strip\"\n[strip]\nevents = 1000\n[[strip.phantom]]\n"
                                   "x = 100000.0\ny = 0.0\na = 3.0\nb = 6.0\nphi = 0.0\nrho = 1.0\n";
  std::ofstream(d / "garbage.rct", std::ios::binary) << std::string(100, '\x07');
  std::ofstream(d / "no-newline.txt") << std::string(100000, '7');
  std::ofstream(d / "huge.toml") << "problem = \"strip\"\n";
  fs::resize_file(d / "huge.toml", 17u << 20);  // sparse
  std::ofstream(d / "inf.txt") << "1 2 3\n4 5 1e39\n";
  // glpet data for the default scene's ring (18 pairs of 8 x 8 detectors: 73728 LORs).
  auto npy = [&](const char* name, std::size_t n, std::size_t at, float value) {
    std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
    h.append(64 - (10 + h.size() + 1) % 64, ' ').push_back('\n');
    std::vector<float> v(n, 1.0f);
    v[at] = value;
    std::ofstream f(d / name, std::ios::binary);
    f << "\x93NUMPY" << char(1) << char(0) << char(h.size() & 0xff) << char(h.size() >> 8) << h;
    f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(n * sizeof(float)));
  };
  npy("nan-counts.npy", 73728, 5, std::nanf(""));
  npy("neg-counts.npy", 73728, 4096 + 9, -1.0f);
  npy("short-counts.npy", 10, 0, 1.0f);
  std::ofstream(d / "bad-module.txt") << "0 0 6 0\n12 0 0 0\n";
  std::ofstream(d / "cut.lm", std::ios::binary) << std::string("TGLM\x01\0\0\0\x0c\0\0\0\0\0\0\0\x05\0\0\0\0\0\0\0", 24);
  std::ofstream(d / "bad.cdh") << "Data mode: list-mode\nData type: PET\nNumber of events: 5\nData filename: missing.cdf\n";
  // fdk's raw stacks: .npy (version 1 header) of 2x3x4 values of one dtype.
  const auto npy3 = [&](const char* name, const std::string& descr, const std::string& payload) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 3, 4), }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ').push_back('\n');  // header to a multiple of 64
    std::string head("\x93NUMPY\x01\x00", 8);
    head.push_back(static_cast<char>(dict.size()));
    head.push_back('\0');
    std::ofstream(d / name, std::ios::binary) << head << dict << payload;
  };
  const float half = 0.5f, nan = std::numeric_limits<float>::quiet_NaN();
  std::string good, with_nan;
  for (int i = 0; i < 24; ++i) {
    good.append(reinterpret_cast<const char*>(&half), 4);
    with_nan.append(reinterpret_cast<const char*>(i == 17 ? &nan : &half), 4);
  }
  npy3("stack.npy", "<f4", good);
  npy3("nan-stack.npy", "<f4", with_nan);
  npy3("f8-stack.npy", "<f8", good + good);
  std::ofstream(d / "three.txt") << "1 0 0 0  0 1 0 0  0 0 1 500\n1 0 0 0  0 1 0 0  0 0 1 500\n"
                                    "1 0 0 0  0 1 0 0  0 0 1 500\n";
  const std::uint32_t v2[6] = {2, 6, 4, 3, 0, 0};  // RabbitCT version-2 header, no projections
  std::ofstream(d / "v2-short.rct", std::ios::binary).write(reinterpret_cast<const char*>(v2), sizeof v2);
  const std::string msr_head = "title\nFITPARAMETER\n 1 N0 10 1\n 2 A 0.2 0.01\nTHEORY\nasymmetry 2\n";
  std::ofstream(d / "bad.msr") << "title\nFITPARAMETER\n 1 N0 1O 1\n";
  std::ofstream(d / "nodata.msr") << msr_head << "RUN missing X PSI PSI-BIN\nnorm 1\nforward 1\nbackgr.fix 0\n";
  std::ofstream(d / "garbage.msr") << msr_head << "RUN garbage X PSI PSI-BIN\nnorm 1\nforward 1\nbackgr.fix 0\n";
  std::ofstream(d / "fittype6.msr") << msr_head << "RUN garbage X PSI PSI-BIN\nfittype 6\nforward 1\n";
  std::ofstream(d / "rrf_units.msr") << msr_head << "GLOBAL\nrrf_freq 7.15 G\nrrf_packing 20\nRUN garbage X PSI PSI-BIN\nfittype 1\n";
  std::ofstream(d / "rrf_missing.msr") << msr_head << "RUN garbage X PSI PSI-BIN\nfittype 1\nforward 1\nnorm 1\nbackgr.fit 2\n";
  std::ofstream(d / "xy_nocolumns.msr") << msr_head << "RUN xy.dat X PSI ASCII\nfittype 8\nfit 0 1\n";
  std::ofstream(d / "xy.dat") << "header\nTITLE: t\ndata\n1 1 0.1\n1.5 abc 0.1\n";
  std::ofstream(d / "xy_badvalue.msr") << msr_head << "RUN xy.dat X PSI ASCII\nfittype 8\nxy-data 1 2\nfit 0 2\n";
  std::ofstream(d / "garbage.bin", std::ios::binary) << std::string(2000, '\x07');
  std::ofstream(d / "damaged.msr") << msr_head << "RUN damaged X PSI PSI-MDU\nnorm 1\nforward 1\nbackgr.fix 0\n";
  std::ofstream(d / "damaged.mdu", std::ios::binary) << "ZZ" << std::string(2000, '\0');
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
    {"run strip_default.toml --set 'strip.normalisation=\"neg-counts.npy\"' -o out", 2,
     "strip.normalisation 'neg-counts.npy': value 4105 is -1; it must be >= 0"},
    {"run default.toml --set glpet.mc.histories=9223372036854775807 -o out", 2, "must be in [1, 4e9]"},
    {"--gpus two run -o out", 2, "is not all, a count, or a comma-separated list"},
    {"--gpus 0,0 run --backend cpu -o out", 2, "named twice"},
    {"--gpus 2 run musr_default.toml -o out", 2, "problem musr runs on one device"},
    {"--gpus 2 run strip_default.toml --backend cpu --set 'strip.attenuation_map=\"a-file.txt\"' -o out", 2,
     "strip.attenuation_map runs on one device"},
    // One rule for --gpus in every command: a value that cannot be honoured is bad input.
    {"--gpus '' run strip_default.toml -o out", 2, "--gpus: empty value"},
    {"--gpus '' info", 2, "--gpus: empty value"},
    {"--gpus 1,x crosscheck strip_default.toml", 2, "is not all, a count, or a comma-separated list"},
    {"--gpus 2 crosscheck strip_default.toml", 2, "--gpus: crosscheck runs on one device"},
    {"--gpus 2 run safir_default.toml --backend cpu --set safir.halve_events=true -o out", 2,
     "safir.halve_events runs on one device"},
    {"run default.toml --set glpet.mc.histories=1 --set glpet.voxels=[8,8,8] -o out", 2, "none of the 1 simulated"},
    {"run fdk_default.toml --set fdk.input=garbage.rct -o out", 2, "garbage.rct"},
    {"run fdk_default.toml --set fdk.input=missing.rct -o out", 2, "fdk.input"},
    {"run strip_default.toml -o a-file.txt", 2, "exists and is not a directory"},
    {"run strip_default.toml -o existing-out", 2, "exists; use --force"},
    {"run strip_default.toml -o a-file.txt/out", 2, "a-file.txt"},
    {"run default.toml --set glpet.voxels=[2048,2048,2048] -o out", 2, "of host memory (glpet.voxels = [2048, 2048, 2048]"},
    {"run glpet_small.toml --set 'glpet.modules[0].detectors=[512,512]' --set 'glpet.modules[1].detectors=[512,512]' -o out",
     2, "glpet.modules[].detectors = 512x512"},
    // Sizes beyond any machine's memory (the GPU machine has 128 GiB), so the probe refuses everywhere.
    {"crosscheck default.toml --set glpet.voxels=[2048,2048,2048]", 2, "of host memory (glpet.voxels"},
    {"run fdk_default.toml --set fdk.L=4096 -o out", 2, "of host memory (fdk.L = 4096"},
    {"crosscheck fdk_default.toml --set fdk.crosscheck.projections=100000 --set fdk.crosscheck.detector_rows=65536",
     2, "reduce fdk.crosscheck.projections"},
    {"run strip_default.toml --set strip.events=17179869184 -o out", 2, "of host memory (strip.events = 17179869184"},
    {"crosscheck strip_default.toml --set strip.events=17179869184", 2, "of host memory (strip.events"},
    {"crosscheck no-such-scene.toml", 2, "scene file not found"},
    {"run /dev/zero -o out", 2, "/dev/zero: is not a regular file"},
    {"run huge.toml -o out", 2, "too large for a scene"},
    {"run strip_default.toml --set strip.events_file=inf.txt -o out", 2, "event 1 (line 2) has dl = inf"},
    {"run default.toml --set glpet.data.counts=nan-counts.npy -o out", 2, "nan-counts.npy"},
    {"run default.toml --set glpet.data.counts=neg-counts.npy -o out", 2,
     "neg-counts.npy: negative count -1 at pair 1 (p, q, r, s) = (1, 0, 1, 0)"},
    {"run default.toml --set glpet.data.counts=short-counts.npy -o out", 2, "(10,) do not fit the scanner"},
    {"run default.toml --set glpet.data.counts=missing.npy -o out", 2, "glpet.data.counts"},
    {"run default.toml --set glpet.data.listmode=bad-module.txt -o out", 2, "bad-module.txt:2: module 12 is not in"},
    {"run default.toml --set glpet.data.listmode=cut.lm -o out", 2, "does not match the header's 5 events"},
    {"run default.toml --set glpet.data.listmode=a-file.txt -o out", 2, "expected four whole numbers"},
    {"run default.toml --set glpet.data.listmode=cut.lm --set glpet.data.counts=short-counts.npy -o out", 2,
     "both given"},
    {"run default.toml --set 'glpet.data.write=[\"../x.npy\"]' -o out", 2, "must be a file name"},
    {"run default.toml --set glpet.ring.radius_mm=30.0 -o out", 2, "overlap"},
    {"run default.toml --set glpet.ring.detectors=[512,512] --set glpet.ring.radius_mm=5000.0 -o out", 2,
     "glpet.ring.detectors = 512x512 in 18 pairs"},
    {"run safir_default.toml --set safir.events_file=garbage.rct -o out", 2, "not a SAFIR coincidence list"},
    {"run safir_default.toml --set safir.events_file=bad.cdh -o out", 2, "CASToR data file of bad.cdh 'missing.cdf': no such file"},
    {"run safir_default.toml --set safir.crystal_map=a-file.txt -o out", 2, "expected 'ring det [layer] x y z'"},
    {"run safir_default.toml --set safir.image=[90,90] -o out", 2, "must hold three voxel counts"},
    {"run safir_default.toml --set 'safir.simulator=\"gpu\"' -o out", 2, "key 'safir.simulator' (from --set) must be one of auto, host, cuda"},
    {"run safir_default.toml --set safir.rings=4 --set safir.phantom.derenzo_z_mm=60 -o out", 2,
     "the scanner (almost) does not see the phantom's sources"},
    {"crosscheck safir_default.toml --set safir.analysis.r_out_mm=0.5", 2, "must exceed safir.analysis.r_in_mm"},
    {"run fdk_default.toml --set fdk.raw.projections=f8-stack.npy -o out", 2, "or uint16 (<u2), not <f8"},
    {"run fdk_default.toml --set fdk.raw.projections=nan-stack.npy -o out", 2,
     "projection 1, row 1, column 1 is not finite"},
    {"run fdk_default.toml --set fdk.raw.projections=stack.npy --set fdk.raw.matrices=three.txt -o out", 2,
     "has 3 matrices"},
    {"run fdk_default.toml --set fdk.raw.projections=stack.npy --set fdk.raw.matrices=a-file.txt -o out", 2,
     "line 1: 'x' is not a number"},
    {"run fdk_default.toml --set fdk.raw.projections=stack.npy -o out", 2, "describes 124 of 312x240"},
    {"run fdk_default.toml --set fdk.raw.projections=stack.npy --set fdk.raw.dark=stack.npy -o out", 2,
     "needs fdk.raw.flat"},
    {"run strip_default.toml --set output_format=png -o out", 2, "has 'png'"},
    {"run fdk_default.toml --set fdk.reference_volume=a-file.txt -o out", 2, "has 4194304 bytes, the file has 1"},
    {"run fdk_default.toml --set fdk.input=v2-short.rct -o out", 2, "its version-2 header"},
    // oat: its data readers and keys (the HDF5 rows need a build with HDF5, as CI and the GPU pack have).
    {"run oat_default.toml --set oat.data.source=npy -o out", 2, "needs oat.data.pressure"},
    {"run oat_default.toml --set oat.data.source=npy --set oat.data.pressure=a-file.txt --set oat.data.positions=a-file.txt -o out",
     2, "a-file.txt"},
    {"run oat_default.toml --set oat.data.source=patato --set oat.data.file=a-file.txt -o out", 2, "not an HDF5 file"},
    {"run oat_default.toml --set oat.data.source=kwave --set oat.data.file=garbage.rct -o out", 2, "not an HDF5 file"},
    {"run oat_default.toml --set oat.data.source=kwave -o out", 2, "needs oat.data.file"},
    {"run oat_default.toml --set oat.eir.kind=file -o out", 2, "needs oat.eir.file"},
    {"run oat_default.toml --set 'oat.algorithms=[\"sart\"]' -o out", 2, "unknown algorithm 'sart'"},
    {"run oat_default.toml --set oat.grid=[4096,4096,4096] --set oat.voxel_mm=0.01 -o out", 2, "of host memory (oat.grid"},
    {"run oat_sph.toml --set oat.sph.aperture_mm=[1.0] -o out", 2, "oat.sph.aperture_mm"},
    {"run oat_sph.toml --set oat.sph.fft_length=8 -o out", 2, "FFT length 8 is shorter"},
    {"run oat_default.toml --set oat.fbp.read=nosuch -o out", 2, "'oat.fbp.read' (from --set) must be one of auto"},
    {"run oat_default.toml --backend gl-compute --set oat.model.reproducible=true -o out", 2,
     "oat.model.reproducible: gl-compute's H_intT adds floats"},
    {"fit no-such.msr", 2, "msr file 'no-such.msr' does not exist"},
    {"fit bad.msr -o out", 2, "bad.msr:3: value: '1O' is not a finite number"},
    {"fit nodata.msr -o out", 2, "data file 'missing.bin' not found"},
    {"fit garbage.msr -o out", 2, "does not start with \"1N\""},
    {"fit damaged.msr -o out", 2, "damaged.mdu': format id 'ZZ' is not M3, T4 or T5 (not a PSI-MDU file)"},
    {"fit garbage.msr --backend nosuch -o out", 2, "unknown backend 'nosuch'"},
    {"fit fittype6.msr -o out", 2, "fittype6.msr:8: fittype '6' is not supported"},
    {"fit rrf_units.msr -o out", 2, "rrf_units.msr:8: rrf_freq unit 'G' is not MHz, Mc or T"},
    {"fit rrf_missing.msr -o out", 2, "rrf_missing.msr:7: fittype 1 (RRF) needs rrf_freq and rrf_packing in the GLOBAL block"},
    {"fit xy_nocolumns.msr -o out", 2, "xy_nocolumns.msr:7: non-μSR RUN (fittype 8) needs xy-data <x column> <y column>"},
    {"fit xy_badvalue.msr -o out", 2, "xy.dat:5: y 'abc' is not a number"},
    {"run musr_default.toml --set musr.bins=10 -o out", 2, "musr.bins"},
    {"run musr_default.toml --set musr.msr=missing.msr -o out", 2, "musr.msr"},
    // A folder or FIFO named as an input file is said to be one, not "not found".
    {"run strip_default.toml --set strip.events_file=a-folder -o out", 2,
     "key 'strip.events_file' (from --set): file 'a-folder': is a folder, not a file"},
    {"run fdk_default.toml --set fdk.input=a-fifo -o out", 2, "file 'a-fifo': is not a regular file"},
    {"run a-fifo -o out", 2, "a-fifo: is not a regular file"},
    // A typo'd key is an error naming the nearest known key, not a default run.
    {"run strip_default.toml --set strip.iteratons=2 -o out", 2,
     "unknown key 'strip.iteratons' (did you mean 'strip.iterations'?)"},
    {"run demo.toml --set demo.grdi=8 -o out", 2, "unknown key 'demo.grdi'"},
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
