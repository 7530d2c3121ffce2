// Cone-beam projector pair on CUDA (see projector_kernels.hpp): A gathers trilinear samples
// along each pixel's ray from a 3D texture, Aᵀ adds the same samples with the same weights into
// boxes of the volume held in shared memory.
#include <cuda_runtime.h>

#include "compute/fdk/kernel_math.hpp"
#include "cuda/core/check.hpp"
#include "cuda/fdk/projector_kernels.hpp"
#include "cuda/fdk/ray_walk.cuh"

namespace tomo::fdk::cuda_detail {
namespace {

// Trilinear sample at index point p with fp32 weights: eight point fetches at texel centres,
// the border reads 0 for taps outside (ray_model's skipped taps).
__device__ __forceinline__ float trilinear_exact(cudaTextureObject_t tex, float px, float py, float pz) {
  const float fx = floorf(px), fy = floorf(py), fz = floorf(pz);
  const float ax = px - fx, ay = py - fy, az = pz - fz;
  const float x0 = fx + 0.5f, y0 = fy + 0.5f, z0 = fz + 0.5f;
  const float c000 = tex3D<float>(tex, x0, y0, z0), c100 = tex3D<float>(tex, x0 + 1, y0, z0);
  const float c010 = tex3D<float>(tex, x0, y0 + 1, z0), c110 = tex3D<float>(tex, x0 + 1, y0 + 1, z0);
  const float c001 = tex3D<float>(tex, x0, y0, z0 + 1), c101 = tex3D<float>(tex, x0 + 1, y0, z0 + 1);
  const float c011 = tex3D<float>(tex, x0, y0 + 1, z0 + 1), c111 = tex3D<float>(tex, x0 + 1, y0 + 1, z0 + 1);
  const float c00 = fmaf(ax, c100 - c000, c000), c10 = fmaf(ax, c110 - c010, c010);
  const float c01 = fmaf(ax, c101 - c001, c001), c11 = fmaf(ax, c111 - c011, c011);
  const float c0 = fmaf(ay, c10 - c00, c00), c1 = fmaf(ay, c11 - c01, c01);
  return fmaf(az, c1 - c0, c0);
}

template <bool kHardware>
__global__ void forward_kernel(const RayLaunch l, cudaTextureObject_t tex, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= l.sx || j >= l.sy) return;
  const FloatRay r = ray_of(l, i, j, k);
  float sum = 0.0f;
#pragma unroll 4
  for (int n = 0; n < r.count; ++n) {  // unrolled: four independent fetches in flight
    const float fn = static_cast<float>(n);
    const float px = fmaf(fn, r.step[0], r.start[0]);
    const float py = fmaf(fn, r.step[1], r.start[1]);
    const float pz = fmaf(fn, r.step[2], r.start[2]);
    if constexpr (kHardware)
      sum += tex3D<float>(tex, px + 0.5f, py + 0.5f, pz + 0.5f);
    else
      sum += trilinear_exact(tex, px, py, pz);
  }
  y[(static_cast<size_t>(k) * l.sy + j) * l.sx + i] = sum * r.weight;
}

// One pass's rays, kRayTableFloats floats each: start[3], step[3] of FloatRay (the same floats as
// ray_of's), c = y·weight and the sample count (0: nothing to add).
__global__ void ray_table_kernel(const RayLaunch l, const float* y, int k_begin, int views, float4* table) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kk = blockIdx.z;
  if (i >= l.sx || j >= l.sy || kk >= views) return;
  const int k = k_begin + kk;
  const std::size_t at = (static_cast<std::size_t>(kk) * l.sy + j) * l.sx + i;
  const float val = y[(static_cast<std::size_t>(k) * l.sy + j) * l.sx + i];
  float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f), b = make_float4(0.0f, 0.0f, 0.0f, __int_as_float(0));
  if (val != 0.0f) {
    const FloatRay r = ray_of(l, i, j, k);
    a = make_float4(r.start[0], r.start[1], r.start[2], r.step[0]);
    b = make_float4(r.step[1], r.step[2], val * r.weight, __int_as_float(r.count));
  }
  table[2 * at] = a;
  table[2 * at + 1] = b;
}

