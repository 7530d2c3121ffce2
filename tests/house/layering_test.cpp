// The house rules of docs/developing.md checked by reading the source tree: includes are
// written from the repository root and respect the layers (compute/ knows no GPU; renderer/
// and cuda/ do not include each other), and files follow one naming scheme
// (<module>/<problem>/<backend>_<operator>.{hpp,cpp,cu}, no problem prefix inside a problem
// folder). The checks are functions so that the first tests can show they catch violations.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = TOMO_SOURCE_DIR;
const std::vector<std::string> kModules = {"compute", "renderer", "cuda", "apps", "bench", "tests"};
const std::vector<std::string> kProblems = {"demo", "glpet", "strip", "fdk", "oat", "safir", "musr"};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string top_folder(const std::string& rel) { return rel.substr(0, rel.find('/')); }

// Problems found for one file's text: one line per include that breaks a rule.
// `rel` is the file's path from the root; `exists` says whether a root-relative path is a file.
template <class Exists>
std::vector<std::string> include_problems(const std::string& rel, const std::string& text, Exists exists) {
  static const std::regex quoted(R"re(^\s*#\s*include\s+"([^"]+)")re");
  static const std::regex angled(R"re(^\s*#\s*include\s+<([^>]+)>)re");
  std::vector<std::string> out;
  const std::string layer = top_folder(rel);
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::smatch m;
    const std::string at = rel + ":" + std::to_string(n) + ": ";
    if (std::regex_search(line, m, quoted)) {
      const std::string inc = m[1];
      if (inc.ends_with(".glsl")) continue;  // GLSL in a C++ string: resolved under shaders/ by our loader
      const std::string to = top_folder(inc);
      if (std::find(kModules.begin(), kModules.end(), to) == kModules.end() || !exists(inc)) {
        out.push_back(at + "\"" + inc + "\" is not written from the repository root");
        continue;
      }
      const bool gpu = to == "renderer" || to == "cuda";
      if (layer == "compute" && (gpu || to != "compute"))
        out.push_back(at + "compute/ may include only compute/, not \"" + inc + "\"");
      if ((layer == "renderer" && to == "cuda") || (layer == "cuda" && to == "renderer"))
        out.push_back(at + "renderer/ and cuda/ do not include each other: \"" + inc + "\"");
      if ((layer == "renderer" || layer == "cuda") && (to == "apps" || to == "tests" || to == "bench"))
        out.push_back(at + layer + "/ may not include \"" + inc + "\"");
    } else if (layer == "compute" && std::regex_search(line, m, angled)) {
      const std::string inc = m[1];
      for (const char* gpu_header : {"glad/", "EGL/", "GL/", "GLFW/", "cuda", "cufft", "nvrtc", "nccl"})
        if (inc.rfind(gpu_header, 0) == 0) out.push_back(at + "compute/ knows no GPU: <" + inc + ">");
    }
  }
  return out;
}

// Naming: inside a problem folder no file carries the problem as a prefix, and a file that
// registers a backend is named after it (<backend>_<operator>, '-' written '_') and sits in the
// module of that backend (cpu → compute/, gl* → renderer/, cuda → cuda/).
std::vector<std::string> naming_problems(const std::string& rel, const std::string& text) {
  std::vector<std::string> out;
  const fs::path p(rel);
  const std::string file = p.filename().string();
  const std::string folder = p.parent_path().filename().string();
  if (std::find(kProblems.begin(), kProblems.end(), folder) != kProblems.end() && file.rfind(folder + "_", 0) == 0)
    out.push_back(rel + ": the folder names the problem already; drop the '" + folder + "_' prefix");
  static const std::regex registrar(R"re(BackendRegistrar<\w+>\s+\w+\s*\(\s*\{\s*"([\w-]+)")re");
  for (std::sregex_iterator it(text.begin(), text.end(), registrar), end; it != end; ++it) {
    std::string backend = (*it)[1];
    std::string stem = backend;
    std::replace(stem.begin(), stem.end(), '-', '_');
    // gl_compute_x must not count as a gl_ file: compare the whole backend word.
    const bool named = file.rfind(stem + "_", 0) == 0 && (stem != "gl" || file.rfind("gl_compute_", 0) != 0);
    if (!named) out.push_back(rel + ": registers backend '" + backend + "' but is not named " + stem + "_<operator>");
    const std::string want = backend == "cpu" ? "compute" : backend.rfind("gl", 0) == 0 ? "renderer" : "cuda";
    if (top_folder(rel) != want) out.push_back(rel + ": backend '" + backend + "' belongs in " + want + "/");
  }
  return out;
}

std::vector<std::string> source_files() {
  std::vector<std::string> out;
  for (const auto& m : kModules)
    for (const auto& e : fs::recursive_directory_iterator(kRoot / m)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".cpp" || ext == ".hpp" || ext == ".cu" || ext == ".cuh" || ext == ".h"))
        out.push_back(fs::relative(e.path(), kRoot).generic_string());
    }
  return out;
}

