"""fdk.fdk's cuda pipeline (marker gpu): NumPy and CUDA stacks through the same chunks give the same
bits, whatever the ring of device slots or the way host chunks are uploaded, and the cpu run's
volume to float rounding; the pipeline is kept for the next call of the same geometry. ConeBeam
takes CUDA arrays in place and gives the NumPy path's numbers."""
import numpy as np
import pytest

import tomoraster
from test_fdk import circular_geometry, sphere_stack
from test_gpu import Kind, rel

pytestmark = pytest.mark.gpu
GRID = dict(voxels=[20] * 3, voxel_mm=[3.0] * 3)


@pytest.fixture(params=["cupy", "torch"])
def kind(request):
    return Kind(request.param)


@pytest.fixture(scope="module")
def orbit():
    mats = circular_geometry(40, pixel=4.0)
    return sphere_stack(mats), mats


def run(pipe, stack, chunk, out=None):
    pipe.begin()
    for n0 in range(0, stack.shape[0], chunk):
        pipe.add(n0, stack[n0:n0 + chunk])
    if out is None:
        return pipe.finish_host()
    pipe.finish_device(out)
    return out


def make(mats, chunk, ring_mb=1024.0):
    return tomoraster._core.FdkPipeline(mats, 40, 48, "ram-lak", True, True, [20] * 3, [3.0] * 3, [-28.5] * 3,
                                        "exact", chunk, ring_mb)


def test_numpy_and_cuda_stacks_give_the_same_bits(kind, orbit):
    stack, mats = orbit
    ref = tomoraster.fdk.fdk(stack, mats, **GRID, backend="cpu")
    host = tomoraster.fdk.fdk(stack, mats, **GRID, backend="cuda")
    dev = kind.to_numpy(tomoraster.fdk.fdk(kind.to_gpu(stack), mats, **GRID, backend="cuda"))
    assert np.abs(host).sum() > 0
    assert np.array_equal(dev, host)
    assert rel(host, ref) <= 2e-5  # cuFFT float and cuda bilinear against FFTW double and cpu


def test_the_ring_changes_no_bit(kind, orbit):
    """Chunks of 4: ten of them; with ring_mb=0 the ring has three slots and wraps (a slot is
    written again only after the back-projector has read it), from NumPy and from CUDA chunks."""
    stack, mats = orbit
    whole = run(make(mats, 4), stack, 4)
    assert np.array_equal(run(make(mats, 4, ring_mb=0.0), stack, 4), whole)
    dev = kind.to_numpy(run(make(mats, 4, ring_mb=0.0), kind.to_gpu(stack), 4, kind.empty((20, 20, 20))))
    assert np.array_equal(dev, whole)
    pipe = make(mats, 4, ring_mb=0.0)
    assert "3 device slots" in pipe.describe()
    run(pipe, stack, 4)
    t = pipe.times()
    assert t["chunks"] == 10 and t["total_ms"] > 0 and t["filter_ms"] > 0 and t["upload_ms"] > 0
    assert np.array_equal(run(pipe, stack, 4), whole)  # a second run on the same buffers


def test_the_pipeline_is_kept_for_the_same_geometry(orbit):
    stack, mats = orbit
    tomoraster.fdk.clear_cache()
    a = tomoraster.fdk.fdk(stack, mats, **GRID, backend="cuda")
    (pipe,) = tomoraster.fdk._CACHE.values()
    b = tomoraster.fdk.fdk(stack, mats, **GRID, backend="cuda")
    assert tomoraster.fdk._CACHE[next(iter(tomoraster.fdk._CACHE))] is pipe and np.array_equal(a, b)
    tomoraster.fdk.fdk(stack, mats, **GRID, backend="cuda", window="hann")  # another filter: a new one
    assert len(tomoraster.fdk._CACHE) == 1 and next(iter(tomoraster.fdk._CACHE.values())) is not pipe
    tomoraster.fdk.clear_cache()
    assert not tomoraster.fdk._CACHE


def test_cuda_chunks_are_refused_with_one_line(kind, orbit):
    stack, mats = orbit
    pipe = make(mats, 8)
    pipe.begin()
    with pytest.raises(ValueError, match=r"^projections: shape \(8, 48, 40\), expected \(8, 40, 48\)$"):
        pipe.add(0, kind.to_gpu(np.ascontiguousarray(stack[:8].transpose(0, 2, 1))))
    with pytest.raises(ValueError, match="chunk outside the stack"):
        pipe.add(36, kind.to_gpu(stack[:8]))
    with pytest.raises(ValueError, match="chunk must be 1..64"):
        make(mats, 65)


def test_cone_beam_takes_cuda_arrays_in_place(kind):
    g = tomoraster.fdk.circular_orbit(24, 32, 2.0, 300.0, 600.0, (16, 16, 12), 2.0, views=20)
    op = tomoraster.fdk.ConeBeam(g, backend="cuda")
    rng = np.random.default_rng(5)
    x = rng.random(g.in_shape, dtype=np.float32)
    y = rng.random(g.out_shape, dtype=np.float32)
    assert np.array_equal(kind.to_numpy(op.forward(kind.to_gpu(x))), op.forward(x))
    assert np.array_equal(kind.to_numpy(op.back_voxel(kind.to_gpu(y))), op.back_voxel(y))
    assert rel(kind.to_numpy(op.back(kind.to_gpu(y))), op.back(y)) <= 1e-6  # atomics: any order
    out = kind.empty(g.out_shape)
    assert op.forward(kind.to_gpu(x), out=out) is out
    with pytest.raises(ValueError, match=r"^volume: shape"):
        op.forward(kind.to_gpu(y))
    cpu = tomoraster.fdk.ConeBeam(g, backend="cpu")
    with pytest.raises(TypeError, match="volume: a GPU array was given to the cpu backend"):
        cpu.forward(kind.to_gpu(x))


def test_cone_beam_numpy_path_in_staged_slabs_gives_the_in_place_numbers(kind):
    # More than one staging slab (about 32 MiB, whole views) each way: a volume of 10.5 M floats goes
    # up in two, 600 views of 128² come back in two (A runs slab by slab while the last comes back).
    g = tomoraster.fdk.circular_orbit(128, 128, 2.0, 300.0, 600.0, (256, 256, 160), 1.0, views=600)
    rng = np.random.default_rng(11)
    x = rng.random(g.in_shape, dtype=np.float32)
    y = rng.random(g.out_shape, dtype=np.float32)
    for interpolation in ("exact", "hardware"):
        op = tomoraster.fdk.ConeBeam(g, backend="cuda", interpolation=interpolation)
        fx = op.forward(x)
        assert fx.shape == g.out_shape and fx.dtype == np.float32 and fx.flags.c_contiguous
        assert np.array_equal(kind.to_numpy(op.forward(kind.to_gpu(x))), fx)
        assert np.array_equal(op.forward(x), fx)  # the staging buffers reused
        assert float(np.abs(fx).max()) > 0
        assert np.array_equal(kind.to_numpy(op.back_voxel(kind.to_gpu(y))), op.back_voxel(y))
        assert rel(kind.to_numpy(op.back(kind.to_gpu(y))), op.back(y)) <= 1e-6  # atomics: any order
