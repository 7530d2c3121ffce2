"""GPU arrays in place (marker gpu; the GPU machine runs them with `-m gpu`, docs/python.md):
CuPy and PyTorch CUDA arrays into glpet's cuda projector, fdk's cuda back-projector and fdk.fdk,
oat's H_int and safir's list-mode forward/back (cuda/<p>/device_arrays), the
result the same kind of array on the same device, equal to the NumPy/cpu result, out= written
in place (pointer identity), and the named errors of wrong devices, dtypes, shapes, layouts."""
import numpy as np
import pytest

import tomoraster
from test_fdk import circular_geometry

pytestmark = pytest.mark.gpu
SMALL = {"glpet.voxels": [8, 8, 8], "glpet.voxel_mm": [4.0, 4.0, 4.0]}
FRAMEWORKS = ["cupy", "torch"]


class Kind:
    """One array framework: moving NumPy data to the GPU and back, and a device pointer."""

    def __init__(self, name):
        self.name = name
        self.mod = pytest.importorskip(name)
        if name == "torch" and not self.mod.cuda.is_available():
            pytest.skip("PyTorch sees no CUDA device")

    def to_gpu(self, a):
        return self.mod.asarray(a) if self.name == "cupy" else self.mod.from_numpy(np.ascontiguousarray(a)).cuda()

    def to_numpy(self, a):
        return a.get() if self.name == "cupy" else a.cpu().numpy()

    def ptr(self, a):
        return a.data.ptr if self.name == "cupy" else a.data_ptr()

    def empty(self, shape, dtype="float32"):
        if self.name == "cupy":
            return self.mod.empty(shape, dtype=dtype)
        return self.mod.empty(shape, dtype=getattr(self.mod, dtype), device="cuda")

    def reversed_axes(self, a):
        return a.transpose(2, 1, 0) if self.name == "cupy" else a.permute(2, 1, 0)

    def is_kind(self, a):
        return type(a).__module__.split(".")[0] == self.name


@pytest.fixture(params=FRAMEWORKS)
def kind(request):
    return Kind(request.param)


def rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def same_as_backend(got, ref_a, ref_b):
    """got (float32 from the GPU path) against two NumPy runs of the backend (float64 of float32): bit for
    bit where the two runs agree bit for bit, else within 1e-6 relative L2 (float atomics in another order)."""
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == ref_a.shape
    if np.array_equal(ref_a, ref_b):
        np.testing.assert_array_equal(got, ref_a)
    else:
        assert rel(got, ref_a) <= 1e-6


@pytest.fixture(scope="module")
def glpet_pair():
    return (tomoraster.glpet.Projector("glpet_small.toml", backend="cpu", set=SMALL),
            tomoraster.glpet.Projector("glpet_small.toml", backend="cuda", set=SMALL))


def test_glpet_forward_and_back_on_gpu_arrays(kind, glpet_pair):
    cpu, gpu = glpet_pair
    rng = np.random.default_rng(11)
    x = rng.random(cpu.image_shape, dtype=np.float32)
    y = rng.random(cpu.lor_count, dtype=np.float32)
    fx, by = gpu.forward(kind.to_gpu(x)), gpu.back(kind.to_gpu(y))
    assert kind.is_kind(fx) and kind.is_kind(by)
    assert tuple(fx.shape) == (cpu.lor_count,) and tuple(by.shape) == cpu.image_shape
    assert rel(kind.to_numpy(fx), cpu.forward(x)) <= 1e-4  # docs/glpet.md: float twins ≤ 1e-4
    assert rel(kind.to_numpy(by), cpu.back(y)) <= 1e-4
    # the NumPy path of the same cuda projector: the same kernels (float atomics: sums in any order)
    assert rel(kind.to_numpy(fx), gpu.forward(x)) <= 1e-5


def test_glpet_out_is_written_in_place(kind, glpet_pair):
    _, gpu = glpet_pair
    x = kind.to_gpu(np.random.default_rng(12).random(gpu.image_shape, dtype=np.float32))
    out = kind.empty((gpu.lor_count,))
    before = kind.ptr(out)
    r = gpu.forward(x, out=out)
    assert r is out and kind.ptr(r) == before
    assert rel(kind.to_numpy(out), kind.to_numpy(gpu.forward(x))) <= 1e-5


