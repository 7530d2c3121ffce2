"""GPU arrays in place (marker gpu; the GPU machine runs them with `-m gpu`,
docs/python.md): strip's Projector forward/back/iterate and strip.mlem on CUDA events and images
(cuda/strip/device_arrays), safir.mlem with CUDA events (every vector on the GPU across
iterations, cuda/safir/device_arrays), musr's χ² reading CUDA bins in place
(cuda/musr/device_arrays). Each result is the caller's kind of array, equal to the NumPy/cpu
(double) result within the stated tolerance; out= keeps its pointer; wrong backend, dtype, shape
and device raise the documented exception."""
from pathlib import Path

import numpy as np
import pytest

import tomoraster
from test_gpu import FRAMEWORKS, Kind, rel
from test_safir import SAFIR

pytestmark = pytest.mark.gpu
STRIP = {"R": 100.0, "L": 200.0, "pixel_size": 5.0, "sigma_z": 10.0, "sigma_dl": 40.0}


@pytest.fixture(params=FRAMEWORKS)
def kind(request):
    return Kind(request.param)


def strip_events(n, seed=7):
    """Events of two point sources and a uniform disc, made with NumPy from [Bialas2015] eq. (2)
    inverted (z̃u, z̃d = z − y tanθ ± R tanθ, Δl̃ = −2y secθ) plus Gaussian detector noise:
    independent of the operators under test."""
    rng = np.random.default_rng(seed)
    R, L = STRIP["R"], STRIP["L"]
    src = rng.integers(0, 3, n)
    y = np.where(src == 0, 20.0, np.where(src == 1, -30.0, rng.uniform(-60, 60, n)))
    z = np.where(src == 0, -25.0, np.where(src == 1, 40.0, rng.uniform(-60, 60, n)))
    t = np.tan(rng.uniform(-0.6, 0.6, n))
    zu = z - y * t + R * t + rng.normal(0, STRIP["sigma_z"], n)
    zd = z - y * t - R * t + rng.normal(0, STRIP["sigma_z"], n)
    dl = -2 * y * np.sqrt(1 + t * t) + rng.normal(0, STRIP["sigma_dl"], n)
    keep = (np.abs(zu) < L / 2) & (np.abs(zd) < L / 2)
    return np.ascontiguousarray(np.stack([zu, zd, dl], axis=1)[keep], dtype=np.float32)


@pytest.fixture(scope="module")
def strip_pair():
    return (tomoraster.strip.Projector(backend="cpu", **STRIP), tomoraster.strip.Projector(backend="cuda", **STRIP))


def test_strip_forward_and_back_on_gpu_arrays(kind, strip_pair):
    """A x and Aᵀ w on CUDA float32 arrays (one thread per event, float) equal the host's double
    evaluation within 5e-5 relative L2 (float: 2e-6 on 1.8e5 events emulated on the host, but a
    pixel on an ellipse's edge may fall in or out, up to 6e-4 of that event); ⟨Ax, w⟩ = ⟨x, Aᵀw⟩
    on the GPU within 2e-5; out= is written in place."""
    cpu, gpu = strip_pair
    ev = strip_events(4000)
    rng = np.random.default_rng(31)
    x = rng.random(cpu.image_shape)
    w = rng.random(len(ev))
    ev_d = kind.to_gpu(ev)
    y = gpu.forward(kind.to_gpu(x.astype(np.float32)), ev_d)
    assert kind.is_kind(y) and tuple(y.shape) == (len(ev),)
    y_ref = cpu.forward(x, ev)
    assert rel(kind.to_numpy(y), y_ref) <= 5e-5
    out = kind.empty(cpu.image_shape)
    before = kind.ptr(out)
    assert gpu.back(kind.to_gpu(w.astype(np.float32)), ev_d, out=out) is out and kind.ptr(out) == before
    b = kind.to_numpy(out)
    assert rel(b, cpu.back(w, ev)) <= 5e-5
    lhs = float(kind.to_numpy(y).astype(np.float64) @ w.astype(np.float32))
    rhs = float(np.sum(x.astype(np.float32) * b.astype(np.float64)))
    assert abs(lhs - rhs) <= 2e-5 * abs(lhs)