bool exists_in_tree(const std::string& rel) { return fs::is_regular_file(kRoot / rel); }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s;
}

TEST(HouseRules, CheckerFlagsForbiddenIncludes) {
  auto yes = [](const std::string&) { return true; };
  EXPECT_EQ(include_problems("compute/glpet/mlem.cpp", "#include \"renderer/gl/objects.hpp\"\n", yes).size(), 1u);
  EXPECT_EQ(include_problems("compute/glpet/mlem.cpp", "#include \"cuda/core/check.hpp\"\n", yes).size(), 1u);
  EXPECT_EQ(include_problems("compute/glpet/mlem.cpp", "#include <cuda_runtime.h>\n", yes).size(), 1u);
  EXPECT_EQ(include_problems("renderer/glpet/x.cpp", "#include \"cuda/core/check.hpp\"\n", yes).size(), 1u);
  EXPECT_EQ(include_problems("cuda/glpet/x.cpp", "  #  include \"renderer/gl/gl.hpp\"\n", yes).size(), 1u);
  EXPECT_EQ(include_problems("cuda/glpet/x.cpp", "#include \"core/check.hpp\"\n", yes).size(), 1u);
  auto no = [](const std::string&) { return false; };
  EXPECT_EQ(include_problems("tests/a/b.cpp", "#include \"compute/core/nope.hpp\"\n", no).size(), 1u);
  // allowed
  EXPECT_TRUE(include_problems("renderer/glpet/x.cpp", "#include \"compute/core/error.hpp\"\n#include <vector>\n", yes).empty());
  EXPECT_TRUE(include_problems("cuda/core/interop_buffer.cpp", "#include <cuda_gl_interop.h>\n", yes).empty());
  EXPECT_TRUE(include_problems("tests/glpet/x.cpp", "#include \"cuda/core/check.hpp\"\n#include \"renderer/gl/gl.hpp\"\n", yes).empty());
}

TEST(HouseRules, CheckerFlagsMisnamedFiles) {
  EXPECT_EQ(naming_problems("compute/glpet/glpet_geometry.cpp", "").size(), 1u);
  EXPECT_EQ(naming_problems("renderer/fdk/gl_backprojector.cpp",
                            "const BackendRegistrar<Op> kRegisterGlCompute({\"gl-compute\", 1").size(), 1u);
  EXPECT_EQ(naming_problems("renderer/fdk/gl_compute_backprojector.cpp",
                            "const BackendRegistrar<Op> kRegisterGl({\"gl\", 1").size(), 1u);
  EXPECT_EQ(naming_problems("compute/fdk/cuda_backprojector.cpp",
                            "const BackendRegistrar<Op> kRegisterCuda({\"cuda\", 1").size(), 1u);
  EXPECT_TRUE(naming_problems("renderer/fdk/gl_compute_backprojector.cpp",
                              "const BackendRegistrar<Op> kRegisterGlCompute({\"gl-compute\", 1").empty());
  EXPECT_TRUE(naming_problems("cuda/strip/cuda_projector.cpp",
                              "const BackendRegistrar<ListModeProjector> kRegisterCuda(\n    {\"cuda\", 3").empty());
}

TEST(HouseRules, EveryIncludeIsFromTheRootAndRespectsTheLayers) {
  std::vector<std::string> problems;
  const auto files = source_files();
  ASSERT_GT(files.size(), 100u) << "source tree not found at " << kRoot;
  for (const auto& f : files)
    for (auto& p : include_problems(f, read_text(kRoot / f), exists_in_tree)) problems.push_back(p);
  EXPECT_TRUE(problems.empty()) << problems.size() << " include(s) break the house rules:\n" << joined(problems);
}

TEST(HouseRules, FilesFollowTheNamingScheme) {
  std::vector<std::string> problems;
  int registrations = 0;
  for (const auto& f : source_files()) {
    const std::string text = read_text(kRoot / f);
    if (text.find("BackendRegistrar<") != std::string::npos && f.rfind("tests/", 0) != 0) ++registrations;
    if (f.rfind("tests/house/", 0) == 0) continue;  // this file spells violations on purpose
    for (auto& p : naming_problems(f, text)) problems.push_back(p);
  }
  EXPECT_GE(registrations, 15) << "backend registrations not found: did the registrar's spelling change?";
  EXPECT_TRUE(problems.empty()) << problems.size() << " file(s) break the naming scheme:\n" << joined(problems);
}

}  // namespace
