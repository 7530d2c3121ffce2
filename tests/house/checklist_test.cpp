// The problem skeleton (docs/developing.md, "The checklist"): first each check is shown a
// small made-up problem that is complete and then the same problem lacking one part, and must
// name that part; then every problem of the real tree must pass them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/house/checklist.hpp"

namespace tomo::house {
namespace {

// A complete problem "toy": one operator interface with a cpu and a cuda backend, and a reader
// with its fuzz target.
Tree toy_tree() {
  Tree t;
  t["compute/toy/config.hpp"] = "struct ToyConfig { static ToyConfig from_scene(const Scene& s); };\n";
  t["compute/toy/config.cpp"] = "ToyConfig ToyConfig::from_scene(const Scene& s) { return {}; }\n";
  t["compute/toy/memory.hpp"] = "MemoryEstimate estimate_memory(const ToyConfig& c);\n";
  t["compute/toy/memory.cpp"] = "MemoryEstimate estimate_memory(const ToyConfig& c) { return {}; }\n";
  t["compute/toy/projector.hpp"] =
      "class Projector {\n public:\n  virtual ~Projector() = default;\n"
      "  virtual std::string describe() const = 0;\n  virtual void synchronize() {}\n"
      "  virtual void forward(std::span<const float> x, std::span<float> y) = 0;\n};\n";
  t["compute/toy/cpu_projector.cpp"] =
      "const BackendRegistrar<Projector> kRegisterCpu({\"cpu\", 0, [] { return Availability{true, \"\"}; }});\n";
  t["cuda/toy/cuda_projector.cpp"] =
      "const BackendRegistrar<Projector> kRegisterCuda({\"cuda\", 3, [] { return cuda_available(); }});\n";
  t["compute/toy/data_io.hpp"] = "std::vector<float> read_counts(const std::filesystem::path& path, int n);\n";
  t["compute/toy/problem.cpp"] =
      "void run(RunContext& ctx) {\n"
      "  require_host_memory(estimate_memory(c), \"toy\");\n"
      "  write_preview(ctx.out.file(\"x.png\"), mip_panels(v), {\"activity\", \"a.u.\", \"MIPs\"});\n}\n"
      "int crosscheck(RunContext& ctx) {\n"
      "  CrosscheckTable table(\"toy\", \"\");\n"
      "  run_backends<Projector>(table, [&](const std::string& name) { table.run(name, \"\", compare); });\n"
      "  return table.finish(ctx.report);\n}\n"
      "const ProblemRegistrar kRegister({\"toy\", \"a toy\", run, crosscheck});\n";
  t["tests/toy/projector_contract.hpp"] = "class ToyProjectorContract : public tomo::test::BackendContract<Projector> {};\n";
  t["tests/toy/projector_contract_test.cpp"] = "TOMO_CONTRACT_INSTANTIATE(ToyProjectorContract, Projector);\n";
  t["tests/toy/projector_contract_gpu_test.cpp"] = "TOMO_CONTRACT_INSTANTIATE_GPU(ToyProjectorContract);\n";
  t["tests/fuzz/entries.hpp"] =
      "inline bool toy_counts(const std::uint8_t* data, std::size_t size) {\n"
      "  MemoryFile f(data, size);\n  return accepted([&] { (void)toy::read_counts(f.path(), 4); });\n}\n";
  t["tests/fuzz/toy_counts_fuzz.cpp"] =
      "extern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {\n"
      "  (void)tomo::fuzz::toy_counts(data, size);\n  return 0;\n}\n";
  t["tests/fuzz/regression_test.cpp"] = "const std::map<std::string, Entry> kTargets = {{\"toy_counts\", toy_counts}};\n";
  t["docs/toy.md"] = "# toy\n";
  return t;
}

// Removes the line that holds `needle`.
void erase_line(std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  ASSERT_NE(at, std::string::npos) << needle;
  const std::size_t begin = text.rfind('\n', at) + 1;  // npos + 1 == 0 on the first line
  const std::size_t end = text.find('\n', at);
  text.erase(begin, end == std::string::npos ? std::string::npos : end - begin + 1);
}

bool mentions(const std::vector<std::string>& found, const std::string& what) {
  return std::any_of(found.begin(), found.end(), [&](const std::string& s) { return s.find(what) != std::string::npos; });
}

TEST(Checklist, TheToyProblemIsComplete) {
  const Tree t = toy_tree();
  EXPECT_EQ(problems_of(t), std::vector<std::string>{"toy"});
  const auto found = check_problem(t, "toy");
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(Checklist, EachMissingFileIsNamed) {
  for (const std::string f : {"compute/toy/config.hpp", "compute/toy/config.cpp", "compute/toy/memory.hpp",
                              "compute/toy/memory.cpp", "compute/toy/problem.cpp", "docs/toy.md"}) {
    Tree t = toy_tree();
    t.erase(f);
    EXPECT_TRUE(mentions(check_files(t, "toy"), f + " is missing")) << f;
  }
}

TEST(Checklist, AProblemWithoutItsRegistrarIsFlagged) {
  Tree t = toy_tree();
  auto& text = t["compute/toy/problem.cpp"];
  text = text.substr(0, text.find("const ProblemRegistrar")) + "// const ProblemRegistrar kRegister(...) comes later\n";
  EXPECT_EQ(check_problem_registrar(t, "toy").size(), 1u);
}

TEST(Checklist, AnOperatorWithoutACpuBackendIsFlagged) {
  Tree t = toy_tree();
  t.erase("compute/toy/cpu_projector.cpp");
  EXPECT_TRUE(mentions(check_cpu_backend(t, "toy"), "operator Projector has no \"cpu\" backend"));
  t.erase("cuda/toy/cuda_projector.cpp");
  EXPECT_TRUE(mentions(check_cpu_backend(t, "toy"), "no backend registers itself"));
}

TEST(Checklist, AnInterfaceWithoutDescribeOrSynchronizeIsFlagged) {
  Tree t = toy_tree();
  auto& text = t["compute/toy/projector.hpp"];
  erase_line(text, "virtual void synchronize()");
  const auto found = check_interface_verbs(t, "toy");
  ASSERT_EQ(found.size(), 1u) << joined(found);
  EXPECT_TRUE(mentions(found, "does not declare synchronize()"));
  text.replace(text.find("describe"), 8, "backend_name");
  EXPECT_EQ(check_interface_verbs(t, "toy").size(), 2u);
  // A verb named only in a comment does not count.
  text.replace(text.find(" public:\n"), 9, " public:\n  // describe() and synchronize() one day\n");
  EXPECT_EQ(check_interface_verbs(t, "toy").size(), 2u);
  t.erase("compute/toy/projector.hpp");
  EXPECT_TRUE(mentions(check_interface_verbs(t, "toy"), "is not declared in compute/toy/*.hpp"));
}

TEST(Checklist, AnOperatorWithoutAContractSuiteIsFlagged) {
  Tree t = toy_tree();
  t.erase("tests/toy/projector_contract_gpu_test.cpp");
  EXPECT_TRUE(mentions(check_contract_suites(t, "toy"), "has no cuda instance"));
  t.erase("tests/toy/projector_contract_test.cpp");
  EXPECT_TRUE(mentions(check_contract_suites(t, "toy"), "no backend contract suite for Projector"));
}

TEST(Checklist, AProblemThatNeverChecksItsMemoryIsFlagged) {
  Tree t = toy_tree();
  auto& text = t["compute/toy/problem.cpp"];
  erase_line(text, "require_host_memory");
  EXPECT_TRUE(mentions(check_memory_estimate(t, "toy"), "calls require_host_memory"));
  // The call inside memory.cpp itself does not count: the run must refuse before it allocates.
  t["compute/toy/memory.cpp"] += "void check(const ToyConfig& c) { require_host_memory(estimate_memory(c), \"toy\"); }\n";
  EXPECT_TRUE(mentions(check_memory_estimate(t, "toy"), "calls require_host_memory"));
  t["compute/toy/memory.hpp"] = "double bytes_needed(const ToyConfig& c);\n";
  EXPECT_TRUE(mentions(check_memory_estimate(t, "toy"), "returning a MemoryEstimate"));
}

TEST(Checklist, APngWrittenOutsideThePreviewModuleIsFlagged) {
  Tree t = toy_tree();
  t["compute/toy/images.cpp"] = "void save(const Image2D& img) { write_png(\"a.png\", img, ColorMap::Gray); }\n";
  EXPECT_TRUE(mentions(check_previews(t, "toy"), "compute/toy/images.cpp writes PNG outside compute/io/preview"));
  t["compute/toy/images.cpp"] = "auto rgb = colorize(img, ColorMap::Hot);\n";
  EXPECT_TRUE(mentions(check_previews(t, "toy"), "images.cpp writes PNG outside"));
  // An RGB canvas the problem draws itself (a plot) goes through write_png_rgb.
  t["compute/toy/images.cpp"] = "void plot(const Canvas& c) { write_png_rgb(\"fit.png\", c.w, c.h, c.rgb); }\n";
  EXPECT_TRUE(check_previews(t, "toy").empty());
  auto& text = t["compute/toy/problem.cpp"];
  erase_line(text, "write_preview");
  t.erase("compute/toy/images.cpp");
  EXPECT_TRUE(mentions(check_previews(t, "toy"), "writes no preview"));
}

TEST(Checklist, ACrosscheckWithItsOwnLoopIsFlagged) {
  Tree t = toy_tree();
  auto& text = t["compute/toy/problem.cpp"];
  const std::size_t at = text.find("  run_backends");
  text.replace(at, text.find('\n', at) - at,
               "  for (const std::string& name : BackendRegistry<Projector>::instance().names()) {\n"
               "    if (name == \"cpu\") continue;\n    table.run(name, \"\", compare);\n  }");
  const auto found = check_crosscheck(t, "toy");
  EXPECT_TRUE(mentions(found, "does not go through run_backends")) << joined(found);
  EXPECT_TRUE(mentions(found, "loops over the registry's backends itself")) << joined(found);
}

TEST(Checklist, AHostDeviceMacroOfItsOwnIsFlagged) {
  Tree t = toy_tree();
  t["compute/toy/kernel_math.hpp"] = "#ifdef __CUDACC__\n#define TOMO_TOY_HD __host__ __device__\n#else\n#define TOMO_TOY_HD\n#endif\n";
  EXPECT_EQ(check_host_device_macro(t, "toy").size(), 1u);
  t["compute/toy/kernel_math.hpp"] = "#  define TOY_INLINE __host__ __device__ inline\n";
  EXPECT_TRUE(mentions(check_host_device_macro(t, "toy"), "TOY_INLINE"));
  t["compute/toy/kernel_math.hpp"] = "#include \"compute/core/host_device.hpp\"\nTOMO_HD inline float sq(float x) { return x * x; }\n";
  EXPECT_TRUE(check_host_device_macro(t, "toy").empty());
}

TEST(Checklist, AReaderWithoutAFuzzTargetIsFlagged) {
  Tree t = toy_tree();
  t["compute/toy/data_io.hpp"] += "std::vector<float> read_listmode(const std::filesystem::path& path);\n";
  EXPECT_TRUE(mentions(check_fuzz_targets(t, "toy"), "the reader read_listmode"));
  // An entry alone is not enough: a target must run it and the regression test replay it.
  t["tests/fuzz/entries.hpp"] +=
      "inline bool toy_listmode(const std::uint8_t* data, std::size_t size) {\n"
      "  MemoryFile f(data, size);\n  return accepted([&] { (void)toy::read_listmode(f.path()); });\n}\n";
  EXPECT_TRUE(mentions(check_fuzz_targets(t, "toy"), "the reader read_listmode"));
  t["tests/fuzz/toy_listmode_fuzz.cpp"] = "int f(const std::uint8_t* d, std::size_t n) { return tomo::fuzz::toy_listmode(d, n); }\n";
  EXPECT_TRUE(mentions(check_fuzz_targets(t, "toy"), "the reader read_listmode"));
  t["tests/fuzz/regression_test.cpp"] = "kTargets = {{\"toy_counts\", toy_counts}, {\"toy_listmode\", toy_listmode}};\n";
  EXPECT_TRUE(check_fuzz_targets(t, "toy").empty()) << joined(check_fuzz_targets(t, "toy"));
  // Functions that read from a Scene, not a file, are no readers of user files.
  t["compute/toy/config.hpp"] += "Ring read_ring(const Scene& scene);\n";
  EXPECT_TRUE(check_fuzz_targets(t, "toy").empty());
}

// The real tree: every problem has every part. A failure lists what its problem lacks.
class ChecklistOnTheTree : public ::testing::TestWithParam<std::string> {
 protected:
  static const Tree& tree() {
    static const Tree t = read_tree(TOMO_SOURCE_DIR);
    return t;
  }
};

TEST(Checklist, TheTreeHoldsTheKnownProblems) {
  const Tree t = read_tree(TOMO_SOURCE_DIR);
  ASSERT_GT(t.size(), 300u) << "source tree not found at " << TOMO_SOURCE_DIR;
  const auto found = problems_of(t);
  for (const std::string p : {"demo", "glpet", "strip", "fdk", "oat", "safir", "musr"})
    EXPECT_TRUE(std::find(found.begin(), found.end(), p) != found.end()) << p;
  // A new compute/<p>/ folder is a problem too: ChecklistOnTheTree below must then list it.
  EXPECT_EQ(found.size(), 7u) << "add the new problem to the instantiation below";
  const auto readers = readers_of(t);
  EXPECT_GE(readers.size(), 15u) << "readers not found: did the read_<what>(path) convention change?";
}

TEST_P(ChecklistOnTheTree, ProblemHasEveryPart) {
  const auto found = check_problem(tree(), GetParam());
  EXPECT_TRUE(found.empty()) << found.size() << " part(s) of the problem skeleton missing:\n" << joined(found);
}

TEST(Checklist, SharedReadersHaveFuzzTargets) {
  const Tree t = read_tree(TOMO_SOURCE_DIR);
  const auto found = check_fuzz_targets(t, "io");
  EXPECT_TRUE(found.empty()) << joined(found);
}

INSTANTIATE_TEST_SUITE_P(Problems, ChecklistOnTheTree,
                         ::testing::Values("demo", "glpet", "strip", "fdk", "oat", "safir", "musr"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tomo::house