def test_strip_iterate_on_gpu_arrays_in_place(kind, strip_pair):
    """One EM step (the cuda backend's warp launcher on the caller's ρ') equals the cpu backend's
    double step within 1e-4 relative L2 (docs/strip.md's crosscheck tolerance), for events set
    from the GPU or from NumPy; out=rho_prime updates ρ' in place."""
    cpu, gpu = strip_pair
    ev = strip_events(4000, seed=8)
    x = np.random.default_rng(32).random(cpu.image_shape)
    cpu.set_events(ev)
    ref = cpu.iterate(x)
    for events in (kind.to_gpu(ev), ev):
        gpu.set_events(events)
        step = gpu.iterate(kind.to_gpu(x.astype(np.float32)))
        assert kind.is_kind(step) and rel(kind.to_numpy(step), ref) <= 1e-4
    rp = kind.to_gpu(x.astype(np.float32))
    before = kind.ptr(rp)
    assert gpu.iterate(rp, out=rp) is rp and kind.ptr(rp) == before
    assert rel(kind.to_numpy(rp), ref) <= 1e-4
    gpu.set_events(kind.to_gpu(ev))  # a NumPy step after CUDA events: brought to the host once
    assert rel(gpu.iterate(x), ref) <= 1e-4


def test_strip_mlem_on_gpu_events_stays_on_the_gpu(kind, strip_pair):
    """strip.mlem on CUDA events: ρ and ρ' of the events' kind, equal to the cpu (double) run
    within 1e-3 relative L2 after 5 iterations (float steps within 1e-4 each); the callback sees
    ρ as the same kind of array each iteration and False stops."""
    cpu, gpu = strip_pair
    ev = strip_events(20000, seed=9)
    rho_ref, rp_ref = tomoraster.strip.mlem(cpu, ev, iterations=5, return_rho_prime=True)
    seen = []
    rho, rp = tomoraster.strip.mlem(gpu, kind.to_gpu(ev), iterations=5, return_rho_prime=True,
                                    callback=lambda it, r: seen.append((it, kind.is_kind(r))))
    assert seen == [(t, True) for t in range(1, 6)]
    assert kind.is_kind(rho) and kind.is_kind(rp) and tuple(rho.shape) == cpu.image_shape
    assert rel(kind.to_numpy(rp), rp_ref) <= 1e-3
    assert rel(kind.to_numpy(rho), rho_ref) <= 1e-3
    stopped = []
    tomoraster.strip.mlem(gpu, kind.to_gpu(ev), iterations=5, callback=lambda it, r: stopped.append(it) or it < 2)
    assert stopped == [1, 2]


def test_strip_gpu_array_errors(kind, strip_pair):
    cpu, gpu = strip_pair
    ev = strip_events(100)
    x = np.zeros(cpu.image_shape, dtype=np.float32)
    with pytest.raises(TypeError, match="x: a GPU array was given to the cpu backend"):
        cpu.forward(kind.to_gpu(x), kind.to_gpu(ev))
    with pytest.raises(TypeError, match="events: a GPU array was given to the cpu backend"):
        cpu.set_events(kind.to_gpu(ev))
    with pytest.raises(TypeError, match="x: dtype must be float32"):
        gpu.forward(kind.to_gpu(x.astype(np.float64)), kind.to_gpu(ev))
    with pytest.raises(TypeError, match="events: a CUDA array is needed here"):
        gpu.forward(kind.to_gpu(x), ev)
    n = ev.shape[0]  # strip_events keeps the events inside the detectors: fewer than asked
    with pytest.raises(ValueError, match=rf"events: shape \({n}, 2\), expected \({n}, 3\)"):
        gpu.forward(kind.to_gpu(x), kind.to_gpu(np.ascontiguousarray(ev[:, :2])))
    with pytest.raises(ValueError, match="w: shape"):
        gpu.back(kind.to_gpu(np.ones(5, dtype=np.float32)), kind.to_gpu(ev))
    with pytest.raises(ValueError, match="out: shape"):
        gpu.iterate(kind.to_gpu(x), out=kind.empty((3,)))


def second_device(kind, a):
    """`a` on CUDA device 1, or a skip where there is one device."""
    n = kind.mod.cuda.runtime.getDeviceCount() if kind.name == "cupy" else kind.mod.cuda.device_count()
    if n < 2:
        pytest.skip("one CUDA device: no second device to put an array on")
    if kind.name == "cupy":
        with kind.mod.cuda.Device(1):
            return kind.mod.asarray(a)
    return kind.mod.from_numpy(np.ascontiguousarray(a)).to("cuda:1")


