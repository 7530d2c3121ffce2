// The runs' layout for the generated GPU kernels: the checks both backends make on uploaded
// data, theory cases, blocks and affine time axes, and the gradient slots' summation order.
#include "compute/musr/run_layout.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"

namespace tomo::musr {

void check_fit_data(const FitData& data, const std::string& who) {
  if (data.runs.empty()) throw InputError(who + ": no runs to fit");
  for (std::size_t r = 0; r < data.runs.size(); ++r) {
    const RunBins& run = data.runs[r];
    if (run.y.size() != run.t.size() || run.sigma.size() != run.t.size())
      throw InputError(str_cat(who, ": run ", r + 1, " has ", run.t.size(), " times, ", run.y.size(), " values and ",
                               run.sigma.size(), " errors"));
    if (run.model.num_params > data.num_params)
      throw InputError(str_cat(who, ": run ", r + 1, "'s theory uses ", run.model.num_params, " parameters, the fit has ", data.num_params));
  }
}

bool affine_time(const std::vector<double>& t, double& t0, double& dt) {
  t0 = t.empty() ? 0.0 : t.front();
  dt = t.size() > 1 ? (t.back() - t.front()) / static_cast<double>(t.size() - 1) : 0.0;
  const double scale = std::max({std::fabs(t0), t.empty() ? 0.0 : std::fabs(t.back()), 1e-300});
  for (std::size_t k = 0; k < t.size(); ++k)
    if (std::fabs(t[k] - (t0 + static_cast<double>(k) * dt)) > 1e-12 * scale) return false;
  return true;
}

TheoryCases group_theories(const FitData& data) {
  TheoryCases out;
  std::map<std::string, int> kinds;
  for (std::size_t r = 0; r < data.runs.size(); ++r) {
    Program shape = data.runs[r].model;
    const auto used = shape.params_used();
    // The program with each parameter index replaced by its slot: equal for equal shapes.
    for (Node& n : shape.nodes)
      if (n.op == OpCode::param) n.index = static_cast<int>(std::lower_bound(used.begin(), used.end(), n.index) - used.begin());
    const std::string key = str_cat(used.size(), "\n", shape.dump());
    auto [it, fresh] = kinds.emplace(key, static_cast<int>(out.first_run.size()));
    if (fresh) out.first_run.push_back(static_cast<int>(r));
    out.kind_of_run.push_back(it->second);
    out.pmap_offset.push_back(static_cast<int>(out.pmap.size()));
    out.pmap.insert(out.pmap.end(), used.begin(), used.end());
  }
  return out;
}

std::vector<RunLayout> plan_layout(const FitData& data, long long bins_per_block) {
  const TheoryCases cases = group_theories(data);
  bins_per_block = std::max<long long>(bins_per_block, 1);
  std::vector<RunLayout> out;
  long long offset = 0;
  int block = 0;
  for (const RunBins& r : data.runs) {
    RunLayout l;
    l.offset = offset;
    l.count = static_cast<long long>(r.t.size());
    l.first_block = block;
    l.blocks = static_cast<int>(std::max<long long>(1, (l.count + bins_per_block - 1) / bins_per_block));
    l.affine = affine_time(r.t, l.t0, l.dt);
    l.kind = cases.kind_of_run[out.size()];
    l.pmap = cases.pmap_offset[out.size()];
    offset += l.count;
    block += l.blocks;
    out.push_back(l);
  }
  return out;
}

std::vector<GradientPair> gradient_pairs(const FitData& data) {
  std::vector<GradientPair> out;
  for (std::size_t r = 0; r < data.runs.size(); ++r) {
    const auto used = data.runs[r].model.params_used();
    for (std::size_t k = 0; k < used.size(); ++k) out.push_back({static_cast<int>(r), static_cast<int>(k), used[k]});
  }
  return out;
}

ParamScatter param_scatter(const FitData& data, int ns) {
  ParamScatter out;
  const auto pairs = gradient_pairs(data);
  out.ptr.assign(static_cast<std::size_t>(std::max(data.num_params, 1)) + 1, 0);
  for (const GradientPair& q : pairs) ++out.ptr[static_cast<std::size_t>(q.param) + 1];
  for (std::size_t i = 1; i < out.ptr.size(); ++i) out.ptr[i] += out.ptr[i - 1];
  out.entry.assign(pairs.size(), 0);
  std::vector<int> fill(out.ptr.begin(), out.ptr.end() - 1);
  for (const GradientPair& q : pairs) out.entry[static_cast<std::size_t>(fill[q.param]++)] = q.run * ns + 1 + q.slot;
  return out;
}

int max_slots(const FitData& data) {
  std::size_t m = 0;
  for (const RunBins& r : data.runs) m = std::max(m, r.model.params_used().size());
  return static_cast<int>(m);
}

}  // namespace tomo::musr