def test_glpet_mlem_on_cupy_stays_on_the_gpu(glpet_pair):
    cp = pytest.importorskip("cupy")
    cpu, gpu = glpet_pair
    x_true = np.zeros(cpu.image_shape, dtype=np.float32)
    x_true[3:5, 3:5, 3:5] = 10.0
    y = cpu.forward(x_true)
    ref = tomoraster.glpet.mlem(cpu, y, iterations=5)
    seen = []
    x = tomoraster.glpet.mlem(gpu, cp.asarray(y), iterations=5, callback=lambda it, x: seen.append(type(x)))
    assert isinstance(x, cp.ndarray) and seen == [cp.ndarray] * 5
    assert rel(x.get(), ref) <= 1e-3  # five iterations of float twins within 1e-4 each


def test_fdk_backprojects_gpu_stacks(kind):
    rng = np.random.default_rng(13)
    mats = circular_geometry(12)
    proj = rng.random((12, 40, 48), dtype=np.float32)
    voxels, voxel = [16, 14, 12], [1.5] * 3
    ref = tomoraster.fdk.backproject(proj, mats, voxels, voxel, backend="cpu", interpolation="exact")
    bp = tomoraster.fdk.Backprojector(voxels, voxel, backend="cuda", interpolation="exact")
    for m in (mats, kind.to_gpu(mats)):  # matrices from the host or the GPU
        vol = bp.backproject(kind.to_gpu(proj), m)
        assert kind.is_kind(vol) and tuple(vol.shape) == (12, 14, 16)
        assert rel(kind.to_numpy(vol), ref) <= 1e-5  # fp32 exact bilinear vs the double reference
    out = kind.empty((12, 14, 16))
    before = kind.ptr(out)
    assert bp.backproject(kind.to_gpu(proj), mats, out=out) is out and kind.ptr(out) == before
    bp.backproject(kind.to_gpu(proj), mats, out=out, accumulate=True)
    assert rel(kind.to_numpy(out), 2 * ref) <= 1e-5
    hw = tomoraster.fdk.Backprojector(voxels, voxel, backend="cuda", interpolation="hardware")
    assert rel(kind.to_numpy(hw.backproject(kind.to_gpu(proj), mats)), ref) <= 2e-2  # 8-bit texture weights


def test_gpu_arrays_errors(kind, glpet_pair):
    cpu, gpu = glpet_pair
    x = np.zeros(cpu.image_shape, dtype=np.float32)
    with pytest.raises(TypeError, match="x: a GPU array was given to the cpu backend"):
        cpu.forward(kind.to_gpu(x))
    with pytest.raises(TypeError, match="x: dtype must be float32"):
        gpu.forward(kind.to_gpu(x.astype(np.float64)))
    with pytest.raises(ValueError, match="x: shape"):
        gpu.forward(kind.to_gpu(x[:2]))
    with pytest.raises(ValueError, match="x: must be C-contiguous"):
        gpu.forward(kind.reversed_axes(kind.to_gpu(np.zeros(cpu.image_shape[::-1], dtype=np.float32))))
    with pytest.raises(ValueError, match="out: shape"):
        gpu.forward(kind.to_gpu(x), out=kind.empty((3,)))
    with pytest.raises(TypeError, match="out: a CUDA array is needed"):
        gpu.forward(kind.to_gpu(x), out=np.zeros(cpu.lor_count, dtype=np.float32))
    bp = tomoraster.fdk.Backprojector([4, 4, 4], [1.0] * 3, backend="cpu")
    with pytest.raises(TypeError, match="projections: a GPU array was given to the cpu backend"):
        bp.backproject(kind.to_gpu(np.zeros((2, 5, 6), dtype=np.float32)), circular_geometry(2))


def test_device_mismatch_is_one_clear_error(kind, glpet_pair):
    n = kind.mod.cuda.runtime.getDeviceCount() if kind.name == "cupy" else kind.mod.cuda.device_count()
    if n < 2:
        pytest.skip("one CUDA device: no second device to put an array on")
    _, gpu = glpet_pair  # on device 0
    x = np.zeros(gpu.image_shape, dtype=np.float32)
    if kind.name == "cupy":
        with kind.mod.cuda.Device(1):
            x1 = kind.mod.asarray(x)
    else:
        x1 = kind.mod.from_numpy(x).to("cuda:1")
    with pytest.raises(ValueError, match="x: on CUDA device 1, but the operator runs on CUDA device 0"):
        gpu.forward(x1)