// Margin (index units) around a block's box in which its rays are sought: above the float
// rounding of a sample's position (half an ulp of |p| < 8192 is 4.9e-4), so that no sample whose
// float position lies in the box is missed; samples found in the margin are dropped exactly.
constexpr float kBoxMargin = 0.01f;
constexpr int kTiledThreads = 256;
// A block's box of the volume, kBoxX×kBoxY×kBoxZ voxels, held in shared memory with rows of kRow
// floats: padded by one, so that the atomics of a warp's rays, which differ mostly in y and z,
// fall in different banks (docs/perf/fdk.md).
constexpr int kBoxX = 16, kBoxY = 16, kBoxZ = 16, kRow = kBoxX + 1;

// The detector pixels whose rays can reach the index-space box [lo, hi] in view `r`: the box's
// corners projected through the inverse of the rays' direction matrix (double). The whole detector
// when a corner is not in front of the source.
__device__ void pixel_box(const ViewRays& r, const double* lo, const double* hi, int sx, int sy, int* out) {
  double m[3][3], inv[3][3];
  for (int a = 0; a < 3; ++a) {
    m[a][0] = r.du[a];
    m[a][1] = r.dv[a];
    m[a][2] = r.d1[a];
  }
  for (int p = 0; p < 3; ++p)
    for (int q = 0; q < 3; ++q) {
      const int p1 = (p + 1) % 3, p2 = (p + 2) % 3, q1 = (q + 1) % 3, q2 = (q + 2) % 3;
      inv[q][p] = m[p1][q1] * m[p2][q2] - m[p1][q2] * m[p2][q1];
    }
  const double det = m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
  double umin = 1e30, umax = -1e30, vmin = 1e30, vmax = -1e30;
  bool behind = !(det != 0.0);
  for (int c = 0; c < 8 && !behind; ++c) {
    const double p[3] = {((c & 1) ? hi[0] : lo[0]) - r.base[0], ((c & 2) ? hi[1] : lo[1]) - r.base[1],
                         ((c & 4) ? hi[2] : lo[2]) - r.base[2]};
    double q[3];
    for (int a = 0; a < 3; ++a) q[a] = (inv[a][0] * p[0] + inv[a][1] * p[1] + inv[a][2] * p[2]) / det;
    if (!(q[2] > 0.0)) {
      behind = true;
      break;
    }
    const double u = q[0] / q[2], v = q[1] / q[2];
    umin = fmin(umin, u);
    umax = fmax(umax, u);
    vmin = fmin(vmin, v);
    vmax = fmax(vmax, v);
  }
  if (behind) {
    umin = vmin = 0.0;
    umax = sx - 1;
    vmax = sy - 1;
  }
  // 1e-3 pixel covers the double rounding of the projection.
  const int i0 = static_cast<int>(ceil(fmax(umin - 1e-3, 0.0))), j0 = static_cast<int>(ceil(fmax(vmin - 1e-3, 0.0)));
  const int i1 = static_cast<int>(floor(fmin(umax + 1e-3, sx - 1.0))),
            j1 = static_cast<int>(floor(fmin(vmax + 1e-3, sy - 1.0)));
  out[0] = i0;
  out[1] = j0;
  out[2] = i1 >= i0 && j1 >= j0 ? i1 - i0 + 1 : 0;
  out[3] = i1 >= i0 && j1 >= j0 ? j1 - j0 + 1 : 0;
}

