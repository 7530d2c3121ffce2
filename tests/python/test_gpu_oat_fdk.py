"""GPU arrays in place for oat's FBP and PLS and fdk.fdk's filter (marker gpu; the GPU machine runs
them with `-m gpu`, docs/python.md): CuPy and PyTorch float32 CUDA arrays into oat.Fbp/oat.fbp
(the table built and the FBP run on the GPU, cuda/oat/device_arrays DeviceArrayFbp), oat.pls (the
CG loop on the caller's arrays through the device model) and fdk.fdk (cuFFT filter into a device
scratch chunk, cuda/fdk/device_arrays DeviceFilter, then the in-place back-projection): results of
the caller's kind, equal to the NumPy/cpu results within the tolerances stated per test, out= in
place (pointer identity), and the documented errors for the wrong backend, dtype and shape."""
import numpy as np
import pytest

import tomoraster
from test_fdk import circular_geometry, sphere_stack
from test_gpu import Kind, rel

pytestmark = pytest.mark.gpu
OAT_SMALL = {"grid": [12, 12, 12], "voxel_mm": 1.0, "rings": 4, "views": 8, "radius_mm": 20.0}
OAT_EIR = dict(OAT_SMALL, eir={"kind": "gaussian", "sigma_us": 0.1})
FDK_GRID = ([20] * 3, [3.0] * 3)


@pytest.fixture(params=["cupy", "torch"])
def kind(request):
    return Kind(request.param)


@pytest.fixture(scope="module")
def oat_data():
    """The scene's simulated pressure (the exact sphere model, independent of the FBP and of H)."""
    u, _, _ = tomoraster.oat.acquire(**OAT_SMALL)
    return u


def test_oat_fbp_on_gpu_arrays(kind, oat_data):
    """Fbp(backend="cuda").reconstruct on CUDA u: equal to the cpu FBP (double) within
    kFbpExactTolerance (1e-5 relative L2, tests/oat/gpu_checks.hpp: the same kernels as the cuda
    backend, u rounded to float32 first); a new array of u's kind, or out= written in place."""
    u = oat_data
    ref = tomoraster.oat.Fbp(backend="cpu", **OAT_SMALL).reconstruct(u)
    fbp = tomoraster.oat.Fbp(backend="cuda", **OAT_SMALL)
    ud = kind.to_gpu(u.astype(np.float32))
    img = fbp.reconstruct(ud)
    assert kind.is_kind(img) and tuple(img.shape) == ref.shape
    assert rel(kind.to_numpy(img), ref) <= 1e-5
    out = kind.empty(ref.shape)
    before = kind.ptr(out)
    assert fbp.reconstruct(ud, out=out) is out and kind.ptr(out) == before
    assert rel(kind.to_numpy(out), ref) <= 1e-5
    one = tomoraster.oat.fbp(ud, backend="cuda", out=kind.empty(ref.shape), **OAT_SMALL)
    assert rel(kind.to_numpy(one), ref) <= 1e-5


def test_oat_fbp_with_eir_deconvolution(kind):
    """With a Gaussian EIR the deconvolution runs on the GPU too (DeviceArrayFbp's direct
    convolution with deconvolve_eir's kernel): equal to the cpu FBP of the host deconvolution
    (FFTW, double) within 1e-4 relative L2 (u is rounded to float32 before a filter that may
    amplify up to 100×, the default cutoff's 1 %), also with an explicit Hann cutoff; with
    deconvolve=False, to the cpu's FBP of the raw data within 1e-5."""
    u, _, _ = tomoraster.oat.acquire(**OAT_EIR)
    cpu = tomoraster.oat.Fbp(backend="cpu", **OAT_EIR)
    gpu = tomoraster.oat.Fbp(backend="cuda", **OAT_EIR)
    ud = kind.to_gpu(u.astype(np.float32))
    assert rel(kind.to_numpy(gpu.reconstruct(ud)), cpu.reconstruct(u)) <= 1e-4
    assert rel(kind.to_numpy(gpu.reconstruct(ud, cutoff_mhz=3.0)), cpu.reconstruct(u, cutoff_mhz=3.0)) <= 1e-4
    assert rel(kind.to_numpy(gpu.reconstruct(ud, deconvolve=False)), cpu.reconstruct(u, deconvolve=False)) <= 1e-5


def test_oat_fbp_errors(kind, oat_data):
    ud = kind.to_gpu(oat_data.astype(np.float32))
    with pytest.raises(TypeError, match="u: a GPU array was given to the cpu backend"):
        tomoraster.oat.Fbp(backend="cpu", **OAT_SMALL).reconstruct(ud)
    gpu = tomoraster.oat.Fbp(backend="cuda", **OAT_SMALL)
    with pytest.raises(TypeError, match="u: dtype must be float32"):
        gpu.reconstruct(kind.to_gpu(oat_data))
    with pytest.raises(ValueError, match="u: shape"):
        gpu.reconstruct(kind.to_gpu(oat_data[:-1].astype(np.float32)))
    with pytest.raises(ValueError, match="out: shape"):
        gpu.reconstruct(ud, out=kind.empty((3,)))
    with pytest.raises(ValueError, match="out: only with CUDA arrays"):
        gpu.reconstruct(oat_data, out=np.zeros(gpu.image_shape))