OAT_SMALL = {"grid": [12, 12, 12], "voxel_mm": 1.0, "rings": 4, "views": 8, "radius_mm": 20.0}


def test_oat_model_on_gpu_arrays(kind):
    """H_int and Hᵀ on CUDA float32 arrays (cuda/oat/device_arrays) equal the cpu (double) model
    within gpu_checks.hpp's exact tolerance (1e-4 relative L2); out= is written in place."""
    cpu = tomoraster.oat.Model(backend="cpu", **OAT_SMALL)
    gpu = tomoraster.oat.Model(backend="cuda", **OAT_SMALL)
    rng = np.random.default_rng(21)
    alpha = rng.random(cpu.image_shape)
    u = rng.random(cpu.data_shape)
    fwd = gpu.forward(kind.to_gpu(alpha.astype(np.float32)))
    assert kind.is_kind(fwd) and tuple(fwd.shape) == cpu.data_shape
    assert rel(kind.to_numpy(fwd), cpu.forward(alpha)) <= 1e-4
    out = kind.empty(cpu.image_shape)
    before = kind.ptr(out)
    assert gpu.adjoint(kind.to_gpu(u.astype(np.float32)), out=out) is out and kind.ptr(out) == before
    assert rel(kind.to_numpy(out), cpu.adjoint(u)) <= 1e-4
    with pytest.raises(TypeError, match="alpha: a GPU array was given to the cpu backend"):
        cpu.forward(kind.to_gpu(alpha.astype(np.float32)))
    with pytest.raises(TypeError, match="alpha: dtype must be float32"):
        gpu.forward(kind.to_gpu(alpha))
    with pytest.raises(ValueError, match="out: shape"):
        gpu.forward(kind.to_gpu(alpha.astype(np.float32)), out=kind.empty((3,)))


def test_fdk_algorithm_on_gpu_stacks(kind):
    """tomoraster.fdk.fdk on a CUDA stack (filter on the host per chunk, back-projection
    accumulated on the GPU) equals the NumPy/cpu run: fp32 exact bilinear, 1e-5 relative L2; the
    callback sees each chunk of 16 (a last, shorter one included)."""
    from test_fdk import sphere_stack
    mats = circular_geometry(40, pixel=4.0)
    stack = sphere_stack(mats)
    ref = tomoraster.fdk.fdk(stack, mats, [20] * 3, [3.0] * 3, backend="cpu")
    seen = []
    vol = tomoraster.fdk.fdk(kind.to_gpu(stack), mats, [20] * 3, [3.0] * 3, backend="cuda", filter_backend="cpu",
                             chunk=16, callback=lambda done, total: seen.append(done))
    assert kind.is_kind(vol) and seen == [16, 32, 40]
    assert rel(kind.to_numpy(vol), ref) <= 1e-5


def test_safir_forward_and_back_on_gpu_arrays(kind):
    """safir's cuda backend pass on CUDA float32 arrays (cuda/safir/device_arrays: events sorted once by
    label, forward gather, back atomics) equals the cpu (double) operator within 1e-4 relative L2
    (fp32 slice walk; float atomics in the back-projection), event order kept; out= in place."""
    from test_safir import SAFIR
    ev, _, _ = tomoraster.safir.events(**SAFIR)
    ev = ev[:5000]
    cpu = tomoraster.safir.Projector(backend="cpu", **SAFIR)
    gpu = tomoraster.safir.Projector(backend="cuda", **SAFIR)
    cpu.set_events(ev)
    gpu.set_events(ev)
    rng = np.random.default_rng(23)
    x = rng.random(cpu.image_shape)
    v = rng.random(len(ev))
    y = gpu.forward(kind.to_gpu(x.astype(np.float32)))
    assert kind.is_kind(y) and tuple(y.shape) == (len(ev),)
    assert rel(kind.to_numpy(y), cpu.forward(x)) <= 1e-4
    out = kind.empty(cpu.image_shape)
    before = kind.ptr(out)
    assert gpu.back(kind.to_gpu(v.astype(np.float32)), out=out) is out and kind.ptr(out) == before
    assert rel(kind.to_numpy(out), cpu.back(v)) <= 1e-4
    with pytest.raises(TypeError, match="x: a GPU array was given to the cpu backend"):
        cpu.forward(kind.to_gpu(x.astype(np.float32)))
    with pytest.raises(ValueError, match="v: shape"):
        gpu.back(kind.to_gpu(v[:10].astype(np.float32)))