// The pixel boxes of every (view of the pass, box of the volume): boxes[kk·tiles + tile] =
// (i0, j0, width, height).
__global__ void pixel_box_kernel(const RayLaunch l, int k_begin, int views, int tiles, int4* boxes) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x, kk = blockIdx.y;
  if (b >= tiles || kk >= views) return;
  const int nx = l.dims[0], ny = l.dims[1], nz = l.dims[2];
  const int ntx = (nx + kBoxX - 1) / kBoxX, nty = (ny + kBoxY - 1) / kBoxY;
  const int lo[3] = {(b % ntx) * kBoxX, ((b / ntx) % nty) * kBoxY, (b / (ntx * nty)) * kBoxZ};
  const int ext[3] = {min(kBoxX, nx - lo[0]), min(kBoxY, ny - lo[1]), min(kBoxZ, nz - lo[2])};
  // A cell (floor of a sample's position) touches the box when it lies in [lo − 1, lo + ext − 1]:
  // its samples lie in [lo − 1, lo + ext).
  double blo[3], bhi[3];
  for (int a = 0; a < 3; ++a) {
    blo[a] = lo[a] - 1.0 - kBoxMargin;
    bhi[a] = lo[a] + ext[a] + kBoxMargin;
  }
  int out[4];
  pixel_box(l.rays[l.views[k_begin + kk]], blo, bhi, l.sx, l.sy, out);
  boxes[static_cast<std::size_t>(kk) * tiles + b] = make_int4(out[0], out[1], out[2], out[3]);
}

// Adds a cell's eight corner sums to the block's box (local cell (x, y, z), box extent e, rows of
// kRow floats; corners outside the box belong to other blocks).
__device__ __forceinline__ void flush_tile(float* tile, int x, int y, int z, const int* e, const float* a) {
  if (x >= 0 && y >= 0 && z >= 0 && x + 1 < e[0] && y + 1 < e[1] && z + 1 < e[2]) {
    float* p = tile + (z * kBoxY + y) * kRow + x;
    atomicAdd(p, a[0]);
    atomicAdd(p + 1, a[1]);
    atomicAdd(p + kRow, a[2]);
    atomicAdd(p + kRow + 1, a[3]);
    atomicAdd(p + kRow * kBoxY, a[4]);
    atomicAdd(p + kRow * kBoxY + 1, a[5]);
    atomicAdd(p + kRow * kBoxY + kRow, a[6]);
    atomicAdd(p + kRow * kBoxY + kRow + 1, a[7]);
    return;
  }
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const int cx = x + (q & 1), cy = y + ((q >> 1) & 1), cz = z + (q >> 2);
    if (cx >= 0 && cy >= 0 && cz >= 0 && cx < e[0] && cy < e[1] && cz < e[2])
      atomicAdd(tile + (cz * kBoxY + cy) * kRow + cx, a[q]);
  }
}

