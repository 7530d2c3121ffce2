// The host-side tables of the generated musr CUDA kernels (codegen_cuda.hpp, CudaTables): blocks
// per run, the run table, each block's BlockInfo, the parameter maps and the gradient scatter.
#include <algorithm>
#include <cstring>

#include "compute/musr/codegen_cuda.hpp"
#include "compute/musr/run_layout.hpp"

namespace tomo::musr {

long long cuda_bins_per_block(const FitData& data, int resident) {
  // Σ ceil(count_r / per_block) ≤ Σ count_r / per_block + runs: leave a block per run spare.
  const long long blocks = std::max<long long>(1, resident - static_cast<long long>(data.runs.size()));
  return std::max<long long>(4LL * kCudaBlockThreads, (static_cast<long long>(data.bins()) + blocks - 1) / blocks);
}

namespace {

// Each block's BlockInfo (the generated struct's layout) as src.block_ints ints.
std::vector<int> block_infos(const FitData& data, const CudaSource& src, const CudaTables& t) {
  std::vector<int> out(static_cast<std::size_t>(t.blocks) * static_cast<std::size_t>(src.block_ints), 0);
  for (int blk = 0; blk < t.blocks; ++blk) {
    const int r = t.block_run[static_cast<std::size_t>(blk)];
    const CudaRunInfo& R = t.runs[static_cast<std::size_t>(r)];
    const long long group = src.group, groups = (R.count + group - 1) / group, b = blk - R.first_block;
    char* e = reinterpret_cast<char*>(out.data() + static_cast<std::size_t>(blk) * static_cast<std::size_t>(src.block_ints));
    const int fields[] = {static_cast<int>(R.count), R.kind, R.affine, static_cast<int>(b * groups / R.blocks),
                          static_cast<int>((b + 1) * groups / R.blocks), r};
    std::memcpy(e, &R.offset, 8);
    std::memcpy(e + 8, &R.t0, 8);
    std::memcpy(e + 16, &R.dt, 8);
    std::memcpy(e + 24, &R.scale, 8);
    std::memcpy(e + 32, fields, sizeof fields);
    const int used = static_cast<int>(data.runs[static_cast<std::size_t>(r)].model.params_used().size());
    for (int k = 0; k < used; ++k) {
      const int pm = t.param_map[static_cast<std::size_t>(R.pmap + k)];
      std::memcpy(e + kCudaBlockInfoFieldBytes + 4 * k, &pm, 4);
    }
  }
  return out;
}

}  // namespace

CudaTables cuda_tables(const FitData& data, const CudaSource& src, long long bins_per_block) {
  CudaTables out;
  const auto layout = plan_layout(data, bins_per_block);
  out.blocks = layout.back().first_block + layout.back().blocks;
  out.block_run.assign(static_cast<std::size_t>(out.blocks), 0);
  const long long group = std::max(src.group, 1);
  for (std::size_t r = 0; r < layout.size(); ++r) {
    const RunLayout& l = layout[r];
    const long long offset = out.device_bins;
    out.device_bins += (l.count + group - 1) / group * group;
    out.runs.push_back({offset, l.count, l.first_block, l.blocks, l.affine ? 1 : 0, l.kind, l.t0, l.dt, data.runs[r].scale, l.pmap, 0});
    std::fill(out.block_run.begin() + l.first_block, out.block_run.begin() + l.first_block + l.blocks, static_cast<int>(r));
    out.uneven = out.uneven || !l.affine;
  }
  out.param_map = group_theories(data).pmap;
  out.block_run = block_infos(data, src, out);
  if (out.param_map.empty()) out.param_map.push_back(0);
  // The final scatter runs over all NP (≥ num_params) rows: empty rows past num_params.
  ParamScatter scatter = param_scatter(data, src.slots);
  scatter.ptr.resize(static_cast<std::size_t>(src.np) + 1, scatter.ptr.back());
  out.param_ptr = std::move(scatter.ptr);
  out.param_entry = std::move(scatter.entry);
  if (out.param_entry.empty()) out.param_entry.push_back(0);
  return out;
}

}  // namespace tomo::musr
