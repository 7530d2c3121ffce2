// Packs a fit's Kubo–Toyabe tables for the GPU kernels (kt_pack.hpp).
#include "compute/musr/kt_pack.hpp"

#include <algorithm>
#include <map>

#include "compute/core/error.hpp"
#include "compute/musr/kt_tables.hpp"

namespace tomo::musr {

int max_tables(const FitData& data) {
  int m = 0;
  for (const RunBins& r : data.runs)
    m = std::max(m, static_cast<int>(std::count_if(r.model.nodes.begin(), r.model.nodes.end(),
                                                   [](const Node& n) { return n.op == OpCode::table; })));
  return m;
}

void pack_tables(const FitData& data, std::span<const double> params, bool gradient, TablePack& out) {
  out.per_run = max_tables(data);
  out.values.clear();
  out.info.assign(data.runs.size() * static_cast<std::size_t>(out.per_run), TableInfo{});
  std::map<const KtTable*, TableInfo> stored;
  if (out.bound != &data || out.evaluators.size() != data.runs.size()) {
    out.evaluators.clear();
    for (const RunBins& r : data.runs) out.evaluators.push_back(std::make_unique<ProgramEvaluator>(r.model));
    out.bound = &data;
  }
  for (std::size_t r = 0; r < data.runs.size(); ++r) {
    if (out.per_run == 0) break;
    ProgramEvaluator& ev = *out.evaluators[r];
    ev.prepare(params, gradient);
    const auto tables = ev.tables();
    for (std::size_t s = 0; s < tables.size(); ++s) {
      const KtTable* t = tables[s];
      auto [it, fresh] = stored.emplace(t, TableInfo{});
      if (fresh) {
        TableInfo& i = it->second;
        i.off = static_cast<long long>(out.values.size());
        i.n = static_cast<int>(t->v.size());
        i.dt = t->dt;
        out.values.insert(out.values.end(), t->v.begin(), t->v.end());
        // With a gradient, the differences follow (zeros for arguments that need none).
        if (gradient)
          for (const auto& dv : t->dv) {
            if (dv.size() == t->v.size()) out.values.insert(out.values.end(), dv.begin(), dv.end());
            else out.values.insert(out.values.end(), t->v.size(), 0.0);
          }
      }
      out.info[r * static_cast<std::size_t>(out.per_run) + s] = it->second;
    }
  }
  if (out.values.empty()) out.values.push_back(0.0);
  if (out.info.empty()) out.info.push_back(TableInfo{});
}

}  // namespace tomo::musr