def test_strip_device_mismatch_is_one_clear_error(kind, strip_pair):
    _, gpu = strip_pair  # on device 0
    ev = strip_events(100)
    x = np.zeros(gpu.image_shape, dtype=np.float32)
    with pytest.raises(ValueError, match="events: on CUDA device 1, but the operator runs on CUDA device 0"):
        gpu.forward(kind.to_gpu(x), second_device(kind, ev))


def gpu_uint32(kind, a):
    """A uint32 CUDA array, or a skip where the framework cannot export one through DLPack
    (PyTorch's uint32 is a limited dtype)."""
    if kind.name != "torch":
        return kind.to_gpu(a)
    try:
        g = kind.to_gpu(a)
        kind.mod.utils.dlpack.to_dlpack(g)
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"PyTorch makes or exports no uint32 CUDA tensor through DLPack here: {e}")
    return g


@pytest.fixture(scope="module")
def safir_events():
    ev, _, _ = tomoraster.safir.events(**SAFIR)
    return np.ascontiguousarray(ev[:8000])


@pytest.mark.parametrize("halve", [False, True])
def test_safir_mlem_on_gpu_events_stays_on_the_gpu(kind, safir_events, halve):
    """safir.mlem on CUDA events: the image of the events' kind, equal to the cpu (double) run
    within 1e-3 relative L2 after 4 iterations (fp32 fused pass and float atomics vs double;
    with code sample 4's halving too); the callback gets that image each iteration."""
    cpu = tomoraster.safir.Projector(backend="cpu", **SAFIR)
    gpu = tomoraster.safir.Projector(backend="cuda", **SAFIR)
    ref = tomoraster.safir.mlem(cpu, safir_events, iterations=4, halve_events=halve)
    seen = []
    img = tomoraster.safir.mlem(gpu, gpu_uint32(kind, safir_events), iterations=4, halve_events=halve,
                                callback=lambda it, x: seen.append((it, kind.is_kind(x))))
    assert seen == [(t, True) for t in range(1, 5)]
    assert kind.is_kind(img) and tuple(img.shape) == cpu.image_shape
    assert rel(kind.to_numpy(img), ref) <= 1e-3


def test_safir_gpu_events_in_forward_back_and_numpy_calls(kind, safir_events):
    """Events set as a CUDA array (checked and sorted on the GPU) give the forward projection of
    NumPy-set events, on the GPU and (brought to the host once) on the NumPy path; 1e-4 vs cpu."""
    cpu = tomoraster.safir.Projector(backend="cpu", **SAFIR)
    gpu = tomoraster.safir.Projector(backend="cuda", **SAFIR)
    cpu.set_events(safir_events)
    gpu.set_events(gpu_uint32(kind, safir_events))
    x = np.random.default_rng(33).random(cpu.image_shape)
    ref = cpu.forward(x)
    assert rel(kind.to_numpy(gpu.forward(kind.to_gpu(x.astype(np.float32)))), ref) <= 1e-4
    assert rel(gpu.forward(x), ref) <= 1e-4


def test_safir_gpu_event_errors(kind, safir_events):
    cpu = tomoraster.safir.Projector(backend="cpu", **SAFIR)
    gpu = tomoraster.safir.Projector(backend="cuda", **SAFIR)
    ev = safir_events[:10].copy()
    with pytest.raises(TypeError, match="events: a GPU array was given to the cpu backend"):
        tomoraster.safir.mlem(cpu, gpu_uint32(kind, ev), iterations=1)
    with pytest.raises(TypeError, match="events: dtype must be uint32"):
        gpu.set_events(kind.to_gpu(ev.astype(np.int64)))
    with pytest.raises(ValueError, match=r"events: shape \(20,\), expected \(N, 2\)"):
        gpu.set_events(gpu_uint32(kind, ev.reshape(-1)))
    ev[3, 1] = 8 * 64  # one past the scanner's last crystal
    with pytest.raises(ValueError, match="events: row 3 names a crystal id not below the scanner's 512 crystals"):
        gpu.set_events(gpu_uint32(kind, ev))