// One block per box of kBoxX×kBoxY×kBoxZ voxels (blockIdx.x) and per share of the pass's views
// (blockIdx.y of gridDim.y): the (view, pixel) pairs of the share are walked as one list, so the
// threads stay busy across views; each ray's samples whose cells touch the box are accumulated
// per cell in registers (as back_kernel does) and added to the box in shared memory.
__global__ void __launch_bounds__(kTiledThreads) back_tiled_kernel(const RayLaunch l, const float4* table,
                                                                   const int4* boxes, int views, float* x) {
  __shared__ float tile[kRow * kBoxY * kBoxZ];
  __shared__ int box[kTableMaxViews][4];
  __shared__ int offset[kTableMaxViews + 1];
  const int nx = l.dims[0], ny = l.dims[1], nz = l.dims[2];
  const int ntx = (nx + kBoxX - 1) / kBoxX, nty = (ny + kBoxY - 1) / kBoxY;
  const int b = blockIdx.x;
  const int lo[3] = {(b % ntx) * kBoxX, ((b / ntx) % nty) * kBoxY, (b / (ntx * nty)) * kBoxZ};
  const int ext[3] = {min(kBoxX, nx - lo[0]), min(kBoxY, ny - lo[1]), min(kBoxZ, nz - lo[2])};
  const int per = (views + gridDim.y - 1) / gridDim.y;
  const int v0 = blockIdx.y * per, nv = max(0, min(views, v0 + per) - v0);
  for (int q = threadIdx.x; q < kRow * kBoxY * kBoxZ; q += blockDim.x) tile[q] = 0.0f;
  for (int k = threadIdx.x; k < nv; k += blockDim.x) {
    const int4 e = boxes[static_cast<std::size_t>(v0 + k) * gridDim.x + b];
    box[k][0] = e.x;
    box[k][1] = e.y;
    box[k][2] = e.z;
    box[k][3] = e.w;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    offset[0] = 0;
    for (int k = 0; k < nv; ++k) offset[k + 1] = offset[k] + box[k][2] * box[k][3];
  }
  __syncthreads();
  const int total = offset[nv];
  float flo[3], fhi[3];
  for (int a = 0; a < 3; ++a) {
    flo[a] = lo[a] - 1.0f - kBoxMargin;
    fhi[a] = lo[a] + ext[a] + kBoxMargin;
  }
  int k = 0;
  for (int q = threadIdx.x; q < total; q += blockDim.x) {
    while (q >= offset[k + 1]) ++k;
    const int local = q - offset[k], w = box[k][2];
    const int jj = local / w;
    const int i = box[k][0] + local - jj * w, j = box[k][1] + jj;
    const std::size_t at = (static_cast<std::size_t>(v0 + k) * l.sy + j) * l.sx + i;
    const float4 ra = table[2 * at], rb = table[2 * at + 1];
    const int count = __float_as_int(rb.w);
    if (count == 0) continue;
    const float start[3] = {ra.x, ra.y, ra.z}, step[3] = {ra.w, rb.x, rb.y};
    // The samples n whose positions can lie in the box (one sample of slack each side).
    float nlo = 0.0f, nhi = static_cast<float>(count - 1);
#pragma unroll
    for (int a = 0; a < 3; ++a) {
      if (step[a] != 0.0f) {
        const float ta = __fdividef(flo[a] - start[a], step[a]), tb = __fdividef(fhi[a] - start[a], step[a]);
        nlo = fmaxf(nlo, fminf(ta, tb));
        nhi = fminf(nhi, fmaxf(ta, tb));
      } else if (!(start[a] >= flo[a] && start[a] <= fhi[a])) {
        nhi = -2.0f;
      }
    }
    if (!(nhi >= nlo - 2.0f)) continue;
    const int n0 = max(0, static_cast<int>(floorf(fminf(nlo, static_cast<float>(count)))) - 1);
    const int n1 = min(count, static_cast<int>(floorf(fmaxf(nhi, -2.0f))) + 2);
    const float c = rb.z;
    auto flush = [&](int fx, int fy, int fz, const float* a) { flush_tile(tile, fx, fy, fz, ext, a); };
    CellSums cell;
#pragma unroll 1
    for (int n = n0; n < n1; ++n) {
      const float fn = static_cast<float>(n);
      const float px = fmaf(fn, step[0], start[0]);
      const float py = fmaf(fn, step[1], start[1]);
      const float pz = fmaf(fn, step[2], start[2]);
      const float fx = floorf(px), fy = floorf(py), fz = floorf(pz);
      const float ax = px - fx, ay = py - fy, az = pz - fz;
      const int ix = static_cast<int>(fx) - lo[0], iy = static_cast<int>(fy) - lo[1], iz = static_cast<int>(fz) - lo[2];
      if (ix < -1 || iy < -1 || iz < -1 || ix >= ext[0] || iy >= ext[1] || iz >= ext[2]) {
        if (cell.open) break;  // each coordinate is monotone in n: the ray has left the box
        continue;
      }
      cell.add(ix, iy, iz, c, ax, ay, az, flush);
    }
    cell.close(flush);
  }
  __syncthreads();
  // One block owns the box for these views: a plain update when it is the only share.
  const bool shared_box = gridDim.y > 1;
  for (int q = threadIdx.x; q < kBoxX * kBoxY * kBoxZ; q += blockDim.x) {
    const int qx = q % kBoxX, qy = (q / kBoxX) % kBoxY, qz = q / (kBoxX * kBoxY);
    if (qx >= ext[0] || qy >= ext[1] || qz >= ext[2]) continue;
    float* v = x + (static_cast<std::size_t>(lo[2] + qz) * ny + lo[1] + qy) * nx + lo[0] + qx;
    const float sum = tile[(qz * kBoxY + qy) * kRow + qx];
    if (shared_box)
      atomicAdd(v, sum);
    else
      *v += sum;
  }
}

long long tiles_of(const std::array<int, 3>& d) {
  return static_cast<long long>((d[0] + kBoxX - 1) / kBoxX) * ((d[1] + kBoxY - 1) / kBoxY) *
         ((d[2] + kBoxZ - 1) / kBoxZ);
}

