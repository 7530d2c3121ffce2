// The CLI's own checks of a problem's scene keys, for values that Python takes as arguments
// (iterations, μ, ...): the Python side turns them into --set overrides of the problem's
// embedded default scene (<problem>_default.toml) and this reads that scene with the problem's config reader, so a value the
// CLI refuses is refused with the same range and the same words (InputError → ValueError).
// Returns the overrides nothing read (typo'd keywords) and the resolved scene (the known keys).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <nlohmann/json.hpp>

#include "compute/core/error.hpp"
#include "compute/fdk/config.hpp"
#include "compute/glpet/config.hpp"
#include "compute/oat/config.hpp"
#include "compute/safir/config.hpp"
#include "compute/strip/config.hpp"
#include "python/src/bindings.hpp"

namespace tomo::py {

void bind_validate(nb::module_& m) {
  m.def(
      "check_keys",
      [](const std::string& problem, const std::vector<std::string>& sets) -> std::pair<std::vector<std::string>, std::string> {
        const std::string_view defaults = embedded_scene(problem + "_default.toml");
        if (defaults.empty()) throw InputError("check_keys: no embedded scene " + problem + "_default.toml");
        Scene s = Scene::load_string(std::string(defaults), "<python arguments>");
        for (const auto& kv : sets) s.apply_override(kv);
        if (problem == "glpet") (void)glpet::read_glpet_scene(s);
        else if (problem == "oat") (void)oat::OatConfig::from_scene(s);
        else if (problem == "safir") (void)safir::SafirConfig::from_scene(s);
        else if (problem == "fdk") (void)fdk::FdkConfig::from_scene(s);
        else if (problem == "strip") (void)strip::StripConfig::from_scene(s);
        else throw InputError("check_keys: no config reader for problem '" + problem + "'");
        return {s.unused_keys(), s.to_json().dump()};
      },
      nb::arg("problem"), nb::arg("sets"));
  // Measured counts that sum to nothing: a reconstruction of them would be all zero, a user's
  // mistake. The CLI's words for its counts file (glpet.data.counts), `what` naming the call.
  m.def(
      "check_counts_total",
      [](double total, const std::string& what, const std::string& name) {
        if (!(total > 0))
          throw InputError(what + ": " + name + " holds no counts (every LOR is 0): nothing to reconstruct");
      },
      nb::arg("total"), nb::arg("what"), nb::arg("name"));
}

}  // namespace tomo::py