def test_oat_pls_on_gpu_arrays(kind, oat_data):
    """oat.pls on CUDA u runs the CG on the GPU: against the cuda backend's NumPy path (the same
    kernels, vectors in double there, float32 here) α within 1e-4 relative L2, objectives within
    1e-4 and residuals within 1e-3 relative, per iteration; against the cpu model (double) α within
    2e-3 (the float32 model's 1e-4 per application, through 5 iterations). μ > 0: the penalty too."""
    u = oat_data
    cpu = tomoraster.oat.Model(backend="cpu", **OAT_SMALL)
    gpu = tomoraster.oat.Model(backend="cuda", **OAT_SMALL)
    seen_host, seen_dev = [], []
    ref = tomoraster.oat.pls(gpu, u, iterations=5, mu=0.05, callback=lambda *a: seen_host.append(a))
    ref_cpu = tomoraster.oat.pls(cpu, u, iterations=5, mu=0.05)
    alpha = tomoraster.oat.pls(gpu, kind.to_gpu(u.astype(np.float32)), iterations=5, mu=0.05,
                               callback=lambda *a: seen_dev.append(a))
    assert kind.is_kind(alpha) and tuple(alpha.shape) == ref.shape
    got = kind.to_numpy(alpha)
    assert rel(got, ref) <= 1e-4
    assert rel(got, ref_cpu) <= 2e-3
    assert [s[0] for s in seen_dev] == [1, 2, 3, 4, 5] == [s[0] for s in seen_host]
    for (_, obj_h, res_h), (_, obj_d, res_d) in zip(seen_host, seen_dev):
        assert obj_d == pytest.approx(obj_h, rel=1e-4)
        assert res_d == pytest.approx(res_h, rel=1e-3)
    assert seen_dev[-1][1] < seen_dev[0][1]  # CG lowers the objective


def test_oat_pls_errors(kind, oat_data):
    cpu = tomoraster.oat.Model(backend="cpu", **OAT_SMALL)
    with pytest.raises(TypeError, match="u: a GPU array was given to the cpu backend"):
        tomoraster.oat.pls(cpu, kind.to_gpu(oat_data.astype(np.float32)), iterations=1)
    gpu = tomoraster.oat.Model(backend="cuda", **OAT_SMALL)
    with pytest.raises(TypeError, match="u: dtype must be float32"):
        tomoraster.oat.pls(gpu, kind.to_gpu(oat_data), iterations=1)


def test_fdk_filters_gpu_stacks_on_the_gpu(kind):
    """fdk.fdk on a CUDA stack with the default filter backend: the cuFFT filter on the device
    (float) and the cuda back-projection equal the NumPy/cpu run (FFTW double, cpu exact bilinear)
    within 2e-5 relative L2 (1e-5 each, tests/fdk); the stack is left as it was; chunks of 32 and
    a short last one reach the callback; intensities (ln(i0/I) on the device) likewise."""
    mats = circular_geometry(40, pixel=4.0)
    stack = sphere_stack(mats)
    ref = tomoraster.fdk.fdk(stack, mats, *FDK_GRID, backend="cpu")
    gpu_stack = kind.to_gpu(stack)
    seen = []
    vol = tomoraster.fdk.fdk(gpu_stack, mats, *FDK_GRID, backend="cuda", callback=lambda d, t: seen.append(d))
    assert kind.is_kind(vol) and seen == [32, 40]
    assert rel(kind.to_numpy(vol), ref) <= 2e-5
    assert np.array_equal(kind.to_numpy(gpu_stack), stack)
    i0 = 1000.0
    intensities = (i0 * np.exp(-stack.astype(np.float64))).astype(np.float32)
    ref_i = tomoraster.fdk.fdk(intensities, mats, *FDK_GRID, backend="cpu", intensity=True, i0=i0)
    vol_i = tomoraster.fdk.fdk(kind.to_gpu(intensities), mats, *FDK_GRID, backend="cuda", intensity=True, i0=i0,
                               chunk=7)
    assert rel(kind.to_numpy(vol_i), ref_i) <= 2e-5


def test_fdk_gpu_stack_errors(kind):
    mats = circular_geometry(4, pixel=4.0)
    stack = np.ones((4, 40, 48), np.float32)
    with pytest.raises(TypeError, match="projections: a GPU array was given to the cpu backend"):
        tomoraster.fdk.fdk(kind.to_gpu(stack), mats, *FDK_GRID, backend="cpu")
    with pytest.raises(TypeError, match="projections: dtype must be float32"):
        tomoraster.fdk.fdk(kind.to_gpu(stack.astype(np.float64)), mats, *FDK_GRID, backend="cuda")
    bad = stack.copy()
    bad[2, 3, 5] = -1.0
    with pytest.raises(ValueError, match="projections: projection 2, row 3, column 5 is -1.0"):
        tomoraster.fdk.fdk(kind.to_gpu(bad), mats, *FDK_GRID, backend="cuda", intensity=True, i0=10.0)


def test_device_mismatch_is_one_clear_error(kind, oat_data):
    """u on another GPU than the FBP's (device 0), or a stack on another GPU than fdk.fdk's."""
    n = kind.mod.cuda.runtime.getDeviceCount() if kind.name == "cupy" else kind.mod.cuda.device_count()
    if n < 2:
        pytest.skip("one CUDA device: no second device to put an array on")

    def on_device_1(a):
        if kind.name == "cupy":
            with kind.mod.cuda.Device(1):
                return kind.mod.asarray(a)
        return kind.mod.from_numpy(np.ascontiguousarray(a)).to("cuda:1")

    fbp = tomoraster.oat.Fbp(backend="cuda", **OAT_SMALL)
    with pytest.raises(ValueError, match="u: on CUDA device 1, but the operator runs on CUDA device 0"):
        fbp.reconstruct(on_device_1(oat_data.astype(np.float32)))
    mats = circular_geometry(4, pixel=4.0)
    with pytest.raises(ValueError, match="projections: on CUDA device 1, but the operator runs on CUDA device 0"):
        tomoraster.fdk.fdk(on_device_1(np.ones((4, 40, 48), np.float32)), mats, *FDK_GRID, backend="cuda")
