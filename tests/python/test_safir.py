"""safir's list-mode operator from Python: ML-EM equals the CLI on the same events, forward/back
are an adjoint pair, gl-compute equals cpu, bad event arrays raise."""
import numpy as np
import pytest

import tomoraster

SAFIR = {"rings": 8, "crystals": 64, "image": [16, 16, 8], "voxel_mm": 1.0, "events": 20000, "iterations": 3,
         "phantom": {"cylinder_radius_mm": 8.0, "cylinder_length_mm": 8.0, "mu_per_mm": 0.0, "background": 1.0,
                     "derenzo": False, "hot_spot_activity": 4.0, "hot_spot_mm": [3.0, -2.0, 0.0]}}
SCENE = {"problem": "safir", "backend": "cpu", "safir": SAFIR}


@pytest.fixture(scope="module")
def cli_run(cli_run_scene):
    return cli_run_scene(SCENE, "safir")


@pytest.fixture(scope="module")
def events(cli_run):
    ev, t, delayed = tomoraster.safir.events(cli_run[0])
    assert ev.shape == (20000, 2) and ev.dtype == np.uint32 and t.shape == (20000,) and delayed == 0
    return ev


def test_mlem_equals_the_cli(cli_run, events):
    scene, out = cli_run
    p = tomoraster.safir.Projector(scene, backend="cpu")
    seen = []
    img = tomoraster.safir.mlem(p, events, callback=lambda it, x: seen.append(it))
    assert seen == [1, 2, 3] and img.shape == p.image_shape == (8, 16, 16)
    ref, _, _ = tomoraster.read_nifti(str(out / "image.nii"))
    np.testing.assert_allclose(img, ref, rtol=1e-5, atol=1e-6 * float(ref.max()))
    s, _, _ = tomoraster.read_nifti(str(out / "sensitivity.nii"))
    np.testing.assert_allclose(p.sensitivity(), s, rtol=1e-6, atol=1e-6 * float(s.max()))


def test_adjoint_identity(events):
    p = tomoraster.safir.Projector(backend="cpu", **SAFIR)
    p.set_events(events[:5000])
    rng = np.random.default_rng(8)
    x = rng.random(p.image_shape)
    v = rng.random(5000)
    lhs = float(p.forward(x) @ v)
    rhs = float(np.sum(x * p.back(v)))
    assert abs(lhs - rhs) <= 1e-12 * abs(lhs)


def test_gl_compute_equals_cpu(events):
    x = np.random.default_rng(9).random((8, 16, 16))
    out = []
    for backend in ("cpu", "gl-compute"):
        p = tomoraster.safir.Projector(backend=backend, **SAFIR)
        p.set_events(events[:5000])
        out.append(p.forward(x))
    assert np.linalg.norm(out[1] - out[0]) <= 1e-4 * np.linalg.norm(out[0])


def test_bad_arrays_raise(events):
    p = tomoraster.safir.Projector(backend="cpu", **SAFIR)
    with pytest.raises(TypeError, match="events: dtype must be uint32"):
        p.set_events(events.astype(np.int64))
    bad = events.copy()
    bad[7, 1] = 8 * 64
    with pytest.raises(ValueError, match="events: crystal id 512 in row 7"):
        p.set_events(bad)
    with pytest.raises(ValueError, match="set_events"):
        p.forward(np.ones(p.image_shape))
    p.set_events(events)
    with pytest.raises(ValueError, match="v: shape"):
        p.back(np.ones(3))


def test_a_run_with_frames_loads_its_4d_image(tmp_path):
    """safir.frame_s writes image.nii 4-D; run() and read_nifti give it as (t, z, y, x)."""
    rep = tomoraster.run({"problem": "safir", "backend": "cpu", "safir": {**SAFIR, "duration_s": 1.0, "frame_s": 0.5}},
                         out=str(tmp_path / "o"))
    img = rep["volumes"]["image"]
    assert img.shape == (2, 8, 16, 16) and np.isfinite(img).all() and img[0].sum() > 0 and img[1].sum() > 0
    arr, _, _, frame_s = tomoraster.read_nifti(str(tmp_path / "o" / "image.nii"), frames=True)
    assert frame_s == pytest.approx(0.5) and arr.shape == img.shape
    assert tomoraster.read_nifti(str(tmp_path / "o" / "sensitivity.nii"), frames=True)[3] == 0
