"""strip's list-mode operator from Python: ML-EM equals the CLI on the same events, forward/back
are an adjoint pair and make the backends' EM step, gl-compute equals cpu, bad arrays raise."""
import numpy as np
import pytest

import tomoraster

SCENE = {"problem": "strip", "backend": "cpu",
         "strip": {"events": 20000, "iterations": 3, "write_events": True, "R": 100.0, "L": 200.0, "pixel_size": 5.0}}


@pytest.fixture(scope="module")
def cli_run(cli_run_scene):
    return cli_run_scene(SCENE, "strip")


@pytest.fixture(scope="module")
def events(cli_run):
    return tomoraster.strip.read_events(cli_run[1] / "events.lm")


def test_mlem_equals_the_cli(cli_run, events):
    scene, out = cli_run
    p = tomoraster.strip.Projector(str(scene), backend="cpu")
    seen = []
    rho = tomoraster.strip.mlem(p, events, callback=lambda it, r: seen.append(it))
    assert seen == [1, 2, 3] and rho.shape == p.image_shape and events.shape == (20000, 3)
    ref, _, _ = tomoraster.read_nifti(str(out / "rho.nii"))
    ref = ref.reshape(p.image_shape)  # (1, n_y, n_z) NIfTI: z of the strip is x there
    np.testing.assert_allclose(rho, ref, rtol=1e-6, atol=1e-6 * float(ref.max()))


def test_callback_false_stops(cli_run, events):
    p = tomoraster.strip.Projector(str(cli_run[0]), backend="cpu")
    seen = []
    rho, rp = tomoraster.strip.mlem(p, events, iterations=10, return_rho_prime=True,
                                    callback=lambda it, r: seen.append(it) or it < 2)
    assert seen == [1, 2]
    two = tomoraster.strip.mlem(p, events, iterations=2, return_rho_prime=True)[1]
    np.testing.assert_allclose(rp, two, rtol=1e-12)  # OpenMP sums in any order


def test_callback_exceptions_reach_the_caller(events):
    p = tomoraster.strip.Projector(SCENE, backend="cpu")

    class Stop(Exception):
        pass

    def cb(it, rho):
        raise Stop(f"at {it}")
    with pytest.raises(Stop, match="at 1"):
        tomoraster.strip.mlem(p, events[:2000], iterations=3, callback=cb)


def test_adjoint_identity_and_the_em_step(events):
    p = tomoraster.strip.Projector(SCENE, backend="cpu")
    ev = np.ascontiguousarray(events[:3000])
    rng = np.random.default_rng(4)
    x = rng.random(p.image_shape)
    w = rng.random(len(ev))
    lhs = float(p.forward(x, ev) @ w)
    rhs = float(np.sum(x * p.back(w, ev)))
    assert abs(lhs - rhs) <= 1e-12 * abs(lhs)
    # eq. (5) from forward/back equals the backend's fused step
    y = p.forward(x, ev)
    ratio = np.where(y > 0, 1.0 / np.where(y > 0, y, 1.0), 0.0)
    p.set_events(ev)
    np.testing.assert_allclose(p.iterate(x), x * p.back(ratio, ev), rtol=1e-10, atol=1e-12)


def test_gl_compute_step_equals_cpu(events):
    ev = np.ascontiguousarray(events[:3000])
    x = np.random.default_rng(5).random((40, 40))
    steps = []
    for backend in ("cpu", "gl-compute"):
        p = tomoraster.strip.Projector(SCENE, backend=backend)
        p.set_events(ev)
        steps.append(p.iterate(x))
    assert np.linalg.norm(steps[1] - steps[0]) <= 1e-4 * np.linalg.norm(steps[0])  # docs/strip.md crosscheck


def test_keywords_make_the_geometry():
    p = tomoraster.strip.Projector(backend="cpu", R=100.0, L=200.0, pixel_size=5.0)
    assert p.image_shape == (40, 40) and p.pixel_mm == (5.0, 5.0)
    assert p.sensitivity().max() > 0


def test_bad_arrays_raise(events):
    p = tomoraster.strip.Projector(SCENE, backend="cpu")
    x = np.ones(p.image_shape)
    with pytest.raises(TypeError, match="events: dtype must be float32"):
        p.forward(x, events.astype(np.float64))
    with pytest.raises(ValueError, match=r"events: shape \(20000, 2\), expected \(N, 3\)"):
        p.forward(x, np.ascontiguousarray(events[:, :2]))
    with pytest.raises(ValueError, match="x: shape"):
        p.forward(x[:3], events)
    with pytest.raises(ValueError, match="w: shape"):
        p.back(np.ones(5), events)
    with pytest.raises(ValueError, match="set_events"):
        p.iterate(x)
    with pytest.raises(ValueError, match="strip.R"):
        tomoraster.strip.Projector(backend="cpu", R=-1.0)