dim3 grid_of(const RayLaunch& l) {
  return dim3((l.sx + l.block.x - 1) / l.block.x, (l.sy + l.block.y - 1) / l.block.y, l.count);
}

// Calls launch(part, offset) over pieces of at most 65535 projections (the grid's z limit).
template <class Launch>
void in_pieces(const RayLaunch& l, Launch&& launch) {
  constexpr int kMaxZ = 65535;
  for (int k0 = 0; k0 < l.count; k0 += kMaxZ) {
    RayLaunch part = l;
    part.views = l.views + k0;
    part.count = l.count - k0 < kMaxZ ? l.count - k0 : kMaxZ;
    launch(part, static_cast<size_t>(k0) * l.sx * l.sy);
  }
}

}  // namespace

void launch_forward(const RayLaunch& l, cudaTextureObject_t volume, bool hardware, float* y, cudaStream_t stream) {
  in_pieces(l, [&](const RayLaunch& p, size_t offset) {
    if (hardware)
      forward_kernel<true><<<grid_of(p), p.block, 0, stream>>>(p, volume, y + offset);
    else
      forward_kernel<false><<<grid_of(p), p.block, 0, stream>>>(p, volume, y + offset);
    TOMO_CUDA_CHECK_LAST();
  });
}

std::size_t tiled_scratch_floats(const std::array<int, 3>& dims, int sx, int sy, int views_per_pass) {
  const std::size_t tiles = static_cast<std::size_t>(tiles_of(dims));
  return static_cast<std::size_t>(views_per_pass) * (kRayTableFloats * static_cast<std::size_t>(sx) * sy + 4 * tiles);
}

int tiled_views_per_pass(const std::array<int, 3>& dims, int sx, int sy, std::size_t scratch_bytes) {
  const std::size_t per_view = sizeof(float) * tiled_scratch_floats(dims, sx, sy, 1);
  const std::size_t n = per_view ? scratch_bytes / per_view : 1;
  return static_cast<int>(n < 1 ? 1 : n > kTableMaxViews ? kTableMaxViews : n);
}

void launch_back_tiled(const RayLaunch& l, const float* y, float* x, float* scratch, int views_per_pass,
                       cudaStream_t stream) {
  if (l.count <= 0) return;
  const int per = views_per_pass < 1 ? 1 : views_per_pass > kTableMaxViews ? kTableMaxViews : views_per_pass;
  float4* table = reinterpret_cast<float4*>(scratch);
  int4* boxes = reinterpret_cast<int4*>(scratch + static_cast<std::size_t>(per) * kRayTableFloats * l.sx * l.sy);
  const long long tiles = tiles_of(l.dims);
  int device = 0, sms = 1, per_sm = 1;
  TOMO_CUDA_CHECK(cudaGetDevice(&device));
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TOMO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, back_tiled_kernel, kTiledThreads, 0));
  // Views shared between blocks only when the boxes alone cannot fill the GPU twice.
  const long long want = 2LL * sms * (per_sm > 0 ? per_sm : 1);
  for (int k0 = 0; k0 < l.count; k0 += per) {
    const int views = l.count - k0 < per ? l.count - k0 : per;
    const dim3 tb(32, 8, 1);
    const dim3 tg((l.sx + 31) / 32, (l.sy + 7) / 8, views);
    ray_table_kernel<<<tg, tb, 0, stream>>>(l, y, k0, views, table);
    TOMO_CUDA_CHECK_LAST();
    pixel_box_kernel<<<dim3(static_cast<unsigned>((tiles + 127) / 128), views, 1), 128, 0, stream>>>(
        l, k0, views, static_cast<int>(tiles), boxes);
    TOMO_CUDA_CHECK_LAST();
    long long split = tiles >= want ? 1 : (want + tiles - 1) / tiles;
    if (split > views) split = views;
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(split), 1);
    back_tiled_kernel<<<grid, kTiledThreads, 0, stream>>>(l, table, boxes, views, x);
    TOMO_CUDA_CHECK_LAST();
  }
}

}  // namespace tomo::fdk::cuda_detail
