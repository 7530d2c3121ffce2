// The problem skeleton of docs/developing.md ("Adding a problem", "The checklist"), one
// function per item. Each takes a Tree and a problem's short name and returns what is
// missing, one line each ("strip: ..."); an empty result means the item is there.
#pragma once
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/house/tree.hpp"

namespace tomo::house {

// Every folder of compute/ but core/, io/ and pet/ (the layer the PET problems share) is a
// problem: a new one is checked by existing.
inline std::vector<std::string> problems_of(const Tree& t) {
  std::set<std::string> out;
  for (const auto& [path, text] : t) {
    if (!starts_with(path, "compute/")) continue;
    const std::size_t slash = path.find('/', 8);
    if (slash == std::string::npos) continue;
    const std::string p = path.substr(8, slash - 8);
    if (p != "core" && p != "io" && p != "pet" && p != "multi") out.insert(p);
  }
  return {out.begin(), out.end()};
}

// The folders a problem's code lives in, one per module.
inline std::vector<std::string> code_folders(const std::string& p) {
  return {"compute/" + p, "renderer/" + p, "cuda/" + p};
}

// config.{hpp,cpp} (reads [<p>]), memory.{hpp,cpp} (the host-memory estimate), problem.cpp
// (the registration), docs/<p>.md.
inline std::vector<std::string> check_files(const Tree& t, const std::string& p) {
  std::vector<std::string> out;
  for (const std::string f : {"config.hpp", "config.cpp", "memory.hpp", "memory.cpp", "problem.cpp"})
    if (!t.count("compute/" + p + "/" + f)) out.push_back(p + ": compute/" + p + "/" + f + " is missing");
  if (!t.count("docs/" + p + ".md")) out.push_back(p + ": docs/" + p + ".md is missing");
  return out;
}

inline std::vector<std::string> check_problem_registrar(const Tree& t, const std::string& p) {
  static const std::regex registrar(R"re(\bProblemRegistrar\s+\w+\s*[({])re");
  const std::string text = without_comments(text_of(t, "compute/" + p + "/problem.cpp"));
  if (std::regex_search(text, registrar)) return {};
  return {p + ": compute/" + p + "/problem.cpp declares no `const ProblemRegistrar kRegister(...)`"};
}

// The operator interfaces of a problem: every Op of a BackendRegistrar<Op> in its code folders,
// with the backends registered for it.
inline std::map<std::string, std::set<std::string>> operator_backends(const Tree& t, const std::string& p) {
  static const std::regex registrar(R"re(BackendRegistrar<\s*(?:\w+::)*(\w+)\s*>\s+\w+\s*\(\s*\{\s*"([\w-]+)")re");
  std::map<std::string, std::set<std::string>> out;
  for (const auto& folder : code_folders(p))
    for (const auto& f : files_in(t, folder)) {
      const std::string text = without_comments(text_of(t, f));
      for (std::sregex_iterator it(text.begin(), text.end(), registrar), end; it != end; ++it)
        out[(*it)[1]].insert((*it)[2]);
    }
  return out;
}

// Every operator interface has a cpu backend (the reference the others are checked against).
inline std::vector<std::string> check_cpu_backend(const Tree& t, const std::string& p) {
  const auto ops = operator_backends(t, p);
  if (ops.empty()) return {p + ": no backend registers itself (BackendRegistrar<Op>) in compute/renderer/cuda/" + p};
  std::vector<std::string> out;
  for (const auto& [op, backends] : ops)
    if (!backends.count("cpu")) out.push_back(p + ": operator " + op + " has no \"cpu\" backend registered");
  return out;
}

// The abstract class of each interface, in compute/<p>/*.hpp, declares describe() and synchronize().
inline std::vector<std::string> check_interface_verbs(const Tree& t, const std::string& p) {
  std::vector<std::string> out;
  for (const auto& [op, backends] : operator_backends(t, p)) {
    const std::regex head("\\b(?:class|struct)\\s+" + op + "\\b[^;{]*\\{");
    std::string body;
    for (const auto& f : files_in(t, "compute/" + p)) {
      if (!f.ends_with(".hpp")) continue;
      const std::string text = without_comments(text_of(t, f));
      std::smatch m;
      if (std::regex_search(text, m, head)) body = braced_body(text, m.position(0));
      if (!body.empty()) break;
    }
    if (body.empty()) {
      out.push_back(p + ": the interface " + op + " is not declared in compute/" + p + "/*.hpp");
      continue;
    }
    for (const std::string verb : {"describe", "synchronize"})
      if (!std::regex_search(body, std::regex("\\b" + verb + "\\s*\\(")))
        out.push_back(p + ": the interface " + op + " does not declare " + verb + "()");
  }
  return out;
}

// A contract suite per interface: tests/<p>/*contract*_test.cpp instantiates it over the registry
// (TOMO_CONTRACT_INSTANTIATE(Suite, Op)) and tests/<p>/*contract*_gpu_test.cpp for cuda
// (TOMO_CONTRACT_INSTANTIATE_GPU(Suite)).
inline std::vector<std::string> check_contract_suites(const Tree& t, const std::string& p) {
  std::vector<std::string> out;
  for (const auto& [op, backends] : operator_backends(t, p)) {
    const std::regex cpu("TOMO_CONTRACT_INSTANTIATE\\(\\s*(\\w+)\\s*,\\s*(?:\\w+::)*" + op + "\\s*\\)");
    std::string suite;
    for (const auto& f : files_in(t, "tests/" + p)) {
      if (file_name(f).find("contract") == std::string::npos) continue;
      std::smatch m;
      const std::string text = without_comments(text_of(t, f));
      if (std::regex_search(text, m, cpu)) suite = m[1];
    }
    if (suite.empty()) {
      out.push_back(p + ": no backend contract suite for " + op + " (tests/" + p +
                    "/*contract*_test.cpp with TOMO_CONTRACT_INSTANTIATE(Suite, " + op + "))");
      continue;
    }
    const std::regex gpu("TOMO_CONTRACT_INSTANTIATE_GPU\\(\\s*" + suite + "\\s*\\)");
    bool on_gpu = false;
    for (const auto& f : files_in(t, "tests/" + p))
      if (file_name(f).find("contract") != std::string::npos && f.find("_gpu_test.") != std::string::npos)
        on_gpu = on_gpu || std::regex_search(without_comments(text_of(t, f)), gpu);
    if (!on_gpu) out.push_back(p + ": the contract suite " + suite + " has no cuda instance (TOMO_CONTRACT_INSTANTIATE_GPU)");
  }
  return out;
}

// The host-memory estimate: memory.hpp returns a MemoryEstimate, and the problem refuses a run
// that cannot fit (require_host_memory) before it allocates, outside memory.cpp itself.
inline std::vector<std::string> check_memory_estimate(const Tree& t, const std::string& p) {
  std::vector<std::string> out;
  const std::string header = "compute/" + p + "/memory.hpp";  // a missing one is check_files' line
  if (t.count(header) && without_comments(text_of(t, header)).find("MemoryEstimate") == std::string::npos)
    out.push_back(p + ": compute/" + p + "/memory.hpp declares no estimate returning a MemoryEstimate");
  bool used = false;
  for (const auto& f : files_in(t, "compute/" + p))
    if (f != "compute/" + p + "/memory.cpp" && f.ends_with(".cpp"))
      used = used || without_comments(text_of(t, f)).find("require_host_memory(") != std::string::npos;
  if (!used) out.push_back(p + ": no file of compute/" + p + " calls require_host_memory(estimate, ...)");
  return out;
}

// Previews go through compute/io/preview (write_preview: title, window, colour bar). A problem
// may hand write_png_rgb an RGB canvas it draws itself (a plot, a colour-coded composite), but
// never writes a colour-mapped image on its own (write_png, colorize) or encodes PNG itself.
inline std::vector<std::string> check_previews(const Tree& t, const std::string& p) {
  static const std::regex own_png(R"re(\b(write_png|colorize)\s*\(|stbi_write_png|<png\.h>|stb_image_write\.h)re");
  static const std::regex writes(R"re(\b(write_preview|write_png_rgb)\s*\()re");
  std::vector<std::string> out;
  bool any = false;
  for (const auto& folder : code_folders(p))
    for (const auto& f : files_in(t, folder)) {
      if (!is_source(f)) continue;
      const std::string text = without_comments(text_of(t, f));
      std::smatch m;
      if (std::regex_search(text, m, own_png))
        out.push_back(p + ": " + f + " writes PNG outside compute/io/preview (" + m.str(0) + "): use write_preview");
      any = any || std::regex_search(text, writes);
    }
  if (!any) out.push_back(p + ": writes no preview (write_preview from compute/io/preview.hpp)");
  return out;
}

// The crosscheck compares every backend through tomo::run_backends<Op> (compute/core/crosscheck.hpp),
// not through a loop of its own over the registry's names.
inline std::vector<std::string> check_crosscheck(const Tree& t, const std::string& p) {
  // The loop's mark: skipping the reference by name ("if (name == \"cpu\") continue;").
  static const std::regex own_loop(R"re(==\s*"cpu"\s*\)\s*continue\b)re");
  std::vector<std::string> out;
  bool helper = false;
  for (const auto& f : files_in(t, "compute/" + p)) {
    const std::string text = without_comments(text_of(t, f));
    helper = helper || std::regex_search(text, std::regex(R"re(\brun_backends\s*<)re"));
    if (std::regex_search(text, own_loop))
      out.push_back(p + ": " + f + " loops over the registry's backends itself: use run_backends<Op>");
  }
  if (!helper) out.push_back(p + ": the crosscheck does not go through run_backends<Op> (compute/core/crosscheck.hpp)");
  return out;
}

// One host/device macro, TOMO_HD from compute/core/host_device.hpp: no other macro expands to
// __host__ __device__ or is named *_HD.
inline std::vector<std::string> check_host_device_macro(const Tree& t, const std::string& p) {
  static const std::regex own(R"re(#\s*define\s+(\w+)[ \t]+__host__|#\s*define\s+(\w*_HD)\b)re");
  std::vector<std::string> out;
  for (const auto& folder : code_folders(p))
    for (const auto& f : files_under(t, folder)) {
      const std::string text = without_comments(text_of(t, f));
      std::set<std::string> macros;  // once per macro, however many #if branches define it
      for (std::sregex_iterator it(text.begin(), text.end(), own), end; it != end; ++it)
        macros.insert(((*it)[1].matched ? (*it)[1] : (*it)[2]).str());
      for (const auto& m : macros)
        out.push_back(p + ": " + f + " defines its own host/device macro " + m + ": use TOMO_HD (compute/core/host_device.hpp)");
    }
  return out;
}

// ---- fuzz targets per reader --------------------------------------------------------------
//
// A reader of user files is a function declared in a compute/ header whose name begins with
// read_ and which takes a std::filesystem::path. Each is called by an entry of
// tests/fuzz/entries.hpp (`inline bool <entry>(const std::uint8_t*, std::size_t)`) that a
// target tests/fuzz/<entry>_fuzz.cpp runs and tests/fuzz/regression_test.cpp replays — or it
// is only a part of a fuzzed reader (reached_through() below).

// reader → the fuzzed reader that runs it on every input (so fuzzing that one covers it).
inline const std::map<std::string, std::string>& reached_through() {
  static const std::map<std::string, std::string> m = {
      {"read_events_binary", "read_events"},     // strip: read_events picks binary or text by content
      {"read_events_text", "read_events"},
      {"read_rabbitct_header", "read_rabbitct"},  // fdk: the header part of read_rabbitct
      {"read_list_mode", "read_clm_safir"},       // safir: picks read_clm_safir or read_castor by extension
      {"read_msr", "parse_msr"},                  // musr: reads the text, then parse_msr
  };
  return m;
}

struct Reader {
  std::string name, header;
};

inline std::vector<Reader> readers_of(const Tree& t) {
  static const std::regex decl(R"re(\b(read_\w+)\s*\(([^;()]*)\)\s*(?:const\s*)?;)re");
  std::vector<Reader> out;
  for (const auto& [path, text] : t) {
    if (!starts_with(path, "compute/") || !path.ends_with(".hpp")) continue;
    const std::string code = without_comments(text);
    for (std::sregex_iterator it(code.begin(), code.end(), decl), end; it != end; ++it)
      if ((*it)[2].str().find("path") != std::string::npos) out.push_back({(*it)[1], path});
  }
  return out;
}

// Entries of entries.hpp that a target runs and the regression test replays, with their bodies.
inline std::map<std::string, std::string> fuzzed_entries(const Tree& t) {
  static const std::regex entry(R"re(inline\s+bool\s+(\w+)\s*\(\s*const\s+std::uint8_t\s*\*)re");
  static const std::regex call(R"re(fuzz::(\w+)\s*\()re");
  const std::string entries = without_comments(text_of(t, "tests/fuzz/entries.hpp"));
  const std::string replay = text_of(t, "tests/fuzz/regression_test.cpp");
  std::set<std::string> run;
  for (const auto& f : files_in(t, "tests/fuzz"))
    if (f.ends_with("_fuzz.cpp"))
      for (const auto& e : captures(without_comments(text_of(t, f)), call)) run.insert(e);
  std::map<std::string, std::string> out;
  for (std::sregex_iterator it(entries.begin(), entries.end(), entry), end; it != end; ++it) {
    const std::string name = (*it)[1];
    if (run.count(name) && replay.find("{\"" + name + "\", " + name + "}") != std::string::npos)
      out[name] = braced_body(entries, it->position(0));
  }
  return out;
}

// The readers of problem p (declared under compute/<p>/; p == "io" for the shared ones) without
// a fuzz target.
inline std::vector<std::string> check_fuzz_targets(const Tree& t, const std::string& p) {
  const auto entries = fuzzed_entries(t);
  auto fuzzed = [&](const std::string& reader) {
    const std::regex called("\\b" + reader + "\\s*\\(");
    for (const auto& [name, body] : entries)
      if (std::regex_search(body, called)) return true;
    return false;
  };
  std::vector<std::string> out;
  for (const auto& r : readers_of(t)) {
    if (!starts_with(r.header, "compute/" + p + "/")) continue;
    if (fuzzed(r.name)) continue;
    const auto via = reached_through().find(r.name);
    if (via != reached_through().end() && fuzzed(via->second)) continue;
    out.push_back(p + ": the reader " + r.name + " (" + r.header +
                  ") has no fuzz target: an entry in tests/fuzz/entries.hpp, tests/fuzz/<entry>_fuzz.cpp and a "
                  "row of kTargets in tests/fuzz/regression_test.cpp");
  }
  return out;
}

// Every item at once, for one problem.
inline std::vector<std::string> check_problem(const Tree& t, const std::string& p) {
  std::vector<std::string> out;
  for (auto check : {check_files, check_problem_registrar, check_cpu_backend, check_interface_verbs, check_contract_suites,
                     check_memory_estimate, check_previews, check_crosscheck, check_host_device_macro, check_fuzz_targets})
    for (auto& line : check(t, p)) out.push_back(std::move(line));
  return out;
}

}  // namespace tomo::house
