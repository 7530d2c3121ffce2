// Fills shaders/musr/chi2.comp.glsl with one `case` per run: the model's invariant statements,
// then the bin loop with the per-bin statements and the statistic (see codegen_glsl.hpp).
#include "compute/musr/codegen_glsl.hpp"

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/musr/codegen_common.hpp"
#include "compute/musr/codegen_tables.hpp"
#include "compute/musr/kt_pack.hpp"
#include "compute/musr/run_layout.hpp"

namespace tomo::musr {
namespace {

void replace_marker(std::string& text, const std::string& marker, const std::string& with) {
  const auto at = text.find(marker);
  if (at == std::string::npos) throw Error(str_cat("musr gl-compute: shader template lacks ", marker));
  text.replace(at, marker.size(), with);
}

}  // namespace

int glsl_slots(const FitData& data, bool gradient) { return gradient ? 1 + max_slots(data) : 1; }

std::string glsl_chi2_source(const FitData& data, bool gradient, const std::string& tmpl, bool double_precision,
                             const std::string& double_library, bool tables_bound) {
  if (data.runs.empty()) throw InputError("musr gl-compute: no runs to fit");
  const int ns = glsl_slots(data, gradient);
  const int max_slots = double_precision ? kGlslMaxSlots / 2 : kGlslMaxSlots;
  if (ns > max_slots)
    throw InputError(str_cat("musr gl-compute: a run's theory depends on ", ns - 1, " parameters; at most ", max_slots - 1,
                             " are supported in ", double_precision ? "double" : "float", " (use --backend cpu or cuda)"));
  if (double_precision && double_library.empty()) throw Error("musr gl-compute: double precision needs musr/double_math.glsl");
  const Dialect d = glsl_dialect(double_precision);
  std::string cases;
  const TheoryCases kinds = group_theories(data);
  for (std::size_t kind = 0; kind < kinds.first_run.size(); ++kind) {
    const RunBins& run = data.runs[static_cast<std::size_t>(kinds.first_run[kind])];
    const ModelCode m = emit_model(run.model, d, gradient, str_cat("k", kind, "_"),
                                   [](int, int slot) { return str_cat("P[pmap[R.pmap + ", slot, "u]]"); }, "t");
    cases += str_cat("    case ", kind, ": {\n", m.invariant);
    cases += "      for (uint k = lo + gl_LocalInvocationID.x; k < hi; k += 256u) {\n";
    cases += "        REAL2 yw = yw_all[R.offset + k];\n";
    cases += "        real t = R.affine != 0u ? real(R.t0 + double(k) * R.dt) : tarr[R.offset + k];\n";
    cases += m.per_bin;
    cases += "        real th = " + m.value + ";\n";
    cases += statistic_code(data.statistic, d, gradient, "        ");
    if (gradient) cases += gradient_accumulate(m, d, "        ");
    cases += "      }\n    } break;\n";
  }
  std::string text = tmpl;
  replace_marker(text, "@DEFINES@", str_cat("#define NS ", ns, "\n#define NUM_PARAMS ", data.num_params, "\n#define real ", d.real,
                                            "\n#define REAL2 ", double_precision ? "dvec2" : "vec2"));
  std::string helpers = (double_precision ? double_library : helper_functions(d)) + dawson_source(d);
  if (const int nt = max_tables(data); nt > 0) {
    if (!tables_bound)
      throw InputError("musr gl-compute: the theory has tabulated functions (statGssKTLF, statExpKTLF, dynGssKTLF, dynExpKTLF), "
                       "which this backend does not upload yet (use --backend cpu or cuda)");
    helpers += glsl_table_helpers(d, nt, kGlslTableBinding);
  }
  replace_marker(text, "@HELPERS@", helpers);
  replace_marker(text, "@CASES@", cases);
  return text;
}

std::vector<GlslTableInfo> glsl_table_infos(const TablePack& pack) {
  std::vector<GlslTableInfo> out;
  for (const TableInfo& t : pack.info) {
    if (t.off < 0 || t.off + 4LL * t.n > 0xffffffffLL) throw InputError("musr gl-compute: theory tables larger than 2^32 values");
    out.push_back({static_cast<unsigned>(t.off), static_cast<unsigned>(t.n), t.dt});
  }
  return out;
}

}  // namespace tomo::musr