MUSR = {"problem": "musr", "backend": "cpu", "musr": {"detectors": 4, "bins": 3000, "fit_end": 4.0, "plots": False}}


@pytest.fixture(scope="module")
def musr_msr(tmp_path_factory):
    """An msr and its PSI-BIN data, simulated and fitted by tomoraster.run (no CLI needed)."""
    rep = tomoraster.run(MUSR, out=str(tmp_path_factory.mktemp("musr")), force=True, load=False)
    return str(Path(rep["output_dir"]) / "musr_eq5.msr")


def test_musr_chi2_reads_gpu_bins_in_place(kind, musr_msr):
    """Fit.chi2/chi2_with_gradient with bins= a CUDA array (cuda/musr/device_arrays: the cuda
    backend's generated kernel reading the caller's bins) equal the cpu evaluator on the msr's own
    bins (data()) within 1e-9 (double; the cuda evaluator's own tolerance) and 1e-5 (float, with
    single_precision); other bins give another value (the array is what is read)."""
    cpu = tomoraster.musr.Fit(musr_msr, backend="cpu")
    gpu = tomoraster.musr.Fit(musr_msr, backend="cuda")
    y, p = cpu.data(), cpu.values
    assert y.shape == (cpu.bins,) and y.dtype == np.float64
    ref, gref = cpu.chi2_with_gradient(p)
    b = kind.to_gpu(y)
    assert gpu.chi2(p, bins=b) == pytest.approx(ref, rel=1e-9)
    v, g = gpu.chi2_with_gradient(p, bins=b)
    assert v == pytest.approx(ref, rel=1e-9)
    np.testing.assert_allclose(g, gref, rtol=0, atol=1e-8 * np.abs(gref).max())
    assert abs(gpu.chi2(p, bins=kind.to_gpu(1.5 * y)) - ref) > 1e-3 * ref
    single = tomoraster.musr.Fit(musr_msr, backend="cuda", single_precision=True)
    assert single.chi2(p, bins=kind.to_gpu(y.astype(np.float32))) == pytest.approx(ref, rel=1e-5)


def test_musr_cuda_fit_of_its_own_bins_equals_cpu(musr_msr):
    """The registry's cuda evaluator on the msr's own bins: χ² and gradient
    within 1e-9 of the cpu evaluator in double, 1e-5 in float, and the fit lands on the cpu fit's
    values within a tenth of their HESSE errors."""
    cpu = tomoraster.musr.Fit(musr_msr, backend="cpu")
    gpu = tomoraster.musr.Fit(musr_msr, backend="cuda")
    single = tomoraster.musr.Fit(musr_msr, backend="cuda", single_precision=True)
    p = cpu.values
    ref, gref = cpu.chi2_with_gradient(p)
    v, g = gpu.chi2_with_gradient(p)
    assert v == pytest.approx(ref, rel=1e-9)
    np.testing.assert_allclose(g, gref, rtol=0, atol=1e-8 * np.abs(gref).max())
    assert single.chi2(p) == pytest.approx(ref, rel=1e-5)
    fc, fg = cpu.fit(), single.fit()
    assert fg["statistic"] == fc["statistic"] and fg["value"] == pytest.approx(fc["value"], rel=1e-5)
    for name, err in fc["errors"].items():
        assert abs(fg["values"][name] - fc["values"][name]) <= 0.1 * err, name


def test_musr_gpu_bins_errors(kind, musr_msr):
    cpu = tomoraster.musr.Fit(musr_msr, backend="cpu")
    gpu = tomoraster.musr.Fit(musr_msr, backend="cuda")
    y, p = cpu.data(), cpu.values
    with pytest.raises(TypeError, match="bins: a GPU array was given to the cpu backend"):
        cpu.chi2(p, bins=kind.to_gpu(y))
    with pytest.raises(TypeError, match="bins: a CUDA array is needed here"):
        gpu.chi2(p, bins=y)
    with pytest.raises(TypeError, match="bins: dtype must be float64"):
        gpu.chi2(p, bins=kind.to_gpu(y.astype(np.float32)))
    with pytest.raises(ValueError, match=r"bins: shape \(10,\), expected"):
        gpu.chi2(p, bins=kind.to_gpu(y[:10]))
